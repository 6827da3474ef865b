/**
 * Presorted permutations of doc ordinals for single-clause field sorts, the role doc-value
 * skippers and BKD trees play for Lucene's sort optimisations: with the documents already in
 * Folio's total order (the clause's value with `missing` placed, then `_id` by code point — exactly
 * `compareHits` for one clause), the top k of `match_all` is a prefix, the rank of a key is a
 * binary search, and a filtered query is one pass of the permutation through its match set.
 *
 * Two levels, both built lazily at first use and cached on immutable objects:
 * - per segment and clause: each doc's sort value and all ordinals sorted (segments never change);
 * - per generation and clause: the live documents of every segment merged into one order (a
 *   generation's live docs never change either), so deletions cost nothing at query time.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/DocValuesSkipper.java
 * @see /work/shared/reference/performance-notes.md §2.4 (3)
 */
import type { FieldMapping } from '../../shared/mapping.ts';
import type { SortField, SortValue } from '../../shared/sort.ts';
import { compareCodePoints, compareSortValue } from '../../shared/sort.ts';
import { getter } from './collector.ts';
import type { Segment } from './segment.ts';
import type { SegmentView } from './segment-merge.ts';

/** One segment's order for one clause: `values[ord]` is the doc's sort value; `perm` all ordinals in order. */
export interface SegmentSortOrder {
  values: SortValue[];
  perm: Int32Array;
}

/**
 * Documents of a generation (or the matches of a query in it) in order: entry r is ordinal
 * `ords[r]` of segment `segs[r]` (an index into the generation's views), with its value in
 * `orders[segs[r]].values`.
 */
export interface DocOrder {
  segs: Uint16Array;
  ords: Int32Array;
  orders: readonly SegmentSortOrder[];
}

/** True when the permutation fast path serves this sort: exactly one clause, on a field. */
export function presortable(sort: readonly SortField[]): boolean {
  return sort.length === 1 && sort[0].kind === 'field' && sort[0].field !== '_id';
}

/** Cache key of a clause: everything that changes the order (the field type guards remapping). */
function clauseKey(sf: SortField, fm: FieldMapping | undefined): string {
  return JSON.stringify([sf.field, sf.order, sf.mode, sf.missing, sf.unmappedType ?? null, fm?.type ?? null]);
}

const segmentCache = new WeakMap<Segment, Map<string, SegmentSortOrder>>();
const generationCache = new WeakMap<object, Map<string, DocOrder>>();

/**
 * The segment's sort values and permutation for one field clause, built once per segment.
 * @throws EsError 400 for an unsortable field (from the collector's value reader).
 */
export function segmentSortOrder(seg: Segment, sf: SortField, fields: Map<string, FieldMapping>): SegmentSortOrder {
  let bySeg = segmentCache.get(seg);
  if (!bySeg) segmentCache.set(seg, (bySeg = new Map()));
  const key = clauseKey(sf, fields.get(sf.field));
  let o = bySeg.get(key);
  if (o) return o;
  const read = getter(sf, fields, seg, 0);
  const values: SortValue[] = new Array(seg.maxDoc);
  for (let d = 0; d < seg.maxDoc; d++) values[d] = read(d, 0);
  const ids = seg.ids;
  const perm = Int32Array.from({ length: seg.maxDoc }, (_, i) => i).sort(
    (a, b) => compareSortValue(values[a], values[b], sf) || compareCodePoints(ids[a], ids[b]),
  );
  o = { values, perm };
  bySeg.set(key, o);
  return o;
}

/**
 * The live documents of `views` in order for one field clause: a k-way merge (heap over the
 * segments) of the segments' permutations, skipping deleted docs. Cached per `owner` (the
 * immutable generation holding these views).
 */
export function liveSortOrder(owner: object, views: readonly SegmentView[], sf: SortField, fields: Map<string, FieldMapping>): DocOrder {
  let byGen = generationCache.get(owner);
  if (!byGen) generationCache.set(owner, (byGen = new Map()));
  const key = clauseKey(sf, fields.get(sf.field));
  let o = byGen.get(key);
  if (o) return o;
  const orders = views.map((v) => segmentSortOrder(v.segment, sf, fields));
  const total = views.reduce((s, v) => s + v.liveCount, 0);
  const segs = new Uint16Array(total);
  const ords = new Int32Array(total);
  const pos = new Int32Array(views.length);
  // Advances segment s's cursor past deleted docs; false when exhausted.
  const settle = (s: number): boolean => {
    const live = views[s].live;
    const perm = orders[s].perm;
    while (pos[s] < perm.length && live && !live[perm[pos[s]]]) pos[s]++;
    return pos[s] < perm.length;
  };
  const less = (a: number, b: number): boolean => {
    const da = orders[a].perm[pos[a]];
    const db = orders[b].perm[pos[b]];
    const c = compareSortValue(orders[a].values[da], orders[b].values[db], sf);
    return c < 0 || (c === 0 && compareCodePoints(views[a].segment.ids[da], views[b].segment.ids[db]) < 0);
  };
  const heap: number[] = [];
  const siftDown = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) return;
      const r = l + 1;
      const m = r < heap.length && less(heap[r], heap[l]) ? r : l;
      if (!less(heap[m], heap[i])) return;
      [heap[m], heap[i]] = [heap[i], heap[m]];
      i = m;
    }
  };
  for (let s = 0; s < views.length; s++) if (settle(s)) heap.push(s);
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  for (let r = 0; heap.length > 0; r++) {
    const s = heap[0];
    segs[r] = s;
    ords[r] = orders[s].perm[pos[s]];
    pos[s]++;
    if (!settle(s)) {
      heap[0] = heap[heap.length - 1];
      heap.pop();
    }
    siftDown(0);
  }
  o = { segs, ords, orders };
  byGen.set(key, o);
  return o;
}

/**
 * Keeps the entries of `order` whose doc is in its segment's match set (one pass): the matches of
 * a query in sort order. `matched[s]` has a 1 per matching ordinal of segment s.
 */
export function filterOrder(order: DocOrder, matched: readonly Uint8Array[]): DocOrder {
  const n = order.ords.length;
  let count = 0;
  for (let r = 0; r < n; r++) count += matched[order.segs[r]][order.ords[r]];
  const segs = new Uint16Array(count);
  const ords = new Int32Array(count);
  for (let r = 0, j = 0; r < n; r++) {
    const s = order.segs[r];
    const d = order.ords[r];
    if (matched[s][d]) {
      segs[j] = s;
      ords[j++] = d;
    }
  }
  return { segs, ords, orders: order.orders };
}
