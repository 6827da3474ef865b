/**
 * A sealed field's terms, sorted by code point (= UTF-8 byte order), in blocks of
 * {@link TERMS_PER_BLOCK} prefix-compressed UTF-8 entries held in one `Uint8Array`, with an
 * in-memory index of each block's first term: a lookup binary-searches the index, then scans one
 * block. Ordinals are ranks in the sorted order, so ordinal ↔ term both ways (Lucene's
 * `TermsEnum.seekExact`/`seekCeil` and `SortedSetDocValues.lookupOrd`); this is the leaf-block
 * layout of Lucene's block tree without the FST over block prefixes (a sorted array of first
 * terms plays its part).
 *
 * Bytes: per block, per term `vint prefix, vint suffix length, suffix bytes`, the prefix shared
 * with the previous term of the block (0 for a block's first term).
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/blocktree/Lucene90BlockTreeTermsWriter.html
 */
import { compareCodePoints } from '../../../protocol/sort.ts';
import { ByteReader, ByteWriter } from './packed-ints.ts';

/** Terms per prefix-compressed block. */
export const TERMS_PER_BLOCK = 32;

/** The encoded form of a {@link TermDictionary}: plain arrays a file writer copies out and a reader wraps. */
export interface TermDictionaryParts {
  /** Number of terms. */
  size: number;
  /** The blocks, back to back. */
  bytes: Uint8Array;
  /** Byte offset of each block in `bytes` (`ceil(size / TERMS_PER_BLOCK)` entries). */
  blockStarts: Int32Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The UTF-8 bytes of `s` into `scratch` (grown when short); returns [bytes, length]. */
function utf8(s: string, scratch: Uint8Array): [Uint8Array, number] {
  const n = s.length;
  if (scratch.length < n * 3) scratch = new Uint8Array(n * 3 + 16);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return [scratch, encoder.encodeInto(s, scratch).written];
    scratch[i] = c;
  }
  return [scratch, n];
}

/** `bytes[0..n)` as a string (an ASCII fast path, else UTF-8 decoding). */
function text(bytes: Uint8Array, n: number): string {
  if (n <= 64) {
    let s = '';
    for (let i = 0; i < n; i++) {
      const b = bytes[i];
      if (b >= 0x80) return decoder.decode(bytes.subarray(0, n));
      s += String.fromCharCode(b);
    }
    return s;
  }
  return decoder.decode(bytes.subarray(0, n));
}

/** Compares `a[0..an)` with `b[0..bn)` as unsigned bytes. */
function compareBytes(a: Uint8Array, an: number, b: Uint8Array, bn: number): number {
  const n = an < bn ? an : bn;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return an - bn;
}

/** Immutable sorted terms with ordinal ↔ term lookups. Build with {@link TermDictionary.build}. */
export class TermDictionary {
  readonly size: number;
  private readonly bytes: Uint8Array;
  private readonly blockStarts: Int32Array;
  /** Each block's first term (the in-memory index). */
  private readonly firsts: string[];
  /** Every term as a string, made on first {@link TermDictionary.strings} and kept. */
  private stringsCache: string[] | undefined;
  /** Scratch of lookups (which call no code of their caller): the term being decoded, and the term looked up. */
  private readonly scratch = { buf: new Uint8Array(64) };
  private target: Uint8Array = new Uint8Array(64);

  private constructor(parts: TermDictionaryParts, firsts: string[]) {
    this.size = parts.size;
    this.bytes = parts.bytes;
    this.blockStarts = parts.blockStarts;
    this.firsts = firsts;
  }

  /** A dictionary of `sorted` (distinct, ascending by code point: not checked). */
  static build(sorted: readonly string[]): TermDictionary {
    const w = new ByteWriter(Math.max(64, sorted.length * 8));
    const blockStarts = new Int32Array(Math.ceil(sorted.length / TERMS_PER_BLOCK));
    // Two scratch buffers, the previous term's bytes and this one's, swapped per term.
    let prev: Uint8Array = new Uint8Array(64);
    let prevLen = 0;
    let cur: Uint8Array = new Uint8Array(64);
    for (let i = 0; i < sorted.length; i++) {
      const [b, n] = utf8(sorted[i], cur);
      let prefix = 0;
      if (i % TERMS_PER_BLOCK === 0) blockStarts[i / TERMS_PER_BLOCK] = w.length;
      else while (prefix < n && prefix < prevLen && b[prefix] === prev[prefix]) prefix++;
      w.vint(prefix);
      w.vint(n - prefix);
      w.bytes(b, prefix, n);
      cur = prev;
      prev = b;
      prevLen = n;
    }
    const firsts: string[] = [];
    for (let i = 0; i < sorted.length; i += TERMS_PER_BLOCK) firsts.push(sorted[i]);
    return new TermDictionary({ size: sorted.length, bytes: w.toBytes(), blockStarts }, firsts);
  }

  /** Wraps encoded parts (e.g. read from a segment file); decodes the block index. */
  static fromEncoded(parts: TermDictionaryParts): TermDictionary {
    const firsts: string[] = [];
    const r = new ByteReader(parts.bytes);
    for (const start of parts.blockStarts) {
      r.pos = start;
      r.vint();
      const n = r.vint();
      firsts.push(decoder.decode(parts.bytes.subarray(r.pos, r.pos + n)));
    }
    return new TermDictionary(parts, firsts);
  }

  /** The encoded parts (shared, not copied). */
  encodedParts(): TermDictionaryParts {
    return { size: this.size, bytes: this.bytes, blockStarts: this.blockStarts };
  }

  /** Bytes held by the encoded arrays (not the block index strings). */
  get byteLength(): number {
    return this.bytes.byteLength + this.blockStarts.byteLength;
  }

  /** Reads the next entry of a block into `into.buf` (prefix kept from the entry before); returns its length. */
  private next(r: ByteReader, into: { buf: Uint8Array }): number {
    const prefix = r.vint();
    const suffix = r.vint();
    const n = prefix + suffix;
    if (into.buf.length < n) {
      const grown = new Uint8Array(n * 2);
      grown.set(into.buf.subarray(0, prefix));
      into.buf = grown;
    }
    const cur = into.buf;
    const bytes = this.bytes;
    for (let i = 0, p = r.pos; i < suffix; i++) cur[prefix + i] = bytes[p + i];
    r.pos += suffix;
    return n;
  }

  /** The last block whose first term is ≤ `term`, or -1 when `term` sorts before every term. */
  private blockOf(term: string): number {
    let lo = 0;
    let hi = this.firsts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareCodePoints(this.firsts[mid], term) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  /**
   * The ordinal of the first term ≥ `term` (`size` when none), and whether it equals `term`
   * (Lucene `TermsEnum.seekCeil`).
   */
  seekCeil(term: string): { ord: number; found: boolean } {
    const block = this.blockOf(term);
    if (block < 0) return { ord: 0, found: false };
    const [target, tn] = utf8(term, this.target);
    this.target = target;
    const r = new ByteReader(this.bytes, this.blockStarts[block]);
    const first = block * TERMS_PER_BLOCK;
    const end = Math.min(first + TERMS_PER_BLOCK, this.size);
    for (let ord = first; ord < end; ord++) {
      const n = this.next(r, this.scratch);
      const c = compareBytes(this.scratch.buf, n, target, tn);
      if (c >= 0) return { ord, found: c === 0 };
    }
    return { ord: end, found: false };
  }

  /** The ordinal of `term`, or -1 when absent (Lucene `TermsEnum.seekExact`). */
  ord(term: string): number {
    const { ord, found } = this.seekCeil(term);
    return found ? ord : -1;
  }

  /** The term at ordinal `ord` (0 ≤ ord < size; Lucene `lookupOrd`). */
  term(ord: number): string {
    const block = Math.floor(ord / TERMS_PER_BLOCK);
    if (ord % TERMS_PER_BLOCK === 0) return this.firsts[block];
    const r = new ByteReader(this.bytes, this.blockStarts[block]);
    let n = 0;
    for (let i = block * TERMS_PER_BLOCK; i <= ord; i++) n = this.next(r, this.scratch);
    return text(this.scratch.buf, n);
  }

  /** Calls `fn(term, ord)` for the ordinals `[from, to)` in order (one pass over their blocks), until `fn` returns false. */
  forEach(fn: (term: string, ord: number) => boolean | void, from = 0, to = this.size): void {
    if (from >= to) return;
    let block = Math.floor(from / TERMS_PER_BLOCK);
    const r = new ByteReader(this.bytes, this.blockStarts[block]);
    // Its own buffer: `fn` may look terms up in this dictionary meanwhile.
    const cur = { buf: new Uint8Array(64) };
    for (let ord = block * TERMS_PER_BLOCK; ord < to; ord++) {
      if (ord % TERMS_PER_BLOCK === 0) r.pos = this.blockStarts[(block = ord / TERMS_PER_BLOCK)];
      const n = this.next(r, cur);
      if (ord >= from && fn(ord % TERMS_PER_BLOCK === 0 ? this.firsts[block] : text(cur.buf, n), ord) === false) return;
    }
  }

  /** Every term, in order, as a new array. */
  toArray(): string[] {
    const out = new Array<string>(this.size);
    this.forEach((t, i) => {
      out[i] = t;
    });
    return out;
  }

  /**
   * Every term as a string, by ordinal: made once, then kept (sorting and aggregations index
   * terms by rank; Lucene reads them from the doc values' own term dictionary instead).
   */
  strings(): string[] {
    return (this.stringsCache ??= this.toArray());
  }

  /**
   * The ordinals `[from, to)` of the terms starting with `prefix` (a seek, then a scan comparing
   * bytes: no term is decoded to a string).
   */
  prefixRange(prefix: string): [number, number] {
    const from = this.seekCeil(prefix).ord;
    const [target, tn] = utf8(prefix, this.target);
    this.target = target;
    if (from >= this.size) return [from, from];
    const first = from - (from % TERMS_PER_BLOCK);
    const r = new ByteReader(this.bytes, this.blockStarts[first / TERMS_PER_BLOCK]);
    for (let ord = first; ord < this.size; ord++) {
      if (ord % TERMS_PER_BLOCK === 0) r.pos = this.blockStarts[ord / TERMS_PER_BLOCK];
      const n = this.next(r, this.scratch);
      if (ord < from) continue;
      if (n < tn) return [from, ord];
      const cur = this.scratch.buf;
      for (let i = 0; i < tn; i++) if (cur[i] !== target[i]) return [from, ord];
    }
    return [from, this.size];
  }

  /** Calls `fn(term, ord)` for each term starting with `prefix`, in order (a seek, then a scan). */
  forEachWithPrefix(prefix: string, fn: (term: string, ord: number) => void): void {
    this.forEach((t, ord) => {
      if (!t.startsWith(prefix)) return false;
      fn(t, ord);
    }, this.seekCeil(prefix).ord);
  }
}
