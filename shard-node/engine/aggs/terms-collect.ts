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
import { bucketedStats, bucketedStatsApply, countAndStats } from './bucketed-stats.ts';
import { globalOrdinals, valuesKind, type GlobalOrdinals, type SegDocs } from './doc-values.ts';

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

/** Doc counts per global ordinal of a string terms field over `docs`, and the docs without a value. */
export function countGlobal(node: TermsAgg, docs: SegDocs[], ctx: AggContext, go: GlobalOrdinals): { global: Int32Array; missing: number } {
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
  return { global, missing };
}

/**
 * The {@link TermCounts} of counts per global ordinal: terms with docs (every term with
 * `min_doc_count: 0`), the `missing` substitute added, `include`/`exclude` applied.
 */
export function termCountsOf(node: TermsAgg, go: GlobalOrdinals, global: Int32Array, missing: number): TermCounts {
  const zeros = node.minDocCount === 0;
  let present = 0;
  for (let g = 0; g < global.length; g++) if (global[g] > 0 || zeros) present++;
  // Sized once: pushing a hundred thousand terms one by one cost more than counting them.
  const keys: BucketKey[] = new Array<BucketKey>(present);
  const counts: number[] = new Array<number>(present);
  for (let g = 0, i = 0; g < global.length; g++) {
    if (global[g] > 0 || zeros) {
      keys[i] = go.terms[g];
      counts[i++] = global[g];
    }
  }
  const tc = { keys, counts };
  if (node.missing !== undefined && missing > 0) addSorted(tc, String(node.missing), missing);
  return accepted(node, false, tc);
}

/** `include`/`exclude` applied to counts. */
function accepted(node: TermsAgg, numeric: boolean, tc: TermCounts): TermCounts {
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
 * Exact per-term counts of a terms node over `docs`: accepted terms only; with `min_doc_count: 0`
 * every term of the field too (ES lists the terms dictionary, or every live doc's values, at 0).
 */
export function countTerms(node: TermsAgg, docs: SegDocs[], ctx: AggContext): TermCounts {
  const fm = ctx.fields.get(node.field);
  const numeric = fm !== undefined && valuesKind(fm) === 'number';
  if (fm !== undefined && !numeric) {
    // Global ordinals: count per global ordinal, which is already key order.
    const go = globalOrdinals(
      ctx.gen,
      ctx.gen.views.map((v) => v.segment),
      node.field,
      fm,
    );
    const { global, missing } = countGlobal(node, docs, ctx, go);
    return termCountsOf(node, go, global, missing);
  }
  const m = new Map<BucketKey, number>();
  forEachKey(ctx, node.field, node.missing, docs, (key) => m.set(key, (m.get(key) ?? 0) + 1));
  if (node.minDocCount === 0 && fm) forEachKey(ctx, node.field, undefined, liveDocs(ctx.gen), (key) => m.has(key) || m.set(key, 0));
  const keys = [...m.keys()].sort(compareKeys);
  return accepted(node, numeric, { keys, counts: keys.map((k) => m.get(k)!) });
}

/**
 * Positions of the `n` first terms by count (descending) without sorting them all: a histogram of
 * the counts finds the count at rank n; ties at that count are taken in key order, which the
 * coordinator's bounds allow (every term not taken has at most that count). Then only those are sorted.
 */
function topByCount(tc: TermCounts, n: number, cmp: (a: number, b: number) => number): number[] {
  const all = tc.counts.length;
  if (n >= all) return Array.from({ length: all }, (_, i) => i).sort(cmp);
  // Terms per count: an array up to a small count, a map above (counts of a high-cardinality field are small).
  const SMALL = 1024;
  const low = new Int32Array(SMALL);
  const high = new Map<number, number>();
  for (let i = 0; i < all; i++) {
    const c = tc.counts[i];
    if (c < SMALL) low[c]++;
    else high.set(c, (high.get(c) ?? 0) + 1);
  }
  const freqOf = (c: number) => (c < SMALL ? low[c] : high.get(c)!);
  const distinct = [...high.keys()].sort((a, b) => b - a);
  for (let c = SMALL - 1; c >= 0; c--) if (low[c] > 0) distinct.push(c);
  let taken = 0;
  let edge = distinct[0];
  for (const c of distinct) {
    edge = c;
    taken += freqOf(c);
    if (taken >= n) break;
  }
  let atEdge = n - (taken - freqOf(edge));
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

/**
 * A count-ordered list without the terms tied at its last count (when at least `keep` remain): the
 * bound on unlisted terms is that count either way, so the ties only cost bytes. On flat
 * distributions (city names: most terms once per shard) this halves the first round.
 */
function withoutEdgeTies(chosen: number[], counts: ArrayLike<number>, keep: number, distinct: number): number[] {
  if (chosen.length === 0 || chosen.length === distinct) return chosen;
  const edge = counts[chosen[chosen.length - 1]];
  let above = chosen.length;
  while (above > 0 && counts[chosen[above - 1]] === edge) above--;
  return above >= keep && above > 0 ? chosen.slice(0, above) : chosen;
}

/** The largest count among the terms not in `chosen` (the bound the coordinator may use for them). */
function maxUnlisted(counts: ArrayLike<number>, chosen: readonly number[]): number {
  const listed = new Uint8Array(counts.length);
  for (const i of chosen) listed[i] = 1;
  let max = 0;
  for (let i = 0; i < counts.length; i++) if (listed[i] === 0 && counts[i] > max) max = counts[i];
  return max;
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
  const go = globalOrdinals(
    ctx.gen,
    ctx.gen.views.map((v) => v.segment),
    node.field,
    fm,
  );
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
  return termBucketDocs(node, docs, keys, ctx).map((perSeg) =>
    ctx.collectAggs(
      node.aggs,
      docs.map(({ seg }, s) => ({ seg, docs: Int32Array.from(perSeg[s]) })),
      ctx,
      false,
    ),
  );
}

/** A shard's first-round list of a terms node (see shared/aggs/terms-plan.ts). */
export function collectTerms(node: TermsAgg, docs: SegDocs[], ctx: AggContext, topLevel: boolean): TermsPartial {
  const fm = ctx.fields.get(node.field);
  // Few terms and metric sub-aggregations: counts and metrics of every term in one pass.
  const go =
    node.aggs.length > 0 && fm !== undefined && valuesKind(fm) === 'string'
      ? globalOrdinals(
          ctx.gen,
          ctx.gen.views.map((v) => v.segment),
          node.field,
          fm,
        )
      : null;
  const onePass = go ? countAndStats(node, docs, ctx, go) : null;
  const tc = onePass ? termCountsOf(node, go!, onePass.global, onePass.missing) : countTerms(node, docs, ctx);
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
    chosen = withoutEdgeTies(chosen, tc.counts, listed, distinct);
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
  const headKeys = head.map((i) => tc.keys[i]);
  const subs = onePass
    ? headKeys.map((k) => onePass.partials(ordinalOf(go!.terms, k as string)))
    : node.aggs.length > 0
      ? termBucketAggs(node, docs, headKeys, ctx)
      : null;
  const complete = chosen.length === distinct;
  const out: TermsPartial = {
    t: 'terms',
    buckets: head.map((i, b) => (subs ? { key: tc.keys[i], n: tc.counts[i], aggs: subs[b] } : { key: tc.keys[i], n: tc.counts[i] })),
    complete,
    cutoff: complete ? 0 : mode === 'count' ? maxUnlisted(tc.counts, chosen) : chosen.length === 0 ? 0 : tc.counts[chosen[chosen.length - 1]],
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
    buckets.push(
      task.subAggs && node.aggs.length > 0
        ? {
            key,
            n,
            aggs: ctx.collectAggs(
              node.aggs,
              docs.map(({ seg }, s) => ({ seg, docs: Int32Array.from(lists[i][s]) })),
              ctx,
              false,
            ),
          }
        : { key, n },
    );
  });
  return { t: 'terms', buckets, complete: false, cutoff: 0, total: 0 };
}
