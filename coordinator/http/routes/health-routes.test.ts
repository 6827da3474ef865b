// The coordinator's probes in-process: /livez always 200, /readyz 200 until draining, then 503.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { registerHealthRoutes, type CoordinatorReadiness } from './health-routes.ts';

describe('coordinator probes', () => {
  it('answers live, then ready until draining', async () => {
    const readiness: CoordinatorReadiness = { draining: false };
    const app = new Hono();
    registerHealthRoutes(app, { nodeCount: 3, readiness });
    expect((await app.request('/livez')).status).toBe(200);
    const ready = await app.request('/readyz');
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', nodes: 3 }]);
    readiness.draining = true;
    const draining = await app.request('/readyz');
    expect([draining.status, await draining.json()]).toEqual([503, { status: 'draining' }]);
    expect((await app.request('/livez')).status).toBe(200);
    expect((await app.request('/readyz', { method: 'HEAD' })).status).toBe(503);
  });

  it('is not ready without shard-node pools', async () => {
    const app = new Hono();
    registerHealthRoutes(app, { nodeCount: 0, readiness: { draining: false } });
    expect((await app.request('/readyz')).status).toBe(503);
  });
});
