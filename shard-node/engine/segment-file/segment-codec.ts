/**
 * One sealed {@link Segment} as the bytes of one immutable segment file, and back (layout:
 * docs/segment-files.md): a header (magic, format version), tagged sections in a fixed order
 * (`_id`s, versions, seq_nos, routings, the `_source` slab, inverted fields, numeric doc values,
 * keyword doc values, `exists` flags), and a footer with a CRC32 of every byte before it, as
 * Lucene's `CodecUtil` writes a header and a checksummed footer around every file. Decoding
 * verifies the checksum first: any flipped byte throws {@link CorruptSegmentFileError}.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/codecs/CodecUtil.java
 */
import { endianness } from 'node:os';
import { crc32 } from 'node:zlib';
import { PresencePool } from '../columns/columns.ts';
import { IdColumn } from '../columns/id-column.ts';
import { blockChecksums, SourceSlab } from '../columns/source-slab.ts';
import { Segment, type InvertedField, type NumericField } from '../segment.ts';
import { runAtOnce, type SliceClock, type Steps } from '../../../shared/sliced-work.ts';
import { ByteReader } from './byte-reader.ts';
import { ByteWriter } from './byte-writer.ts';
import { CorruptSegmentFileError } from './corrupt-segment-file.ts';
import {
  decodeNumericField,
  decodeStringDocValues,
  encodeNumericField,
  encodeStringDocValues,
  stringDocValuesPlace,
  type StringDocValuesPlace,
} from './doc-values-codec.ts';
import { decodeInvertedField, encodeInvertedField, invertedFieldPostingsPlace } from './inverted-field-codec.ts';
import type { SegmentFileHandle } from './segment-file-handle.ts';

/** The first 8 bytes of a segment file. */
export const SEGMENT_MAGIC = 'FOLIOSEG';
/** The format version this code writes and reads. */
export const SEGMENT_FORMAT_VERSION = 1;
/** The footer's magic (Lucene's `CodecUtil.FOOTER_MAGIC`), then the CRC32. */
export const FOOTER_MAGIC = 0xc02893e8;
/** Bytes of the footer: magic and CRC32. */
export const FOOTER_BYTES = 8;

/** The section tags (file order: docs/segment-files.md). */
type SectionTag = 'IDS ' | 'VERS' | 'SEQN' | 'ROUT' | 'SRC ' | 'INVF' | 'NUMF' | 'STRF' | 'EXST';

if (endianness() !== 'LE') throw new Error('segment files hold typed arrays as little-endian bytes: this host is big-endian');

/** Writes a file header (magic and version) into `w`. */
export function writeHeader(w: ByteWriter, magic: string, version: number): void {
  w.bytes(Buffer.from(magic, 'latin1'));
  w.u32(version);
  w.u32(0);
}

/** Appends the footer (magic, CRC32 of everything before the CRC) and returns the file's bytes. */
export function finishWithFooter(w: ByteWriter): Buffer {
  w.u32(FOOTER_MAGIC);
  const body = w.finish();
  const out = Buffer.allocUnsafe(body.length + 4);
  body.copy(out);
  out.writeUInt32LE(crc32(body), body.length);
  return out;
}

/**
 * Checks a file's header and footer: magic, version and the CRC32 of every byte before the
 * footer's checksum. @returns a reader positioned after the header, ending before the footer
 * @throws CorruptSegmentFileError on any mismatch
 */
export function checkedReader(buf: Buffer, resource: string, magic: string, version: number): ByteReader {
  const head = magic.length + 8;
  if (buf.length < head + FOOTER_BYTES) throw new CorruptSegmentFileError(`file too short (${buf.length} bytes)`, resource);
  const stored = buf.readUInt32LE(buf.length - 4);
  const actual = crc32(buf.subarray(0, buf.length - 4));
  if (stored !== actual) throw new CorruptSegmentFileError(`checksum failed (stored=${stored.toString(16)}, actual=${actual.toString(16)})`, resource);
  if (buf.readUInt32LE(buf.length - FOOTER_BYTES) !== FOOTER_MAGIC) throw new CorruptSegmentFileError('footer magic mismatch', resource);
  if (buf.toString('latin1', 0, magic.length) !== magic) throw new CorruptSegmentFileError('header magic mismatch', resource);
  const v = buf.readUInt32LE(magic.length);
  if (v !== version) throw new CorruptSegmentFileError(`format version ${v} is not ${version}`, resource);
  return new ByteReader(buf, resource, head, buf.length - FOOTER_BYTES);
}

/** Writes one section: its tag, its byte length, its body (steps: `body` may pause between pieces). */
function* section(w: ByteWriter, tag: SectionTag, body: (s: ByteWriter) => Steps<void> | void): Steps<void> {
  const s = new ByteWriter();
  const steps = body(s);
  if (steps) yield* steps;
  const bytes = s.finish();
  w.bytes(Buffer.from(tag, 'latin1'));
  w.u64(bytes.length);
  w.align8();
  w.bytes(bytes);
}

/** Reads the next section, which must carry `tag`, with `body`; it must consume the section exactly. */
function readSection<T>(r: ByteReader, tag: SectionTag, body: (s: ByteReader) => T): T {
  const got = r.bytes(4).toString('latin1');
  if (got !== tag) r.corrupt(`section ${got} where ${tag} was expected`);
  const n = r.u64();
  r.bytes((8 - (r.pos % 8)) % 8);
  const s = r.sub(n);
  const out = body(s);
  if (!s.atEnd) r.corrupt(`section ${tag} has bytes left over`);
  return out;
}

/** The bytes of the segment file for `seg`, in one task. */
export function encodeSegment(seg: Segment): Buffer {
  return runAtOnce((clock) => encodeSegmentSteps(seg, clock));
}

/**
 * {@link encodeSegment} as pausable steps (shared/sliced-work.ts): the clock is asked between
 * sections and between fields, so a large segment is written without holding the event loop.
 */
export function* encodeSegmentSteps(seg: Segment, clock: SliceClock): Steps<Buffer> {
  const w = new ByteWriter();
  writeHeader(w, SEGMENT_MAGIC, SEGMENT_FORMAT_VERSION);
  yield* section(w, 'IDS ', (s) => {
    s.u64(seg.maxDoc);
    s.array(seg.ids.lengths()); // ByteWriter.strings' layout: code-unit lengths, then the blob
    s.string(seg.ids.blob());
  });
  if (clock.due()) yield;
  yield* section(w, 'VERS', (s) => s.array(Float64Array.from(seg.versions))); // the file keeps float64; memory narrows
  yield* section(w, 'SEQN', (s) => s.array(Float64Array.from(seg.seqNos)));
  yield* section(w, 'ROUT', (s) => {
    s.u64(seg.routings?.size ?? 0);
    for (const [ord, routing] of seg.routings ?? []) {
      s.u32(ord);
      s.string(routing);
    }
  });
  yield* section(w, 'SRC ', (s) => {
    s.array(seg.sources.blockOffsets);
    s.array(seg.sources.offsets);
    s.array(seg.sources.blocks);
  });
  if (clock.due()) yield;
  yield* section(w, 'INVF', (s) => named(s, seg.inverted, clock, (f) => encodeInvertedField(s, f)));
  yield* section(w, 'NUMF', (s) => named(s, seg.numeric, clock, (f) => encodeNumericField(s, f)));
  yield* section(w, 'STRF', (s) => named(s, seg.strings, clock, (f) => encodeStringDocValues(s, f)));
  yield* section(w, 'EXST', (s) => named(s, seg.exists, clock, (f) => s.array(f)));
  return finishWithFooter(w);
}

/** Writes a map's size, then per entry its name and `write(value)`, asking the clock after each. */
function* named<V>(w: ByteWriter, map: ReadonlyMap<string, V>, clock: SliceClock, write: (v: V, name: string) => void): Steps<void> {
  w.u64(map.size);
  for (const [name, v] of map) {
    w.string(name);
    write(v, name);
    if (clock.due()) yield;
  }
}

/** Reads what {@link named} wrote. */
function readNamed<V>(r: ByteReader, read: (name: string) => V): Map<string, V> {
  const out = new Map<string, V>();
  for (let i = r.u64(); i > 0; i--) {
    const name = r.string();
    out.set(name, read(name));
  }
  return out;
}

/** Where the parts a segment reads on demand are in its file: byte offsets and lengths. */
export interface SegmentFileLayout {
  /** The `_source` blocks (the `SRC ` section's last array). */
  sourceBlocksAt: number;
  /** Each inverted field's postings stream. */
  postings: Map<string, { at: number; length: number }>;
  /** Each keyword field's doc-value rank columns. */
  keywordDocValues: Map<string, StringDocValuesPlace>;
}

/**
 * Where the on-demand parts of a segment file's bytes `buf` are: what a flush that wrote the file
 * points the segment's `_source` slab ({@link SourceSlab.readFromFile}) and postings
 * (`TermPostings.readFromFile`) at. The file is one this process just encoded; only section
 * headers and array lengths are walked. @throws CorruptSegmentFileError when the layout does not fit
 */
export function segmentFileLayout(buf: Buffer, resource: string): SegmentFileLayout {
  const r = new ByteReader(buf, resource, SEGMENT_MAGIC.length + 8, buf.length - FOOTER_BYTES);
  const maxDoc = readSection(r, 'IDS ', (s) => {
    const n = s.u64();
    s.bytes(s.remaining);
    return n;
  });
  for (const tag of ['VERS', 'SEQN', 'ROUT'] as const) readSection(r, tag, (s) => s.bytes(s.remaining));
  const sourceBlocksAt = readSection(r, 'SRC ', (s) => {
    s.arrayPlace(Uint32Array);
    s.arrayPlace(Uint32Array);
    return s.arrayPlace(Uint8Array).at;
  });
  const postings = readSection(r, 'INVF', (s) => readNamed(s, () => invertedFieldPostingsPlace(s)));
  readSection(r, 'NUMF', (s) => s.bytes(s.remaining));
  const keywordDocValues = readSection(r, 'STRF', (s) => readNamed(s, () => stringDocValuesPlace(s, maxDoc)));
  return { sourceBlocksAt, postings, keywordDocValues };
}

/**
 * The segment a segment file holds, checksum verified first. With `file` (the same file, open),
 * the `_source` blocks and the postings are not copied into memory: they are read from `file` on
 * demand, each block or page checked against a CRC32 computed here from the verified bytes
 * (source-slab.ts, file-pages.ts). The term dictionaries, doc values and `_id`s are in memory.
 * @throws CorruptSegmentFileError when the checksum, magic, version or any structure is wrong
 */
export function decodeSegment(buf: Buffer, resource: string, file?: SegmentFileHandle): Segment {
  const r = checkedReader(buf, resource, SEGMENT_MAGIC, SEGMENT_FORMAT_VERSION);
  const pool = new PresencePool();
  const share = (bits: Uint8Array): Uint8Array => pool.share(bits);
  const { maxDoc, lengths, blob } = readSection(r, 'IDS ', (s) => ({ maxDoc: s.u64(), lengths: s.array(Uint32Array), blob: s.string() }));
  if (lengths.length !== maxDoc) r.corrupt('_id count is not maxDoc');
  if (lengths.reduce((n, l) => n + l, 0) !== blob.length) r.corrupt('string lengths do not match their blob');
  const ids = IdColumn.fromParts(lengths, blob);
  const versions = readSection(r, 'VERS', (s) => s.array(Float64Array));
  const seqNos = readSection(r, 'SEQN', (s) => s.array(Float64Array));
  if (versions.length !== maxDoc || seqNos.length !== maxDoc) r.corrupt('version or seq_no column length is not maxDoc');
  const routings = readSection(r, 'ROUT', (s) => {
    const m = new Map<number, string>();
    for (let i = s.u64(); i > 0; i--) m.set(s.u32(), s.string());
    return m;
  });
  const sources = readSection(r, 'SRC ', (s) => {
    const blockOffsets = s.array(Uint32Array);
    const offsets = s.array(Uint32Array);
    const fits = (blocksLength: number) => {
      if (offsets.length !== maxDoc + 1 || blockOffsets[blockOffsets.length - 1] !== blocksLength) s.corrupt('_source slab arrays do not fit together');
    };
    if (!file) {
      const blocks = s.array(Uint8Array);
      fits(blocks.length);
      return new SourceSlab(blocks, blockOffsets, offsets);
    }
    const { at, length } = s.arrayPlace(Uint8Array);
    fits(length);
    return SourceSlab.inFile(file, at, blockOffsets, offsets, blockChecksums(buf.subarray(at, at + length), blockOffsets));
  });
  const inverted: Map<string, InvertedField> = readSection(r, 'INVF', (s) => readNamed(s, () => decodeInvertedField(s, maxDoc, share, file)));
  const numeric: Map<string, NumericField> = readSection(r, 'NUMF', (s) => readNamed(s, () => decodeNumericField(s, maxDoc, share)));
  const strings = readSection(r, 'STRF', (s) => readNamed(s, (name) => decodeStringDocValues(s, maxDoc, inverted.get(name)?.terms.dictionary, file)));
  const exists = readSection(r, 'EXST', (s) => readNamed(s, () => share(s.array(Uint8Array))));
  if (r.pos !== buf.length - FOOTER_BYTES) r.corrupt('bytes between the last section and the footer');
  return new Segment({ ids, versions, seqNos, routings, sources, inverted, numeric, strings, exists });
}
