/**
 * Numeric metrics under the buckets of a string `terms`, in one pass over the docs (ES collects
 * sub-aggregations by bucket ordinal the same way): each doc's global ordinals pick its buckets, and
 * each metric's count, sum, min, max and sum of squares accumulate in arrays indexed by bucket.
 * Used for Rally's `country_agg_uncached` shape (`terms` + `sum`), where gathering each bucket's
 * docs first cost more than the metrics themselves.
 */
import { PIPELINE_TYPES, type AggNode, type StatsMetricAgg, type TermsAgg } from '../../../protocol/agg-request.ts';
import type { AggPartial, BucketKey, StatsPartial } from '../../../protocol/aggs.ts';
import type { RankColumn } from '../columns/columns.ts';
import { column, scratch, type AggContext } from './agg-context.ts';
import { globalOrdinals, readValues, valuesKind, type GlobalOrdinals, type NumberColumn, type SegDocs } from './doc-values.ts';
import { statsPartial } from './stats-partial.ts';

/** The metric sub-aggregations (pipelines left out). */
function metricsOf(aggs: readonly AggNode[]): StatsMetricAgg[] {
  return aggs.filter((a) => !PIPELINE_TYPES.has(a.type)) as StatsMetricAgg[];
}

/** Metric partials placed parallel to `aggs`, a `pipe` partial where a pipeline is. */
function parallel(aggs: readonly AggNode[], partials: StatsPartial[]): AggPartial[] {
  if (partials.length === aggs.length) return partials;
  let m = 0;
  return aggs.map((a): AggPartial => (PIPELINE_TYPES.has(a.type) ? { t: 'pipe' } : partials[m++]));
}

/** True when every sub-aggregation of `node` is a numeric metric this pass computes (no `missing`), on a string terms field. */
export function bucketedStatsApply(node: TermsAgg, ctx: AggContext): boolean {
  const fm = ctx.fields.get(node.field);
  if (!fm || valuesKind(fm) !== 'string' || node.missing !== undefined || node.aggs.length === 0) return false;
  return (
    node.aggs.some((a) => !PIPELINE_TYPES.has(a.type)) &&
    node.aggs.every((a) => {
      if (PIPELINE_TYPES.has(a.type)) return true; // computed on the coordinator; a `pipe` partial here
      if (
        a.type !== 'min' &&
        a.type !== 'max' &&
        a.type !== 'sum' &&
        a.type !== 'avg' &&
        a.type !== 'value_count' &&
        a.type !== 'stats' &&
        a.type !== 'extended_stats'
      )
        return false;
      const sub = ctx.fields.get(a.field);
      return a.missing === undefined && (sub === undefined || valuesKind(sub) === 'number');
    })
  );
}

/**
 * Per bucket (parallel to `keys`), the partials of the metric sub-aggregations.
 * Call only when {@link bucketedStatsApply} is true.
 */
export function bucketedStats(
  node: TermsAgg,
  docs: SegDocs[],
  keys: readonly BucketKey[],
  ctx: AggContext,
  ordinalOf: (terms: readonly string[], key: string) => number,
): AggPartial[][] {
  const metrics = metricsOf(node.aggs);
  const B = keys.length;
  const M = metrics.length;
  const count = new Float64Array(B * M);
  const sum = new Float64Array(B * M);
  const sumSq = new Float64Array(B * M);
  const min = new Float64Array(B * M).fill(Infinity);
  const max = new Float64Array(B * M).fill(-Infinity);
  const fm = ctx.fields.get(node.field)!;
  const go = globalOrdinals(
    ctx.gen,
    ctx.gen.views.map((v) => v.segment),
    node.field,
    fm,
  );
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
    parallel(
      node.aggs,
      metrics.map((a, m): StatsPartial => {
        const x = b * M + m;
        return statsPartial(a.type, count[x], sum[x], min[x], max[x], sumSq[x]);
      }),
    ),
  );
}

/**
 * Fields with at most this many distinct terms count docs and collect the metrics of every term in
 * one pass (arrays of terms × metrics); above it the metrics are collected for the listed terms only.
 */
export const ONE_PASS_MAX_TERMS = 4096;

/** Counts per global ordinal and, per ordinal, the metric partials: the result of {@link countAndStats}. */
export interface OrdinalStats {
  global: Int32Array;
  missing: number;
  /** The metric partials (parallel to the terms node's sub-aggregations) of global ordinal `g`. */
  partials(g: number): AggPartial[];
}

/** Per (global ordinal × metric) accumulators of the one-pass collection, at index `g * metrics + m`. */
interface StatsArrays {
  count: Float64Array;
  sum: Float64Array;
  sumSq: Float64Array;
  min: Float64Array;
  max: Float64Array;
}

function statsArrays(size: number): StatsArrays {
  return {
    count: new Float64Array(size),
    sum: new Float64Array(size),
    sumSq: new Float64Array(size),
    min: new Float64Array(size).fill(Infinity),
    max: new Float64Array(size).fill(-Infinity),
  };
}

/**
 * Rally's country_agg_uncached, one segment: a single-valued keyword (`ranks`, ordinal + 1 per doc)
 * and one single-valued number under one metric of `type`; counts into `global`, adds the number
 * into `acc` at the doc's global ordinal, reading only what the metric needs. Returns the docs
 * without a term. The metric's value count is the bucket's doc count less the docs without a
 * number (one increment per doc fewer), and a query matching every doc is read without `ds`.
 */
function countSingleNumber(
  ranks: RankColumn,
  map: Int32Array,
  num: NumberColumn,
  type: StatsMetricAgg['type'],
  ds: Int32Array,
  global: Int32Array,
  acc: StatsArrays,
): number {
  const { has, min: values } = num.nf;
  const { count, sum, sumSq, min, max } = acc;
  const bounds = type !== 'sum' && type !== 'avg' && type !== 'value_count';
  const squares = type === 'extended_stats';
  const before = global.slice();
  const noValue = new Int32Array(global.length);
  // Matches are ascending and distinct, so as many as the segment has docs are all of them, in order.
  const dense = ds.length === ranks.length;
  let missing = 0;
  for (let i = 0; i < ds.length; i++) {
    const d = dense ? i : ds[i];
    const o = ranks[d];
    if (o === 0) {
      missing++;
      continue;
    }
    const g = map[o - 1];
    global[g]++;
    if (has[d] === 0) {
      noValue[g]++;
      continue;
    }
    const v = values[d];
    sum[g] += v;
    if (squares) sumSq[g] += v * v;
    if (bounds) {
      if (v < min[g]) min[g] = v;
      if (v > max[g]) max[g] = v;
    }
  }
  for (let g = 0; g < global.length; g++) count[g] += global[g] - before[g] - noValue[g];
  return missing;
}

/**
 * One pass over `docs` counting the terms node's docs per global ordinal and collecting its metric
 * sub-aggregations per ordinal (ES collects sub-aggregations by bucket ordinal as it counts). For
 * fields of at most {@link ONE_PASS_MAX_TERMS} terms, when {@link bucketedStatsApply} holds; null otherwise.
 */
export function countAndStats(node: TermsAgg, docs: SegDocs[], ctx: AggContext, go: GlobalOrdinals): OrdinalStats | null {
  if (go.terms.length > ONE_PASS_MAX_TERMS || !bucketedStatsApply(node, ctx)) return null;
  const metrics = metricsOf(node.aggs);
  const M = metrics.length;
  const global = new Int32Array(go.terms.length);
  const acc = statsArrays(go.terms.length * M);
  const { count, sum, sumSq, min, max } = acc;
  let missing = 0;
  const add = (x: number, v: number) => {
    count[x]++;
    sum[x] += v;
    sumSq[x] += v * v;
    if (v < min[x]) min[x] = v;
    if (v > max[x]) max[x] = v;
  };
  for (const { seg, docs: ds } of docs) {
    const col = column(ctx, node.field, seg);
    const map = go.bySegment.get(seg);
    if (!col || col.kind !== 'ords' || !map) {
      missing += ds.length;
      continue;
    }
    const cols = metrics.map((a) => column(ctx, a.field, seg));
    const one = cols[0];
    if (col.single && M === 1 && one?.kind === 'nums' && one.single) {
      missing += countSingleNumber(col.single, map, one, metrics[0].type, ds, global, acc);
      continue;
    }
    for (let i = 0; i < ds.length; i++) {
      const d = ds[i];
      const from = col.single ? 0 : col.starts![d];
      const to = col.single ? (col.single[d] === 0 ? 0 : 1) : col.starts![d + 1];
      if (from === to) missing++;
      for (let j = from; j < to; j++) {
        const g = map[col.single ? col.single[d] - 1 : col.ords![j]];
        global[g]++;
        for (let m = 0; m < M; m++) {
          const mc = cols[m];
          if (!mc || mc.kind !== 'nums') continue;
          if (mc.single) {
            if (mc.nf.has[d]) add(g * M + m, mc.nf.min[d]);
          } else {
            const n = readValues(mc, d, scratch);
            for (let k = 0; k < n; k++) add(g * M + m, scratch[k]);
          }
        }
      }
    }
  }
  return {
    global,
    missing,
    partials: (g) =>
      parallel(
        node.aggs,
        metrics.map((a, m) => statsPartial(a.type, count[g * M + m], sum[g * M + m], min[g * M + m], max[g * M + m], sumSq[g * M + m])),
      ),
  };
}
