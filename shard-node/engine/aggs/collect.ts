/**
 * Shard-side aggregation: computes each aggregation's partial result (shared/protocol/aggs.ts)
 * over the live matches of one generation, recursing into the buckets for sub-aggregations, as
 * ES's aggregators do per shard before the coordinator's reduce. Buckets are collected breadth
 * first: counts for every bucket, then sub-aggregations only for the buckets the shard lists (ES's
 * `breadth_first` collect mode). Also answers the `terms` refinement tasks of the exact terms
 * rounds, on the bucket a path names (docs/aggregations.md).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/bucket/terms/GlobalOrdinalsStringTermsAggregator.java
 */
import type { FieldMapping } from '../../../shared/mapping.ts';
import type {
  AggNode, CardinalityAgg, FiltersAgg, HistogramAgg, PercentilesAgg, RangeAgg, StatsMetricAgg, TermsAgg,
} from '../../../shared/aggs/agg-request.ts';
import { parseDateValue } from '../../../shared/aggs/date-format.ts';
import { roundDate, UTC, zoneOf } from '../../../shared/aggs/date-zone.ts';
import { HyperLogLog, precisionFor } from '../../../shared/aggs/hyperloglog.ts';
import { simpleRegex } from '../../../shared/aggs/simple-regex.ts';
import { compareKeys, countKeyComparator, shardListSize, termsMode, TOP_LEVEL_CANDIDATES } from '../../../shared/aggs/terms-plan.ts';
import type {
  AggPartial, BucketKey, BucketStep, CardinalityPartial, HistogramPartial, MultiPartial, PercentilesPartial, StatsPartial, TermsPartial, TermsRefineTask,
} from '../../../shared/protocol/aggs.ts';
import type { Query } from '../../../shared/query-ast.ts';
import type { Generation } from '../generation.ts';
import { evaluate } from '../query-exec.ts';
import { keyOf, readValues, valuesColumn, valuesKind, type SegDocs, type ValuesColumn } from './doc-values.ts';
import { TDigest } from '../../../shared/aggs/tdigest.ts';

/** What collection reads: the generation and its flattened mapping. */
export interface AggContext {
  gen: Generation;
  fields: Map<string, FieldMapping>;
  /** Terms a top-level `count` list carries (default {@link TOP_LEVEL_CANDIDATES}; tests make it small). */
  candidates?: number;
}

const scratch: number[] = [];

/** Every live doc of the generation (the `global` bucket). */
export function liveDocs(gen: Generation): SegDocs[] {
  return gen.views.map((v) => {
    const live = v.live;
    if (!live) return { seg: v.segment, docs: Int32Array.from({ length: v.segment.maxDoc }, (_, i) => i) };
    const out: number[] = [];
    for (let d = 0; d < v.segment.maxDoc; d++) if (live[d]) out.push(d);
    return { seg: v.segment, docs: Int32Array.from(out) };
  });
}

/** The live matches of `query` per segment. */
export function matchingDocs(gen: Generation, query: Query): SegDocs[] {
  return gen.segmentMatches(query, undefined, false).map(({ seg, live, m }) => {
    if (!live) return { seg, docs: m.docs };
    const out: number[] = [];
    for (let i = 0; i < m.docs.length; i++) if (live[m.docs[i]]) out.push(m.docs[i]);
    return { seg, docs: Int32Array.from(out) };
  });
}

/** `docs` ∩ matches of `query` (both ascending), per segment. */
function filterDocs(docs: SegDocs[], query: Query, ctx: AggContext): SegDocs[] {
  const plan = ctx.gen.plan(query, undefined);
  return docs.map(({ seg, docs: ds }) => {
    const m = evaluate(plan, seg, false).docs;
    const out: number[] = [];
    let j = 0;
    for (let i = 0; i < ds.length; i++) {
      const d = ds[i];
      while (j < m.length && m[j] < d) j++;
      if (j < m.length && m[j] === d) out.push(d);
    }
    return { seg, docs: Int32Array.from(out) };
  });
}

/** Docs of `docs` that are not in any of `parts` (the `filters` other bucket). */
function subtractDocs(docs: SegDocs[], parts: SegDocs[][]): SegDocs[] {
  return docs.map(({ seg, docs: ds }, s) => {
    const taken = new Set<number>();
    for (const p of parts) for (const d of p[s].docs) taken.add(d);
    return { seg, docs: ds.filter((d) => !taken.has(d)) };
  });
}

const countDocs = (docs: SegDocs[]): number => docs.reduce((n, s) => n + s.docs.length, 0);

/** The column of `field` in `seg`, or null (unmapped, or no value in the segment). */
function column(ctx: AggContext, field: string, seg: SegDocs['seg']): ValuesColumn | null {
  const fm = ctx.fields.get(field);
  return fm && valuesKind(fm) ? valuesColumn(seg, field, fm) : null;
}

/** The number a `missing` substitute stands for on a numeric/date/boolean field. */
function numericMissing(v: unknown, fm: FieldMapping | undefined): number {
  if (fm?.type === 'date') return parseDateValue(v);
  if (v === true || v === 'true') return 1;
  if (v === false || v === 'false') return 0;
  return Number(v);
}

/**
 * Calls `fn(key)` once per distinct value of each doc (keys as terms or numbers), and for docs
 * without a value with `missing` when given. Returns nothing; `fn` may record the doc.
 */
function forEachKey(ctx: AggContext, field: string, missing: unknown, docs: SegDocs[], fn: (key: BucketKey, s: number, d: number) => void): void {
  const fm = ctx.fields.get(field);
  const numeric = fm !== undefined && valuesKind(fm) === 'number';
  const miss: BucketKey | undefined = missing === undefined ? undefined : numeric ? numericMissing(missing, fm) : String(missing);
  docs.forEach(({ seg, docs: ds }, s) => {
    const col = column(ctx, field, seg);
    for (let i = 0; i < ds.length; i++) {
      const d = ds[i];
      const n = col ? readValues(col, d, scratch) : 0;
      if (n === 0) {
        if (miss !== undefined) fn(miss, s, d);
        continue;
      }
      for (let j = 0; j < n; j++) {
        const v = scratch[j];
        let dup = false;
        for (let k = 0; k < j; k++) if (scratch[k] === v) dup = true;
        if (!dup) fn(keyOf(col!, v), s, d);
      }
    }
  });
}

/** Groups docs per bucket key (only keys `want` accepts, when given). */
function groupDocs(docs: SegDocs[], each: (fn: (key: BucketKey, s: number, d: number) => void) => void, want?: (key: BucketKey) => boolean): Map<BucketKey, number[][]> {
  const groups = new Map<BucketKey, number[][]>();
  each((key, s, d) => {
    if (want && !want(key)) return;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = docs.map(() => [])));
    const list = g[s];
    if (list[list.length - 1] !== d) list.push(d);
  });
  return groups;
}

const asSegDocs = (docs: SegDocs[], lists: number[][]): SegDocs[] => docs.map(({ seg }, s) => ({ seg, docs: Int32Array.from(lists[s]) }));

// ---------------------------------------------------------------------------------------------
// terms

/** The accept test of `include`/`exclude` on keys of a field of the given kind. */
function termAcceptor(node: TermsAgg, numeric: boolean): ((key: BucketKey) => boolean) | null {
  if (!node.include && !node.exclude) return null;
  const test = (f: NonNullable<TermsAgg['include']>, param: 'include' | 'exclude'): ((key: BucketKey) => boolean) => {
    if ('regex' in f) {
      const m = simpleRegex(f.regex, param);
      return (k) => typeof k === 'string' && m(k);
    }
    const set = new Set<BucketKey>(f.values.map((v) => (numeric ? numericMissing(v, undefined) : String(v))));
    return (k) => set.has(k);
  };
  const inc = node.include ? test(node.include, 'include') : null;
  const exc = node.exclude ? test(node.exclude, 'exclude') : null;
  return (k) => (!inc || inc(k)) && !(exc && exc(k));
}

/** Exact per-term counts of a terms node over `docs` (accepted terms only; with `min_doc_count: 0`, every term of the field too). */
function countTerms(node: TermsAgg, docs: SegDocs[], ctx: AggContext): Map<BucketKey, number> {
  const fm = ctx.fields.get(node.field);
  const numeric = fm !== undefined && valuesKind(fm) === 'number';
  const accept = termAcceptor(node, numeric);
  const counts = new Map<BucketKey, number>();
  const stringFast = fm !== undefined && !numeric && node.missing === undefined;
  if (stringFast) {
    for (const { seg, docs: ds } of docs) {
      const col = column(ctx, node.field, seg);
      if (!col || col.kind !== 'ords') continue;
      const per = new Int32Array(col.terms.length);
      if (col.single) {
        const r = col.single;
        for (let i = 0; i < ds.length; i++) {
          const v = r[ds[i]];
          if (v !== 0) per[v - 1]++;
        }
      } else {
        const st = col.starts!;
        const os = col.ords!;
        for (let i = 0; i < ds.length; i++) for (let j = st[ds[i]]; j < st[ds[i] + 1]; j++) per[os[j]]++;
      }
      for (let r = 0; r < per.length; r++) if (per[r] > 0) counts.set(col.terms[r], (counts.get(col.terms[r]) ?? 0) + per[r]);
    }
  } else {
    forEachKey(ctx, node.field, node.missing, docs, (key) => counts.set(key, (counts.get(key) ?? 0) + 1));
  }
  if (node.minDocCount === 0 && fm) {
    // ES lists every term of the field with a count of 0 (from the terms dictionary, or every live doc's values).
    if (numeric) forEachKey(ctx, node.field, undefined, liveDocs(ctx.gen), (key) => counts.has(key) || counts.set(key, 0));
    else {
      for (const v of ctx.gen.views) {
        const col = column(ctx, node.field, v.segment);
        if (col?.kind === 'ords') for (const t of col.terms) if (!counts.has(t)) counts.set(t, 0);
      }
    }
  }
  if (accept) for (const k of [...counts.keys()]) if (!accept(k)) counts.delete(k);
  return counts;
}

/** Sub-aggregations of the buckets `keys` of a terms node. */
function termBucketAggs(node: TermsAgg, docs: SegDocs[], keys: BucketKey[], ctx: AggContext): Map<BucketKey, AggPartial[]> {
  const want = new Set(keys);
  const groups = groupDocs(docs, (fn) => forEachKey(ctx, node.field, node.missing, docs, fn), (k) => want.has(k));
  const out = new Map<BucketKey, AggPartial[]>();
  for (const k of keys) {
    const g = groups.get(k);
    out.set(k, collectAggs(node.aggs, g ? asSegDocs(docs, g) : docs.map(({ seg }) => ({ seg, docs: new Int32Array(0) })), ctx, false));
  }
  return out;
}

/**
 * The `n` first entries in `cmp` order without sorting them all: by count alone first (a count
 * histogram finds the count at rank n; ties at that count are taken in any order, which the
 * coordinator's bounds allow), then only the chosen entries are sorted. Sorting 45,000 city names
 * with a code-point comparator took ~100 ms a shard; this takes a few.
 */
function topByCount(entries: [BucketKey, number][], n: number, desc: boolean, cmp: (a: [BucketKey, number], b: [BucketKey, number]) => number): [BucketKey, number][] {
  if (n >= entries.length) return entries.sort(cmp);
  const freq = new Map<number, number>();
  for (const e of entries) freq.set(e[1], (freq.get(e[1]) ?? 0) + 1);
  const counts = [...freq.keys()].sort((a, b) => (desc ? b - a : a - b));
  let taken = 0;
  let edge = counts[0];
  for (const c of counts) {
    edge = c;
    taken += freq.get(c)!;
    if (taken >= n) break;
  }
  let atEdge = n - (taken - freq.get(edge)!);
  const out: [BucketKey, number][] = [];
  for (const e of entries) {
    if (desc ? e[1] > edge : e[1] < edge) out.push(e);
    else if (e[1] === edge && atEdge > 0) {
      out.push(e);
      atEdge--;
    }
  }
  return out.sort(cmp);
}

/** The `n` first entries by key (a bounded selection, then a sort of those). */
function topByKey(entries: [BucketKey, number][], n: number, cmp: (a: [BucketKey, number], b: [BucketKey, number]) => number): [BucketKey, number][] {
  if (n * 4 >= entries.length) return entries.sort(cmp).slice(0, n);
  const heap: [BucketKey, number][] = []; // max-heap on cmp: the worst kept entry on top
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) return;
      const m = l + 1 < heap.length && cmp(heap[l + 1], heap[l]) > 0 ? l + 1 : l;
      if (cmp(heap[m], heap[i]) <= 0) return;
      [heap[m], heap[i]] = [heap[i], heap[m]];
      i = m;
    }
  };
  for (const e of entries) {
    if (heap.length < n) {
      heap.push(e);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (cmp(heap[i], heap[p]) <= 0) break;
        [heap[i], heap[p]] = [heap[p], heap[i]];
        i = p;
      }
    } else if (cmp(e, heap[0]) < 0) {
      heap[0] = e;
      down(0);
    }
  }
  return heap.sort(cmp);
}

/** A shard's first-round list of a terms node (see shared/aggs/terms-plan.ts). */
function collectTerms(node: TermsAgg, docs: SegDocs[], ctx: AggContext, topLevel: boolean): TermsPartial {
  const counts = countTerms(node, docs, ctx);
  let total = 0;
  for (const c of counts.values()) total += c;
  const mode = termsMode(node);
  let entries = [...counts];
  const distinct = entries.length;
  let listed = distinct;
  if (mode === 'count' || mode === 'key') {
    const order = countKeyComparator(node.order);
    const cmp = (a: [BucketKey, number], b: [BucketKey, number]) => order(a[0], a[1], b[0], b[1]);
    listed = Math.min(distinct, shardListSize(node));
    const candidates = mode === 'count' && topLevel ? Math.min(distinct, Math.max(listed, ctx.candidates ?? TOP_LEVEL_CANDIDATES)) : listed;
    entries = mode === 'count' ? topByCount(entries, candidates, true, cmp) : topByKey(entries, candidates, cmp);
  } else entries.sort((a, b) => compareKeys(a[0], b[0]));
  const head = entries.slice(0, listed);
  const subs = node.aggs.length > 0 ? termBucketAggs(node, docs, head.map((e) => e[0]), ctx) : null;
  const complete = entries.length === distinct;
  const out: TermsPartial = {
    t: 'terms',
    buckets: head.map(([key, n]) => (subs ? { key, n, aggs: subs.get(key)! } : { key, n })),
    complete,
    cutoff: complete || entries.length === 0 ? 0 : entries[entries.length - 1][1],
    total,
  };
  if (entries.length > listed) {
    const tail = entries.slice(listed);
    out.more = { keys: tail.map((e) => e[0]), counts: tail.map((e) => e[1]) };
  }
  return out;
}

/** Exact counts of the terms `keys` only (a refinement's `include`). */
function countKeys(node: TermsAgg, docs: SegDocs[], keys: readonly BucketKey[], ctx: AggContext): Map<BucketKey, number> {
  const fm = ctx.fields.get(node.field);
  const counts = new Map<BucketKey, number>();
  if (fm === undefined || valuesKind(fm) !== 'string' || node.missing !== undefined) {
    const want = new Set(keys);
    forEachKey(ctx, node.field, node.missing, docs, (k) => want.has(k) && counts.set(k, (counts.get(k) ?? 0) + 1));
    return counts;
  }
  const sorted = keys.filter((k): k is string => typeof k === 'string');
  for (const { seg, docs: ds } of docs) {
    const col = column(ctx, node.field, seg);
    if (!col || col.kind !== 'ords') continue;
    const slot = new Int32Array(col.terms.length).fill(-1);
    sorted.forEach((k, i) => {
      const r = ordinalOf(col.terms, k);
      if (r >= 0) slot[r] = i;
    });
    const per = new Int32Array(sorted.length);
    if (col.single) {
      for (let i = 0; i < ds.length; i++) {
        const v = col.single[ds[i]];
        if (v !== 0 && slot[v - 1] >= 0) per[slot[v - 1]]++;
      }
    } else {
      const st = col.starts!;
      const os = col.ords!;
      for (let i = 0; i < ds.length; i++) for (let j = st[ds[i]]; j < st[ds[i] + 1]; j++) if (slot[os[j]] >= 0) per[slot[os[j]]]++;
    }
    sorted.forEach((k, i) => per[i] > 0 && counts.set(k, (counts.get(k) ?? 0) + per[i]));
  }
  return counts;
}

/** The ordinal of `term` in a dictionary sorted by code point, or −1. */
function ordinalOf(terms: readonly string[], term: string): number {
  let lo = 0;
  let hi = terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareKeys(terms[mid], term);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Answers one refinement task on the terms node's docs. */
function refineTerms(node: TermsAgg, docs: SegDocs[], task: TermsRefineTask, ctx: AggContext): TermsPartial {
  if (task.threshold) {
    const counts = countTerms(node, docs, ctx);
    let total = 0;
    for (const c of counts.values()) total += c;
    const { min, max } = task.threshold;
    const buckets: TermsPartial['buckets'] = [];
    for (const [key, n] of counts) if (n >= min && n <= max) buckets.push({ key, n });
    return { t: 'terms', buckets, complete: false, cutoff: min - 1, total };
  }
  const counts = countKeys(node, docs, task.include ?? [], ctx);
  const keys = (task.include ?? []).filter((k) => (counts.get(k) ?? 0) > 0);
  const subs = task.subAggs && node.aggs.length > 0 ? termBucketAggs(node, docs, keys, ctx) : null;
  return { t: 'terms', buckets: keys.map((key) => (subs ? { key, n: counts.get(key)!, aggs: subs.get(key)! } : { key, n: counts.get(key)! })), complete: false, cutoff: 0, total: 0 };
}

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
    for (let i = 0; i < ds.length; i++) {
      const n = col ? readValues(col, ds[i], scratch) : 0;
      if (n === 0) {
        if (node.missing !== undefined) countOnly ? count++ : add(miss!);
        continue;
      }
      if (countOnly) count += n;
      else for (let j = 0; j < n; j++) add(scratch[j]);
    }
  }
  return { t: 'stats', count, sum, min: count > 0 && !countOnly ? min : null, max: count > 0 && !countOnly ? max : null, sumSq };
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
      case 'terms': return collectTerms(node, docs, ctx, topLevel);
      case 'histogram': case 'date_histogram': return collectHistogram(node, docs, ctx);
      case 'range': case 'date_range': return collectRange(node, docs, ctx);
      case 'filters': {
        const parts = filtersBuckets(node, docs, ctx);
        return { t: 'multi', buckets: parts.map((p) => (node.aggs.length > 0 ? { n: countDocs(p), aggs: collectAggs(node.aggs, p, ctx, false) } : { n: countDocs(p) })) };
      }
      case 'filter': case 'missing': case 'global': {
        const sub = bucketDocs(node, 0, docs, ctx);
        return node.aggs.length > 0 ? { t: 'single', n: countDocs(sub), aggs: collectAggs(node.aggs, sub, ctx, false) } : { t: 'single', n: countDocs(sub) };
      }
      case 'cardinality': return collectCardinality(node, docs, ctx);
      case 'percentiles': return collectPercentiles(node, docs, ctx);
      default: return collectStats(node, docs, ctx);
    }
  });
}

/** The docs of one bucket of a bucket aggregation (a refinement path step). */
function bucketDocs(node: AggNode, key: BucketKey, docs: SegDocs[], ctx: AggContext): SegDocs[] {
  switch (node.type) {
    case 'filter': return filterDocs(docs, node.query, ctx);
    case 'global': return liveDocs(ctx.gen);
    case 'missing': return missingDocs(node.field ?? '', docs, ctx);
    case 'filters': {
      const i = Number(key);
      if (i < node.filters.length) return filterDocs(docs, node.filters[i].query, ctx);
      return subtractDocs(docs, node.filters.map((f) => filterDocs(docs, f.query, ctx)));
    }
    case 'terms': {
      const g = groupDocs(docs, (fn) => forEachKey(ctx, node.field, node.missing, docs, fn), (k) => k === key).get(key);
      return g ? asSegDocs(docs, g) : docs.map(({ seg }) => ({ seg, docs: new Int32Array(0) }));
    }
    case 'histogram': case 'date_histogram': {
      const g = groupDocs(docs, (fn) => forEachHistogramKey(node, docs, ctx, fn), (k) => k === key).get(key);
      return g ? asSegDocs(docs, g) : docs.map(({ seg }) => ({ seg, docs: new Int32Array(0) }));
    }
    case 'range': case 'date_range': {
      const g = groupDocs(docs, (fn) => forEachRange(node, docs, ctx, fn), (k) => k === Number(key)).get(Number(key));
      return g ? asSegDocs(docs, g) : docs.map(({ seg }) => ({ seg, docs: new Int32Array(0) }));
    }
    default: return docs;
  }
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
