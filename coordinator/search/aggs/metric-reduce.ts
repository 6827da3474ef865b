/**
 * The reduce of metric aggregations (pure): `stats` and the metrics read from it (`avg`, `sum`,
 * `min`, `max`, `value_count`, `extended_stats`), `cardinality` (exact union, else merged
 * HyperLogLog++ sketches) and `percentiles`/`percentile_ranks` (merged t-digests), and the value at
 * an order path over the shards' partials, which `terms` ordered by a sub-aggregation reads (the
 * same over reduced aggregations is bucket-path.ts).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/metrics/InternalStats.java
 * @see docs/aggregations.md
 */
import { isMetric, type AggNode, type MetricAggNode, type PercentilesAgg } from '../../../protocol/agg-request.ts';
import type { AggPartial, BucketKey, CardinalityPartial } from '../../../protocol/aggs.ts';
import { HyperLogLog, precisionFor } from '../../../shared/aggs/hyperloglog.ts';
import { TDigest } from '../../../shared/aggs/tdigest.ts';
import type { OrderPathStep } from '../../../shared/aggs/terms-plan.ts';
import { metricValue } from './bucket-path.ts';
import type { Reduced, ReducedStats } from './reduce.ts';

/** Sums stats partials. */
export function mergeStats(parts: readonly (AggPartial | undefined)[]): ReducedStats {
  const s: ReducedStats = { count: 0, sum: 0, min: null, max: null, sumSq: 0 };
  for (const p of parts) {
    if (p?.t !== 'stats') continue;
    const q = p;
    s.count += q.count;
    s.sum += q.sum ?? 0;
    s.sumSq += q.sumSq ?? 0;
    if (q.min != null && (s.min === null || q.min < s.min)) s.min = q.min;
    if (q.max != null && (s.max === null || q.max > s.max)) s.max = q.max;
  }
  return s;
}

/** Merges cardinality partials: the exact union while every shard sent values, else the merged sketch's estimate. */
export function mergeCardinality(threshold: number, parts: readonly (AggPartial | undefined)[]): number {
  const cards = parts.filter((p): p is CardinalityPartial => p?.t === 'card');
  if (cards.every((c) => c.values !== undefined)) {
    const union = new Set<BucketKey>();
    for (const c of cards) for (const v of c.values!) union.add(v);
    return union.size;
  }
  const p = precisionFor(threshold);
  const hll = new HyperLogLog(p);
  for (const c of cards) {
    if (c.values) for (const v of c.values) hll.add(v);
    else hll.merge(HyperLogLog.fromBase64(c.precision ?? p, c.registers!));
  }
  return hll.estimate();
}

/** Below this many values the shards' centroids are the values themselves, and percentiles are read exactly. */
export const EXACT_PERCENTILES_MAX_VALUES = 1000;

/**
 * Merges t-digest partials and reads the percentiles (or, for `percentile_ranks`, the percent of
 * values at or below each value); null without values. With few values the centroids are the
 * values, and the answer is exact: the value at rank ⌊p × n⌋, and the share of values ≤ x, as the
 * peer's digests answer for small samples.
 */
export function mergePercentiles(node: PercentilesAgg, parts: readonly (AggPartial | undefined)[]): (number | null)[] {
  const pairs: [number, number][] = [];
  let total = 0;
  for (const p of parts) {
    if (p?.t !== 'pct') continue;
    const c = p.centroids;
    for (let i = 0; i < c.length; i += 2) {
      pairs.push([c[i], c[i + 1]]);
      total += c[i + 1];
    }
  }
  if (total === 0) return node.percents.map(() => null);
  if (total <= EXACT_PERCENTILES_MAX_VALUES && pairs.every(([, n]) => Number.isInteger(n))) {
    pairs.sort((a, b) => a[0] - b[0]);
    if (node.type === 'percentile_ranks') {
      return node.percents.map((x) => (100 * pairs.reduce((acc, [v, n]) => acc + (v <= x ? n : 0), 0)) / total);
    }
    return node.percents.map((q) => {
      const k = Math.min(total - 1, Math.floor((q / 100) * total));
      let seen = 0;
      for (const [v, n] of pairs) {
        seen += n;
        if (seen > k) return v;
      }
      return pairs[pairs.length - 1][0];
    });
  }
  const digest = new TDigest(node.compression > 0 ? 1 / node.compression : 0.01);
  for (const [mean, n] of pairs) digest.push(mean, n);
  digest.compress();
  if (node.type === 'percentile_ranks') return node.percents.map((v) => digest.p_rank(v) * 100);
  return node.percents.map((q) => digest.percentile(q / 100) ?? null);
}

/** Reduces a metric aggregation's partials (cardinality, percentiles, or any stats-based metric). */
export function reduceMetric(node: MetricAggNode, parts: readonly (AggPartial | undefined)[]): Reduced {
  if (node.type === 'cardinality') return { t: 'card', node, value: mergeCardinality(node.precisionThreshold, parts) };
  if (node.type === 'percentiles' || node.type === 'percentile_ranks') return { t: 'pct', node, values: mergePercentiles(node, parts) };
  return { t: 'stats', node, stats: mergeStats(parts) };
}

/** The value at an order path from the sub-aggregation partials of every shard (a metric, or a single bucket's count). */
export function pathValue(nodes: readonly AggNode[], subs: readonly (AggPartial[] | undefined)[], steps: readonly OrderPathStep[]): number | null {
  const [first, ...rest] = steps;
  const a = nodes.findIndex((n) => n.name === first.name);
  if (a === -1) return null;
  const node = nodes[a];
  const parts = subs.map((s) => s?.[a]);
  if (isMetric(node)) return metricValue(reduceMetric(node, parts), first.metric);
  if (rest.length > 0)
    return pathValue(
      node.aggs,
      parts.map((p) => (p?.t === 'single' ? p.aggs : undefined)),
      rest,
    );
  return parts.reduce((x, p) => x + (p?.t === 'single' ? p.n : 0), 0);
}
