// Batched shard calls (coordinator/transport/shard-batcher.ts, ShardClient.sendBatch) against real shard-node
// apps on loopback: concurrent searches through a batching coordinator answer exactly what an
// unbatched one answers; each batched call keeps its own errors, deadline and cancellation.
import { serve, type ServerType } from '@hono/node-server';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logger.ts';
import { openTestClusterState, type TestClusterState } from '../../test/support/cluster-state.ts';
import { rpc } from '../../protocol/rpc.ts';
import { type QueryPhaseRequest } from '../../protocol/search.ts';
import { HITS_CONTENT_TYPE } from '../../protocol/wire.ts';
import { createShardNodeApp } from '../../shard-node/app.ts';
import { loadShardNodeConfig } from '../../shard-node/config.ts';
import { IndexRegistry } from '../../shard-node/index-registry.ts';
import { createCoordinatorApp } from '../app.ts';
import { ClusterView } from '../cluster/cluster-view.ts';
import { loadCoordinatorConfig } from '../config.ts';
import { ShardClient } from './shard-client.ts';

const silent = createLogger('test', 'silent', {});
const servers: ServerType[] = [];
let urls: string[] = [];
let batching: { app: Hono; client: ShardClient };
let plain: { app: Hono; client: ShardClient };
let state: TestClusterState | undefined;

async function listen(i: number): Promise<string> {
  const config = loadShardNodeConfig({ FOLIO_NODE_ID: `node-${i}`, FOLIO_LOG_LEVEL: 'silent', FOLIO_INSECURE: 'true' });
  const app = createShardNodeApp(config, new IndexRegistry(config.nodeId), silent);
  return new Promise((resolve) => {
    servers.push(serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(`http://127.0.0.1:${info.port}`)));
  });
}

async function coordinator(batchCalls: boolean): Promise<{ app: Hono; client: ShardClient }> {
  const config = loadCoordinatorConfig({ FOLIO_NODES: urls.join(','), FOLIO_LOG_LEVEL: 'silent', FOLIO_INSECURE: 'true' });
  const client = new ShardClient(urls, { connectionsPerNode: 4, maxResponseBytes: 1 << 24, batchCalls });
  // Both coordinators share one cluster state, as two coordinators of one cluster do.
  state ??= await openTestClusterState();
  return { app: createCoordinatorApp({ config, view: new ClusterView(client, 5_000, state.access), client, log: silent, clusterUuid: 'batch-test' }), client };
}

async function json(app: Hono, method: string, path: string, body?: unknown, type = 'application/json'): Promise<{ status: number; body: any }> {
  const res = await app.request(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': type },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  urls = [await listen(0), await listen(1)];
  batching = await coordinator(true);
  plain = await coordinator(false);
  expect((await json(batching.app, 'PUT', '/batched', { settings: { number_of_shards: 4 } })).status).toBe(200);
  const lines = Array.from({ length: 300 }, (_, i) => `{"index":{"_id":"d${i}"}}\n{"n":${i % 17},"t":"word${i % 5} common"}\n`).join('');
  expect((await json(batching.app, 'POST', '/batched/_bulk?refresh=true', lines, 'application/x-ndjson')).body.errors).toBe(false);
});

afterAll(async () => {
  await Promise.all([batching.client.close(), plain.client.close()]);
  await state?.close();
  for (const s of servers) s.close();
});

describe('batched shard calls', () => {
  it('answer concurrent searches exactly as unbatched calls do, in fewer requests', async () => {
    const bodies = [
      { size: 5, sort: [{ n: 'asc' }] },
      { from: 20, size: 10, sort: [{ n: 'desc' }] },
      { query: { match: { t: 'word3' } }, size: 7 },
      { from: 600, size: 3, sort: [{ n: 'asc' }] }, // past the hits: empty page
      { from: 100, size: 8, sort: [{ n: 'asc' }], _source: ['n'] },
      { query: { term: { n: 4 } }, size: 100 },
    ];
    const before = batching.client.stats();
    const run = (app: Hono) => Promise.all(bodies.flatMap((b) => [b, b]).map((b) => json(app, 'POST', '/batched/_search', b)));
    const [got, want] = [await run(batching.app), await run(plain.app)];
    const strip = (r: { status: number; body: any }) => ({ status: r.status, body: { ...r.body, took: 0 } });
    expect(got.map(strip)).toEqual(want.map(strip));
    for (const r of got) expect(r.body._shards.failed).toBe(0);
    const after = batching.client.stats();
    expect(after.shard_batches).toBeGreaterThan(before.shard_batches);
    expect(after.shard_batched_calls - before.shard_batched_calls).toBeGreaterThan(after.shard_batches - before.shard_batches);
    expect(plain.client.stats().shard_batches).toBe(0);
  });

  it("keeps each call's own error: a missing shard fails alone", async () => {
    const ok: QueryPhaseRequest = {
      index: 'batched',
      shard: 0,
      query: { kind: 'match_all', boost: 1 },
      k: 2,
      trackTotalHits: 10_000,
      sort: [{ kind: 'field', field: 'n', order: 'asc', missing: '_last', mode: 'min' }],
    };
    const opts = { timeoutMs: 5_000, accept: HITS_CONTENT_TYPE };
    const [a, b] = await Promise.allSettled([batching.client.rpc(0, rpc.query, ok, opts), batching.client.rpc(0, rpc.query, { ...ok, index: 'nope' }, opts)]);
    expect(a.status).toBe('fulfilled');
    expect((a as PromiseFulfilledResult<any>).value.hits).toHaveLength(2);
    expect(b).toMatchObject({ status: 'rejected', reason: { kind: 'response', status: 404, cause_: { type: 'index_not_found_exception' } } });
  });
});

describe('batched calls to a node that never answers', () => {
  let hang: Server;
  let client: ShardClient;
  beforeAll(async () => {
    hang = createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
    client = new ShardClient([`http://127.0.0.1:${(hang.address() as AddressInfo).port}`], { connectionsPerNode: 2, maxResponseBytes: 1024 });
  });
  afterAll(async () => {
    await client.close().catch(() => {});
    hang.closeAllConnections();
    hang.close();
  });

  it('time out each call at its own deadline, and cancel one without the other', async () => {
    const aborter = new AbortController();
    const started = performance.now();
    const calls = [
      client.rpc(0, rpc.query, {} as never, { timeoutMs: 100 }),
      client.rpc(0, rpc.query, {} as never, { timeoutMs: 400 }),
      client.rpc(0, rpc.fetch, {} as never, { timeoutMs: 5_000, signal: aborter.signal }),
    ];
    setTimeout(() => aborter.abort(), 50);
    const settled = await Promise.all(
      calls.map((p) =>
        p.then(
          () => null,
          (err) => ({ err, ms: performance.now() - started }),
        ),
      ),
    );
    expect(settled[2]).toMatchObject({ err: { kind: 'aborted', cause_: { type: 'task_cancelled_exception' } } });
    expect(settled[0]).toMatchObject({ err: { kind: 'timeout', cause_: { type: 'timeout_exception' } } });
    expect(settled[1]).toMatchObject({ err: { kind: 'timeout' } });
    // Each settles on its own: the cancelled one first, then the 100 ms deadline, then the 400 ms one.
    expect(settled[2]!.ms).toBeLessThan(settled[0]!.ms);
    expect(settled[0]!.ms).toBeGreaterThanOrEqual(95);
    expect(settled[0]!.ms).toBeLessThan(settled[1]!.ms);
    expect(settled[1]!.ms).toBeGreaterThanOrEqual(395);
    expect(client.stats().shard_batches).toBe(1);
  });
});
