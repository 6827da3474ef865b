/**
 * Constant-score leaf matchers over one segment: each returns the ascending doc ordinals that match
 * (deleted docs included; the collector applies live docs). These are the non-scoring Lucene
 * queries ES builds for `terms`, `range`, `exists`, `prefix`, `ids` and numeric/date `term`.
 */
import { compareCodePoints } from '../../protocol/sort.ts';
import type { Segment } from './segment.ts';
import { IdHash, StringIds } from './columns/id-hash.ts';
import { CLOCK_EVERY, runAtOnce, type SliceClock, type Steps } from '../../shared/sliced-work.ts';

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

/**
 * The values of a `terms` or `ids` query, prepared once per query for every segment it runs on:
 * an open-addressing table over the values ({@link IdHash}), each value's hash, and the positions
 * of the distinct values, all in typed arrays sized once: 16–24 bytes per value, off the JS heap.
 * A `Set` held ~11 bytes per value but allocated about twice that as it rehashed, in large objects
 * on the heap that the sliced request kept past scavenges until a full GC. A segment then pays for
 * the smaller of its term dictionary (or id list) and the distinct values, so a list of 60,000
 * values that mostly do not exist costs the dictionary's size per segment, not 60,000 probes
 * (docs/reliability.md). Lucene's `TermInSetQuery` likewise sorts and deduplicates
 * the terms once per query and seeks them segment by segment.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/TermInSetQuery.java
 */
export class ValueList {
  readonly values: readonly string[];
  private table: IdHash | null = null;
  /** The id hash (columns/id-hash.ts `hashId`) of each value, by position. */
  private hashes: Uint32Array | null = null;
  /** Position in `values` of each distinct value's first occurrence, ascending. */
  private firsts: Int32Array | null = null;

  /** Wraps `values` (duplicates allowed). */
  constructor(values: readonly string[]) {
    this.values = values;
  }

  /** Number of distinct values. */
  get size(): number {
    this.prepare();
    return this.firsts!.length;
  }

  /** Whether `value` is one of the values (called once per dictionary term: allocates nothing). */
  has(value: string): boolean {
    this.prepare();
    return this.table!.get(value) >= 0;
  }

  /** Calls `fn` with each distinct value and its id hash, in first-occurrence order. */
  forEachDistinct(fn: (value: string, hash: number) => void): void {
    this.prepare();
    const firsts = this.firsts!;
    const hashes = this.hashes!;
    const values = this.values;
    for (let j = 0; j < firsts.length; j++) fn(values[firsts[j]], hashes[firsts[j]]);
  }

  /**
   * Builds the table, the hashes and the distinct positions as pausable steps
   * (shared/sliced-work.ts): a list of 60,000 values otherwise builds them in one task on the first
   * segment it runs on (docs/reliability.md, the abuse suite).
   */
  *prepareSteps(clock: SliceClock): Steps<void> {
    if (this.table) return;
    const values = this.values;
    const hashes = new Uint32Array(values.length);
    const table = yield* IdHash.buildSteps(new StringIds(values), clock, hashes);
    let distinct = 0;
    const first = new Uint8Array(values.length);
    for (let i = 0; i < values.length; i++) {
      if (table.get(values[i], hashes[i]) === i) {
        first[i] = 1;
        distinct++;
      }
      if ((i & (CLOCK_EVERY - 1)) === CLOCK_EVERY - 1 && clock.due()) yield;
    }
    const firsts = new Int32Array(distinct);
    for (let i = 0, j = 0; j < distinct; i++) if (first[i] === 1) firsts[j++] = i;
    this.table = table;
    this.hashes = hashes;
    this.firsts = firsts;
  }

  /** Runs {@link ValueList.prepareSteps} to the end now when it has not run. */
  private prepare(): void {
    if (!this.table) runAtOnce((clock) => this.prepareSteps(clock));
  }
}

/** Docs whose inverted field contains any of `terms` exactly. */
export function termsMatch(seg: Segment, field: string, terms: ValueList | string[]): Int32Array {
  const inv = seg.inverted.get(field);
  if (!inv) return new Int32Array(0);
  const list = Array.isArray(terms) ? new ValueList(terms) : terms;
  const lists: Int32Array[] = [];
  if (inv.terms.size <= list.size) {
    for (const t of inv.terms.keys()) if (list.has(t)) lists.push(inv.terms.docs(t)!);
  } else {
    list.forEachDistinct((t) => {
      const docs = inv.terms.docs(t);
      if (docs) lists.push(docs);
    });
  }
  return unionDocs(seg, lists);
}

/** Docs having a term accepted by `pred` (scans the term dictionary). */
export function termScanMatch(seg: Segment, field: string, pred: (term: string) => boolean): Int32Array {
  const inv = seg.inverted.get(field);
  if (!inv) return new Int32Array(0);
  const lists: Int32Array[] = [];
  for (const t of inv.terms.keys()) if (pred(t)) lists.push(inv.terms.docs(t)!);
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
  const dict = inv.terms.dictionary;
  const from = b.lo === undefined ? 0 : dict.seekCeil(b.lo).ord;
  dict.forEach((t, ord) => {
    if (b.lo !== undefined && !b.loInclusive && t === b.lo) return;
    if (b.hi !== undefined) {
      const c = compareCodePoints(t, b.hi);
      if (c > 0 || (c === 0 && !b.hiInclusive)) return false;
    }
    lists.push(inv.terms.docsAt(ord));
  }, from);
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
  return (v) => (lo === undefined || (loInclusive ? v >= lo : v > lo)) && (hi === undefined || (hiInclusive ? v <= hi : v < hi));
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

/** Docs with one of the given `_id`s (each id hashed once per query, not once per segment). */
export function idsMatch(seg: Segment, ids: ValueList | string[]): Int32Array {
  const list = Array.isArray(ids) ? new ValueList(ids) : ids;
  const out: number[] = [];
  list.forEachDistinct((id, hash) => {
    const o = seg.idToOrd.get(id, hash);
    if (o >= 0) out.push(o);
  });
  return Int32Array.from(out).sort();
}

/**
 * Docs indexed with a custom `_routing` (ES `RoutingFieldMapper`: the field is indexed only when a
 * routing was given, so `exists` on it matches routed documents alone).
 */
export function routedDocs(seg: Segment): Int32Array {
  if (!seg.routings) return new Int32Array(0);
  return Int32Array.from(seg.routings.keys()).sort();
}

/** {@link allDocs} per segment, made on first use: segments are immutable, and matches are never written to. */
const allDocsOf = new WeakMap<Segment, Int32Array>();

/**
 * Every doc of the segment (0 .. maxDoc-1), one shared array per segment: a `match_all` search
 * allocated 1 MB per 250,000 docs on every call, and its scavenges (as Lucene's `MatchAllDocsQuery`
 * iterates a range and allocates nothing). Callers read it only, as they read postings views.
 */
export function allDocs(seg: Segment): Int32Array {
  let out = allDocsOf.get(seg);
  if (out) return out;
  out = new Int32Array(seg.maxDoc);
  for (let i = 0; i < out.length; i++) out[i] = i;
  allDocsOf.set(seg, out);
  return out;
}
