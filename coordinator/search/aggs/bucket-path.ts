/**
 * Values inside reduced buckets, as ES's `InternalMultiBucketAggregation.InternalBucket.getProperty`
 * reads them for orders and pipelines: a metric by name (`avg`, `stats.max`, `pct[99.0]`), a
 * single-bucket count (`filter>_count`), a multi-bucket sub-aggregation's `_bucket_count`, a
 * `bucket_script` value; and `BucketHelpers.resolveBucketValue`, which applies a `gap_policy`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/pipeline/BucketHelpers.java
 */
import type { AggNode } from '../../../protocol/agg-request.ts';
import { parseOrderPath, type OrderPathStep } from '../../../shared/aggs/terms-plan.ts';
import type { Reduced } from './reduce.ts';

/** Every value of a reduced metric by name (`value`, `avg`, `std_deviation`, a percent, …); null when empty. */
export function metricValue(r: Reduced, name: string | undefined): number | null {
  if (r.t === 'card') return r.value;
  if (r.t === 'simple') return r.value;
  if (name === '_bucket_count' && (r.t === 'terms' || r.t === 'buckets' || r.t === 'comp')) return r.buckets.length;
  if (r.t === 'pct') {
    const i = r.node.percents.findIndex((p) => p === Number(name));
    return i === -1 ? null : r.values[i];
  }
  if (r.t !== 'stats') return null;
  const s = r.stats;
  const avg = s.count > 0 ? s.sum / s.count : null;
  const variance = s.count > 0 ? Math.max(0, s.sumSq / s.count - (s.sum / s.count) ** 2) : null;
  const single: Record<string, number | null> = { min: s.min, max: s.max, sum: s.sum, avg, value_count: s.count };
  if (name === undefined || name === 'value') return r.node.type in single ? single[r.node.type] : null;
  const all: Record<string, number | null> = {
    count: s.count,
    min: s.min,
    max: s.max,
    avg,
    sum: s.sum,
    sum_of_squares: s.count > 0 ? s.sumSq : null,
    variance,
    variance_population: variance,
    std_deviation: variance === null ? null : Math.sqrt(variance),
    std_deviation_population: variance === null ? null : Math.sqrt(variance),
    variance_sampling: s.count > 1 ? (variance! * s.count) / (s.count - 1) : null,
    std_deviation_sampling: s.count > 1 ? Math.sqrt((variance! * s.count) / (s.count - 1)) : null,
  };
  return Object.hasOwn(all, name) ? all[name] : null;
}

/** The value at a parsed path among a bucket's reduced sub-aggregations (`nodes` parallel to `reduced`); null when absent. */
export function reducedPathValue(nodes: readonly AggNode[], reduced: readonly Reduced[], steps: readonly OrderPathStep[]): number | null {
  const [first, ...rest] = steps;
  const a = nodes.findIndex((n) => n.name === first.name);
  if (a === -1) return null;
  const r = reduced[a];
  if (r.t === 'single') {
    if (rest.length === 0 || (rest.length === 1 && rest[0].name === '_count')) return r.n;
    return reducedPathValue(r.node.aggs, r.aggs, rest);
  }
  return metricValue(r, first.metric);
}

/** A bucket as pipelines see it: its key, doc count and reduced sub-aggregations. */
export interface PathBucket {
  key: unknown;
  n: number;
  aggs: Reduced[];
}

/**
 * ES `BucketHelpers.resolveBucketValue`: the number at `path` in bucket `b` of a parent whose
 * sub-aggregations are `subs`. `_count` is the doc count (never a gap); `_key` a numeric key. A
 * missing, infinite or NaN value, or any value of an empty bucket, is a gap: 0 under
 * `insert_zeros`, NaN under `skip`, the value itself (NaN when not finite) under `keep_values`.
 */
export function bucketValue(subs: readonly AggNode[], b: PathBucket, path: string, gapPolicy: 'skip' | 'insert_zeros' | 'keep_values'): number {
  let v: number | null;
  if (path === '_count') return b.n;
  if (path === '_key') v = typeof b.key === 'number' ? b.key : null;
  else v = reducedPathValue(subs, b.aggs, parseOrderPath(path));
  const finite = v !== null && Number.isFinite(v);
  if (finite && b.n > 0) return v!;
  if (gapPolicy === 'insert_zeros') return 0;
  if (gapPolicy === 'keep_values' && finite) return v!;
  return Number.NaN;
}
