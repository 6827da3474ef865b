/**
 * The rescore phase on a shard (ES `RescorePhase` with `QueryRescorer`): the top `window_size` hits
 * of the query phase are scored again by each rescorer's query in turn, the hits past the window keep
 * `score × query_weight`, and everything is sorted again by the new score (ties by `_id`, Folio's
 * tie-break). The rescore query is evaluated on the segments the hits came from, scoring on.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/rescore/QueryRescorer.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/filter-search-results.html#rescore
 */
import type { ShardHit } from '../../protocol/search.ts';
import type { Query } from '../../protocol/query-ast.ts';
import { combineRescore, type Rescore } from '../../protocol/rescore.ts';
import { compareHits, type SortField } from '../../protocol/sort.ts';
import type { SegmentMatches } from './collector.ts';

/** A hit with where it lives: the index of its segment in the generation's views, and its ordinal. */
interface Located {
  hit: ShardHit;
  part: number;
  ord: number;
}

/** The live copy of `_id` among `parts` (a refreshed update leaves deleted copies behind), or null. */
function locate(parts: readonly SegmentMatches[], id: string): { part: number; ord: number } | null {
  for (let p = parts.length - 1; p >= 0; p--) {
    const { seg, live } = parts[p];
    const ord = seg.idToOrd.get(id);
    if (ord >= 0 && (!live || live[ord])) return { part: p, ord };
  }
  return null;
}

/** The score of ordinal `ord` among one segment's matches (ascending docs), or null when it does not match. */
function scoreAt(m: SegmentMatches['m'], ord: number): number | null {
  let lo = 0;
  let hi = m.docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const d = m.docs[mid];
    if (d === ord) return m.scores ? m.scores[mid] : 0;
    if (d < ord) lo = mid + 1;
    else hi = mid - 1;
  }
  return null;
}

/**
 * Rescores `hits` (in `_score` order, `sort[0]` is the score) with each rescorer in turn and
 * returns the top `k` by the final scores, `sort[0]` and `_score` updated.
 * @param matchesOf the scored matches of a query on every segment of the generation the hits came from.
 */
export function rescoreHits(
  hits: readonly ShardHit[],
  rescores: readonly Rescore[],
  sort: readonly SortField[],
  k: number,
  matchesOf: (q: Query) => SegmentMatches[],
): ShardHit[] {
  if (hits.length === 0) return [];
  let located: Located[] | null = null;
  let current: ShardHit[] = hits.map((h) => ({ ...h, sort: h.sort.slice() }));
  for (const r of rescores) {
    const parts = matchesOf(r.query);
    located ??= current.map((hit) => ({ hit, ...(locate(parts, hit._id) ?? { part: -1, ord: -1 }) }));
    for (const [i, l] of located.entries()) {
      const score = l.hit._score ?? 0;
      const rescored = i < r.windowSize && l.part >= 0 ? scoreAt(parts[l.part].m, l.ord) : null;
      const next = combineRescore(r, score, rescored);
      l.hit._score = next;
      l.hit.sort[0] = next;
    }
    located.sort((a, b) => compareHits(a.hit, b.hit, sort));
    current = located.map((l) => l.hit);
  }
  return current.slice(0, k);
}
