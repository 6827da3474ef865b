/**
 * One field's inverted index in a segment file, behind one pair of functions so that the postings
 * encoding can change alone (compact FOR-block postings are to replace the raw arrays here): the
 * Lucene `Terms` statistics, the term dictionary (term-dictionary.ts: sorted, prefix-compressed
 * blocks with a block index), then the postings as the flat arrays `TermPostings` reads (term t's
 * entries are `[pairStart[t], pairStart[t + 1])` of `docs` and `freqs`; its position offsets
 * `posStarts[pairStart[t] + t ..= pairStart[t + 1] + t]` into `positions`), then the length norms
 * and the `has` flags. Terms are read back in code point order (Lucene's order), whatever order a
 * text field iterated in before.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/Lucene90PostingsFormat.html
 * @see docs/segment-files.md
 */
import { compareCodePoints } from '../../../protocol/sort.ts';
import { TermPostings } from '../columns/term-postings.ts';
import type { InvertedField } from '../segment.ts';
import type { ByteReader } from './byte-reader.ts';
import type { ByteWriter } from './byte-writer.ts';
import { decodeTermDictionary, encodeTermDictionary } from './term-dictionary.ts';

/** Flag bits of an inverted field. */
const HAS_FREQS = 1;
const HAS_POSITIONS = 2;
const HAS_NORMS = 4;

/** The field's postings laid out flat, its terms in `terms` order (one postings lookup per term). */
function flatten(inv: InvertedField, terms: readonly string[]) {
  const lists = terms.map((t) => inv.terms.get(t)!);
  let pairs = 0;
  let occurrences = 0;
  let freqs = false;
  let positional = terms.length === 0 ? inv.norms !== null : false;
  for (const pl of lists) {
    pairs += pl.docs.length;
    if (pl.freqs) freqs = true;
    if (pl.posStarts) {
      positional = true;
      occurrences += pl.posStarts[pl.docs.length] - pl.posStarts[0];
    }
  }
  const T = terms.length;
  const pairStart = new Int32Array(T + 1);
  const docs = new Int32Array(pairs);
  const freqArr = freqs || positional ? new Int32Array(pairs) : null;
  const posStarts = positional ? new Int32Array(pairs + T) : null;
  const positions = positional ? new Int32Array(occurrences) : null;
  let p = 0;
  let o = 0;
  for (let t = 0; t < T; t++) {
    const pl = lists[t];
    const n = pl.docs.length;
    pairStart[t] = p;
    docs.set(pl.docs, p);
    if (freqArr && pl.freqs) freqArr.set(pl.freqs, p);
    if (posStarts && positions && pl.posStarts && pl.positions) {
      const base = pl.posStarts[0];
      for (let i = 0; i <= n; i++) posStarts[p + t + i] = o + pl.posStarts[i] - base;
      const count = pl.posStarts[n] - base;
      positions.set(pl.positions.subarray(base, base + count), o);
      o += count;
    }
    p += n;
  }
  pairStart[T] = p;
  return { pairStart, docs, freqs: freqArr, posStarts, positions };
}

/** Writes one inverted field (layout: docs/segment-files.md, "Inverted field"). */
export function encodeInvertedField(w: ByteWriter, inv: InvertedField): void {
  const terms = inv.sorted ?? [...inv.terms.keys()].sort(compareCodePoints);
  const flat = flatten(inv, terms);
  w.u8((flat.freqs ? HAS_FREQS : 0) | (flat.posStarts ? HAS_POSITIONS : 0) | (inv.norms ? HAS_NORMS : 0));
  w.u64(inv.docCount);
  w.f64(inv.sumTotalTermFreq);
  encodeTermDictionary(w, terms);
  w.array(flat.pairStart);
  w.array(flat.docs);
  if (flat.freqs) w.array(flat.freqs);
  if (flat.posStarts && flat.positions) {
    w.array(flat.posStarts);
    w.array(flat.positions);
  }
  if (inv.norms) w.array(inv.norms);
  w.array(inv.has);
}

/**
 * Reads one inverted field written by {@link encodeInvertedField}. Its terms iterate in code point
 * order and are its `sorted` list. `share` may hand back an equal presence array decoded earlier.
 * @throws CorruptSegmentFileError when the arrays do not fit together
 */
export function decodeInvertedField(r: ByteReader, maxDoc: number, share: (bits: Uint8Array) => Uint8Array): InvertedField {
  const flags = r.u8();
  const docCount = r.u64();
  const sumTotalTermFreq = r.f64();
  const keys = decodeTermDictionary(r);
  const pairStart = r.array(Int32Array);
  const docs = r.array(Int32Array);
  const freqs = flags & HAS_FREQS ? r.array(Int32Array) : null;
  const posStarts = flags & HAS_POSITIONS ? r.array(Int32Array) : null;
  const positions = flags & HAS_POSITIONS ? r.array(Int32Array) : null;
  const norms = flags & HAS_NORMS ? r.array(Uint8Array) : null;
  const has = r.array(Uint8Array);
  const T = keys.length;
  const pairs = docs.length;
  const fits =
    pairStart.length === T + 1 &&
    pairStart[T] === pairs &&
    (!freqs || freqs.length === pairs) &&
    (!posStarts || posStarts.length === pairs + T) &&
    (!norms || norms.length === maxDoc) &&
    has.length === maxDoc;
  if (!fits) r.corrupt('inverted field arrays do not fit together');
  const ids = new Map<string, number>();
  for (let t = 0; t < T; t++) ids.set(keys[t], t);
  const terms = new TermPostings({ ids, keys, pairStart, docs, freqs, posStarts, positions });
  return { terms, docCount, sumTotalTermFreq, norms, has: share(has), sorted: keys };
}
