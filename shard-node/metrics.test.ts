// The shard node's metrics through a real shard-node app, in-process (`app.request()`): endpoint
// latency by route pattern, per-shard document gauges collected at scrape, refresh timings and
// open search contexts, on a `GET /metrics` outside the internal prefix.
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../shared/logger.ts';
import { INTERNAL_PREFIX } from '../protocol/echo.ts';
import { type IndexMetadata } from '../protocol/metadata.ts';
import { type ShardBulkRequest } from '../protocol/write.ts';
import { createShardNodeApp } from './app.ts';
import { loadShardNodeConfig } from './config.ts';
import { IndexRegistry } from './index-registry.ts';
import { sampleValue } from '../test/support/prom-text.ts';
import { clearBlockCache } from './engine/columns/block-cache.ts';

const config = loadShardNodeConfig({ FOLIO_NODE_ID: 'metrics-test', FOLIO_LOG_LEVEL: 'silent', FOLIO_INSECURE: 'true' });
const registry = new IndexRegistry(config.nodeId);
const app = createShardNodeApp(config, registry, createLogger('shard-node', 'silent', {}));
afterAll(() => registry.close());

const metadata: IndexMetadata = {
  name: 'metered',
  uuid: 'metrics-test-uuid',
  numberOfShards: 2,
  numberOfReplicas: 0,
  routingNumShards: 2,
  maxResultWindow: 10_000,
  refreshIntervalMs: -1,
  mappings: { properties: { n: { type: 'long' } } },
  creationDate: 0,
  version: 1,
};

async function call(method: string, path: string, body: unknown): Promise<Response> {
  const res = await app.request(`${INTERNAL_PREFIX}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return res;
}

async function scrape(): Promise<string> {
  const res = await app.request('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
}

describe('shard-node metrics', () => {
  it('exports shard stats, refresh timings, endpoint latency and open contexts', async () => {
    await call('PUT', '/indices/metered', { metadata, shards: [0, 1] });
    const bulk: ShardBulkRequest = {
      index: 'metered',
      shard: 0,
      ops: Array.from({ length: 5 }, (_, i) => ({ op: 'index' as const, _id: `d${i}`, create: false, source: JSON.stringify({ n: i }) })),
      refresh: 'true',
    };
    await call('POST', '/bulk', bulk);
    await call('POST', '/bulk', { index: 'metered', shard: 0, ops: [{ op: 'delete', _id: 'd0' }], refresh: 'false' });
    await call('POST', '/refresh', { index: 'metered', shards: [0] });
    await call('POST', '/query', { index: 'metered', shard: 0, query: { kind: 'match_all', boost: 1 }, sort: [], k: 10, trackTotalHits: 10_000 });
    await call('POST', '/contexts/open', { index: 'metered', shard: 1, kind: 'pit', keepAliveMs: 60_000 });

    const text = await scrape();
    expect(sampleValue(text, 'folio_shard_docs', 'index="metered",shard="0",prirep="p"')).toBe(4);
    expect(sampleValue(text, 'folio_shard_docs', 'index="metered",shard="1"')).toBe(0);
    expect(sampleValue(text, 'folio_shard_deleted_docs', 'index="metered",shard="0"')).toBe(1);
    expect(sampleValue(text, 'folio_shard_segments', 'index="metered",shard="0"')).toBeGreaterThan(0);
    expect(sampleValue(text, 'folio_shard_generation', 'index="metered",shard="0"')).toBeGreaterThan(0);
    expect(sampleValue(text, 'folio_refresh_duration_seconds_count', 'index="metered"')).toBe(2);
    expect(text).toContain('# TYPE folio_flush_duration_seconds histogram');
    expect(sampleValue(text, 'folio_search_contexts_open', 'kind="pit"')).toBe(1);
    expect(sampleValue(text, 'folio_search_contexts_open', 'kind="scroll"')).toBe(0);
    expect(sampleValue(text, 'folio_shard_http_requests_total', 'method="POST",route="/_internal/v1/bulk",status_class="2xx"')).toBe(2);
    expect(sampleValue(text, 'folio_shard_http_request_duration_seconds_count', 'method="POST",route="/_internal/v1/query",status_class="2xx"')).toBe(1);
    expect(sampleValue(text, 'folio_shard_http_requests_total', 'method="PUT",route="/_internal/v1/indices/:index",status_class="2xx"')).toBe(1);
    expect(text).toContain('folio_process_resident_memory_bytes');
  });

  it('exports the block cache counters and bytes by kind', async () => {
    const before = await scrape();
    const misses = sampleValue(before, 'folio_block_cache_misses_total', 'kind="source"')!;
    const hits = sampleValue(before, 'folio_block_cache_hits_total', 'kind="source"')!;
    await call('POST', '/bulk', { index: 'metered', shard: 1, ops: [{ op: 'index', _id: 'c1', create: false, source: '{"n":1}' }], refresh: 'true' });
    clearBlockCache();
    for (let i = 0; i < 2; i++) await call('POST', '/get', { index: 'metered', shard: 1, _id: 'c1', realtime: false });
    const text = await scrape();
    expect(text).toContain('# TYPE folio_block_cache_hits_total counter');
    expect(sampleValue(text, 'folio_block_cache_misses_total', 'kind="source"')).toBe(misses + 1);
    expect(sampleValue(text, 'folio_block_cache_hits_total', 'kind="source"')).toBe(hits + 1);
    expect(sampleValue(text, 'folio_block_cache_evictions_total', 'kind="source"')).toBeGreaterThanOrEqual(0);
    expect(sampleValue(text, 'folio_block_cache_bytes', 'kind="source"')).toBeGreaterThan(0);
    for (const name of ['hits_total', 'misses_total', 'evictions_total', 'bytes'])
      expect(sampleValue(text, `folio_block_cache_${name}`, 'kind="postings"')).toBeTypeOf('number');
  });

  it('drops the gauges of a deleted index', async () => {
    await call('DELETE', '/indices/metered', undefined);
    expect(await scrape()).not.toContain('folio_shard_docs{index="metered"');
  });
});
