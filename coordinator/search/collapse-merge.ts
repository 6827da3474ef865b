/**
 * The reduce of a collapsed search (ES `TopFieldGroups.merge`, with Folio's total order): a k-way
 * merge of each shard's best hit per group, keeping the first (best) hit of each key, skipping the
 * first `from` groups and stopping after `from + size`; and the exact number of groups.
 *
 * Why each shard's top `from + size` groups suffice, however a key's documents spread over shards
 * (docs/collapse.md): a group's best hit overall is the best of its shards' best hits, and a shard
 * ranks that group no lower than the group's global rank, because every group it ranks first has a
 * better best hit. A shard's entry for a group that is not its best overall comes after that
 * group's best, so the merge drops it as a repeated key, or it falls past the page.
 * Pure: no I/O, property-tested against grouping one sorted list (collapse-merge.test.ts).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/lucene/grouping/TopFieldGroups.java
 */
import { EsError } from '../../protocol/errors.ts';
import type { ShardGroups } from '../../protocol/search.ts';
import { compareCodePoints, compareHits, type SortField, type SortValue } from '../../protocol/sort.ts';
import type { MergedHit, ShardTopHits, ShardTotal } from './merge.ts';

/**
 * Groups `from … from+size-1` of the union of the shards' group lists: entries are ordered by
 * `compareHits` on `sort` (whose last clause is the collapse key, so ties on the sort values are
 * broken by key, then `_id`), then index name; of several entries with one key the first is kept.
 * @throws EsError 500 when a shard's list is not sorted by `sort` (a shard bug, never silent).
 */
export function mergeTopGroups(results: readonly ShardTopHits[], sort: readonly SortField[], from: number, size: number): MergedHit[] {
  const keyAt = sort.length - 1;
  const cmp = (x: number, y: number): number => {
    const a = results[x];
    const b = results[y];
    const c = compareHits(a.hits[pos[x]], b.hits[pos[y]], sort);
    return c !== 0 ? c : compareCodePoints(a.index, b.index) || a.shardIndex - b.shardIndex;
  };
  const pos = new Int32Array(results.length);
  const heap: number[] = [];
  const siftDown = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) return;
      const r = l + 1;
      const m = r < heap.length && cmp(heap[r], heap[l]) < 0 ? r : l;
      if (cmp(heap[m], heap[i]) >= 0) return;
      [heap[m], heap[i]] = [heap[i], heap[m]];
      i = m;
    }
  };
  const siftUp = (i: number): void => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (cmp(heap[i], heap[p]) >= 0) return;
      [heap[p], heap[i]] = [heap[i], heap[p]];
      i = p;
    }
  };
  results.forEach((r, i) => {
    if (r.hits.length > 0) {
      heap.push(i);
      siftUp(heap.length - 1);
    }
  });
  const seen = new Set<SortValue>();
  const out: MergedHit[] = [];
  const end = from + size;
  while (seen.size < end && heap.length > 0) {
    const top = heap[0];
    const r = results[top];
    const i = pos[top];
    const hit = r.hits[i];
    const key = hit.sort[keyAt];
    if (!seen.has(key)) {
      seen.add(key);
      if (seen.size > from) out.push({ shardIndex: r.shardIndex, index: r.index, hit, position: i });
    }
    pos[top] = i + 1;
    if (i + 1 < r.hits.length) {
      if (compareHits(hit, r.hits[i + 1], sort) > 0) {
        throw new EsError(500, 'illegal_state_exception', `shard ${r.shardIndex} of [${r.index}] was not sorted by the provided Sort`);
      }
      siftDown(0);
    } else {
      heap[0] = heap[heap.length - 1];
      heap.pop();
      if (heap.length > 0) siftDown(0);
    }
  }
  return out;
}

/**
 * `hits.total_groups` (a Folio extension, docs/collapse.md): the number of distinct keys over the
 * shards, as `hits.total` counts hits: null when `track_total_hits` is false; exact (`eq`) up to
 * `trackTotalHits`, else that bound with `gte`. A single shard's count is its own; several shards
 * send their keys (when they have at most `trackTotalHits` of them) and the union is counted.
 * @param trackTotalHits -1 disabled, `Number.MAX_SAFE_INTEGER` accurate, else the bound.
 */
export function reduceGroupTotal(groups: readonly ShardGroups[], trackTotalHits: number): ShardTotal | null {
  if (trackTotalHits < 0) return null;
  const capped = (n: number): ShardTotal => (n > trackTotalHits ? { value: trackTotalHits, relation: 'gte' } : { value: n, relation: 'eq' });
  if (groups.length === 1) return capped(groups[0].count);
  const union = new Set<SortValue>();
  for (const g of groups) {
    if (!g.keys) return { value: trackTotalHits, relation: 'gte' }; // this shard alone has more keys than the bound
    for (const k of g.keys) union.add(k);
  }
  return capped(union.size);
}
