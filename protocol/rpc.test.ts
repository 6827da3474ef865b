import { describe, expect, it } from 'vitest';
import { INTERNAL_PREFIX } from './echo.ts';
import { batchableRpc, requestPath, rpc, RPCS } from './rpc.ts';

describe('the RPC table', () => {
  it('names every action by its key, under the internal prefix, once per method and path', () => {
    for (const [key, d] of Object.entries(rpc)) {
      expect(d.name).toBe(key);
      expect(d.path).toBe(`${INTERNAL_PREFIX}/${d.endpoint}`);
      expect(Object.isFrozen(d)).toBe(true);
    }
    const routes = RPCS.map((d) => `${d.method} ${d.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it('batches the search rounds only, and no pinned action fails over', () => {
    expect(RPCS.filter((d) => d.batchable).map((d) => d.endpoint)).toEqual(['dfs', 'query', 'select/sample', 'select/range', 'fetch', 'aggs']);
    for (const d of RPCS) {
      if (d.batchable) expect(d.method).toBe('POST');
      if (d.pinned) expect(d.failover).toBe(false);
    }
    expect(RPCS.filter((d) => d.pinned).map((d) => d.name)).toEqual(['selectRange', 'aggs']);
    expect(batchableRpc('select/sample')).toBe(rpc.selectSample);
    expect(batchableRpc('bulk')).toBeUndefined();
    expect(batchableRpc('batch')).toBeUndefined();
  });

  it('carries no body for GET and DELETE: their request is in the path', () => {
    for (const d of RPCS) expect(d.input === 'params').toBe(d.method === 'GET' || d.method === 'DELETE');
    expect(requestPath(rpc.deleteIndex, { index: 'a/b c' })).toBe(`${INTERNAL_PREFIX}/indices/a%2Fb%20c`);
    expect(requestPath(rpc.putIndex, { metadata: { name: 'logs-1' } as never, shards: [] })).toBe(`${INTERNAL_PREFIX}/indices/logs-1`);
    expect(requestPath(rpc.health, undefined)).toBe(`${INTERNAL_PREFIX}/health`);
  });

  it('puts the request of a bytes action in its `meta` parameter', () => {
    const meta = { index: 'i', shard: 0, primaryTerm: 2, copyId: 'c' };
    const path = requestPath(rpc.recoveryApply, meta);
    expect(path.startsWith(`${INTERNAL_PREFIX}/recovery/apply?meta=`)).toBe(true);
    expect(JSON.parse(new URL(path, 'http://x').searchParams.get('meta')!)).toEqual(meta);
  });
});
