/**
 * One field's inverted index in a segment file, behind one pair of functions so that the postings
 * encoding can change alone: the Lucene `Terms` statistics, then the field's term dictionary and
 * postings exactly as the engine holds them encoded (`TermPostings.encodedParts`: the sorted terms
 * in prefix-compressed blocks of 32 with a block index, columns/term-dictionary.ts; every term's
 * postings in the block layout of columns/postings-codec.ts, back to back, with one byte offset per
 * term), then the length norms and the `has` flags. Reading wraps the arrays again
 * (`TermPostings.fromEncoded`): nothing is re-encoded either way.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/Lucene90PostingsFormat.html
 * @see docs/segment-files.md
 */
import { TERMS_PER_BLOCK } from '../columns/term-dictionary.ts';
import { TermPostings } from '../columns/term-postings.ts';
import type { InvertedField } from '../segment.ts';
import type { ByteReader } from './byte-reader.ts';
import type { ByteWriter } from './byte-writer.ts';
import { FilePages, pageChecksums } from './file-pages.ts';
import type { SegmentFileHandle } from './segment-file-handle.ts';

/** Flag bits of an inverted field. */
const POSITIONAL = 1;
const HAS_NORMS = 2;

/** Writes one inverted field (layout: docs/segment-files.md, "Inverted field"). */
export function encodeInvertedField(w: ByteWriter, inv: InvertedField): void {
  const parts = inv.terms.encodedParts();
  w.u8((parts.positional ? POSITIONAL : 0) | (inv.norms ? HAS_NORMS : 0));
  w.u64(inv.docCount);
  w.f64(inv.sumTotalTermFreq);
  w.u64(parts.dictionary.size);
  w.array(parts.dictionary.blockStarts);
  w.array(parts.dictionary.bytes);
  w.array(parts.offsets);
  w.array(parts.postings);
  if (inv.norms) w.array(inv.norms);
  w.array(inv.has);
}

/**
 * Reads one inverted field written by {@link encodeInvertedField}. `share` may hand back an equal
 * presence array decoded earlier. With `file` (the open segment file `r` reads), the postings are
 * not copied into memory: they are read from the file on demand, a page at a time, each page
 * checked against a CRC32 computed here from the verified bytes (file-pages.ts).
 * @throws CorruptSegmentFileError when the arrays do not fit together
 */
export function decodeInvertedField(r: ByteReader, maxDoc: number, share: (bits: Uint8Array) => Uint8Array, file?: SegmentFileHandle): InvertedField {
  const flags = r.u8();
  const docCount = r.u64();
  const sumTotalTermFreq = r.f64();
  const size = r.u64();
  const blockStarts = r.array(Int32Array);
  const bytes = r.array(Uint8Array);
  const offsets = r.array(Uint32Array);
  let postings: Uint8Array | FilePages;
  if (file) {
    const { at, length } = r.arrayPlace(Uint8Array);
    postings = new FilePages(file, at, length, pageChecksums(r.view(at, length)));
  } else postings = r.array(Uint8Array);
  const norms = flags & HAS_NORMS ? r.array(Uint8Array) : null;
  const has = r.array(Uint8Array);
  const fits =
    blockStarts.length === Math.ceil(size / TERMS_PER_BLOCK) &&
    blockStarts.every((b) => b >= 0 && b <= bytes.length) &&
    offsets.length === size &&
    offsets.every((o) => o <= postings.length) &&
    (!norms || norms.length === maxDoc) &&
    has.length === maxDoc;
  if (!fits) r.corrupt('inverted field arrays do not fit together');
  const positional = (flags & POSITIONAL) !== 0;
  const dictionary = { size, bytes, blockStarts };
  const terms =
    postings instanceof FilePages
      ? TermPostings.inFile(dictionary, postings, offsets, positional)
      : TermPostings.fromEncoded({ dictionary, postings, offsets, positional });
  return { terms, docCount, sumTotalTermFreq, norms, has: share(has) };
}

/**
 * Where an inverted field's postings are in the file `r` reads (absolute offset and length), the
 * reader moved past the field: what a flush that wrote the file points the field's postings at.
 */
export function invertedFieldPostingsPlace(r: ByteReader): { at: number; length: number } {
  const flags = r.u8();
  r.u64();
  r.f64();
  r.u64();
  r.arrayPlace(Int32Array);
  r.arrayPlace(Uint8Array);
  r.arrayPlace(Uint32Array);
  const place = r.arrayPlace(Uint8Array);
  if (flags & HAS_NORMS) r.arrayPlace(Uint8Array);
  r.arrayPlace(Uint8Array);
  return place;
}
