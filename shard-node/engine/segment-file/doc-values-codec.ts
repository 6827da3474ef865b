/**
 * A segment's doc values in a segment file (docs/segment-files.md, "Doc values"): numeric columns
 * (`Int32Array` or `Float64Array` as the segment narrowed them, Lucene `SORTED_NUMERIC`), keyword
 * rank columns (1, 2 or 4 bytes a doc, Lucene `SORTED_SET` ordinals into the field's term
 * dictionary) and `exists` flags, each as
 * its raw little-endian bytes; a `max` column equal to `min` is written once and read back as one
 * shared array, as the segment held it.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/Lucene90DocValuesFormat.html
 */
import { crc32 } from 'node:zlib';
import type { NumericColumn, RankColumn } from '../columns/columns.ts';
import type { TermDictionary } from '../columns/term-dictionary.ts';
import { keywordDocValues, lazyKeywordDocValues, type NumericField, type StringDocValues } from '../segment.ts';
import type { ByteReader } from './byte-reader.ts';
import type { ByteWriter } from './byte-writer.ts';
import { CorruptSegmentFileError } from './corrupt-segment-file.ts';
import type { SegmentFileHandle } from './segment-file-handle.ts';

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

function decodeRankColumn(r: ByteReader, maxDoc: number): RankColumn {
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

/** Where a rank column is in a segment file: its first byte, element count and width, and the CRC32 of its bytes. */
export interface RankColumnPlace {
  at: number;
  length: number;
  bytesPerElement: 1 | 2 | 4;
  crc: number;
}

/** Where a keyword field's rank columns are (`max` null: the same column as `min`). */
export interface StringDocValuesPlace {
  min: RankColumnPlace;
  max: RankColumnPlace | null;
}

function rankColumnPlace(r: ByteReader, maxDoc: number): RankColumnPlace {
  const kind = r.u8();
  if (kind !== U8 && kind !== U16 && kind !== U32) return r.corrupt(`unknown rank column kind ${kind}`);
  const { at, length } = kind === U8 ? r.arrayPlace(Uint8Array) : kind === U16 ? r.arrayPlace(Uint16Array) : r.arrayPlace(Uint32Array);
  if (length !== maxDoc) r.corrupt('rank column length is not maxDoc');
  return { at, length, bytesPerElement: kind, crc: crc32(r.view(at, length * kind)) };
}

/** Where the columns written by {@link encodeStringDocValues} are, without reading them (the reader moves past them). */
export function stringDocValuesPlace(r: ByteReader, maxDoc: number): StringDocValuesPlace {
  const min = rankColumnPlace(r, maxDoc);
  return { min, max: r.u8() === 1 ? null : rankColumnPlace(r, maxDoc) };
}

/** Reads a rank column from the segment file and checks it. @throws CorruptSegmentFileError when its bytes fail their CRC32 */
function readRankColumn(file: SegmentFileHandle, p: RankColumnPlace): RankColumn {
  const bytes = file.read(p.at, p.length * p.bytesPerElement);
  if (crc32(bytes) !== p.crc) throw new CorruptSegmentFileError(`checksum failed for keyword doc values at offset ${p.at}`, file.path);
  const copy = new Uint8Array(bytes).buffer; // aligned, its own memory
  return p.bytesPerElement === U8 ? new Uint8Array(copy) : p.bytesPerElement === U16 ? new Uint16Array(copy) : new Uint32Array(copy);
}

/** Keyword doc values read from `file` at `place` when first used ({@link lazyKeywordDocValues}). */
export function fileKeywordDocValues(dictionary: TermDictionary, file: SegmentFileHandle, place: StringDocValuesPlace): StringDocValues {
  return lazyKeywordDocValues(dictionary, () => {
    const min = readRankColumn(file, place.min);
    return { min, max: place.max ? readRankColumn(file, place.max) : min };
  });
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

/**
 * Reads keyword doc values written by {@link encodeStringDocValues} over the field's term dictionary;
 * with `file` (the same file, open), the columns stay there until first used ({@link fileKeywordDocValues}).
 */
export function decodeStringDocValues(r: ByteReader, maxDoc: number, dictionary: TermDictionary | undefined, file?: SegmentFileHandle): StringDocValues {
  if (!dictionary) return r.corrupt('keyword doc values name an inverted field the segment does not have');
  if (file) return fileKeywordDocValues(dictionary, file, stringDocValuesPlace(r, maxDoc));
  const min = decodeRankColumn(r, maxDoc);
  const max = r.u8() === 1 ? min : decodeRankColumn(r, maxDoc);
  return keywordDocValues(dictionary, min, max);
}
