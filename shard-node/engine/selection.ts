/**
 * Rank and select over one generation's matches in the global order, the shard half of exact
 * distributed selection for deep `from` (Frederickson, "Distributed algorithms for selection in
 * sets", JCSS 1988; Kuhn, Locher, Wattenhofer, "Distributed Selection", CACM 2008):
 * - the sample round returns the match count and keys at evenly spaced local ranks;
 * - the range round returns how many matches sort before a lower key and the matches in
 *   [lower, upper), at most `limit`.
 * Single field sorts without scores read the presorted permutation ({@link liveSortOrder}); every
 * other sort (`_score`, `_doc`, several clauses, `track_scores`) collects and sorts all matches.
 * @see /work/shared/reference/performance-notes.md §2.4
 */
import type { FieldMapping } from '../../shared/mapping.ts';
import type { ScoringStatistics, SelectionBound, ShardHit } from '../../shared/protocol.ts';
import { sampleRanks } from '../../shared/protocol.ts';
import type { Query } from '../../shared/query-ast.ts';
import type { SortField, SortKey, SortValue } from '../../shared/sort.ts';
import { compareHits, compareSortValue, sortNeedsScores } from '../../shared/sort.ts';
import { collect } from './collector.ts';
import type { Generation } from './generation.ts';
import { filterOrder, liveSortOrder, presortable, type DocOrder } from './sort-order.ts';

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

/** Matches read from a presorted permutation (no scores). */
function fromOrder(gen: Generation, order: DocOrder, sort: readonly SortField[]): SortedMatches {
  const { segs, ords, orders } = order;
  const key = (r: number): SortKey => ({ _id: gen.views[segs[r]].segment.ids[ords[r]], sort: [orders[segs[r]].values[ords[r]]] });
  return {
    size: ords.length,
    maxScore: null,
    hit: (r) => ({ ...key(r), _score: null }),
    before: (b) => countBefore(ords.length, key, b, sort),
  };
}

/** The fast path: the generation's live order, filtered by the query's match set unless `match_all`. */
function presorted(gen: Generation, input: SelectInput, fields: Map<string, FieldMapping>): SortedMatches {
  const order = liveSortOrder(gen, gen.views, input.sort[0], fields);
  if (input.query.kind === 'match_all') return fromOrder(gen, order, input.sort);
  const matched = gen.segmentMatches(input.query, input.stats, false).map(({ seg, m }) => {
    const bits = new Uint8Array(seg.maxDoc);
    for (let i = 0; i < m.docs.length; i++) bits[m.docs[i]] = 1;
    return bits;
  });
  return fromOrder(gen, filterOrder(order, matched), input.sort);
}

/**
 * This generation's matches of `input.query` in the global order of `input.sort`.
 * @throws EsError 400 for an unsortable field or an invalid query (as the query phase).
 */
export function sortedMatches(gen: Generation, input: SelectInput): SortedMatches {
  const scoring = sortNeedsScores(input.sort) || input.trackScores === true;
  const fields = gen.fields();
  if (!scoring && presortable(input.sort)) return presorted(gen, input, fields);
  const parts = gen.segmentMatches(input.query, input.stats, scoring);
  const all = collect(parts, { sort: input.sort, k: Number.MAX_SAFE_INTEGER }, fields);
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
export function rangeOfMatches(sm: SortedMatches, lower: SelectionBound | undefined, upper: SelectionBound | undefined, limit: number): { before: number; hits: ShardHit[] } {
  const before = lower ? sm.before(lower) : 0;
  const end = Math.min(upper ? sm.before(upper) : sm.size, before + Math.max(0, limit));
  const hits: ShardHit[] = [];
  for (let r = before; r < end; r++) hits.push(sm.hit(r));
  return { before, hits };
}

/**
 * Rank of the first match strictly after a `search_after` key of a single-clause sort: after the
 * full key (value, then `_id`) when it has an `_id`, on the value alone otherwise (as the collector).
 */
export function afterRank(sm: SortedMatches, after: { sort: SortValue[]; _id?: string }, clause: SortField): number {
  if (after._id !== undefined) return sm.before({ sort: after.sort, _id: after._id, equalBefore: true });
  let lo = 0;
  let hi = sm.size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareSortValue(sm.hit(mid).sort[0], after.sort[0] ?? null, clause) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
