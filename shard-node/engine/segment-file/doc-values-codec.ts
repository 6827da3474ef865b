/**
 * A segment's doc values in a segment file (docs/segment-files.md, "Doc values"): numeric columns
 * (`Int32Array` or `Float64Array` as the segment narrowed them, Lucene `SORTED_NUMERIC`), keyword
 * rank columns (1, 2 or 4 bytes a doc, Lucene `SORTED_SET` ordinals into the field's term
 * dictionary) and `exists` flags, each as
 * its raw little-endian bytes; a `max` column equal to `min` is written once and read back as one
 * shared array, as the segment held it.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/Lucene90DocValuesFormat.html
 */
import type { NumericColumn, RankColumn } from '../columns/columns.ts';
import type { TermDictionary } from '../columns/term-dictionary.ts';
import { keywordDocValues, type NumericField, type StringDocValues } from '../segment.ts';
import type { ByteReader } from './byte-reader.ts';
import type { ByteWriter } from './byte-writer.ts';

/** Column kind bytes. */
const INT32 = 0;
const FLOAT64 = 1;
const U8 = 1;
const U16 = 2;
const U32 = 4;

function writeNumericColumn(w: ByteWriter, c: NumericColumn): void {
  w.u8(c instanceof Int32Array ? INT32 : FLOAT64);
  w.array(c);
}

function readNumericColumn(r: ByteReader, maxDoc: number): NumericColumn {
  const kind = r.u8();
  const c = kind === INT32 ? r.array(Int32Array) : kind === FLOAT64 ? r.array(Float64Array) : r.corrupt(`unknown numeric column kind ${kind}`);
  if (c.length !== maxDoc) r.corrupt('numeric column length is not maxDoc');
  return c;
}

/** Writes one numeric field: min, max (or "same as min"), presence, then the multi-valued docs. */
export function encodeNumericField(w: ByteWriter, f: NumericField): void {
  writeNumericColumn(w, f.min);
  w.u8(f.max === f.min ? 1 : 0);
  if (f.max !== f.min) writeNumericColumn(w, f.max);
  w.array(f.has);
  w.u64(f.multi.size);
  for (const [doc, values] of f.multi) {
    w.u32(doc);
    w.u32(values.length);
    for (const v of values) w.f64(v);
  }
}

/** Reads a numeric field written by {@link encodeNumericField}. */
export function decodeNumericField(r: ByteReader, maxDoc: number, share: (bits: Uint8Array) => Uint8Array): NumericField {
  const min = readNumericColumn(r, maxDoc);
  const max = r.u8() === 1 ? min : readNumericColumn(r, maxDoc);
  const has = r.array(Uint8Array);
  if (has.length !== maxDoc) r.corrupt('numeric presence length is not maxDoc');
  const multi = new Map<number, number[]>();
  for (let i = r.u64(); i > 0; i--) {
    const doc = r.u32();
    const values = new Array<number>(r.u32());
    for (let j = 0; j < values.length; j++) values[j] = r.f64();
    multi.set(doc, values);
  }
  return { min, max, has: share(has), multi };
}

function writeRankColumn(w: ByteWriter, c: RankColumn): void {
  w.u8(c.BYTES_PER_ELEMENT);
  w.array(c);
}

function readRankColumn(r: ByteReader, maxDoc: number): RankColumn {
  const kind = r.u8();
  const c =
    kind === U8
      ? r.array(Uint8Array)
      : kind === U16
        ? r.array(Uint16Array)
        : kind === U32
          ? r.array(Uint32Array)
          : r.corrupt(`unknown rank column kind ${kind}`);
  if (c.length !== maxDoc) r.corrupt('rank column length is not maxDoc');
  return c;
}

/**
 * Writes a keyword field's doc values: its min and max rank columns. Their ranks are ordinals of
 * the field's term dictionary (segment.ts `keywordDocValues`), which the inverted field stores.
 */
export function encodeStringDocValues(w: ByteWriter, sv: StringDocValues): void {
  writeRankColumn(w, sv.min);
  w.u8(sv.max === sv.min ? 1 : 0);
  if (sv.max !== sv.min) writeRankColumn(w, sv.max);
}

/** Reads keyword doc values written by {@link encodeStringDocValues} over the field's term dictionary. */
export function decodeStringDocValues(r: ByteReader, maxDoc: number, dictionary: TermDictionary | undefined): StringDocValues {
  if (!dictionary) return r.corrupt('keyword doc values name an inverted field the segment does not have');
  const min = readRankColumn(r, maxDoc);
  const max = r.u8() === 1 ? min : readRankColumn(r, maxDoc);
  return keywordDocValues(dictionary, min, max);
}
