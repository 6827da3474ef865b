/**
 * The commit point of a shard copy (`segments_<N>`, Lucene's `SegmentInfos` file): which segment
 * files are live, each one's deleted doc ordinals (Lucene's live docs), the delete tombstones, the
 * mapping, and the seq_no every op at or below which is in them; a header and a CRC32 footer as a
 * segment file has (layout: docs/segment-files.md, "Commit point").
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/SegmentInfos.java
 */
import type { Mapping } from '../../../protocol/mapping.ts';
import type { CommitTombstone } from '../shard-commit.ts';
import { ByteWriter } from './byte-writer.ts';
import { checkedReader, finishWithFooter, writeHeader } from './segment-codec.ts';

/** The first 8 bytes of a commit point. */
export const COMMIT_MAGIC = 'FOLIOCMT';
/** The format version this code writes and reads. */
export const COMMIT_FORMAT_VERSION = 1;

/** One live segment as a commit point names it. */
export interface CommitPointSegment {
  /** The segment file's name, in the shard's directory. */
  file: string;
  maxDoc: number;
  /** Deleted doc ordinals, ascending. */
  deleted: Int32Array;
}

/** What a commit point records. */
export interface CommitPoint {
  /** N of `segments_N`: one more than the commit point before. */
  generation: number;
  /** Every op with seq_no ≤ this is in the named segments and tombstones. */
  seqNo: number;
  maxSeqNo: number;
  segments: CommitPointSegment[];
  tombstones: CommitTombstone[];
  mapping: Mapping;
}

/** The bytes of a commit point. */
export function encodeCommitPoint(c: CommitPoint): Buffer {
  const w = new ByteWriter();
  writeHeader(w, COMMIT_MAGIC, COMMIT_FORMAT_VERSION);
  w.u64(c.generation);
  w.f64(c.seqNo);
  w.f64(c.maxSeqNo);
  w.u64(c.segments.length);
  for (const s of c.segments) {
    w.string(s.file);
    w.u64(s.maxDoc);
    w.array(s.deleted);
  }
  w.u64(c.tombstones.length);
  for (const t of c.tombstones) {
    w.string(t.id);
    w.f64(t.version);
    w.f64(t.seqNo);
  }
  w.string(JSON.stringify(c.mapping));
  return finishWithFooter(w);
}

/**
 * The commit point in `buf`, checksum verified first.
 * @throws CorruptSegmentFileError when the checksum, magic, version or structure is wrong
 */
export function decodeCommitPoint(buf: Buffer, resource: string): CommitPoint {
  const r = checkedReader(buf, resource, COMMIT_MAGIC, COMMIT_FORMAT_VERSION);
  const generation = r.u64();
  const seqNo = r.f64();
  const maxSeqNo = r.f64();
  const segments: CommitPointSegment[] = [];
  for (let i = r.u64(); i > 0; i--) {
    const file = r.string();
    const maxDoc = r.u64();
    const deleted = r.array(Int32Array);
    if (deleted.some((d, j) => d < 0 || d >= maxDoc || (j > 0 && d <= deleted[j - 1]))) r.corrupt(`deleted docs of ${file} out of range`);
    segments.push({ file, maxDoc, deleted });
  }
  const tombstones: CommitTombstone[] = [];
  for (let i = r.u64(); i > 0; i--) tombstones.push({ id: r.string(), version: r.f64(), seqNo: r.f64() });
  const mapping = JSON.parse(r.string()) as Mapping;
  if (!r.atEnd) r.corrupt('bytes between the commit point and its footer');
  return { generation, seqNo, maxSeqNo, segments, tombstones, mapping };
}
