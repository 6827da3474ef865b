/**
 * Numeric metrics under the buckets of a string `terms`, in one pass over the docs (ES collects
 * sub-aggregations by bucket ordinal the same way): each doc's global ordinals pick its buckets, and
 * each metric's count, sum, min, max and sum of squares accumulate in arrays indexed by bucket.
 * Used for Rally's `country_agg_uncached` shape (`terms` + `sum`), where gathering each bucket's
 * docs first cost more than the metrics themselves.
 */
import type { StatsMetricAgg, TermsAgg } from '../../../protocol/agg-request.ts';
import type { BucketKey, StatsPartial } from '../../../protocol/aggs.ts';
import { column, scratch, type AggContext } from './agg-context.ts';
import { globalOrdinals, readValues, valuesKind, type SegDocs } from './doc-values.ts';

/** True when every sub-aggregation of `node` is a numeric metric this pass computes (no `missing`), on a string terms field. */
export function bucketedStatsApply(node: TermsAgg, ctx: AggContext): boolean {
  const fm = ctx.fields.get(node.field);
  if (!fm || valuesKind(fm) !== 'string' || node.missing !== undefined || node.aggs.length === 0) return false;
  return node.aggs.every((a) => {
    if (a.type !== 'min' && a.type !== 'max' && a.type !== 'sum' && a.type !== 'avg' && a.type !== 'value_count' && a.type !== 'stats' && a.type !== 'extended_stats') return false;
    const sub = ctx.fields.get(a.field);
    return a.missing === undefined && (sub === undefined || valuesKind(sub) === 'number');
  });
}

/**
 * Per bucket (parallel to `keys`), the partials of the metric sub-aggregations.
 * Call only when {@link bucketedStatsApply} is true.
 */
export function bucketedStats(node: TermsAgg, docs: SegDocs[], keys: readonly BucketKey[], ctx: AggContext, ordinalOf: (terms: readonly string[], key: string) => number): StatsPartial[][] {
  const metrics = node.aggs as StatsMetricAgg[];
  const B = keys.length;
  const M = metrics.length;
  const count = new Float64Array(B * M);
  const sum = new Float64Array(B * M);
  const sumSq = new Float64Array(B * M);
  const min = new Float64Array(B * M).fill(Infinity);
  const max = new Float64Array(B * M).fill(-Infinity);
  const fm = ctx.fields.get(node.field)!;
  const go = globalOrdinals(ctx.gen, ctx.gen.views.map((v) => v.segment), node.field, fm);
  const slot = new Int32Array(go.terms.length).fill(-1);
  keys.forEach((k, i) => {
    const g = typeof k === 'string' ? ordinalOf(go.terms, k) : -1;
    if (g >= 0) slot[g] = i;
  });
  const add = (b: number, m: number, v: number) => {
    const x = b * M + m;
    count[x]++;
    sum[x] += v;
    sumSq[x] += v * v;
    if (v < min[x]) min[x] = v;
    if (v > max[x]) max[x] = v;
  };
  for (const { seg, docs: ds } of docs) {
    const col = column(ctx, node.field, seg);
    const map = go.bySegment.get(seg);
    if (!col || col.kind !== 'ords' || !map) continue;
    const cols = metrics.map((a) => column(ctx, a.field, seg));
    for (let i = 0; i < ds.length; i++) {
      const d = ds[i];
      const from = col.single ? 0 : col.starts![d];
      const to = col.single ? (col.single[d] === 0 ? 0 : 1) : col.starts![d + 1];
      for (let j = from; j < to; j++) {
        const b = slot[map[col.single ? col.single[d] - 1 : col.ords![j]]];
        if (b < 0) continue;
        for (let m = 0; m < M; m++) {
          const mc = cols[m];
          if (!mc || mc.kind !== 'nums') continue;
          if (mc.single) {
            if (mc.nf.has[d]) add(b, m, mc.nf.min[d]);
          } else {
            const n = readValues(mc, d, scratch);
            for (let k = 0; k < n; k++) add(b, m, scratch[k]);
          }
        }
      }
    }
  }
  return keys.map((_, b) =>
    metrics.map((_a, m): StatsPartial => {
      const x = b * M + m;
      const c = count[x];
      return { t: 'stats', count: c, sum: sum[x], min: c > 0 ? min[x] : null, max: c > 0 ? max[x] : null, sumSq: sumSq[x] };
    }),
  );
}
