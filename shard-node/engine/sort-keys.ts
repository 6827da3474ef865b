/**
 * Numeric sort keys for the presorted orders of sort-order.ts: per segment, one `Float64Array`
 * per clause whose ascending order is the clause's `compareSortValue` order (direction applied,
 * `missing` placed), `_id` ranks from numeric codes where the ids allow it, and dense ranks (the
 * k-way merge of the sorted runs is shared/kway-merge.ts). Every key mirrors the collector's value
 * reader ({@link getter}), so the orders equal `compareHits` order exactly.
 * @see protocol/sort.ts compareSortValue
 */
import type { FieldMapping } from '../../protocol/mapping.ts';
import { isNumericDocValues, KEYWORD_LIKE_TYPES } from '../../protocol/mapping.ts';
import type { SortField, SortValue } from '../../protocol/sort.ts';
import { compareCodePoints } from '../../protocol/sort.ts';
import { getter, missingValue } from './collector.ts';
import { numericSortValues } from './multi-value-mode.ts';
import type { Segment } from './segment.ts';
import type { NumericColumn, RankColumn } from './columns/columns.ts';
import { CLOCK_EVERY, runAtOnce, sortSteps, type SliceClock, type Steps } from '../../shared/sliced-work.ts';

/**
 * The doc values one clause reads in one segment: a numeric column (null when the segment has no
 * value), a keyword/fielddata rank column (rank + 1 into `terms`, 0 = missing), or the doc number.
 * `miss` is the `missing` substitute (null for `_first`/`_last`).
 */
export type Column =
  | { t: 'doc'; n: number }
  | { t: 'num'; n: number; values: NumericColumn | null; has: Uint8Array | null; miss: SortValue }
  | { t: 'str'; n: number; terms: readonly string[]; ranks: RankColumn | null; miss: SortValue };

/**
 * The column of a field or `_doc` clause (not `_score`, not `_id`, not unmapped), as {@link getter}
 * reads it (per `mode` and `numeric_type`: multi-value-mode.ts).
 * @throws EsError 400 for an unmapped or unsortable field, with the collector's messages.
 */
export function clauseColumn(sf: SortField, fields: Map<string, FieldMapping>, seg: Segment): Column {
  getter(sf, fields, seg, 0); // the same validation and errors as the collector
  const n = seg.maxDoc;
  if (sf.kind === 'doc') return { t: 'doc', n };
  const fm = fields.get(sf.field)!;
  const miss = missingValue(sf, fm);
  if (isNumericDocValues(fm)) {
    const nf = seg.numeric.get(sf.field);
    return { t: 'num', n, values: nf ? numericSortValues(nf, fm, sf) : null, has: nf ? nf.has : null, miss };
  }
  const sv = KEYWORD_LIKE_TYPES.has(fm.type) || fm.type === 'ip' ? seg.strings.get(sf.field) : seg.textFielddata(sf.field);
  return { t: 'str', n, terms: sv ? sv.terms : [], ranks: sv ? (sf.mode === 'max' ? sv.max : sv.min) : null, miss };
}

/** Key of a missing value: `_first`/`_last` at either end whatever the order (ES), else the substitute's key. */
function missingKey(sf: SortField, substitute: number): number {
  if (sf.missing === '_first') return -Infinity;
  if (sf.missing === '_last') return Infinity;
  return substitute;
}

/**
 * Keys of a numeric clause: the value (negated for `desc`); a substitute number as a value, a
 * substitute string after every number (`compareSortValue` puts numbers before strings).
 * Null when a value is not finite (it would collide with the missing keys): callers then collect.
 */
export function numericKeys(col: Extract<Column, { t: 'num' }>, sf: SortField): Float64Array | null {
  const dir = sf.order === 'desc' ? -1 : 1;
  const sub = typeof col.miss === 'number' ? dir * col.miss + 0 : dir * Infinity;
  const miss = missingKey(sf, sub);
  const k = new Float64Array(col.n);
  const { values, has } = col;
  for (let d = 0; d < col.n; d++) {
    if (values && has![d]) {
      const v = values[d];
      if (!Number.isFinite(v)) return null;
      k[d] = dir * v + 0; // + 0 turns -0 into 0: compareSortValue finds them equal
    } else k[d] = miss;
  }
  return k;
}

/**
 * Keys of a string clause over the sorted dictionary `terms`: a term is its rank + 1 (negated for
 * `desc`); a substitute string its rank + 1, or between its neighbours (+ 0.5) when absent; a
 * substitute number 0 (before every string ascending).
 */
export function stringKeys(col: Extract<Column, { t: 'str' }>, sf: SortField, terms: readonly string[], table: Int32Array | null): Float64Array {
  const dir = sf.order === 'desc' ? -1 : 1;
  let sub = 0;
  if (typeof col.miss === 'string') {
    let lo = 0;
    let hi = terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareCodePoints(terms[mid], col.miss) < 0) lo = mid + 1;
      else hi = mid;
    }
    sub = dir * (lo < terms.length && terms[lo] === col.miss ? lo + 1 : lo + 0.5);
  }
  const miss = missingKey(sf, sub + 0);
  const k = new Float64Array(col.n);
  const ranks = col.ranks;
  for (let d = 0; d < col.n; d++) {
    const r = ranks ? ranks[d] : 0;
    k[d] = r > 0 ? dir * (table ? table[r] : r) : miss;
  }
  return k;
}

/** Dense ranks of `keys` (0-based, equal keys share a rank) and the number of distinct keys. */
export function denseRanks(keys: Float64Array): { rank: Int32Array; size: number } {
  return runAtOnce((clock) => denseRanksSteps(keys, clock));
}

/** {@link denseRanks} as pausable steps (sliced-work.ts). */
export function* denseRanksSteps(keys: Float64Array, clock: SliceClock): Steps<{ rank: Int32Array; size: number }> {
  const sorted = yield* sortSteps(keys.slice(), clock);
  let u = 0;
  for (let i = 0; i < sorted.length; i++) if (u === 0 || sorted[i] !== sorted[u - 1]) sorted[u++] = sorted[i];
  const rank = new Int32Array(keys.length);
  for (let d = 0; d < keys.length; d++) {
    const x = keys[d];
    let lo = 0;
    let hi = u - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    rank[d] = lo;
    if ((d & (CLOCK_EVERY - 1)) === 0 && clock.due()) yield;
  }
  return { rank, size: u };
}

/**
 * One segment's `_id`s ranked by code point: `rank[ord]` (unique) and `order[rank]`. `code` holds
 * an order-preserving number per id when every id fits one of two encodings (`scheme` 1: at most
 * 15 decimal digits, base 11; 2: at most 8 printable ASCII characters, base 96), so that ranking
 * is a native numeric sort and segments with the same scheme compare ids as numbers.
 */
export interface IdKeys {
  rank: Int32Array;
  order: Int32Array;
  scheme: 0 | 1 | 2;
  code: Float64Array | null;
}

const idCache = new WeakMap<Segment, IdKeys>();

/** Codes of `ids` under one scheme (pad 0 sorts a prefix first), or null when some id does not fit. */
function encodeIds(ids: readonly string[], lo: number, hi: number, width: number): Float64Array | null {
  const base = hi - lo + 2;
  const code = new Float64Array(ids.length);
  for (let d = 0; d < ids.length; d++) {
    const id = ids[d];
    if (id.length > width) return null;
    let v = 0;
    for (let i = 0; i < width; i++) {
      let c = 0;
      if (i < id.length) {
        c = id.charCodeAt(i);
        if (c < lo || c > hi) return null;
        c = c - lo + 1;
      }
      v = v * base + c;
    }
    code[d] = v;
  }
  return code;
}

/** The `_id` ranks of a segment, computed once per segment. */
export function idKeys(seg: Segment): IdKeys {
  return idCache.get(seg) ?? runAtOnce((clock) => idKeysSteps(seg, clock));
}

/** {@link idKeys} as pausable steps (sliced-work.ts); cached per segment like it. */
export function* idKeysSteps(seg: Segment, clock: SliceClock): Steps<IdKeys> {
  let k = idCache.get(seg);
  if (k) return k;
  const ids = seg.ids.toArray(); // a copy while ranking (an `_id` sort, rare)
  const n = ids.length;
  let scheme: 0 | 1 | 2 = 1;
  let code = encodeIds(ids, 0x30, 0x39, 15);
  if (!code) {
    scheme = 2;
    code = encodeIds(ids, 0x20, 0x7e, 8);
  }
  const rank = new Int32Array(n);
  const order = new Int32Array(n);
  if (clock.due()) yield;
  if (code) {
    const dense = yield* denseRanksSteps(code, clock);
    if (dense.size === n) for (let d = 0; d < n; d++) order[(rank[d] = dense.rank[d])] = d;
    else code = null; // the same id twice (an update within one refresh): rank by string, ties by ordinal
  }
  if (!code) {
    scheme = 0;
    for (let i = 0; i < n; i++) order[i] = i;
    yield* sortSteps(order, clock, (a, b) => compareCodePoints(ids[a], ids[b]) || a - b);
    for (let i = 0; i < n; i++) rank[order[i]] = i;
  }
  k = { rank, order, scheme, code };
  idCache.set(seg, k);
  return k;
}
