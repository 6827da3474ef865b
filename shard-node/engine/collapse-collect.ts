/**
 * The query phase of a collapsed search on one shard (ES `SinglePassGroupingCollector`, with
 * Folio's total order): the best hit of each value of the collapse field among the matches, then
 * the `k` best groups. A group's order is its best hit's sort values, then its key, so the request's
 * sort ends with the key clause and each returned hit carries its key as its last sort value; the
 * coordinator merges shards with the same comparator (coordinator/search/collapse-merge.ts).
 * Also counts the shard's distinct keys, and returns them when asked, for the exact group total.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/lucene/grouping/SinglePassGroupingCollector.java
 * @see docs/collapse.md
 */
import { EsError } from '../../protocol/errors.ts';
import type { FieldMapping } from '../../protocol/mapping.ts';
import type { ShardCollapse, ShardGroups, ShardHit } from '../../protocol/search.ts';
import type { SortField, SortKey, SortValue } from '../../protocol/sort.ts';
import { compareHits } from '../../protocol/sort.ts';
import { afterKey, getter, type SegmentMatches } from './collector.ts';
import type { Segment } from './segment.ts';

/** What to collect: the sort (its last clause is the collapse key's), how many groups, and `search_after`. */
export interface GroupSpec {
  sort: readonly SortField[];
  k: number;
  searchAfter?: { sort: SortValue[]; _id?: string };
  collapse: ShardCollapse;
}

/** The shard's groups: exact match total, max score, the top `k` groups' best hits (key last in `sort`), and the key count. */
export interface CollectedGroups {
  total: number;
  maxScore: number | null;
  hits: ShardHit[];
  groups: ShardGroups;
}

/**
 * The collapse key reader of one segment: keyword doc values (the term) or numeric doc values,
 * null for a document without a value.
 * @throws EsError 400 `illegal_state_exception` for a document with several values (ES's text; ES
 *   answers 500, Folio 400: the request asked for what the data cannot give, docs/compatibility.md).
 */
function keyReader(seg: Segment, field: string, fm: FieldMapping | undefined): (ord: number) => SortValue {
  const fail = (ord: number): never => {
    throw new EsError(400, 'illegal_state_exception', `failed to collapse ${ord}, the collapse field must be single valued`);
  };
  if (fm?.type === 'keyword') {
    const sv = seg.strings.get(field);
    if (!sv) return () => null;
    const { min, max, terms } = sv;
    return (o) => {
      const r = min[o];
      if (r === 0) return null;
      if (max[o] !== r) fail(o);
      return terms[r - 1];
    };
  }
  const nf = seg.numeric.get(field);
  if (!nf) return () => null;
  const { min, max, has, multi } = nf;
  return (o) => {
    if (!has[o]) return null;
    if (max[o] !== min[o] || multi.has(o)) fail(o);
    return min[o];
  };
}

/**
 * Collects the best hit per collapse key and returns the `k` best groups in `compareHits` order of
 * `spec.sort` (the key clause last). With `searchAfter` (sorted on the collapse field alone: the
 * plan checked it), only documents after it compete; the total and the key count cover every match.
 * @throws EsError 400 `illegal_state_exception` when a matching document has several values.
 */
export function collectGroups(parts: SegmentMatches[], spec: GroupSpec, fields: Map<string, FieldMapping>): CollectedGroups {
  const { sort, k, searchAfter, collapse } = spec;
  const userSort = sort.slice(0, -1);
  const fm = fields.get(collapse.field);
  const best = new Map<SortValue, ShardHit>();
  const keys = searchAfter ? new Set<SortValue>() : null; // with search_after, `best` misses the keys before it
  const after = searchAfter ? afterKey(searchAfter, userSort) : null;
  let total = 0;
  let maxScore = -Infinity;
  let scored = false;
  const scratch: SortKey = { _id: '', sort: new Array<SortValue>(sort.length) };
  for (const { seg, base, live, m } of parts) {
    const readKey = keyReader(seg, collapse.field, fm);
    const getters = k > 0 ? userSort.map((sf) => getter(sf, fields, seg, base)) : [];
    const { docs, scores } = m;
    if (scores) scored = true;
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i];
      if (live && !live[d]) continue;
      total++;
      const score = scores ? scores[i] : 0;
      if (scores && score > maxScore) maxScore = score;
      const key = readKey(d);
      if (keys) keys.add(key);
      if (k <= 0) {
        if (!best.has(key)) best.set(key, { _id: '', _score: null, sort: [] }); // counted, never returned
        continue;
      }
      scratch._id = seg.ids.get(d);
      for (let s = 0; s < getters.length; s++) scratch.sort[s] = getters[s](d, score);
      scratch.sort[getters.length] = key;
      if (after && !after(scratch)) continue;
      const held = best.get(key);
      if (held && compareHits(scratch, held, sort) >= 0) continue;
      best.set(key, { _id: scratch._id, _score: scores ? score : null, sort: scratch.sort.slice() });
    }
  }
  const distinct = keys ?? new Set(best.keys());
  const groups: ShardGroups = { count: distinct.size };
  if (distinct.size <= collapse.groupKeysUpTo) groups.keys = [...distinct];
  let hits: ShardHit[] = [];
  if (k > 0) {
    hits = [...best.values()].sort((a, b) => compareHits(a, b, sort));
    if (hits.length > k) hits.length = k;
  }
  return { total, maxScore: scored && total > 0 ? maxScore : null, hits, groups };
}
