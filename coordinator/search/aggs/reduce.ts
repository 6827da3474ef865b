/**
 * The coordinator's reduce of aggregations (pure: no I/O), ES's `InternalAggregation.reduce` for
 * every supported type: partial results of the shards (protocol/aggs.ts) → one reduced
 * tree, rendered by render.ts. Each `terms` aggregation is settled exactly (terms-settle.ts): while
 * one is not, the reduce answers the refinement tasks to send instead, and the aggregation phase
 * (aggs-phase.ts) runs it again with the replies. Buckets are counted against
 * `search.max_buckets` (empty histogram buckets included) as ES's `MultiBucketConsumer` does.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/InternalAggregation.java
 * @see docs/aggregations.md
 */
import { DEFAULT_MAX_BUCKETS, tooManyBuckets } from '../../../shared/aggs/too-many-buckets.ts';
import type {
  AggNode,
  BucketScriptAgg,
  ParentPipelineAgg,
  BucketMetricAgg,
  CompositeAgg,
  TopHitsAgg,
  HistogramAgg,
  MetricAggNode,
  PercentilesAgg,
  TermsAgg,
} from '../../../protocol/agg-request.ts';
import { compareCompositeKeys, type CompositeKey } from '../../../shared/aggs/composite-key.ts';
import { nextDateKey, roundDate, UTC, zoneOf } from '../../../shared/aggs/date-zone.ts';
import { parseOrderPath } from '../../../shared/aggs/terms-plan.ts';
import type { AggPartial, BucketKey, BucketStep, TermsPartial, TermsRefineTask, TopHitsPartial } from '../../../protocol/aggs.ts';
import { SCORE_SORT } from '../../../protocol/sort.ts';
import { mergeTopHits } from '../merge.ts';
import { reducedPathValue } from './bucket-path.ts';
import { pathValue, reduceMetric } from './metric-reduce.ts';
import { applyParentPipelines } from './parent-pipelines.ts';
import { settleTerms, type RefineReply } from './terms-settle.ts';

/** A reduced bucket: key, doc count, reduced sub-aggregations. */
export interface ReducedBucket {
  key: BucketKey;
  n: number;
  aggs: Reduced[];
}

/** The sufficient statistics of the numeric metrics, summed over shards. */
export interface ReducedStats {
  count: number;
  sum: number;
  min: number | null;
  max: number | null;
  sumSq: number;
}

/** One reduced aggregation (parallel to the request's nodes). */
export type Reduced =
  | { t: 'terms'; node: TermsAgg; buckets: ReducedBucket[]; sumOther: number; totalBuckets: number | null }
  | { t: 'buckets'; node: AggNode; buckets: ReducedBucket[]; totalBuckets: number | null }
  | { t: 'single'; node: AggNode; n: number; aggs: Reduced[] }
  | { t: 'stats'; node: MetricAggNode; stats: ReducedStats }
  | { t: 'card'; node: MetricAggNode; value: number }
  | { t: 'pct'; node: PercentilesAgg; values: (number | null)[] }
  | { t: 'comp'; node: CompositeAgg; buckets: { key: CompositeKey; n: number; aggs: Reduced[] }[] }
  | { t: 'pipe'; node: AggNode }
  | { t: 'top'; node: TopHitsAgg; total: number; maxScore: number | null; hits: TopHitsPartial['hits'] }
  | { t: 'simple'; node: ParentPipelineAgg | BucketScriptAgg; value: number | null }
  | { t: 'bm'; node: BucketMetricAgg; values: number[]; value: number | null; target: Reduced; keys: unknown[] };

/** Refinement replies so far, per terms aggregation instance ({@link taskKey}) and shard position. */
export type ReplyLog = Map<string, Map<number, RefineReply[]>>;

/** What to send next: refinement tasks per shard position. */
export type PendingTasks = Map<number, TermsRefineTask[]>;

/** The identity of a terms aggregation instance: the path to its bucket and its position there. */
export function taskKey(path: readonly BucketStep[], agg: number): string {
  return JSON.stringify([path, agg]);
}

/** Files each task's reply (`results[i]` answers `tasks[i]`) under its terms aggregation instance and shard position `p`. */
export function recordReplies(log: ReplyLog, p: number, tasks: readonly TermsRefineTask[], results: readonly TermsPartial[]): void {
  tasks.forEach((task, i) => {
    const key = taskKey(task.path, task.agg);
    let perShard = log.get(key);
    if (!perShard) log.set(key, (perShard = new Map<number, RefineReply[]>()));
    const list = perShard.get(p) ?? [];
    list.push({ task, reply: results[i] });
    perShard.set(p, list);
  });
}

/** Outcome of {@link reduceAggs}: the reduced tree when every terms aggregation is settled, else the tasks. */
export type ReduceOutcome = { done: true; reduced: Reduced[] } | { done: false; tasks: PendingTasks };

interface Ctx {
  log: ReplyLog;
  tasks: PendingTasks;
  buckets: number;
  maxBuckets: number;
}

/**
 * Reduces the shards' partials of `nodes` (one entry per shard that answered; undefined when a
 * shard sent none).
 * @throws EsError 400 `too_many_buckets_exception` past `maxBuckets`
 */
export function reduceAggs(
  nodes: readonly AggNode[],
  shards: readonly (AggPartial[] | undefined)[],
  log: ReplyLog = new Map(),
  maxBuckets = DEFAULT_MAX_BUCKETS,
): ReduceOutcome {
  const ctx: Ctx = { log, tasks: new Map(), buckets: 0, maxBuckets };
  const reduced = reduceLevel(nodes, shards, [], ctx);
  if (ctx.tasks.size > 0) return { done: false, tasks: ctx.tasks };
  return { done: true, reduced: reduced as Reduced[] };
}

function countBuckets(ctx: Ctx, n: number): void {
  ctx.buckets += n;
  if (ctx.buckets > ctx.maxBuckets) throw tooManyBuckets(ctx.maxBuckets);
}

const subsOf = <P extends { aggs?: AggPartial[] }>(p: P | undefined): AggPartial[] | undefined => p?.aggs;

/** Reduces one level; a terms aggregation not yet settled adds its tasks and reduces to null. */
function reduceLevel(nodes: readonly AggNode[], shards: readonly (AggPartial[] | undefined)[], path: BucketStep[], ctx: Ctx): (Reduced | null)[] {
  const level = nodes.map((node, a): Reduced | null => {
    const parts = shards.map((s) => s?.[a]);
    const step = (key: BucketKey): BucketStep[] => [...path, { agg: a, key }];
    switch (node.type) {
      case 'terms':
        return reduceTerms(node, parts as (TermsPartial | undefined)[], path, a, ctx);
      case 'histogram':
      case 'date_histogram':
        return reduceHistogram(node, parts, step, ctx);
      case 'range':
      case 'date_range':
      case 'filters': {
        const width = node.type === 'filters' ? node.filters.length + (node.otherBucketKey !== null ? 1 : 0) : node.ranges.length;
        countBuckets(ctx, width);
        const buckets = Array.from({ length: width }, (_, i): ReducedBucket => {
          const bs = parts.map((p) => (p?.t === 'multi' ? p.buckets[i] : undefined));
          const n = bs.reduce((x, b) => x + (b?.n ?? 0), 0);
          return { key: i, n, aggs: reduceLevel(node.aggs, bs.map(subsOf), step(i), ctx) as Reduced[] };
        });
        return { t: 'buckets', node, ...applyParentPipelines(node.aggs, buckets) };
      }
      case 'composite':
        return reduceComposite(node, parts, step, ctx);
      case 'bucket_sort':
      case 'bucket_script':
      case 'bucket_selector':
      case 'cumulative_sum':
      case 'derivative':
        return { t: 'pipe', node };
      case 'avg_bucket':
      case 'max_bucket':
      case 'min_bucket':
      case 'sum_bucket':
      case 'stats_bucket':
        return null; // below, once its sibling is reduced
      case 'top_hits':
        return reduceTopHits(node, parts);
      case 'filter':
      case 'missing':
      case 'global': {
        const n = parts.reduce((x, p) => x + (p?.t === 'single' ? p.n : 0), 0);
        return {
          t: 'single',
          node,
          n,
          aggs: reduceLevel(
            node.aggs,
            parts.map((p) => (p?.t === 'single' ? p.aggs : undefined)),
            step(0),
            ctx,
          ) as Reduced[],
        };
      }
      default:
        return reduceMetric(node, parts);
    }
  });
  nodes.forEach((node, i) => {
    if (node.type === 'avg_bucket' || node.type === 'max_bucket' || node.type === 'min_bucket' || node.type === 'sum_bucket' || node.type === 'stats_bucket') {
      level[i] = bucketMetric(node, nodes, level);
    }
  });
  return level;
}

/**
 * A sibling bucket-metric pipeline over its sibling's reduced buckets (ES `BucketMetricsPipelineAggregator`):
 * each bucket's value at the rest of `buckets_path` (`_count`, a metric, through single buckets),
 * gaps skipped (or 0 with `insert_zeros`). Null while the sibling is not settled.
 */
function bucketMetric(node: BucketMetricAgg, nodes: readonly AggNode[], level: readonly (Reduced | null)[]): Reduced | null {
  const [first, ...rest] = node.bucketsPath.split('>');
  const target = level[nodes.findIndex((n) => n.name === first)];
  if (!target || !('buckets' in target)) return null;
  const steps = parseOrderPath(rest.join('>'));
  const values: number[] = [];
  const keys: unknown[] = [];
  for (const b of target.buckets as { key: unknown; n: number; aggs: Reduced[] }[]) {
    let v: number | null = steps.length === 1 && steps[0].name === '_count' ? b.n : reducedPathValue(target.node.aggs, b.aggs, steps);
    if (v === null || Number.isNaN(v)) {
      if (node.gapPolicy === 'skip') continue;
      v = 0;
    }
    values.push(v);
    keys.push(b.key);
  }
  let value: number | null = null;
  let at: unknown[] = [];
  if (values.length > 0) {
    if (node.type === 'max_bucket' || node.type === 'min_bucket') {
      value = node.type === 'max_bucket' ? Math.max(...values) : Math.min(...values);
      at = keys.filter((_, i) => values[i] === value);
    } else if (node.type === 'sum_bucket') value = values.reduce((x, y) => x + y, 0);
    else if (node.type === 'avg_bucket') value = values.reduce((x, y) => x + y, 0) / values.length;
  } else if (node.type === 'sum_bucket') value = 0;
  return { t: 'bm', node, values, value, target, keys: at };
}

function reduceTerms(node: TermsAgg, parts: readonly (TermsPartial | undefined)[], path: BucketStep[], a: number, ctx: Ctx): Reduced | null {
  const key = taskKey(path, a);
  const replies = ctx.log.get(key);
  const outcome = settleTerms(
    node,
    parts.map((first, i) => ({ first, replies: replies?.get(i) ?? [] })),
    (orderPath, subs) => pathValue(node.aggs, subs, parseOrderPath(orderPath)),
  );
  if (!outcome.settled) {
    for (const [i, list] of outcome.tasks) {
      const all = ctx.tasks.get(i) ?? [];
      for (const t of list) all.push({ path, agg: a, ...t });
      ctx.tasks.set(i, all);
    }
    return null;
  }
  countBuckets(ctx, outcome.buckets.length);
  const buckets = outcome.buckets.map((b) => ({
    key: b.key,
    n: b.n,
    aggs: reduceLevel(node.aggs, b.subs, [...path, { agg: a, key: b.key }], ctx) as Reduced[],
  }));
  return { t: 'terms', node, ...applyParentPipelines(node.aggs, buckets), sumOther: outcome.sumOther };
}

/**
 * `composite` (ES `InternalComposite.reduce`): the union of the shards' first `size` keys, counts
 * summed, the first `size` of them in composite order. Exact: a key among the global first `size`
 * is among the first `size` of every shard that holds it.
 */
function reduceComposite(node: CompositeAgg, parts: readonly (AggPartial | undefined)[], step: (key: BucketKey) => BucketStep[], ctx: Ctx): Reduced {
  const merged = new Map<string, { key: CompositeKey; n: number; subs: (AggPartial[] | undefined)[] }>();
  parts.forEach((p, i) => {
    if (p?.t !== 'comp') return;
    for (const b of p.buckets) {
      const id = JSON.stringify(b.key);
      let m = merged.get(id);
      if (!m) merged.set(id, (m = { key: b.key, n: 0, subs: parts.map(() => undefined) }));
      m.n += b.n;
      m.subs[i] = b.aggs;
    }
  });
  const top = [...merged.values()].sort((a, b) => compareCompositeKeys(node.sources, a.key, b.key)).slice(0, node.size);
  countBuckets(ctx, top.length);
  const buckets = top.map((m) => ({ key: m.key, n: m.n, aggs: reduceLevel(node.aggs, m.subs, step(JSON.stringify(m.key)), ctx) as Reduced[] }));
  return { t: 'comp', node, buckets: applyParentPipelines(node.aggs, buckets).buckets };
}

/**
 * `top_hits` (ES `InternalTopHits.reduce`): the shards' lists merged in the sort's order (the hit
 * merge of the search itself, ties on `_id`), `from` skipped, `size` kept; totals summed.
 */
function reduceTopHits(node: TopHitsAgg, parts: readonly (AggPartial | undefined)[]): Reduced {
  const lists = parts.map((p, i) => ({ i, p: p?.t === 'top' ? p : undefined })).filter((x) => x.p !== undefined);
  const merged = mergeTopHits(
    lists.map(({ i, p }) => ({ shardIndex: i, index: p!.hits[0]?._index ?? '', hits: p!.hits })),
    node.sort.length > 0 ? node.sort : SCORE_SORT,
    node.from,
    node.size,
  );
  let maxScore: number | null = null;
  let total = 0;
  for (const { p } of lists) {
    total += p!.total;
    if (p!.maxScore !== null && (maxScore === null || p!.maxScore > maxScore)) maxScore = p!.maxScore;
  }
  const byShard = new Map(lists.map(({ i, p }) => [i, p!]));
  return { t: 'top', node, total, maxScore, hits: merged.map((m) => byShard.get(m.shardIndex)!.hits[m.position]) };
}

/** Keys of a histogram from `from` to `to` inclusive (the empty buckets of `min_doc_count: 0`). */
function histogramKeys(node: HistogramAgg, from: number, to: number, ctx: Ctx): number[] {
  const keys: number[] = [];
  if (node.type === 'histogram') {
    const count = Math.round((to - from) / node.interval) + 1;
    countBuckets(ctx, count);
    ctx.buckets -= count; // counted again once the buckets exist
    for (let i = 0; i < count; i++) keys.push(from + i * node.interval);
    return keys;
  }
  const zone = node.timeZone ? zoneOf(node.timeZone) : UTC;
  for (let k = from; k <= to; k = nextDateKey(k, node.dateInterval!, zone, node.offset)) {
    keys.push(k);
    if (keys.length > ctx.maxBuckets - ctx.buckets) throw tooManyBuckets(ctx.maxBuckets);
  }
  return keys;
}

/** The histogram key holding `v` (for `extended_bounds`). */
function keyFor(node: HistogramAgg, v: number): number {
  if (node.type === 'histogram') return Math.floor((v - node.offset) / node.interval) * node.interval + node.offset;
  return roundDate(v, node.dateInterval!, node.timeZone ? zoneOf(node.timeZone) : UTC, node.offset);
}

function reduceHistogram(node: HistogramAgg, parts: readonly (AggPartial | undefined)[], step: (key: BucketKey) => BucketStep[], ctx: Ctx): Reduced {
  const merged = new Map<number, { n: number; subs: (AggPartial[] | undefined)[] }>();
  parts.forEach((p, i) => {
    if (p?.t !== 'hist') return;
    for (const b of p.buckets) {
      let m = merged.get(b.key);
      if (!m) merged.set(b.key, (m = { n: 0, subs: parts.map(() => undefined) }));
      m.n += b.n;
      m.subs[i] = b.aggs;
    }
  });
  let keys = [...merged.keys()].filter((k) => merged.get(k)!.n >= node.minDocCount).sort((x, y) => x - y);
  if (node.minDocCount === 0) {
    let lo = keys.length > 0 ? keys[0] : Infinity;
    let hi = keys.length > 0 ? keys[keys.length - 1] : -Infinity;
    if (node.extendedBounds) {
      lo = Math.min(lo, keyFor(node, node.extendedBounds.min));
      hi = Math.max(hi, keyFor(node, node.extendedBounds.max));
    }
    if (node.hardBounds) {
      if (node.hardBounds.min !== undefined) lo = Math.max(lo, keyFor(node, node.hardBounds.min));
      if (node.hardBounds.max !== undefined) hi = Math.min(hi, node.hardBounds.max);
    }
    if (lo <= hi && Number.isFinite(lo) && Number.isFinite(hi)) keys = histogramKeys(node, lo, hi, ctx);
  }
  countBuckets(ctx, keys.length);
  const empty = parts.map(() => undefined);
  let buckets = keys.map((k): ReducedBucket => {
    const m = merged.get(k);
    return { key: k, n: m?.n ?? 0, aggs: reduceLevel(node.aggs, m?.subs ?? empty, step(k), ctx) as Reduced[] };
  });
  const first = node.order[0];
  if (first.key !== '_key' || !first.asc) buckets = sortBuckets(buckets, node);
  return { t: 'buckets', node, ...applyParentPipelines(node.aggs, buckets) };
}

/** Orders reduced histogram buckets by `order` (`_count`, `_key`, or a sub-aggregation value). */
function sortBuckets(buckets: ReducedBucket[], node: HistogramAgg): ReducedBucket[] {
  const value = (b: ReducedBucket, key: string): number | null => {
    if (key === '_count') return b.n;
    if (key === '_key') return b.key as number;
    return reducedPathValue(node.aggs, b.aggs, parseOrderPath(key));
  };
  return [...buckets].sort((x, y) => {
    for (const o of node.order) {
      const a = value(x, o.key);
      const b = value(y, o.key);
      if (a === null || b === null) {
        if (a !== b) return a === null ? 1 : -1;
        continue;
      }
      if (a !== b) return o.asc ? a - b : b - a;
    }
    return (x.key as number) - (y.key as number);
  });
}
