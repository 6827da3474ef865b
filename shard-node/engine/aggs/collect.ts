/**
 * Shard-side aggregation: computes each aggregation's partial result (protocol/aggs.ts)
 * over the live matches of one generation, recursing into the buckets for sub-aggregations, as
 * ES's aggregators do per shard before the coordinator's reduce. Buckets are collected breadth
 * first: counts for every bucket, then sub-aggregations only for the buckets the shard lists (ES's
 * `breadth_first` collect mode). Also answers the `terms` refinement tasks of the exact terms
 * rounds, on the bucket a path names (docs/aggregations.md). `terms` itself is terms-collect.ts.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/AggregatorBase.java
 */
import type { AggNode, CardinalityAgg, FiltersAgg, HistogramAgg, PercentilesAgg, RangeAgg, StatsMetricAgg } from '../../../protocol/agg-request.ts';
import { roundDate, UTC, zoneOf } from '../../../shared/aggs/date-zone.ts';
import { HyperLogLog, precisionFor } from '../../../shared/aggs/hyperloglog.ts';
import { TDigest } from '../../../shared/aggs/tdigest.ts';
import type {
  AggPartial,
  BucketKey,
  BucketStep,
  CardinalityPartial,
  HistogramPartial,
  MultiPartial,
  PercentilesPartial,
  StatsPartial,
  TermsPartial,
  TermsRefineTask,
} from '../../../protocol/aggs.ts';
import {
  asSegDocs,
  column,
  countDocs,
  filterDocs,
  forEachKey,
  groupDocs,
  liveDocs,
  numericMissing,
  scratch,
  subtractDocs,
  type AggContext,
} from './agg-context.ts';
import { readValues, valuesKind, type SegDocs } from './doc-values.ts';
import { collectComposite, compositeBucketDocs } from './composite-collect.ts';
import { statsPartial } from './stats-partial.ts';
import { collectTerms, refineTerms } from './terms-collect.ts';
import { collectTopHits } from './top-hits-collect.ts';

// ---------------------------------------------------------------------------------------------
// histograms, ranges, single buckets

/** The bucket key function of a histogram node. */
function histogramKey(node: HistogramAgg): (v: number) => number {
  if (node.type === 'date_histogram') {
    const zone = node.timeZone ? zoneOf(node.timeZone) : UTC;
    const iv = node.dateInterval!;
    return (v) => roundDate(v, iv, zone, node.offset);
  }
  const { interval, offset } = node;
  return (v) => Math.floor((v - offset) / interval) * interval + offset;
}

/** Calls `fn(bucketKey, s, d)` once per histogram bucket of each doc. */
function forEachHistogramKey(node: HistogramAgg, docs: SegDocs[], ctx: AggContext, fn: (key: BucketKey, s: number, d: number) => void): void {
  const key = histogramKey(node);
  const hb = node.hardBounds;
  let lastS = -1;
  let lastD = -1;
  let seen: number[] = [];
  forEachKey(ctx, node.field, node.missing, docs, (v, s, d) => {
    const k = key(v as number);
    if (hb && ((hb.min !== undefined && k < hb.min) || (hb.max !== undefined && k > hb.max))) return;
    if (s !== lastS || d !== lastD) {
      lastS = s;
      lastD = d;
      seen = [];
    }
    if (seen.includes(k)) return;
    seen.push(k);
    fn(k, s, d);
  });
}

function collectHistogram(node: HistogramAgg, docs: SegDocs[], ctx: AggContext): HistogramPartial {
  const groups = groupDocs(docs, (fn) => forEachHistogramKey(node, docs, ctx, fn));
  const keys = [...groups.keys()].sort((a, b) => (a as number) - (b as number));
  return {
    t: 'hist',
    buckets: keys.map((k) => {
      const g = groups.get(k)!;
      const n = g.reduce((x, l) => x + l.length, 0);
      return node.aggs.length > 0 ? { key: k as number, n, aggs: collectAggs(node.aggs, asSegDocs(docs, g), ctx, false) } : { key: k as number, n };
    }),
  };
}

/** Calls `fn(rangeIndex, s, d)` once per range holding some value of each doc. */
function forEachRange(node: RangeAgg, docs: SegDocs[], ctx: AggContext, fn: (key: BucketKey, s: number, d: number) => void): void {
  let lastS = -1;
  let lastD = -1;
  let seen = new Set<number>();
  forEachKey(ctx, node.field, node.missing, docs, (v, s, d) => {
    if (s !== lastS || d !== lastD) {
      lastS = s;
      lastD = d;
      seen = new Set();
    }
    node.ranges.forEach((r, i) => {
      if ((r.from === undefined || (v as number) >= r.from) && (r.to === undefined || (v as number) < r.to) && !seen.has(i)) {
        seen.add(i);
        fn(i, s, d);
      }
    });
  });
}

function collectRange(node: RangeAgg, docs: SegDocs[], ctx: AggContext): MultiPartial {
  const groups = groupDocs(docs, (fn) => forEachRange(node, docs, ctx, fn));
  return {
    t: 'multi',
    buckets: node.ranges.map((_, i) => {
      const g = groups.get(i);
      const sd = g ? asSegDocs(docs, g) : docs.map(({ seg }) => ({ seg, docs: new Int32Array(0) }));
      return node.aggs.length > 0 ? { n: countDocs(sd), aggs: collectAggs(node.aggs, sd, ctx, false) } : { n: countDocs(sd) };
    }),
  };
}

/** The docs of each `filters` bucket (then the other bucket when asked). */
function filtersBuckets(node: FiltersAgg, docs: SegDocs[], ctx: AggContext): SegDocs[][] {
  const parts = node.filters.map((f) => filterDocs(docs, f.query, ctx));
  if (node.otherBucketKey !== null) parts.push(subtractDocs(docs, parts));
  return parts;
}

/** Docs without a value in `field` (the `missing` bucket). */
function missingDocs(field: string, docs: SegDocs[], ctx: AggContext): SegDocs[] {
  return docs.map(({ seg, docs: ds }) => {
    const col = column(ctx, field, seg);
    if (!col) return { seg, docs: ds };
    return { seg, docs: ds.filter((d) => readValues(col, d, scratch) === 0) };
  });
}

// ---------------------------------------------------------------------------------------------
// metrics

function collectStats(node: StatsMetricAgg, docs: SegDocs[], ctx: AggContext): StatsPartial {
  const fm = ctx.fields.get(node.field);
  const miss = node.missing === undefined ? undefined : numericMissing(node.missing, fm);
  let count = 0;
  let sum = 0;
  let sumSq = 0;
  let min = Infinity;
  let max = -Infinity;
  const add = (v: number) => {
    count++;
    sum += v;
    sumSq += v * v;
    if (v < min) min = v;
    if (v > max) max = v;
  };
  const countOnly = fm !== undefined && valuesKind(fm) === 'string';
  for (const { seg, docs: ds } of docs) {
    const col = column(ctx, node.field, seg);
    if (col?.kind === 'nums' && col.single && node.missing === undefined) {
      // Single-valued numbers: read the column directly (the common case, e.g. `sum` of population).
      const { has, min: values } = col.nf;
      for (let i = 0; i < ds.length; i++) {
        const d = ds[i];
        if (!has[d]) continue;
        const v = values[d];
        count++;
        sum += v;
        sumSq += v * v;
        if (v < min) min = v;
        if (v > max) max = v;
      }
      continue;
    }
    for (let i = 0; i < ds.length; i++) {
      const n = col ? readValues(col, ds[i], scratch) : 0;
      if (n === 0) {
        if (node.missing !== undefined) {
          if (countOnly) count++;
          else add(miss!);
        }
        continue;
      }
      if (countOnly) count += n;
      else for (let j = 0; j < n; j++) add(scratch[j]);
    }
  }
  return statsPartial(node.type, count, sum, min, max, sumSq, !countOnly);
}

function collectCardinality(node: CardinalityAgg, docs: SegDocs[], ctx: AggContext): CardinalityPartial {
  const values = new Set<BucketKey>();
  forEachKey(ctx, node.field, node.missing, docs, (k) => values.add(k));
  if (values.size <= node.precisionThreshold) return { t: 'card', values: [...values] };
  const p = precisionFor(node.precisionThreshold);
  const hll = new HyperLogLog(p);
  for (const v of values) hll.add(v);
  return { t: 'card', registers: hll.toBase64(), precision: p };
}

function collectPercentiles(node: PercentilesAgg, docs: SegDocs[], ctx: AggContext): PercentilesPartial {
  const digest = new TDigest(node.compression > 0 ? 1 / node.compression : 0.01);
  const fm = ctx.fields.get(node.field);
  const miss = node.missing === undefined ? undefined : numericMissing(node.missing, fm);
  for (const { seg, docs: ds } of docs) {
    const col = column(ctx, node.field, seg);
    for (let i = 0; i < ds.length; i++) {
      const n = col ? readValues(col, ds[i], scratch) : 0;
      if (n === 0 && miss !== undefined) digest.push(miss);
      for (let j = 0; j < n; j++) digest.push(scratch[j]);
    }
  }
  digest.compress();
  const centroids: number[] = [];
  for (const c of digest.toArray()) centroids.push(c.mean, c.n);
  return { t: 'pct', centroids };
}

// ---------------------------------------------------------------------------------------------
// the tree

/**
 * Collects every aggregation of `nodes` over `docs` (live docs of one bucket, per segment).
 * @param topLevel whether these are the request's top-level aggregations (their `terms` lists go deeper)
 */
export function collectAggs(nodes: readonly AggNode[], docs: SegDocs[], ctx: AggContext, topLevel: boolean): AggPartial[] {
  return nodes.map((node): AggPartial => {
    switch (node.type) {
      case 'terms':
        return collectTerms(node, docs, ctx, topLevel);
      case 'histogram':
      case 'date_histogram':
        return collectHistogram(node, docs, ctx);
      case 'range':
      case 'date_range':
        return collectRange(node, docs, ctx);
      case 'filters': {
        const parts = filtersBuckets(node, docs, ctx);
        return {
          t: 'multi',
          buckets: parts.map((p) => (node.aggs.length > 0 ? { n: countDocs(p), aggs: collectAggs(node.aggs, p, ctx, false) } : { n: countDocs(p) })),
        };
      }
      case 'filter':
      case 'missing':
      case 'global': {
        const sub = bucketDocs(node, 0, docs, ctx);
        return node.aggs.length > 0 ? { t: 'single', n: countDocs(sub), aggs: collectAggs(node.aggs, sub, ctx, false) } : { t: 'single', n: countDocs(sub) };
      }
      case 'composite':
        return collectComposite(node, docs, ctx);
      case 'bucket_sort':
      case 'bucket_script':
      case 'bucket_selector':
      case 'avg_bucket':
      case 'max_bucket':
      case 'min_bucket':
      case 'sum_bucket':
      case 'stats_bucket':
      case 'cumulative_sum':
      case 'derivative':
        return { t: 'pipe' };
      case 'top_hits':
        return collectTopHits(node, docs, ctx);
      case 'cardinality':
        return collectCardinality(node, docs, ctx);
      case 'percentiles':
      case 'percentile_ranks':
        return collectPercentiles(node, docs, ctx);
      case 'avg':
      case 'extended_stats':
      case 'max':
      case 'min':
      case 'stats':
      case 'sum':
      case 'value_count':
        return collectStats(node, docs, ctx);
    }
  });
}

/** The docs of one bucket of a bucket aggregation (a refinement path step). */
function bucketDocs(node: AggNode, key: BucketKey, docs: SegDocs[], ctx: AggContext): SegDocs[] {
  switch (node.type) {
    case 'filter':
      return filterDocs(docs, node.query, ctx);
    case 'global':
      return liveDocs(ctx.gen);
    case 'missing':
      return missingDocs(node.field ?? '', docs, ctx);
    case 'filters': {
      const i = Number(key);
      if (i < node.filters.length) return filterDocs(docs, node.filters[i].query, ctx);
      return subtractDocs(
        docs,
        node.filters.map((f) => filterDocs(docs, f.query, ctx)),
      );
    }
    case 'terms': {
      return groupAt(docs, (fn) => forEachKey(ctx, node.field, node.missing, docs, fn), key);
    }
    case 'histogram':
    case 'date_histogram': {
      return groupAt(docs, (fn) => forEachHistogramKey(node, docs, ctx, fn), key);
    }
    case 'range':
    case 'date_range': {
      return groupAt(docs, (fn) => forEachRange(node, docs, ctx, fn), Number(key));
    }
    case 'composite':
      return compositeBucketDocs(node, String(key), docs, ctx);
    default:
      return docs; // metric and pipeline aggregations have no buckets: the docs stay as they are
  }
}

/** The documents of `docs` whose key (as `each` enumerates them) is `key`; empty lists when none has it. */
function groupAt(docs: SegDocs[], each: (fn: (key: BucketKey, s: number, d: number) => void) => void, key: BucketKey): SegDocs[] {
  const g = groupDocs(docs, each, (k) => k === key).get(key);
  return g ? asSegDocs(docs, g) : docs.map(({ seg }) => ({ seg, docs: new Int32Array(0) }));
}

/** Follows a refinement path from `docs` down to the level holding the task's terms node. */
function docsAtPath(nodes: readonly AggNode[], path: readonly BucketStep[], docs: SegDocs[], ctx: AggContext): { nodes: readonly AggNode[]; docs: SegDocs[] } {
  let level = nodes;
  let cur = docs;
  for (const step of path) {
    const node = level[step.agg];
    cur = bucketDocs(node, step.key, cur, ctx);
    level = node.aggs;
  }
  return { nodes: level, docs: cur };
}

/**
 * Answers refinement tasks (one {@link TermsPartial} each) over the query's live matches `docs`.
 * @throws EsError 400 when a task names no terms aggregation (a coordinator bug)
 */
export function refineAggs(nodes: readonly AggNode[], tasks: readonly TermsRefineTask[], docs: SegDocs[], ctx: AggContext): TermsPartial[] {
  return tasks.map((task) => {
    const at = docsAtPath(nodes, task.path, docs, ctx);
    const node = at.nodes[task.agg];
    if (!node || node.type !== 'terms') throw new Error(`refinement task names no terms aggregation at [${task.agg}]`);
    return refineTerms(node, at.docs, task, ctx);
  });
}
