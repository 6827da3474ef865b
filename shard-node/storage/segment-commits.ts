/**
 * A shard copy's segment files and commit points on disk, beside its SQLite store
 * (`<shard dir>/_<n>.fseg`, `<shard dir>/segments_<N>`; formats: docs/segment-files.md). A flush
 * writes each segment not written yet to a new file (fsynced; a file is never rewritten: a merge's
 * segment is a new file), fsyncs the directory, then the commit point atomically (a temporary
 * file, fsync, rename, fsync the directory), and only then deletes the files the new commit point
 * no longer names, as Lucene's `IndexWriter.commit` and `IndexFileDeleter` do. A restart loads the
 * newest commit point and its segments, verifying every checksum. A segment in a file (loaded, or
 * written by a flush) keeps its `_source` blocks in the file, read on demand through an open
 * descriptor (engine/segment-file/segment-file-handle.ts), so deleting a merged-away file never
 * breaks a reader that still holds its segment.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/IndexFileDeleter.java
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/store/FSDirectory.java
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Segment } from '../engine/segment.ts';
import type { ShardCommit } from '../engine/shard-commit.ts';
import { decodeCommitPoint, encodeCommitPoint } from '../engine/segment-file/commit-point.ts';
import { CorruptSegmentFileError } from '../engine/segment-file/corrupt-segment-file.ts';
import { fileKeywordDocValues } from '../engine/segment-file/doc-values-codec.ts';
import { FilePages, pageChecksums } from '../engine/segment-file/file-pages.ts';
import { decodeSegment, encodeSegmentSteps, segmentFileLayout, type SegmentFileLayout } from '../engine/segment-file/segment-codec.ts';
import { SegmentFileHandle } from '../engine/segment-file/segment-file-handle.ts';
import { runSliced } from '../../shared/sliced-work.ts';
import { fsyncDir } from './durable-dir.ts';

const SEGMENT_FILE = /^_(\d+)\.fseg$/;
const COMMIT_FILE = /^segments_(\d+)$/;
const TEMPORARY_FILE = /^segments_\d+\.tmp$/;

/** Writes `bytes` to a new file at `path` and fsyncs it. */
async function writeDurably(path: string, bytes: Uint8Array): Promise<void> {
  const fh = await open(path, 'w');
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Moves what a segment reads on demand out of the heap once its file is written: the `_source`
 * blocks and every field's postings are read from `handle` from now on (and the block cache), and
 * keyword doc values are read from it again when first used (their in-memory columns are dropped).
 * `encoded` is the file's bytes (page checksums are computed from them).
 */
function readFromFile(segment: Segment, handle: SegmentFileHandle, layout: SegmentFileLayout, encoded: Buffer): void {
  segment.sources.readFromFile(handle, layout.sourceBlocksAt);
  for (const [field, { at, length }] of layout.postings) {
    segment.inverted.get(field)?.terms.readFromFile(new FilePages(handle, at, length, pageChecksums(encoded.subarray(at, at + length))));
  }
  for (const [field, place] of layout.keywordDocValues) {
    const dictionary = segment.inverted.get(field)?.terms.dictionary;
    if (dictionary && segment.strings.has(field)) segment.strings.set(field, fileKeywordDocValues(dictionary, handle, place));
  }
}

/** The highest number a file name pattern captures in `names` (-1 when none matches). */
function highest(names: readonly string[], pattern: RegExp): number {
  let n = -1;
  for (const name of names) {
    const m = pattern.exec(name);
    if (m) n = Math.max(n, Number(m[1]));
  }
  return n;
}

/** The segment files and commit points of one shard copy's directory. */
export class SegmentCommits {
  readonly dir: string;
  /** The file each segment was written to or loaded from. */
  private readonly files = new WeakMap<Segment, string>();
  private nextSegment: number;
  /** N of the newest `segments_N` on disk (0: none). */
  private generation: number;
  /**
   * The seq_no of the newest durable commit point (null: none, or unreadable): a flush folds no
   * translog op above it into the SQLite snapshot, so a restart from the commit finds them all.
   */
  committedSeqNo: number | null = null;

  /** The segment files the newest commit point written or loaded here names, in order. */
  private committedFiles: string[] = [];
  /** Files held by running snapshots ({@link pinCommit}): never deleted while held. */
  private readonly pinned = new Map<string, number>();

  constructor(dir: string) {
    this.dir = dir;
    const names = existsSync(dir) ? readdirSync(dir) : [];
    this.nextSegment = highest(names, SEGMENT_FILE) + 1;
    this.generation = Math.max(0, highest(names, COMMIT_FILE));
    if (this.generation > 0) this.committedSeqNo = this.readSeqNo();
  }

  /** The seq_no of the newest commit point on disk; null when it fails its checks (a restart then rebuilds from the SQLite store). */
  private readSeqNo(): number | null {
    const path = join(this.dir, `segments_${this.generation}`);
    try {
      return decodeCommitPoint(readFileSync(path), path).seqNo;
    } catch {
      return null;
    }
  }

  /**
   * The newest commit point and its segments, read from the files with every checksum verified;
   * null when there is none (a data directory written before segment files).
   * @throws CorruptSegmentFileError when a file fails its checksum or structure checks, or is missing
   */
  load(): ShardCommit | null {
    if (this.generation === 0) return null;
    const path = join(this.dir, `segments_${this.generation}`);
    const point = decodeCommitPoint(readFileSync(path), path);
    const segments = point.segments.map((s) => {
      const file = join(this.dir, s.file);
      if (!existsSync(file)) throw new CorruptSegmentFileError('segment file named by the commit point is missing', file);
      const segment = decodeSegment(readFileSync(file), file, new SegmentFileHandle(file));
      if (segment.maxDoc !== s.maxDoc) throw new CorruptSegmentFileError(`maxDoc ${segment.maxDoc} is not the commit point's ${s.maxDoc}`, file);
      this.files.set(segment, s.file);
      return { segment, deleted: s.deleted };
    });
    this.committedSeqNo = point.seqNo;
    this.committedFiles = point.segments.map((s) => s.file);
    return { segments, tombstones: point.tombstones, seqNo: point.seqNo, maxSeqNo: point.maxSeqNo, mapping: point.mapping };
  }

  /**
   * Makes `commit` durable: new segment files, then the commit point `segments_<N+1>`, then the
   * files it does not name are deleted. Segments are encoded in event-loop slices (paused between
   * sections and fields, `DEFAULT_SLICE_MS`), so a large one does not hold the event loop. Skipped when the newest commit point has the same seq_no and names the
   * same files: every change since is then an op above that seq_no, which the translog keeps (a
   * flush that folds nothing writes nothing). @returns the commit's seq_no (now {@link committedSeqNo})
   */
  async write(commit: ShardCommit): Promise<number> {
    if (
      commit.seqNo === this.committedSeqNo &&
      commit.segments.every(({ segment }, i) => this.files.get(segment) === this.committedFiles[i]) &&
      commit.segments.length === this.committedFiles.length
    )
      return commit.seqNo;
    const named: { file: string; maxDoc: number; deleted: Int32Array }[] = [];
    for (const { segment, deleted } of commit.segments) {
      let file = this.files.get(segment);
      if (file === undefined) {
        file = `_${this.nextSegment++}.fseg`;
        const encoded = await runSliced((clock) => encodeSegmentSteps(segment, clock));
        const path = join(this.dir, file);
        await writeDurably(path, encoded);
        this.files.set(segment, file);
        readFromFile(segment, new SegmentFileHandle(path), segmentFileLayout(encoded, path), encoded);
      }
      named.push({ file, maxDoc: segment.maxDoc, deleted });
    }
    fsyncDir(this.dir);
    const generation = this.generation + 1;
    const point = encodeCommitPoint({ generation, ...commit, segments: named });
    const tmp = join(this.dir, `segments_${generation}.tmp`);
    await writeDurably(tmp, point);
    await rename(tmp, join(this.dir, `segments_${generation}`));
    fsyncDir(this.dir);
    this.generation = generation;
    this.committedSeqNo = commit.seqNo;
    this.committedFiles = named.map((n) => n.file);
    this.deleteUnreferenced(new Set([...named.map((n) => n.file), `segments_${generation}`]));
    return commit.seqNo;
  }

  /**
   * The files of the newest commit point on disk (its segment files, then `segments_<N>` itself),
   * held from deletion until `release` is called, as a snapshot holds ES's
   * `IndexShard.acquireLastIndexCommit`: a flush or merge meanwhile writes new files and keeps
   * these. Null when the copy has no commit point.
   */
  pinCommit(): { commit: string; files: string[]; release: () => void } | null {
    if (this.generation === 0) return null;
    const commit = `segments_${this.generation}`;
    const files = [...this.committedFiles, commit];
    for (const f of files) this.pinned.set(f, (this.pinned.get(f) ?? 0) + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      for (const f of files) {
        const n = (this.pinned.get(f) ?? 1) - 1;
        if (n <= 0) this.pinned.delete(f);
        else this.pinned.set(f, n);
      }
    };
    return { commit, files, release };
  }

  /** Deletes the segment files, commit points and temporary files not in `keep` nor pinned (Lucene's `IndexFileDeleter`). */
  private deleteUnreferenced(keep: ReadonlySet<string>): void {
    let removed = false;
    for (const name of readdirSync(this.dir)) {
      if (keep.has(name) || this.pinned.has(name) || !(SEGMENT_FILE.test(name) || COMMIT_FILE.test(name) || TEMPORARY_FILE.test(name))) continue;
      rmSync(join(this.dir, name), { force: true });
      removed = true;
    }
    if (removed) fsyncDir(this.dir);
  }
}
