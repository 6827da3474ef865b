// The coordinator's metrics and `profile: true`, with the coordinator app in-process
// (`app.request()`) over two real shard-node apps served on loopback: a search observes every
// phase histogram and the per-node fan-out histogram; failures count by kind; `/metrics` serves
// the pool gauges and reply bytes; profile has one entry per shard.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../shared/logger.ts';
import { openTestClusterState, type TestClusterState } from '../test/support/cluster-state.ts';
import { InProcessShardNodes } from '../test/support/in-process-shard-nodes.ts';
import { sampleValue } from '../test/support/prom-text.ts';
import { createCoordinatorApp } from './app.ts';
import { ClusterView } from './cluster/cluster-view.ts';
import { loadCoordinatorConfig } from './config.ts';
import { endpointLabel, instrumentCoordinator } from './metrics.ts';
import { FUSED_FETCH_DESCRIPTION, type ProfileBody } from './search/profile.ts';
import { rpc } from '../protocol/rpc.ts';
import { ShardClient } from './transport/shard-client.ts';

const silent = createLogger('test', 'silent', {});
const shardNodes = new InProcessShardNodes();
let urls: string[] = [];
let app: Hono;
let client: ShardClient;
let state: TestClusterState;

async function json(method: string, path: string, body?: unknown, type = 'application/json'): Promise<{ status: number; body: any }> {
  const res = await app.request(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': type },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function scrape(): Promise<string> {
  const res = await app.request('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

beforeAll(async () => {
  urls = [await shardNodes.start(0), await shardNodes.start(1)];
  const config = loadCoordinatorConfig({ FOLIO_NODES: urls.join(','), FOLIO_LOG_LEVEL: 'silent', FOLIO_INSECURE: 'true', FOLIO_DEEP_PAGE_FROM: '4' });
  client = new ShardClient(urls, { connectionsPerNode: 4, maxResponseBytes: 1 << 20 });
  state = await openTestClusterState();
  const view = new ClusterView(client, 5_000, state.access);
  app = createCoordinatorApp({ config, view, client, log: silent, clusterUuid: 'metrics-test' });
  expect((await json('PUT', '/metered', { settings: { number_of_shards: 2 } })).status).toBe(200);
  const lines = Array.from({ length: 12 }, (_, i) => `{"index":{"_id":"d${i}"}}\n{"n":${i}}\n`).join('');
  expect((await json('POST', '/metered/_bulk?refresh=true', lines, 'application/x-ndjson')).body.errors).toBe(false);
});

afterAll(async () => {
  await client.close();
  await state.close();
  await shardNodes.close();
});

describe('coordinator metrics', () => {
  it('labels internal endpoints without index names', () => {
    expect(endpointLabel('/_internal/v1/query')).toBe('query');
    expect(endpointLabel('/_internal/v1/select/sample')).toBe('select/sample');
    expect(endpointLabel('/_internal/v1/indices/my-index/_mapping')).toBe('indices/:index/_mapping');
    expect(endpointLabel('/_internal/v1/indices')).toBe('indices');
  });

  it('observes every search phase, the fan-out per node and the HTTP route of a search', async () => {
    const before = await scrape();
    const phaseCount = (text: string, phase: string) => sampleValue(text, 'folio_search_phase_duration_seconds_count', `phase="${phase}"`) ?? 0;
    const res = await json('POST', '/metered/_search', { size: 3, sort: [{ n: 'asc' }] });
    expect(res.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['d0', 'd1', 'd2']);
    expect(res.body.profile).toBeUndefined();
    const after = await scrape();
    for (const phase of ['parse', 'plan', 'query', 'merge', 'fetch', 'respond']) expect(phaseCount(after, phase) - phaseCount(before, phase)).toBe(1);
    expect(phaseCount(after, 'select')).toBe(phaseCount(before, 'select'));
    for (const node of urls) {
      expect(sampleValue(after, 'folio_shard_call_duration_seconds_count', `node="${node}",endpoint="query"`)).toBeGreaterThanOrEqual(1);
      expect(sampleValue(after, 'folio_shard_pool_size', `node="${node}"`)).toBeGreaterThanOrEqual(0);
      expect(sampleValue(after, 'folio_shard_pool_connected', `node="${node}"`)).toBeGreaterThanOrEqual(1);
    }
    expect(sampleValue(after, 'folio_http_requests_total', 'method="POST",route="/:index/_search",status_class="2xx"')).toBe(1);
    expect(sampleValue(after, 'folio_http_request_duration_seconds_count', 'method="PUT",route="/:index",status_class="2xx"')).toBe(1);
    expect(sampleValue(after, 'folio_shard_response_bytes_total')).toBe(client.stats().shard_response_bytes);
    expect(sampleValue(after, 'folio_shard_response_bytes_total')).toBeGreaterThan(0);
    expect(after).toContain('folio_nodejs_heap_size_used_bytes');
  });

  it('times a deep page as the select phase', async () => {
    const before = sampleValue(await scrape(), 'folio_search_phase_duration_seconds_count', 'phase="select"') ?? 0;
    const res = await json('POST', '/metered/_search', { from: 5, size: 2, sort: [{ n: 'asc' }] });
    expect(res.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['d5', 'd6']);
    expect(sampleValue(await scrape(), 'folio_search_phase_duration_seconds_count', 'phase="select"')).toBe(before + 1);
  });

  it('counts failed calls by kind, and timeouts apart', async () => {
    const hang: Server = createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
    const hangUrl = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
    const deadUrl = 'http://127.0.0.1:1';
    const failing = new ShardClient([hangUrl, deadUrl], { connectionsPerNode: 1, maxResponseBytes: 1024 });
    const metrics = instrumentCoordinator(new Hono(), failing, { defaultMetrics: false });
    await expect(failing.rpc(0, rpc.query, {} as never, { timeoutMs: 50 })).rejects.toMatchObject({ kind: 'timeout' });
    await expect(failing.rpc(1, rpc.query, {} as never, { timeoutMs: 2_000 })).rejects.toMatchObject({ kind: 'connection' });
    const text = await metrics.registry.metrics();
    expect(sampleValue(text, 'folio_shard_call_errors_total', `node="${hangUrl}",endpoint="query",kind="timeout"`)).toBe(1);
    expect(sampleValue(text, 'folio_shard_call_timeouts_total', `node="${hangUrl}",endpoint="query"`)).toBe(1);
    expect(sampleValue(text, 'folio_shard_call_errors_total', `node="${deadUrl}",endpoint="query",kind="connection"`)).toBe(1);
    expect(sampleValue(text, 'folio_shard_call_timeouts_total', `node="${deadUrl}",endpoint="query"`)).toBeUndefined();
    expect(sampleValue(text, 'folio_shard_call_duration_seconds_count', `node="${deadUrl}",endpoint="query"`)).toBe(1);
    await failing.close().catch(() => {});
    hang.closeAllConnections();
    hang.close();
  });
});

describe('profile: true', () => {
  it('returns one entry per shard with its query and fetch call times and the merge time', async () => {
    // 2 shards × 70 > FUSED_FETCH_MAX_SOURCES: the fetch is a round of its own.
    const res = await json('POST', '/metered/_search', { profile: true, size: 70, sort: [{ n: 'asc' }] });
    expect(res.status).toBe(200);
    const profile = res.body.profile as ProfileBody;
    expect(Object.keys(res.body).at(-1)).toBe('profile');
    expect(profile.shards.map((s) => s.shard_id).sort()).toEqual([0, 1]);
    for (const s of profile.shards) expect(s.id).toBe(`[${s.node_id}][metered][${s.shard_id}]`);
    expect(profile.shards.map((s) => s.node_id).every((n) => n === 'node-0' || n === 'node-1')).toBe(true);
    for (const s of profile.shards) {
      expect(s).toMatchObject({ index: 'metered', searches: [{ rewrite_time: 0, collector: [] }] });
      expect(s.searches[0].query.map((q) => q.description)).toEqual(['query']);
      expect(s.searches[0].query[0].time_in_nanos).toBeGreaterThan(0);
      expect(s.fetch?.time_in_nanos).toBeGreaterThan(0);
    }
    expect(profile.coordinator.merge_time_in_nanos).toBeGreaterThan(0);
    expect(Object.keys(profile.coordinator.phases_in_nanos)).toEqual(['parse', 'plan', 'query', 'merge', 'fetch', 'respond']);
  });

  it("marks a small page's fetch as fused into the query call", async () => {
    const res = await json('POST', '/metered/_search', { profile: true, size: 12, sort: [{ n: 'asc' }] });
    expect(res.status).toBe(200);
    const profile = res.body.profile as ProfileBody;
    expect(profile.shards).toHaveLength(2);
    for (const s of profile.shards) {
      expect(s.searches[0].query[0].time_in_nanos).toBeGreaterThan(0);
      expect(s.fetch).toMatchObject({ type: 'fetch', description: FUSED_FETCH_DESCRIPTION, time_in_nanos: 0 });
    }
    expect(res.body.hits.hits).toHaveLength(12);
    for (const h of res.body.hits.hits) expect(h._source).toBeDefined();
  });

  it('profiles the selection rounds of a deep page, and a page without fetch', async () => {
    const res = await json('POST', '/metered/_search', { profile: true, from: 6, size: 2, sort: [{ n: 'desc' }], _source: false });
    expect(res.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['d5', 'd4']);
    const profile = res.body.profile as ProfileBody;
    expect(profile.shards).toHaveLength(2);
    for (const s of profile.shards) {
      expect(s.searches[0].query.map((q) => q.description)).toEqual(['select/sample', 'select/range']);
      expect(s.fetch).toBeUndefined();
    }
    expect(profile.coordinator.phases_in_nanos.select).toBeGreaterThan(0);
    expect(profile.coordinator.merge_time_in_nanos).toBe(0);
  });

  it('rejects a non-boolean profile as ES does', async () => {
    const res = await json('POST', '/metered/_search', { profile: 'maybe' });
    expect(res.status).toBe(400);
  });
});
