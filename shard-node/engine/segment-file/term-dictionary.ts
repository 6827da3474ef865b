/**
 * A field's term dictionary in a segment file: the terms in code point order, in blocks of
 * {@link TERMS_PER_BLOCK}, each term stored as the length of the prefix it shares with the term
 * before it in its block and its suffix (the first term of a block whole), and a small index of
 * each block's byte offset, so that a reader can find a term by binary search over the blocks'
 * first terms and decode one block. This is the leaf level of Lucene's block tree terms
 * dictionary (`Lucene90BlockTreeTermsWriter`, 25–48 terms a block, its `.tip` index over them).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/codecs/lucene90/blocktree/Lucene90BlockTreeTermsWriter.java
 * @see docs/segment-files.md
 */
import { ByteWriter, CHARSET_LATIN1, charsetOf } from './byte-writer.ts';
import type { ByteReader } from './byte-reader.ts';

/** Terms per block. */
export const TERMS_PER_BLOCK = 32;

/** Writes `terms` (sorted by code point, distinct) as prefix-compressed blocks with their index. */
export function encodeTermDictionary(w: ByteWriter, terms: readonly string[]): void {
  let charset = CHARSET_LATIN1;
  for (const t of terms) if ((charset = Math.max(charset, charsetOf(t))) !== CHARSET_LATIN1) break;
  const utf16 = charset !== CHARSET_LATIN1;
  const blocks = new ByteWriter();
  const starts = new Uint32Array(Math.ceil(terms.length / TERMS_PER_BLOCK));
  let prev = '';
  for (let i = 0; i < terms.length; i++) {
    const t = terms[i];
    let shared = 0;
    if (i % TERMS_PER_BLOCK === 0) starts[i / TERMS_PER_BLOCK] = blocks.length;
    else {
      const max = Math.min(prev.length, t.length);
      while (shared < max && prev.charCodeAt(shared) === t.charCodeAt(shared)) shared++;
    }
    blocks.varint(shared);
    blocks.varint(t.length - shared);
    blocks.chars(t, shared, utf16);
    prev = t;
  }
  w.u64(terms.length);
  w.u32(TERMS_PER_BLOCK);
  w.u8(charset);
  w.array(starts);
  const area = blocks.finish();
  w.u64(area.length);
  w.bytes(area);
}

/** Reads every term of a dictionary written by {@link encodeTermDictionary}, in order. */
export function decodeTermDictionary(r: ByteReader): string[] {
  const count = r.u64();
  const perBlock = r.u32();
  const charset = r.u8();
  const starts = r.array(Uint32Array);
  if (perBlock < 1 || starts.length !== Math.ceil(count / perBlock)) r.corrupt('term dictionary block index does not match its term count');
  const area = r.bytes(r.u64());
  const unit = charset === CHARSET_LATIN1 ? 1 : 2;
  const encoding = charset === CHARSET_LATIN1 ? 'latin1' : 'utf16le';
  const terms = new Array<string>(count);
  let pos = 0;
  const varint = (): number => {
    let v = 0;
    let scale = 1;
    for (;;) {
      if (pos >= area.length) r.corrupt('term dictionary block ends inside a term');
      const b = area[pos++];
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 0x80;
    }
  };
  let prev = '';
  for (let i = 0; i < count; i++) {
    if (i % perBlock === 0 && starts[i / perBlock] !== pos) r.corrupt(`term dictionary block ${i / perBlock} is not where its index says`);
    const shared = varint();
    const n = varint() * unit;
    if (shared > prev.length || pos + n > area.length) r.corrupt('term dictionary entry out of range');
    const suffix = area.toString(encoding, pos, pos + n);
    pos += n;
    prev = terms[i] = shared === 0 ? suffix : prev.slice(0, shared) + suffix;
  }
  if (pos !== area.length) r.corrupt('term dictionary has bytes past its last term');
  return terms;
}
