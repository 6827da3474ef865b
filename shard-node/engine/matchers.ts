/**
 * Constant-score leaf matchers over one segment: each returns the ascending doc ordinals that match
 * (deleted docs included; the collector applies live docs). These are the non-scoring Lucene
 * queries ES builds for `terms`, `range`, `exists`, `prefix`, `ids` and numeric/date `term`.
 */
import { compareCodePoints } from '../../shared/sort.ts';
import type { Segment } from './segment.ts';

/** Ascending ordinals where `bits[d]` is set. */
export function fromBits(bits: Uint8Array): Int32Array {
  let n = 0;
  for (let i = 0; i < bits.length; i++) n += bits[i];
  const out = new Int32Array(n);
  let j = 0;
  for (let i = 0; i < bits.length; i++) if (bits[i]) out[j++] = i;
  return out;
}

/** Union of several ascending ordinal lists. */
export function unionDocs(seg: Segment, lists: Int32Array[]): Int32Array {
  if (lists.length === 0) return new Int32Array(0);
  if (lists.length === 1) return lists[0];
  const bits = new Uint8Array(seg.maxDoc);
  for (const l of lists) for (let i = 0; i < l.length; i++) bits[l[i]] = 1;
  return fromBits(bits);
}

/** Docs whose inverted field contains any of `terms` exactly. */
export function termsMatch(seg: Segment, field: string, terms: string[]): Int32Array {
  const inv = seg.inverted.get(field);
  if (!inv) return new Int32Array(0);
  const lists: Int32Array[] = [];
  for (const t of terms) {
    const pl = inv.terms.get(t);
    if (pl) lists.push(pl.docs);
  }
  return unionDocs(seg, lists);
}

/** Docs having a term accepted by `pred` (scans the term dictionary). */
export function termScanMatch(seg: Segment, field: string, pred: (term: string) => boolean): Int32Array {
  const inv = seg.inverted.get(field);
  if (!inv) return new Int32Array(0);
  const lists: Int32Array[] = [];
  for (const [t, pl] of inv.terms) if (pred(t)) lists.push(pl.docs);
  return unionDocs(seg, lists);
}

/** Bounds of a range on strings (code point order) or numbers; undefined bounds are open. */
export interface Bounds<T> {
  lo?: T;
  loInclusive: boolean;
  hi?: T;
  hiInclusive: boolean;
}

/** Docs with a term of `field` inside the code-point range (keyword `range`). */
export function termRangeMatch(seg: Segment, field: string, b: Bounds<string>): Int32Array {
  const inv = seg.inverted.get(field);
  if (!inv) return new Int32Array(0);
  const lists: Int32Array[] = [];
  for (const t of seg.sortedTerms(field)) {
    if (b.lo !== undefined) {
      const c = compareCodePoints(t, b.lo);
      if (c < 0 || (c === 0 && !b.loInclusive)) continue;
    }
    if (b.hi !== undefined) {
      const c = compareCodePoints(t, b.hi);
      if (c > 0 || (c === 0 && !b.hiInclusive)) break;
    }
    lists.push(inv.terms.get(t)!.docs);
  }
  return unionDocs(seg, lists);
}

/** Docs with any numeric doc value accepted by `pred` (numbers, dates, booleans as 0/1). */
export function numericMatch(seg: Segment, field: string, pred: (v: number) => boolean): Int32Array {
  const nf = seg.numeric.get(field);
  if (!nf) return new Int32Array(0);
  const out: number[] = [];
  const { min, max, has, multi } = nf;
  for (let d = 0; d < seg.maxDoc; d++) {
    if (!has[d]) continue;
    if (pred(min[d]) || (max[d] !== min[d] && pred(max[d]))) out.push(d);
    else {
      const all = multi.get(d);
      if (all && all.some(pred)) out.push(d);
    }
  }
  return Int32Array.from(out);
}

/** A numeric predicate for a range with optional bounds. */
export function numericRange(b: Bounds<number>): (v: number) => boolean {
  const { lo, hi, loInclusive, hiInclusive } = b;
  return (v) =>
    (lo === undefined || (loInclusive ? v >= lo : v > lo)) && (hi === undefined || (hiInclusive ? v <= hi : v < hi));
}

/** Docs where `field` (or, for an object path, any field under it) has a value. */
export function existsMatch(seg: Segment, field: string): Int32Array {
  const bits = seg.exists.get(field);
  if (bits) return fromBits(bits);
  const prefix = field + '.';
  const lists: Int32Array[] = [];
  for (const [name, b] of seg.exists) if (name.startsWith(prefix)) lists.push(fromBits(b));
  return unionDocs(seg, lists);
}

/** Docs with one of the given `_id`s. */
export function idsMatch(seg: Segment, ids: string[]): Int32Array {
  const out: number[] = [];
  for (const id of ids) {
    const o = seg.idToOrd.get(id);
    if (o >= 0) out.push(o);
  }
  return Int32Array.from(new Set(out)).sort();
}

/** Every doc of the segment. */
export function allDocs(seg: Segment): Int32Array {
  const out = new Int32Array(seg.maxDoc);
  for (let i = 0; i < out.length; i++) out[i] = i;
  return out;
}
