/**
 * Shard-side `terms`: exact counts per term, the first-round list the coordinator's exact rounds
 * start from (shared/aggs/terms-plan.ts), and the answers to refinement tasks. String terms are
 * counted by global ordinal (doc-values.ts `globalOrdinals`, built once per generation), so the
 * counts come out in key order with no term hashed or compared; only the listed terms are ever
 * sorted by count.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/bucket/terms/GlobalOrdinalsStringTermsAggregator.java
 * @see docs/aggregations.md
 */
import type { TermsAgg } from '../../../protocol/agg-request.ts';
import { simpleRegex } from '../../../shared/aggs/simple-regex.ts';
import { DEFAULT_MAX_BUCKETS, tooManyBuckets } from '../../../shared/aggs/too-many-buckets.ts';
import { compareKeys, countKeyComparator, shardListSize, termsMode, TOP_LEVEL_CANDIDATES } from '../../../shared/aggs/terms-plan.ts';
import type { AggPartial, BucketKey, TermsPartial, TermsRefineTask } from '../../../protocol/aggs.ts';
import { column, forEachKey, liveDocs, numericMissing, type AggContext } from './agg-context.ts';
import { bucketedStats, bucketedStatsApply } from './bucketed-stats.ts';
import { globalOrdinals, valuesKind, type SegDocs } from './doc-values.ts';

/** Most candidates a large `size` asks a shard to list in the first round (10 × size, capped). */
const MAX_SIZED_CANDIDATES = 5000;

/** Exact counts per term, keys ascending (code points for strings, numeric for numbers). */
export interface TermCounts {
  keys: BucketKey[];
  counts: number[];
}

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

/** Inserts (or adds to) `key` in sorted counts. */
function addSorted(tc: TermCounts, key: BucketKey, n: number): void {
  let lo = 0;
  let hi = tc.keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(tc.keys[mid], key) < 0) lo = mid + 1;
    else hi = mid;
  }
  if (lo < tc.keys.length && tc.keys[lo] === key) tc.counts[lo] += n;
  else {
    tc.keys.splice(lo, 0, key);
    tc.counts.splice(lo, 0, n);
  }
}

/**
 * Exact per-term counts of a terms node over `docs`: accepted terms only; with `min_doc_count: 0`
 * every term of the field too (ES lists the terms dictionary, or every live doc's values, at 0).
 */
export function countTerms(node: TermsAgg, docs: SegDocs[], ctx: AggContext): TermCounts {
  const fm = ctx.fields.get(node.field);
  const numeric = fm !== undefined && valuesKind(fm) === 'number';
  let tc: TermCounts;
  if (fm !== undefined && !numeric) {
    // Global ordinals: count per global ordinal, which is already key order.
    const go = globalOrdinals(ctx.gen, ctx.gen.views.map((v) => v.segment), node.field, fm);
    const global = new Int32Array(go.terms.length);
    let missing = 0;
    for (const { seg, docs: ds } of docs) {
      const col = column(ctx, node.field, seg);
      const map = go.bySegment.get(seg);
      if (!col || col.kind !== 'ords' || !map) {
        missing += ds.length;
        continue;
      }
      if (col.single) {
        const r = col.single;
        for (let i = 0; i < ds.length; i++) {
          const v = r[ds[i]];
          if (v !== 0) global[map[v - 1]]++;
          else missing++;
        }
      } else {
        const st = col.starts!;
        const os = col.ords!;
        for (let i = 0; i < ds.length; i++) {
          const from = st[ds[i]];
          const to = st[ds[i] + 1];
          if (from === to) missing++;
          for (let j = from; j < to; j++) global[map[os[j]]]++;
        }
      }
    }
    const zeros = node.minDocCount === 0;
    tc = { keys: [], counts: [] };
    for (let g = 0; g < global.length; g++) {
      if (global[g] > 0 || zeros) {
        tc.keys.push(go.terms[g]);
        tc.counts.push(global[g]);
      }
    }
    if (node.missing !== undefined && missing > 0) addSorted(tc, String(node.missing), missing);
  } else {
    const m = new Map<BucketKey, number>();
    forEachKey(ctx, node.field, node.missing, docs, (key) => m.set(key, (m.get(key) ?? 0) + 1));
    if (node.minDocCount === 0 && fm) forEachKey(ctx, node.field, undefined, liveDocs(ctx.gen), (key) => m.has(key) || m.set(key, 0));
    const keys = [...m.keys()].sort(compareKeys);
    tc = { keys, counts: keys.map((k) => m.get(k)!) };
  }
  const accept = termAcceptor(node, numeric);
  if (!accept) return tc;
  const out: TermCounts = { keys: [], counts: [] };
  tc.keys.forEach((k, i) => {
    if (accept(k)) {
      out.keys.push(k);
      out.counts.push(tc.counts[i]);
    }
  });
  return out;
}

/**
 * Positions of the `n` first terms by count (descending) without sorting them all: a histogram of
 * the counts finds the count at rank n; ties at that count are taken in key order, which the
 * coordinator's bounds allow (every term not taken has at most that count). Then only those are sorted.
 */
function topByCount(tc: TermCounts, n: number, cmp: (a: number, b: number) => number): number[] {
  const all = tc.counts.length;
  if (n >= all) return Array.from({ length: all }, (_, i) => i).sort(cmp);
  const freq = new Map<number, number>();
  for (const c of tc.counts) freq.set(c, (freq.get(c) ?? 0) + 1);
  const distinct = [...freq.keys()].sort((a, b) => b - a);
  let taken = 0;
  let edge = distinct[0];
  for (const c of distinct) {
    edge = c;
    taken += freq.get(c)!;
    if (taken >= n) break;
  }
  let atEdge = n - (taken - freq.get(edge)!);
  const out: number[] = [];
  for (let i = 0; i < all; i++) {
    const c = tc.counts[i];
    if (c > edge) out.push(i);
    else if (c === edge && atEdge > 0) {
      out.push(i);
      atEdge--;
    }
  }
  return out.sort(cmp);
}

/** Docs per wanted term (parallel to `keys`), by ordinal slots for string fields. */
function termBucketDocs(node: TermsAgg, docs: SegDocs[], keys: readonly BucketKey[], ctx: AggContext): number[][][] {
  const lists = keys.map(() => docs.map((): number[] => []));
  const fm = ctx.fields.get(node.field);
  if (fm === undefined || valuesKind(fm) !== 'string' || node.missing !== undefined) {
    const index = new Map(keys.map((k, i) => [k, i]));
    forEachKey(ctx, node.field, node.missing, docs, (k, s, d) => {
      const i = index.get(k);
      if (i === undefined) return;
      const l = lists[i][s];
      if (l[l.length - 1] !== d) l.push(d);
    });
    return lists;
  }
  const go = globalOrdinals(ctx.gen, ctx.gen.views.map((v) => v.segment), node.field, fm);
  const globalSlot = new Int32Array(go.terms.length).fill(-1);
  keys.forEach((k, i) => {
    const g = typeof k === 'string' ? ordinalOf(go.terms, k) : -1;
    if (g >= 0) globalSlot[g] = i;
  });
  docs.forEach(({ seg, docs: ds }, s) => {
    const col = column(ctx, node.field, seg);
    const map = go.bySegment.get(seg);
    if (!col || col.kind !== 'ords' || !map) return;
    if (col.single) {
      for (let j = 0; j < ds.length; j++) {
        const v = col.single[ds[j]];
        if (v !== 0) {
          const b = globalSlot[map[v - 1]];
          if (b >= 0) lists[b][s].push(ds[j]);
        }
      }
    } else {
      const st = col.starts!;
      const os = col.ords!;
      for (let j = 0; j < ds.length; j++) {
        for (let x = st[ds[j]]; x < st[ds[j] + 1]; x++) {
          const b = globalSlot[map[os[x]]];
          if (b >= 0) lists[b][s].push(ds[j]);
        }
      }
    }
  });
  return lists;
}

/** Sub-aggregations of the buckets `keys` of a terms node. */
function termBucketAggs(node: TermsAgg, docs: SegDocs[], keys: readonly BucketKey[], ctx: AggContext): AggPartial[][] {
  if (bucketedStatsApply(node, ctx)) return bucketedStats(node, docs, keys, ctx, ordinalOf);
  return termBucketDocs(node, docs, keys, ctx).map((perSeg) => ctx.collectAggs(node.aggs, docs.map(({ seg }, s) => ({ seg, docs: Int32Array.from(perSeg[s]) })), ctx, false));
}

/** A shard's first-round list of a terms node (see shared/aggs/terms-plan.ts). */
export function collectTerms(node: TermsAgg, docs: SegDocs[], ctx: AggContext, topLevel: boolean): TermsPartial {
  const tc = countTerms(node, docs, ctx);
  let total = 0;
  for (const c of tc.counts) total += c;
  const mode = termsMode(node);
  const distinct = tc.keys.length;
  let chosen: number[];
  let listed = distinct;
  if (mode === 'count') {
    const order = countKeyComparator(node.order);
    listed = Math.min(distinct, shardListSize(node));
    // Deeper for a larger `size`: on flat distributions a threshold round costs more than a deeper list.
    const depth = Math.max(ctx.candidates ?? TOP_LEVEL_CANDIDATES, Math.min(10 * node.size, MAX_SIZED_CANDIDATES));
    const candidates = topLevel ? Math.min(distinct, Math.max(listed, depth)) : listed;
    chosen = topByCount(tc, candidates, (a, b) => order(tc.keys[a], tc.counts[a], tc.keys[b], tc.counts[b]));
  } else if (mode === 'key') {
    listed = Math.min(distinct, shardListSize(node));
    const asc = node.order[0].asc;
    chosen = Array.from({ length: listed }, (_, i) => (asc ? i : distinct - 1 - i));
  } else {
    // Orders other than count and key list every term with its sub-aggregations: bounded like ES's buckets.
    if (distinct > DEFAULT_MAX_BUCKETS) throw tooManyBuckets(DEFAULT_MAX_BUCKETS);
    chosen = Array.from({ length: distinct }, (_, i) => i);
  }
  const head = chosen.slice(0, listed);
  const subs = node.aggs.length > 0 ? termBucketAggs(node, docs, head.map((i) => tc.keys[i]), ctx) : null;
  const complete = chosen.length === distinct;
  const out: TermsPartial = {
    t: 'terms',
    buckets: head.map((i, b) => (subs ? { key: tc.keys[i], n: tc.counts[i], aggs: subs[b] } : { key: tc.keys[i], n: tc.counts[i] })),
    complete,
    cutoff: complete || chosen.length === 0 ? 0 : tc.counts[chosen[chosen.length - 1]],
    total,
  };
  if (chosen.length > listed) {
    const tail = chosen.slice(listed);
    out.more = { keys: tail.map((i) => tc.keys[i]), counts: tail.map((i) => tc.counts[i]) };
  }
  return out;
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
export function refineTerms(node: TermsAgg, docs: SegDocs[], task: TermsRefineTask, ctx: AggContext): TermsPartial {
  if (task.threshold) {
    const tc = countTerms(node, docs, ctx);
    let total = 0;
    for (const c of tc.counts) total += c;
    const { min, max } = task.threshold;
    const buckets: TermsPartial['buckets'] = [];
    tc.keys.forEach((key, i) => {
      const n = tc.counts[i];
      if (n >= min && n <= max) buckets.push({ key, n });
    });
    return { t: 'terms', buckets, complete: false, cutoff: min - 1, total };
  }
  const include = task.include ?? [];
  const lists = termBucketDocs(node, docs, include, ctx);
  const buckets: TermsPartial['buckets'] = [];
  include.forEach((key, i) => {
    const n = lists[i].reduce((x, l) => x + l.length, 0);
    if (n === 0) return;
    buckets.push(task.subAggs && node.aggs.length > 0 ? { key, n, aggs: ctx.collectAggs(node.aggs, docs.map(({ seg }, s) => ({ seg, docs: Int32Array.from(lists[i][s]) })), ctx, false) } : { key, n });
  });
  return { t: 'terms', buckets, complete: false, cutoff: 0, total: 0 };
}

