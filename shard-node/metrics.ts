/**
 * The shard node's Prometheus metrics (prom-client, one registry per app, names `folio_*`):
 * - `folio_shard_http_requests_total`, `folio_shard_http_request_duration_seconds`
 *   {method, route, status_class}: route = the internal endpoint pattern (`/_internal/v1/query`);
 * - `folio_shard_docs`, `folio_shard_deleted_docs`, `folio_shard_segments`,
 *   `folio_shard_generation` {index, shard, prirep}: the registry's shard stats, collected at scrape
 *   (`prirep` as in `_cat/shards`: `p` for a primary copy, `r` for a replica; sum `p` for an index's docs);
 * - `folio_refresh_duration_seconds`, `folio_flush_duration_seconds` {index}: histograms;
 * - `folio_search_contexts_open` {kind}: open PIT and scroll contexts, at scrape;
 * - `folio_block_cache_hits_total`, `folio_block_cache_misses_total`,
 *   `folio_block_cache_evictions_total`, `folio_block_cache_bytes` {kind}: the process-wide block
 *   cache (engine/columns/block-cache.ts; `kind` = `source` or `postings`), at scrape.
 * `GET /metrics` sits outside the internal API prefix (and its cluster secret).
 */
import type { Hono } from 'hono';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { BLOCK_KINDS, blockCacheStats, type BlockCacheStats } from './engine/columns/block-cache.ts';
import { createMetricsRegistry, instrumentHttp, LATENCY_BUCKETS_SECONDS, METRIC_PREFIX, registerMetricsRoute, type HttpMetrics } from '../shared/metrics.ts';
import type { IndexRegistry } from './index-registry.ts';
import type { SearchContexts } from './search-contexts.ts';

/** The shard node's metrics registry and its HTTP metrics. */
export interface ShardNodeMetrics {
  registry: Registry;
  http: HttpMetrics;
}

/** The shard stats exported as gauges, metric suffix → `Shard.stats()` field. */
const SHARD_GAUGES = [
  ['shard_docs', 'docs', 'Live documents per shard (current refresh generation)'],
  ['shard_deleted_docs', 'deleted', 'Deleted documents not yet merged away, per shard'],
  ['shard_segments', 'segments', 'Segments (views) of the current generation, per shard'],
  ['shard_generation', 'generation', 'Current refresh generation id, per shard'],
] as const;

/**
 * Builds the registry, instruments `app` (HTTP middleware: call before any route), hooks the
 * registry's refresh/flush timings, and registers `GET /metrics`. `defaultMetrics: false` leaves
 * out the Node.js process metrics (tests building many apps).
 */
export function instrumentShardNode(app: Hono, indices: IndexRegistry, contexts: SearchContexts, opts: { defaultMetrics?: boolean } = {}): ShardNodeMetrics {
  const registry = createMetricsRegistry({ service: 'shard-node', defaultMetrics: opts.defaultMetrics });
  const http = instrumentHttp(app, registry, 'shard_http');
  const registers = [registry];
  for (const [suffix, field, help] of SHARD_GAUGES) {
    new Gauge({
      name: `${METRIC_PREFIX}${suffix}`,
      help,
      labelNames: ['index', 'shard', 'prirep'] as const,
      registers,
      collect() {
        this.reset(); // deleted indices disappear
        for (const entry of indices.list()) {
          const index = entry.metadata.name;
          for (const copy of entry.copies ?? entry.shards.map((shard) => ({ shard, primary: true }))) {
            this.set({ index, shard: String(copy.shard), prirep: copy.primary ? 'p' : 'r' }, indices.shard(index, copy.shard).stats()[field]);
          }
        }
      },
    });
  }
  const timing = (what: 'refresh' | 'flush') =>
    new Histogram({
      name: `${METRIC_PREFIX}${what}_duration_seconds`,
      help: `Shard ${what} duration in seconds, by index`,
      labelNames: ['index'] as const,
      buckets: [...LATENCY_BUCKETS_SECONDS],
      registers,
    });
  const refresh = timing('refresh');
  const flush = timing('flush');
  indices.timings = {
    refreshed: (index, seconds) => refresh.observe({ index }, seconds),
    flushed: (index, seconds) => flush.observe({ index }, seconds),
  };
  new Gauge({
    name: `${METRIC_PREFIX}search_contexts_open`,
    help: 'Open search contexts (point in time, scroll) on this node',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      for (const kind of ['pit', 'scroll'] as const) this.set({ kind }, contexts.count(kind));
    },
  });
  registerBlockCacheMetrics(registers);
  registerMetricsRoute(app, registry);
  return { registry, http };
}

/** The block cache's counters and bytes per kind, read at scrape (the cache is process-wide). */
function registerBlockCacheMetrics(registers: Registry[]): void {
  const counters: [keyof BlockCacheStats, string][] = [
    ['hits', 'Block cache lookups that found the block, by kind'],
    ['misses', 'Block cache lookups that read (and decompressed) the block, by kind'],
    ['evictions', 'Blocks evicted from the block cache to stay within its size, by kind'],
  ];
  for (const [field, help] of counters) {
    new Counter({
      name: `${METRIC_PREFIX}block_cache_${field}_total`,
      help,
      labelNames: ['kind'] as const,
      registers,
      collect() {
        this.reset();
        for (const kind of BLOCK_KINDS) this.inc({ kind }, blockCacheStats(kind)[field]);
      },
    });
  }
  new Gauge({
    name: `${METRIC_PREFIX}block_cache_bytes`,
    help: 'Bytes held by the block cache (blocks plus per-entry overhead), by kind',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      for (const kind of BLOCK_KINDS) this.set({ kind }, blockCacheStats(kind).bytes);
    },
  });
}
