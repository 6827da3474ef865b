/**
 * Rank and select over one generation's matches in the global order, the shard half of exact
 * distributed selection for deep `from` (Frederickson, "Distributed algorithms for selection in
 * sets", JCSS 1988; Kuhn, Locher, Wattenhofer, "Distributed Selection", CACM 2008):
 * - the sample round returns the match count and keys at evenly spaced local ranks;
 * - the range round returns how many matches sort before a lower key and the matches in
 *   [lower, upper), at most `limit`.
 * Sorts of field, `_id` and `_doc` clauses, and `_score` clauses when every match scores the same,
 * read the presorted order ({@link liveOrder}); sorts on varying scores collect and sort all matches.
 * @see docs/selection.md
 */
import type { ScoringStatistics, SelectionBound, ShardHit } from '../../protocol/search.ts';
import { sampleRanks } from '../../protocol/search.ts';
import type { Query } from '../../protocol/query-ast.ts';
import type { SortField, SortKey, SortValue } from '../../protocol/sort.ts';
import { compareHits, sortNeedsScores } from '../../protocol/sort.ts';
import { afterKey, collect, getter } from './collector.ts';
import type { Generation } from './generation.ts';
import type { Searcher } from './searcher.ts';
import { constantScore, evaluate } from './query-exec.ts';
import type { Plan } from './query-plan.ts';
import { filterOrder, liveOrder, liveOrderSliced, orderSpec, type DocOrder, type OrderSpec } from './sort-order.ts';

/** What to select over: the query (with dfs statistics when scoring) and the sort. */
export interface SelectInput {
  query: Query;
  sort: readonly SortField[];
  stats?: ScoringStatistics;
  /** ES `track_scores`: hits carry scores even when the sort has no `_score`. */
  trackScores?: boolean;
}

/** A generation's live matches in the global order, addressable by rank. */
export interface SortedMatches {
  /** Number of live matches. */
  readonly size: number;
  /** Highest score over the matches, null when not scoring or nothing matched. */
  readonly maxScore: number | null;
  /** The hit at `rank` (0-based, < size). */
  hit(rank: number): ShardHit;
  /**
   * Number of matches before `bound`: those comparing below it by `compareHits`, plus one that
   * compares equal when `bound.equalBefore` (the bound's index sorts after this shard's index).
   */
  before(bound: SelectionBound): number;
}

/** Binary search: the first rank whose key is not before `bound`. */
function countBefore(size: number, key: (rank: number) => SortKey, bound: SelectionBound, sort: readonly SortField[]): number {
  let lo = 0;
  let hi = size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareHits(key(mid), bound, sort);
    if (c < 0 || (c === 0 && bound.equalBefore === true)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A query served from a presorted order: the generation's live docs in the sort's order, the
 * query's match set per view (null for `match_all`), the exact match count, and the key of any
 * entry of the order (sort values with `_score` as the constant score, then `_id`).
 */
export interface PresortedQuery {
  order: DocOrder;
  matched: Uint8Array[] | null;
  total: number;
  /** The constant score of every match when scoring (`_score` in the sort or `track_scores`), else null. */
  score: number | null;
  /** Sort values and `_id` of ordinal `ord` of view `seg`. */
  keyOf(seg: number, ord: number): SortKey;
  /**
   * The order restricted to the matches (entry r = rank r), built with one pass over `order` the
   * first time a generation sees this query and sort, then cached ({@link FILTERED_ORDERS_PER_GENERATION}).
   */
  filtered(): DocOrder;
}

/** Most filtered orders one generation keeps (least recently used first out). */
export const FILTERED_ORDERS_PER_GENERATION = 16;
/** Most entries, as a multiple of the generation's live docs, that its filtered orders hold together. */
export const FILTERED_ORDERS_BUDGET = 2;
/**
 * Longest key (sort spec + query JSON, in characters) of a cached filtered order: the key holds the
 * whole query, so a query with a long `terms` or `ids` list is served but not cached (16 keys of
 * 64 Ki characters are at most 2 MiB per generation).
 */
export const FILTERED_ORDER_MAX_KEY_CHARS = 64 * 1024;

/** Per generation (weakly: it goes with the generation), its filtered orders by sort and query. */
const filteredOrders = new WeakMap<Generation, Map<string, DocOrder>>();

/** A cached filtered order (refreshed as most recently used), or undefined. */
function cachedFiltered(gen: Generation, key: string): DocOrder | undefined {
  const byKey = filteredOrders.get(gen);
  const hit = byKey?.get(key);
  if (hit && byKey) {
    byKey.delete(key);
    byKey.set(key, hit);
  }
  return hit;
}

/** Keeps a filtered order, evicting the least recently used ones past the count or the budget. */
function rememberFiltered(gen: Generation, key: string, order: DocOrder): void {
  if (key.length > FILTERED_ORDER_MAX_KEY_CHARS) return;
  let byKey = filteredOrders.get(gen);
  if (!byKey) {
    byKey = new Map();
    filteredOrders.set(gen, byKey);
  }
  byKey.set(key, order);
  let held = 0;
  for (const o of byKey.values()) held += o.ords.length;
  for (const [k, o] of byKey) {
    if (byKey.size <= FILTERED_ORDERS_PER_GENERATION && held <= FILTERED_ORDERS_BUDGET * Math.max(1, gen.docCount)) break;
    if (k === key) break;
    byKey.delete(k);
    held -= o.ords.length;
  }
}

/** What a presorted order needs to serve a query: its spec, the compiled plan, and the constant score when scoring. */
interface PresortedPlan {
  spec: OrderSpec;
  plan: Plan;
  constant: number | null;
}

/**
 * The order spec, plan and constant score of `input`, or null when no presorted order can serve
 * it (a `_score` clause or `track_scores` while scores vary per match; a sort with no order spec).
 * @throws EsError 400 for an invalid query.
 */
function presortedPlan(searcher: Searcher, input: SelectInput): PresortedPlan | null {
  const gen = searcher.reader;
  const scoring = sortNeedsScores(input.sort) || input.trackScores === true;
  const plan = searcher.plan(input.query, input.stats);
  const constant = scoring
    ? constantScore(
        plan,
        gen.views.map((v) => v.segment),
      )
    : null;
  if (scoring && constant === null) return null;
  const spec = orderSpec(input.sort, true, gen.fields());
  return spec ? { spec, plan, constant } : null;
}

/** Whether the presorted fast path may serve `input` (what {@link presortedQuery} tries first). @throws EsError 400 for an invalid query. */
export function presortedServes(searcher: Searcher, input: SelectInput): boolean {
  return presortedPlan(searcher, input) !== null;
}

/**
 * Builds, in event-loop slices, the presorted order {@link presortedQuery} will read for `input`
 * (nothing when none serves it), so that the synchronous query that follows finds it cached: the
 * first sort on a field after a refresh then does not hold the shard node's event loop for the
 * whole build (docs/reliability.md). Concurrent searches for the same order share one build.
 * @throws EsError 400 for an unsortable field or an invalid query (the promise rejects).
 */
export async function preparePresorted(searcher: Searcher, input: SelectInput): Promise<void> {
  const gen = searcher.reader;
  const pp = presortedPlan(searcher, input);
  if (pp) await liveOrderSliced(gen, gen.views, gen.bases, pp.spec, gen.fields());
}

/**
 * The presorted fast path for `input`, or null when it cannot serve it: a `_score` sort clause
 * (or `track_scores`) while the query's scores vary per match, or a value without an exact key.
 * The whole order is built (and cached) on first use, in one task unless {@link preparePresorted}
 * built it first; `keyOf` reads values with the collector's readers.
 * @throws EsError 400 for an unsortable field or an invalid query (as the query phase).
 */
export function presortedQuery(searcher: Searcher, input: SelectInput): PresortedQuery | null {
  const gen = searcher.reader;
  const pp = presortedPlan(searcher, input);
  if (!pp) return null;
  const { spec, plan, constant } = pp;
  const fields = gen.fields();
  const readers = gen.views.map((v, s) => input.sort.map((sf) => getter(sf, fields, v.segment, gen.bases[s])));
  const order = liveOrder(gen, gen.views, gen.bases, spec, fields);
  if (!order) return null;
  const score = constant ?? 0;
  const keyOf = (s: number, d: number): SortKey => {
    const read = readers[s];
    const sort: SortValue[] = new Array<SortValue>(read.length);
    for (let c = 0; c < read.length; c++) sort[c] = read[c](d, score);
    return { _id: gen.views[s].segment.ids.get(d), sort };
  };
  if (input.query.kind === 'match_all') return { order, matched: null, total: gen.docCount, score: constant, keyOf, filtered: () => order };
  const cacheKey = `${spec.key}\u0000${JSON.stringify(input.query)}`;
  const cached = cachedFiltered(gen, cacheKey);
  if (cached) return { order: cached, matched: null, total: cached.ords.length, score: constant, keyOf, filtered: () => cached };
  let total = 0;
  const matched = gen.views.map((v) => {
    const bits = new Uint8Array(v.segment.maxDoc);
    const docs = evaluate(plan, v.segment, false).docs;
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i];
      if (!v.live || v.live[d]) {
        bits[d] = 1;
        total++;
      }
    }
    return bits;
  });
  let filtered: DocOrder | null = null;
  const filter = (): DocOrder => {
    if (filtered === null) {
      filtered = filterOrder(order, matched);
      rememberFiltered(gen, cacheKey, filtered);
    }
    return filtered;
  };
  return { order, matched, total, score: constant, keyOf, filtered: filter };
}

/** Matches read from a presorted order (already filtered: entry r is rank r). */
function fromOrder(pq: PresortedQuery, order: DocOrder, sort: readonly SortField[]): SortedMatches {
  const key = (r: number): SortKey => pq.keyOf(order.segs[r], order.ords[r]);
  const size = order.ords.length;
  return {
    size,
    maxScore: pq.score !== null && size > 0 ? pq.score : null,
    hit: (r) => {
      const k = key(r);
      return { _id: k._id, _score: pq.score, sort: k.sort };
    },
    before: (b) => countBefore(size, key, b, sort),
  };
}

/**
 * This generation's matches of `input.query` in the global order of `input.sort`: from the
 * presorted order when {@link presortedQuery} serves the sort, else every match collected and sorted.
 * @throws EsError 400 for an unsortable field or an invalid query (as the query phase).
 */
export function sortedMatches(searcher: Searcher, input: SelectInput): SortedMatches {
  const pq = presortedQuery(searcher, input);
  if (pq) return fromOrder(pq, pq.filtered(), input.sort);
  const scoring = sortNeedsScores(input.sort) || input.trackScores === true;
  const parts = searcher.segmentMatches(input.query, input.stats, scoring);
  const all = collect(parts, { sort: input.sort, k: Number.MAX_SAFE_INTEGER }, searcher.reader.fields());
  return {
    size: all.hits.length,
    maxScore: all.maxScore,
    hit: (r) => all.hits[r],
    before: (b) => countBefore(all.hits.length, (r) => all.hits[r], b, input.sort),
  };
}

/** Sample round on one shard: the match count, max score, and keys at {@link sampleRanks}. */
export function sampleMatches(sm: SortedMatches, samples: number): { total: number; maxScore: number | null; keys: SortKey[] } {
  const keys = sampleRanks(sm.size, samples).map((r) => {
    const h = sm.hit(r);
    return { sort: h.sort, _id: h._id };
  });
  return { total: sm.size, maxScore: sm.maxScore, keys };
}

/**
 * Range round on one shard: `before` = matches before `lower` (0 without it), and the matches in
 * [lower, upper) in order, at most `limit` (all to the end without `upper`).
 */
export function rangeOfMatches(
  sm: SortedMatches,
  lower: SelectionBound | undefined,
  upper: SelectionBound | undefined,
  limit: number,
): { before: number; hits: ShardHit[] } {
  const before = lower ? sm.before(lower) : 0;
  const end = Math.min(upper ? sm.before(upper) : sm.size, before + Math.max(0, limit));
  const hits: ShardHit[] = [];
  for (let r = before; r < end; r++) hits.push(sm.hit(r));
  return { before, hits };
}

/**
 * Rank of the first entry strictly after a `search_after` key (see {@link afterKey}: on the full
 * key with an `_id`, on the sort values alone without): a binary search, since the test is
 * monotone along `compareHits` order. `key(r)` reads entry r of a list of `size` in that order.
 */
export function afterRank(size: number, key: (r: number) => SortKey, after: { sort: SortValue[]; _id?: string }, sort: readonly SortField[]): number {
  const isAfter = afterKey(after, sort);
  let lo = 0;
  let hi = size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (!isAfter(key(mid))) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
