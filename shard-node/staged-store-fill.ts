/**
 * The SQLite store of a copy staged by a file-based peer recovery, filled segment by segment while
 * the other files are still arriving (shard-node/recovery-file-target.ts): once the commit point is
 * whole (the coordinator sends it first), each segment file it names gets its live docs written as
 * soon as it is whole too (or at once when it was reused), one segment at a time in the
 * background; the tombstones and the checkpoints are written last. The store and the files then
 * hold the same copy, as a restore leaves them (hosted-snapshot.ts `fillStoreFromCommit`), but the
 * rows are written during the copy instead of after it.
 * @see docs/recovery.md
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeCommitPoint, type CommitPoint } from './engine/segment-file/commit-point.ts';
import { segmentOps, tombstoneOps } from './hosted-snapshot.ts';
import { ShardStore } from './storage/shard-store.ts';

const COMMIT_FILE = /^segments_\d+$/;

/** See the module comment. */
export class StagedStoreFill {
  private readonly dir: string;
  private readonly store: ShardStore;
  private point: CommitPoint | null = null;
  private readonly present = new Set<string>();
  private readonly scheduled = new Set<string>();
  /** The fills in order; never rejects (a failure is kept in {@link failure}). */
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  private closed = false;

  /** Opens a new store in the staging directory `dir` (which holds no store). */
  constructor(dir: string) {
    this.dir = dir;
    this.store = ShardStore.open({ path: join(dir, 'shard.sqlite') });
  }

  /** File `name` of the commit is whole in the staging directory: its rows are written (in the background) once the commit point is known. */
  async fileReady(name: string): Promise<void> {
    this.present.add(name);
    if (COMMIT_FILE.test(name)) {
      const path = join(this.dir, name);
      this.point ??= decodeCommitPoint(await readFile(path), path);
      for (const f of this.present) this.schedule(f);
    } else this.schedule(name);
  }

  private schedule(name: string): void {
    const named = this.point?.segments.find((s) => s.file === name);
    if (!named || this.scheduled.has(name) || this.closed) return;
    this.scheduled.add(name);
    this.chain = this.chain
      .then(async () => {
        if (this.failure === null && !this.closed) await this.store.putDocs(segmentOps(this.dir, named));
      })
      .catch((err: unknown) => {
        this.failure ??= err as Error;
      });
  }

  /**
   * Writes the rows of every segment of `point` not written yet, waits for them all, then the
   * tombstones and the checkpoints (`seqNo`, `globalCheckpoint`), and closes the store.
   * @throws the first failure of a segment's rows (e.g. CorruptSegmentFileError)
   */
  async finish(point: CommitPoint, seqNo: number, globalCheckpoint: number): Promise<void> {
    this.point ??= point;
    for (const s of point.segments) {
      this.present.add(s.file);
      this.schedule(s.file);
    }
    await this.chain;
    try {
      if (this.failure) throw this.failure;
      await this.store.putDocs(tombstoneOps(point));
      this.store.markRestored(seqNo, globalCheckpoint);
    } finally {
      this.closed = true;
      this.store.close();
    }
  }

  /** Stops (the plan was replaced or failed): waits for the running segment, closes the store. */
  async abandon(): Promise<void> {
    this.closed = true;
    await this.chain;
    this.store.close();
  }
}
