/**
 * The byte layout of one term's postings, after Lucene's postings format: doc ordinals
 * delta-coded and bit-packed in blocks of {@link BLOCK_SIZE} (frame of reference, one bit width
 * per block and per stream), with a per-block header that doubles as skip data (the block's last
 * doc and its byte length, so a reader passes a block without unpacking it), and the remaining
 * docs (fewer than a block) as variable-byte ints. Freqs are packed beside the docs; positions are
 * delta-coded per doc as variable-byte ints after each block's docs and freqs.
 *
 * One term, at its offset in the field's byte stream:
 * ```
 * vint docFreq
 * [positional] vint totalTermFreq - docFreq
 * per full block:  byte docBits, [byte freqBits], vint lastDoc - previous lastDoc (-1 at first),
 *                  vint body bytes, body = packed (gap - 1) × 128, [packed (freq - 1) × 128],
 *                  [per doc: vint first position, then vint position deltas]
 * tail, per doc:   vint gap - 1, [vint freq - 1, vint positions as above]
 * ```
 * Docs are non-negative and strictly ascending; positions within a doc ascending (non-strict).
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/Lucene90PostingsFormat.html
 */
import type { PostingList } from '../segment.ts';
import { bitsRequired, ByteReader, type ByteWriter } from './packed-ints.ts';

/** Docs per packed block (Lucene's `BLOCK_SIZE`). */
export const BLOCK_SIZE = 128;

/** Scratch for one block's gaps / freqs while encoding. */
const scratch = new Int32Array(BLOCK_SIZE);

/** Largest `bits` over `n` values of `a` from `from`. */
function maxBits(a: ArrayLike<number>, from: number, n: number): number {
  let or = 0;
  for (let i = 0; i < n; i++) or |= a[from + i];
  return bitsRequired(or >>> 0);
}

/**
 * Appends one term's postings to `w` in the layout above. `docs[docsFrom, docsFrom + n)` ascending;
 * `freqs[0..n)` (≥ 1 each) and `positions` from `posFrom` (freqs[i] entries per doc, in doc order)
 * together for positional fields, both null for DOCS-only ones.
 * @throws Error when docs do not ascend or positions descend within a doc
 */
export function encodePostings(
  w: ByteWriter,
  n: number,
  docs: ArrayLike<number>,
  docsFrom: number,
  freqs: ArrayLike<number> | null,
  positions: ArrayLike<number> | null,
  posFrom: number,
): void {
  w.vint(n);
  let ttf = 0;
  if (freqs) {
    for (let i = 0; i < n; i++) ttf += freqs[i];
    w.vint(ttf - n);
  }
  let prev = -1;
  let pos = posFrom;
  const full = n - (n % BLOCK_SIZE);
  for (let b = 0; b < full; b += BLOCK_SIZE) {
    const before = prev;
    for (let i = 0; i < BLOCK_SIZE; i++) {
      const doc = docs[docsFrom + b + i];
      const gap = doc - prev - 1;
      if (gap < 0) throw new Error(`postings docs must ascend: ${doc} after ${prev}`);
      scratch[i] = gap;
      prev = doc;
    }
    const docBits = maxBits(scratch, 0, BLOCK_SIZE);
    // freq - 1 packs in at most as many bits as freq.
    const freqBits = freqs ? bitsRequired(orMinusOne(freqs, b)) : 0;
    let body = 16 * docBits;
    if (freqs) body += 16 * freqBits + positionBytes(freqs, b, BLOCK_SIZE, positions!, pos);
    w.byte(docBits);
    if (freqs) w.byte(freqBits);
    w.vint(prev - before);
    w.vint(body);
    w.pack(scratch, 0, BLOCK_SIZE, docBits);
    if (freqs) {
      for (let i = 0; i < BLOCK_SIZE; i++) scratch[i] = freqs[b + i] - 1;
      w.pack(scratch, 0, BLOCK_SIZE, freqBits);
      pos = writePositions(w, freqs, b, BLOCK_SIZE, positions!, pos);
    }
  }
  for (let i = full; i < n; i++) {
    const doc = docs[docsFrom + i];
    const gap = doc - prev - 1;
    if (gap < 0) throw new Error(`postings docs must ascend: ${doc} after ${prev}`);
    w.vint(gap);
    prev = doc;
    if (freqs) {
      w.vint(freqs[i] - 1);
      pos = writePositions(w, freqs, i, 1, positions!, pos);
    }
  }
}

/** Bitwise or of `freq - 1` over one block. */
function orMinusOne(freqs: ArrayLike<number>, from: number): number {
  let or = 0;
  for (let i = 0; i < BLOCK_SIZE; i++) or |= freqs[from + i] - 1;
  return or >>> 0;
}

/** Bytes of a vint. */
function vintBytes(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** Bytes the positions of docs `[from, from + n)` take, starting at `positions[pos]`. */
function positionBytes(freqs: ArrayLike<number>, from: number, n: number, positions: ArrayLike<number>, pos: number): number {
  let bytes = 0;
  for (let i = from; i < from + n; i++) {
    let last = 0;
    for (let k = 0; k < freqs[i]; k++, pos++) {
      const delta = positions[pos] - last;
      if (delta < 0) throw new Error(`positions must ascend within a doc: ${positions[pos]} after ${last}`);
      bytes += vintBytes(delta);
      last = positions[pos];
    }
  }
  return bytes;
}

/** Writes the positions of docs `[from, from + n)`; returns the next position index. */
function writePositions(w: ByteWriter, freqs: ArrayLike<number>, from: number, n: number, positions: ArrayLike<number>, pos: number): number {
  for (let i = from; i < from + n; i++) {
    let last = 0;
    for (let k = 0; k < freqs[i]; k++, pos++) {
      const delta = positions[pos] - last;
      if (delta < 0) throw new Error(`positions must ascend within a doc: ${positions[pos]} after ${last}`);
      w.vint(delta);
      last = positions[pos];
    }
  }
  return pos;
}

/** A term's docFreq and totalTermFreq (Lucene `TermsEnum.docFreq`/`totalTermFreq`), from its header. */
export function postingsStats(bytes: Uint8Array, offset: number, positional: boolean): { docFreq: number; totalTermFreq: number } {
  const r = new ByteReader(bytes, offset);
  const docFreq = r.vint();
  return { docFreq, totalTermFreq: positional ? docFreq + r.vint() : docFreq };
}

/** Adds `prev + 1` prefix sums to `n` gaps of `out` from `at`; returns the last doc. */
function prefixSum(out: Int32Array, at: number, n: number, prev: number): number {
  for (let i = at; i < at + n; i++) out[i] = prev = prev + out[i] + 1;
  return prev;
}

/** Decodes a term's ascending docs only (freqs and positions are passed over). */
export function decodeDocs(bytes: Uint8Array, offset: number, positional: boolean): Int32Array {
  const r = new ByteReader(bytes, offset);
  const n = r.vint();
  if (positional) r.vint();
  const docs = new Int32Array(n);
  const full = n - (n % BLOCK_SIZE);
  let prev = -1;
  for (let b = 0; b < full; b += BLOCK_SIZE) {
    const docBits = r.byte();
    if (positional) r.byte();
    r.vint();
    const body = r.vint();
    const end = r.pos + body;
    r.unpack(BLOCK_SIZE, docBits, docs, b);
    prev = prefixSum(docs, b, BLOCK_SIZE, prev);
    r.pos = end;
  }
  for (let i = full; i < n; i++) {
    docs[i] = prev = prev + r.vint() + 1;
    if (positional) {
      const freq = r.vint() + 1;
      for (let k = 0; k < freq; k++) r.vint();
    }
  }
  return docs;
}

/**
 * Decodes a term's docs and freqs, passing over positions (what scoring a term needs): a
 * {@link PostingList} without positions. DOCS-only postings give null freqs.
 */
export function decodeDocsFreqs(bytes: Uint8Array, offset: number, positional: boolean): PostingList {
  if (!positional) return decodePostings(bytes, offset, false);
  const r = new ByteReader(bytes, offset);
  const n = r.vint();
  const ttf = n + r.vint();
  const docs = new Int32Array(n);
  const freqs = new Int32Array(n);
  const full = n - (n % BLOCK_SIZE);
  let prev = -1;
  for (let b = 0; b < full; b += BLOCK_SIZE) {
    const docBits = r.byte();
    const freqBits = r.byte();
    r.vint();
    const end = r.vint() + r.pos;
    r.unpack(BLOCK_SIZE, docBits, docs, b);
    prev = prefixSum(docs, b, BLOCK_SIZE, prev);
    r.unpack(BLOCK_SIZE, freqBits, freqs, b);
    for (let i = b; i < b + BLOCK_SIZE; i++) freqs[i]++;
    r.pos = end;
  }
  for (let i = full; i < n; i++) {
    docs[i] = prev = prev + r.vint() + 1;
    const freq = (freqs[i] = r.vint() + 1);
    for (let k = 0; k < freq; k++) r.vint();
  }
  return { docs, freqs, posStarts: null, positions: null, totalTermFreq: ttf };
}

/** Decodes a term's postings into a {@link PostingList} (positions offsets start at 0). */
export function decodePostings(bytes: Uint8Array, offset: number, positional: boolean): PostingList {
  if (!positional) {
    const docs = decodeDocs(bytes, offset, false);
    return { docs, freqs: null, posStarts: null, positions: null, totalTermFreq: docs.length };
  }
  const r = new ByteReader(bytes, offset);
  const n = r.vint();
  const ttf = n + r.vint();
  const docs = new Int32Array(n);
  const freqs = new Int32Array(n);
  const posStarts = new Int32Array(n + 1);
  const positions = new Int32Array(ttf);
  const full = n - (n % BLOCK_SIZE);
  let prev = -1;
  let p = 0;
  for (let b = 0; b < full; b += BLOCK_SIZE) {
    const docBits = r.byte();
    const freqBits = r.byte();
    r.vint();
    r.vint();
    r.unpack(BLOCK_SIZE, docBits, docs, b);
    prev = prefixSum(docs, b, BLOCK_SIZE, prev);
    r.unpack(BLOCK_SIZE, freqBits, freqs, b);
    for (let i = b; i < b + BLOCK_SIZE; i++) p = readPositions(r, i, ++freqs[i], posStarts, positions, p);
  }
  for (let i = full; i < n; i++) {
    docs[i] = prev = prev + r.vint() + 1;
    const freq = (freqs[i] = r.vint() + 1);
    p = readPositions(r, i, freq, posStarts, positions, p);
  }
  posStarts[n] = p;
  return { docs, freqs, posStarts, positions, totalTermFreq: ttf };
}

/** Reads doc i's `freq` positions into `positions` at `p`; returns the next free index. */
function readPositions(r: ByteReader, i: number, freq: number, posStarts: Int32Array, positions: Int32Array, p: number): number {
  posStarts[i] = p;
  let last = 0;
  for (let k = 0; k < freq; k++) positions[p++] = last += r.vint();
  return p;
}
