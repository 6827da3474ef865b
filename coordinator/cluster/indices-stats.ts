/**
 * The body of `GET /_stats`, `/{index}/_stats[/{metric}]` (ES `IndicesStatsResponse`), built from
 * the index views and the shard nodes' `GET /_internal/v1/stats`: per active shard copy its
 * document counts, estimated store size (as `_cat/indices` estimates it), operation counters and
 * checkpoints (shard-node/engine/shard-counters.ts), summed into `primaries` (primary copies) and
 * `total` (every copy) per index and over all (`_all`), with the per-copy entries under `shards`
 * at `level=shards`. Folio measures counts, not times: every `*_time_in_millis` and `*_current` is 0.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-stats.html
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/rest/action/admin/indices/RestIndicesStatsAction.java
 */
import { illegalArgument } from '../../protocol/errors.ts';
import { similarNames } from '../rest/params.ts';
import { copyActive, indexHealth } from './cluster-health.ts';
import type { IndexView } from './index-view.ts';
import { isClosed } from './index-state.ts';
import { shardKey, type ClusterStats, type ShardStatsEntry } from './node-probe.ts';
import { ESTIMATED_STORE_BYTES_PER_DOC } from '../http/routes/cat-routes.ts';

/** ES's index stats metrics (`RestIndicesStatsAction.METRICS`), in its order. */
export const STATS_METRICS = [
  'docs',
  'store',
  'indexing',
  'search',
  'get',
  'merge',
  'refresh',
  'flush',
  'warmer',
  'query_cache',
  'segments',
  'fielddata',
  'completion',
  'translog',
  'request_cache',
  'recovery',
  'bulk',
  'shard_stats',
  'mappings',
  'dense_vector',
  'sparse_vector',
] as const;

/** The metrics Folio measures; the others are accepted and left out of the reply. */
const MEASURED = ['docs', 'shard_stats', 'store', 'indexing', 'get', 'search', 'refresh', 'flush', 'request_cache'] as const;
type Measured = (typeof MEASURED)[number];

/** How much detail the reply has (ES `level`): `_all` only, per index too, or per shard copy too. */
export type StatsLevel = 'cluster' | 'indices' | 'shards';

/**
 * The `metric` path part as ES reads it: absent or `_all` = every metric; else a comma list of
 * known names, `_all` not among them.
 * @throws EsError 400 `request [/_stats/x] contains unrecognized metric: [x] -> did you mean [y]?`, or
 *   `request [p] contains _all and individual metrics [_all,docs]`
 */
export function parseStatsMetrics(path: string, raw: string | undefined): Set<string> {
  const list = (raw ?? '_all')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const metrics = new Set(list.length === 0 ? ['_all'] : list);
  if (metrics.size === 1 && metrics.has('_all')) return new Set(STATS_METRICS);
  if (metrics.has('_all')) throw illegalArgument(`request [${path}] contains _all and individual metrics [${raw}]`);
  const known: readonly string[] = STATS_METRICS;
  const invalid = [...metrics].filter((m) => !known.includes(m)).sort();
  if (invalid.length > 0) {
    const parts = invalid.map((b) => {
      const c = similarNames(b, known, 0.5);
      return `[${b}]` + (c.length === 0 ? '' : ` -> did you mean ${c.length > 1 ? 'any of ' : ''}[${c.join(', ')}]?`);
    });
    throw illegalArgument(`request [${path}] contains unrecognized metric${invalid.length > 1 ? 's' : ''}: ${parts.join(', ')}`);
  }
  return metrics;
}

/**
 * ES `level`: `cluster`, `indices` (default) or `shards`, any case.
 * @throws EsError 400 `level parameter must be one of [cluster] or [indices] or [shards] but was [x]`
 */
export function parseStatsLevel(raw: string | undefined): StatsLevel {
  const level = (raw ?? 'indices').toLowerCase();
  if (level === 'cluster' || level === 'indices' || level === 'shards') return level;
  throw illegalArgument(`level parameter must be one of [cluster] or [indices] or [shards] but was [${raw}]`);
}

/** The summable figures of a set of shard copies. */
interface Totals {
  copies: number;
  docs: number;
  deleted: number;
  indexTotal: number;
  indexFailed: number;
  deleteTotal: number;
  noopUpdateTotal: number;
  getTotal: number;
  getExists: number;
  getMissing: number;
  openContexts: number;
  queryTotal: number;
  fetchTotal: number;
  scrollTotal: number;
  refreshTotal: number;
  flushTotal: number;
  requestCacheBytes: number;
  requestCacheEvictions: number;
  requestCacheHits: number;
  requestCacheMisses: number;
}

const zero = (): Totals => ({
  copies: 0,
  docs: 0,
  deleted: 0,
  indexTotal: 0,
  indexFailed: 0,
  deleteTotal: 0,
  noopUpdateTotal: 0,
  getTotal: 0,
  getExists: 0,
  getMissing: 0,
  openContexts: 0,
  queryTotal: 0,
  fetchTotal: 0,
  scrollTotal: 0,
  refreshTotal: 0,
  flushTotal: 0,
  requestCacheBytes: 0,
  requestCacheEvictions: 0,
  requestCacheHits: 0,
  requestCacheMisses: 0,
});

function add(t: Totals, s: ShardStatsEntry): void {
  t.copies++;
  t.docs += s.docs;
  t.deleted += s.deleted;
  const rc = s.requestCache;
  if (rc) {
    t.requestCacheBytes += rc.memorySizeInBytes;
    t.requestCacheEvictions += rc.evictions;
    t.requestCacheHits += rc.hitCount;
    t.requestCacheMisses += rc.missCount;
  }
  const o = s.ops;
  if (!o) return;
  t.indexTotal += o.indexTotal;
  t.indexFailed += o.indexFailed;
  t.deleteTotal += o.deleteTotal;
  t.noopUpdateTotal += o.noopUpdateTotal;
  t.getTotal += o.getTotal;
  t.getExists += o.getExists;
  t.getMissing += o.getMissing;
  t.openContexts += o.openContexts;
  t.queryTotal += o.queryTotal;
  t.fetchTotal += o.fetchTotal;
  t.scrollTotal += o.scrollTotal;
  t.refreshTotal += o.refreshTotal;
  t.flushTotal += o.flushTotal;
}

/** One `CommonStats` object in ES's key order, with the `metrics` asked for that Folio measures. */
function commonStats(t: Totals, metrics: ReadonlySet<string>): Record<string, unknown> {
  const bytes = (t.docs + t.deleted) * ESTIMATED_STORE_BYTES_PER_DOC;
  const sections: Record<Measured, () => unknown> = {
    docs: () => ({ count: t.docs, deleted: t.deleted, total_size_in_bytes: t.docs * ESTIMATED_STORE_BYTES_PER_DOC }),
    shard_stats: () => ({ total_count: t.copies }),
    store: () => ({ size_in_bytes: bytes, total_data_set_size_in_bytes: bytes, reserved_in_bytes: 0 }),
    indexing: () => ({
      index_total: t.indexTotal,
      index_time_in_millis: 0,
      index_current: 0,
      index_failed: t.indexFailed,
      delete_total: t.deleteTotal,
      delete_time_in_millis: 0,
      delete_current: 0,
      noop_update_total: t.noopUpdateTotal,
      is_throttled: false,
      throttle_time_in_millis: 0,
      write_load: 0.0,
    }),
    get: () => ({
      total: t.getTotal,
      time_in_millis: 0,
      exists_total: t.getExists,
      exists_time_in_millis: 0,
      missing_total: t.getMissing,
      missing_time_in_millis: 0,
      current: 0,
    }),
    search: () => ({
      open_contexts: t.openContexts,
      query_total: t.queryTotal,
      query_time_in_millis: 0,
      query_current: 0,
      fetch_total: t.fetchTotal,
      fetch_time_in_millis: 0,
      fetch_current: 0,
      scroll_total: t.scrollTotal,
      scroll_time_in_millis: 0,
      scroll_current: 0,
      suggest_total: 0,
      suggest_time_in_millis: 0,
      suggest_current: 0,
    }),
    refresh: () => ({ total: t.refreshTotal, total_time_in_millis: 0, external_total: t.refreshTotal, external_total_time_in_millis: 0, listeners: 0 }),
    flush: () => ({ total: t.flushTotal, periodic: 0, total_time_in_millis: 0 }),
    request_cache: () => ({
      memory_size_in_bytes: t.requestCacheBytes,
      evictions: t.requestCacheEvictions,
      hit_count: t.requestCacheHits,
      miss_count: t.requestCacheMisses,
    }),
  };
  const out: Record<string, unknown> = {};
  for (const m of MEASURED) if (metrics.has(m)) out[m] = sections[m]();
  return out;
}

/** One active copy of a shard: its node's name, role and stats. */
interface CopyStats {
  shard: number;
  primary: boolean;
  node: string | null;
  stats: ShardStatsEntry;
}

/**
 * The body of an indices stats request over `views` (closed indices have no entry, as their
 * shards report nothing): `_shards` (`total`: every configured copy, `successful`: the active
 * copies that reported, as ES counts unassigned replicas in the total only), `_all` and, unless
 * `level` is `cluster`, `indices` (`uuid`, `health`, `status`, `primaries`, `total`, and with
 * `level=shards` each copy's `routing`, sections and `seq_no`).
 */
export function indicesStatsBody(views: readonly IndexView[], stats: ClusterStats, metrics: ReadonlySet<string>, level: StatsLevel): Record<string, unknown> {
  const reachable = stats.nodes.map((n) => n.reachable);
  let total = 0;
  let successful = 0;
  const all = { primaries: zero(), total: zero() };
  const indices: Record<string, unknown> = {};
  for (const v of views) {
    const m = v.metadata;
    if (isClosed(m)) continue;
    total += m.numberOfShards * (1 + m.numberOfReplicas);
    const copies: CopyStats[] = [];
    v.copies.forEach((list, shard) => {
      for (const c of list) {
        if (!copyActive(c, reachable)) continue;
        const s = stats.shards.get(shardKey(m.name, shard))?.get(c.node);
        if (s) copies.push({ shard, primary: c.primary, node: stats.nodes[c.node]?.name ?? null, stats: s });
      }
    });
    successful += copies.length;
    const mine = { primaries: zero(), total: zero() };
    for (const c of copies) {
      add(mine.total, c.stats);
      add(all.total, c.stats);
      if (c.primary) {
        add(mine.primaries, c.stats);
        add(all.primaries, c.stats);
      }
    }
    if (level === 'cluster') continue;
    const entry: Record<string, unknown> = {
      uuid: m.uuid,
      health: indexHealth(m, v.copies, reachable).status,
      status: 'open',
      primaries: commonStats(mine.primaries, metrics),
      total: commonStats(mine.total, metrics),
    };
    if (level === 'shards') entry.shards = shardEntries(copies, metrics);
    indices[m.name] = entry;
  }
  const body: Record<string, unknown> = {
    _shards: { total, successful, failed: 0 },
    _all: { primaries: commonStats(all.primaries, metrics), total: commonStats(all.total, metrics) },
  };
  if (level !== 'cluster') body.indices = indices;
  return body;
}

/** `shards` of an index at `level=shards`: per shard number, its copies (ES `ShardStats`: routing, sections, `seq_no`). */
function shardEntries(copies: readonly CopyStats[], metrics: ReadonlySet<string>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const c of [...copies].sort((a, b) => a.shard - b.shard || Number(b.primary) - Number(a.primary))) {
    const t = zero();
    add(t, c.stats);
    const seq = c.stats.seqNo;
    (out[String(c.shard)] ??= []).push({
      routing: { state: 'STARTED', primary: c.primary, node: c.node, relocating_node: null },
      ...commonStats(t, metrics),
      ...(seq ? { seq_no: { max_seq_no: seq.maxSeqNo, local_checkpoint: seq.localCheckpoint, global_checkpoint: seq.globalCheckpoint } } : {}),
    });
  }
  return out;
}
