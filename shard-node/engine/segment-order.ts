/**
 * The per-segment level of presorted orders (sort-order.ts): all ordinals of one segment in the
 * order of a spec, built once per segment and spec and cached on the immutable segment, the role
 * index sorting plays in Lucene (`IndexSorter` sorts a segment's documents by the index sort once,
 * at flush). Every clause becomes a numeric key column (`Float64Array`; keyword values as their
 * rank column), the columns are folded into one dense rank, and the final sort is a native numeric
 * sort of `rank × maxDoc + idRank` with no comparator callback (`idKeys` ranks `_id`s once per segment).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/IndexSorter.java
 * @see docs/selection.md (3: shard cost)
 */
import type { FieldMapping } from '../../protocol/mapping.ts';
import type { SortField } from '../../protocol/sort.ts';
import type { Segment } from './segment.ts';
import { sortSteps, type SliceClock, type Steps } from '../../shared/sliced-work.ts';
import { clauseColumn, denseRanksSteps, idKeysSteps, numericKeys, stringKeys, type Column, type IdKeys } from './sort-keys.ts';
import { cachedOrder, rememberOrder } from './order-cache.ts';
import type { OrderSpec } from './sort-order.ts';

/** One segment's order for one spec: all ordinals in order, and each clause's local key column. */
export interface SegmentOrder {
  perm: Int32Array;
  /** Per clause: numeric keys comparable across segments, null for string and `_doc` clauses. */
  keys: (Float64Array | null)[];
  columns: Column[];
}

const segmentCache = new WeakMap<Segment, Map<string, SegmentOrder | null>>();

/** The sign a clause's order gives its keys. */
export const dirOf = (sf: SortField): number => (sf.order === 'desc' ? -1 : 1);

/**
 * The segment's order for a spec, built once per segment; null (cached too) when a value has no
 * exact key (a non-finite number).
 * @throws EsError 400 for an unsortable field (from the collector's value reader).
 */
export function* segmentOrder(seg: Segment, spec: OrderSpec, fields: Map<string, FieldMapping>, clock: SliceClock): Steps<SegmentOrder | null> {
  let bySeg = segmentCache.get(seg);
  if (!bySeg) {
    bySeg = new Map();
    segmentCache.set(seg, bySeg);
  }
  const hit = cachedOrder(bySeg, spec.key);
  if (hit !== undefined) return hit;
  const n = seg.maxDoc;
  const columns = spec.clauses.map((sf) => clauseColumn(sf, fields, seg));
  const keys: (Float64Array | null)[] = [];
  const local: Float64Array[] = [];
  let exact = true;
  for (const [c, sf] of spec.clauses.entries()) {
    const col = columns[c];
    let k: Float64Array | null;
    if (col.t === 'num') {
      keys.push((k = numericKeys(col, sf)));
      if (!k) exact = false;
    } else {
      keys.push(null);
      if (col.t === 'str') k = stringKeys(col, sf, col.terms, null);
      else {
        k = new Float64Array(n);
        for (let d = 0; d < n; d++) k[d] = dirOf(sf) * d + 0;
      }
    }
    if (k) local.push(k);
    if (clock.due()) yield;
  }
  const o = exact ? { perm: yield* sortByKeys(local, yield* idKeysSteps(seg, clock), spec.idDesc, n, clock), keys, columns } : null;
  rememberOrder(bySeg, spec.key, o);
  return o;
}

/**
 * Ordinals sorted by the key columns in turn, then `_id` (descending when `idDesc`): the columns
 * are folded into one dense rank r (each step ranks `r × size + next` again, which stays below
 * n² < 2^53), then `r × n + idRank` sorts natively and its remainder names the document.
 */
function* sortByKeys(keys: Float64Array[], ids: IdKeys, idDesc: boolean, n: number, clock: SliceClock): Steps<Int32Array> {
  const perm = new Int32Array(n);
  if (keys.length === 0) {
    for (let i = 0; i < n; i++) perm[i] = ids.order[idDesc ? n - 1 - i : i];
    return perm;
  }
  let r = keys.length === 1 ? (offsetRanks(keys[0], n) ?? (yield* denseRanksSteps(keys[0], clock))) : yield* denseRanksSteps(keys[0], clock);
  for (let c = 1; c < keys.length; c++) {
    const next = yield* denseRanksSteps(keys[c], clock);
    const comp = new Float64Array(n);
    for (let d = 0; d < n; d++) comp[d] = r.rank[d] * next.size + next.rank[d];
    r = yield* denseRanksSteps(comp, clock);
  }
  const comp = new Float64Array(n);
  for (let d = 0; d < n; d++) comp[d] = r.rank[d] * n + (idDesc ? n - 1 - ids.rank[d] : ids.rank[d]);
  yield* sortSteps(comp, clock);
  for (let i = 0; i < n; i++) {
    const x = comp[i] % n;
    perm[i] = ids.order[idDesc ? n - 1 - x : x];
  }
  return perm;
}

/**
 * Ranks of integral keys without a sort: each key minus the smallest (the infinities of missing
 * values just outside), when `size × n` stays exact (< 2^53); null otherwise.
 */
function offsetRanks(keys: Float64Array, n: number): { rank: Float64Array; size: number } | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (let d = 0; d < keys.length; d++) {
    const k = keys[d];
    if (k === Infinity || k === -Infinity) continue;
    if (!Number.isInteger(k)) return null;
    if (k < lo) lo = k;
    if (k > hi) hi = k;
  }
  if (lo > hi) lo = hi = 0;
  const size = hi - lo + 3;
  if (size * n >= 2 ** 53) return null;
  const rank = new Float64Array(keys.length);
  for (let d = 0; d < keys.length; d++) {
    const k = keys[d];
    rank[d] = k === -Infinity ? 0 : k === Infinity ? size - 1 : k - lo + 1;
  }
  return { rank, size };
}
