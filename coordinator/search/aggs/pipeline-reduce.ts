/**
 * Pipeline aggregations over reduced buckets (pure): sibling bucket metrics (`avg_bucket`,
 * `max_bucket`, `min_bucket`, `sum_bucket`, `stats_bucket`), `cumulative_sum` and `derivative`
 * over a histogram's buckets, and `bucket_sort` (ES's `PipelineAggregator`s, which run in the
 * final reduce).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-pipeline.html
 * @see docs/aggregations.md
 */
import type { AggNode, BucketMetricAgg } from '../../../protocol/agg-request.ts';
import { parseOrderPath } from '../../../shared/aggs/terms-plan.ts';
import { reducedPathValue } from './metric-reduce.ts';
import type { Reduced, ReducedBucket } from './reduce.ts';

/**
 * A sibling bucket-metric pipeline over its sibling's reduced buckets (ES `BucketMetricsPipelineAggregator`):
 * each bucket's value at the rest of `buckets_path` (`_count`, a metric, through single buckets),
 * gaps skipped (or 0 with `insert_zeros`). Null while the sibling is not settled.
 */
export function bucketMetric(node: BucketMetricAgg, nodes: readonly AggNode[], level: readonly (Reduced | null)[]): Reduced | null {
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

/**
 * `cumulative_sum` and `derivative` over a histogram's buckets in key order (ES
 * `CumulativeSumPipelineAggregator`, `DerivativePipelineAggregator`): each bucket gets the running
 * sum, or the difference with the previous bucket (none on the first; null across a gap).
 */
export function applyHistogramPipelines(subs: readonly AggNode[], buckets: ReducedBucket[]): ReducedBucket[] {
  subs.forEach((node, i) => {
    if (node.type !== 'cumulative_sum' && node.type !== 'derivative') return;
    const steps = parseOrderPath(node.bucketsPath);
    const valueOf = (b: ReducedBucket): number | null => {
      const v = steps.length === 1 && steps[0].name === '_count' ? b.n : reducedPathValue(subs, b.aggs, steps);
      return v === null && node.gapPolicy === 'insert_zeros' ? 0 : v;
    };
    let sum = 0;
    let prev: number | null | undefined;
    buckets.forEach((b, k) => {
      const v = valueOf(b);
      let value: number | null;
      if (node.type === 'cumulative_sum') {
        sum += v ?? 0;
        value = sum;
      } else {
        value = k === 0 ? null : prev === null || prev === undefined || v === null ? null : v - prev;
        if (k === 0) {
          prev = v;
          b.aggs[i] = { t: 'pipe', node }; // no derivative on the first bucket
          return;
        }
        prev = v;
      }
      b.aggs[i] = { t: 'simple', node, value };
    });
  });
  return buckets;
}

/**
 * Applies the `bucket_sort` pipelines among `subs` to reduced buckets (ES
 * `BucketSortPipelineAggregator`): sort by `_key`, `_count` or sub-aggregation values (stable, so
 * no criteria keeps the parent's order), a bucket missing a value skipped under `gap_policy: skip`
 * (0 under `insert_zeros`), then `from` and `size`.
 */
export function applyBucketSorts<B extends { key: unknown; n: number; aggs: Reduced[] }>(subs: readonly AggNode[], buckets: B[]): B[] {
  let out = buckets;
  for (const node of subs) {
    if (node.type !== 'bucket_sort') continue;
    const values = (b: B): (number | string | null)[] =>
      node.sort.map((s) => {
        if (s.path === '_count') return b.n;
        if (s.path === '_key') return typeof b.key === 'number' || typeof b.key === 'string' ? b.key : JSON.stringify(b.key);
        const v = reducedPathValue(subs, b.aggs, parseOrderPath(s.path));
        return v === null && node.gapPolicy === 'insert_zeros' ? 0 : v;
      });
    let rows = out.map((b) => ({ b, v: values(b) }));
    if (node.gapPolicy === 'skip') rows = rows.filter((r) => r.v.every((x) => x !== null));
    rows.sort((x, y) => {
      for (let i = 0; i < node.sort.length; i++) {
        const a = x.v[i];
        const b = y.v[i];
        if (a === b) continue;
        if (a === null || b === null) return a === null ? 1 : -1;
        const c = typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : 1;
        return node.sort[i].asc ? c : -c;
      }
      return 0;
    });
    out = rows.slice(node.from, node.size === null ? undefined : node.from + node.size).map((r) => r.b);
  }
  return out;
}
