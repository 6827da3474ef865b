// The shard node's probes in-process: /readyz is 503 while recovering or draining; /livez stays 200.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { notReadyReason, registerShardProbes, type ShardReadiness } from './probes.ts';

describe('shard-node probes', () => {
  it('reports recovering, ready, then draining', async () => {
    const readiness: ShardReadiness = { recovering: true, draining: false };
    const app = new Hono();
    registerShardProbes(app, 'shard-7', readiness);
    const body = async (path: string) => {
      const res = await app.request(path);
      return [res.status, await res.json()];
    };
    expect(await body('/readyz')).toEqual([503, { status: 'recovering', node: 'shard-7' }]);
    expect(await body('/livez')).toEqual([200, { status: 'alive', node: 'shard-7' }]);
    readiness.recovering = false;
    expect(await body('/readyz')).toEqual([200, { status: 'ready', node: 'shard-7' }]);
    readiness.draining = true;
    expect(await body('/readyz')).toEqual([503, { status: 'draining', node: 'shard-7' }]);
    expect(await body('/livez')).toEqual([200, { status: 'alive', node: 'shard-7' }]);
  });

  it('names draining first when both hold', () => {
    expect(notReadyReason({ recovering: true, draining: true })).toBe('draining');
    expect(notReadyReason({ recovering: false, draining: false })).toBeUndefined();
  });
});
