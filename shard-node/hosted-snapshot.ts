/**
 * A hosted copy's side of snapshots (ES `SnapshotShardsService` and `StoreRecovery.restore` on a
 * data node). Snapshot: the primary refreshes (every acknowledged write goes into a segment),
 * flushes (a commit point names those segments), and holds that commit's files from deletion
 * while they are copied to the repository. Restore: the files of a shard snapshot are copied into
 * a staging directory beside the copy's own, the commit point is rewritten to start a new history
 * at its max seq_no (ES `bootstrapNewHistory`: the restored copy's local checkpoint is its max
 * seq_no), the SQLite store is filled from the segments (so the store and the files hold the same
 * copy), and then, in one synchronous step, the empty copy is replaced by the staged one and
 * opened from its commit point: no document is re-analysed.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/snapshots/SnapshotShardsService.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/shard/StoreRecovery.java
 * @see docs/snapshots.md
 */
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EsError } from '../protocol/errors.ts';
import { ensureDirectory, removeFiles, writeFileAtomic } from '../shared/snapshots/repository-files.ts';
import type { RateLimiter } from '../shared/snapshots/rate-limiter.ts';
import type { ShardSnapshot } from '../shared/snapshots/repository-layout.ts';
import { restoreShardFiles } from '../shared/snapshots/shard-blobs.ts';
import type { Shard } from './engine/shard.ts';
import { decodeCommitPoint, encodeCommitPoint, type CommitPoint } from './engine/segment-file/commit-point.ts';
import { decodeSegment } from './engine/segment-file/segment-codec.ts';
import type { TranslogOp } from './engine/translog.ts';
import { dropShardCopy, failCopy, recoverShardCopy, type HostedIndex, type ShardCopyEnv } from './hosted-index.ts';
import { fsyncDir } from './storage/durable-dir.ts';
import { shardStorePath } from './storage/metadata-store.ts';
import { ShardStore } from './storage/shard-store.ts';

/** The files of a commit point held for a snapshot (shard-node/storage/segment-commits.ts `pinCommit`). */
export interface SnapshotCommit {
  /** The copy's directory. */
  dir: string;
  /** The commit point's file name (`segments_<N>`). */
  commit: string;
  /** Every file of the commit: its segment files, then the commit point. */
  files: string[];
  release: () => void;
}

/**
 * The live docs of one segment file `named` by a commit point, in `dir`, as the index ops that set
 * them (the file is read whole and checked: one segment in memory at a time, as a restart reads it).
 */
export function* segmentOps(dir: string, named: CommitPoint['segments'][number]): Generator<TranslogOp> {
  const path = join(dir, named.file);
  const segment = decodeSegment(readFileSync(path), path);
  let next = 0;
  for (let d = 0; d < segment.maxDoc; d++) {
    if (next < named.deleted.length && named.deleted[next] === d) {
      next++;
      continue;
    }
    const routing = segment.routings?.get(d);
    yield {
      op: 'index',
      _id: segment.ids.get(d),
      json: segment.source(d),
      seqNo: segment.seqNos[d],
      version: segment.versions[d],
      ...(routing !== undefined ? { routing } : {}),
    };
  }
}

/** The delete tombstones of a commit point, as delete ops. */
export function* tombstoneOps(point: CommitPoint): Generator<TranslogOp> {
  for (const t of point.tombstones) yield { op: 'delete', _id: t.id, seqNo: t.seqNo, version: t.version };
}

/** The ops that set each `_id` of a commit: every live doc of its segments, then its delete tombstones. */
function* commitOps(dir: string, point: CommitPoint): Generator<TranslogOp> {
  for (const named of point.segments) yield* segmentOps(dir, named);
  yield* tombstoneOps(point);
}

/**
 * Writes the SQLite store of the staged copy in `dir` from its commit `point` (its segments' live
 * docs and tombstones, one segment in memory at a time), recording `seqNo` as the flushed seq_no
 * and local checkpoint and `globalCheckpoint`, so that the store and the files hold the same copy
 * (docs/segment-files.md, "Corruption"). A restore and a file-based peer recovery both use it.
 * @returns the rows written
 */
export async function fillStoreFromCommit(dir: string, point: CommitPoint, seqNo: number, globalCheckpoint: number): Promise<number> {
  const store = ShardStore.open({ path: join(dir, 'shard.sqlite') });
  try {
    return await store.restoreDocs(commitOps(dir, point), seqNo, globalCheckpoint);
  } finally {
    store.close();
  }
}

/** What staging a restored copy did ({@link stageRestoredCopy}). */
export interface StagedCopy {
  files: number;
  bytes: number;
  /** Rows of the SQLite snapshot: live docs and delete tombstones. */
  docs: number;
  maxSeqNo: number;
}

/**
 * Copies the files of `snapshot` from the repository's shard directory `repoShardDir` into
 * `staging` (emptied first), rewrites its commit point as `segments_1` with a new history at its
 * max seq_no, and writes the SQLite store beside them from the segments' live docs and tombstones.
 * Reads each segment file once more to fill the store, one at a time.
 * @throws Error when a blob is missing or fails its checks (the staging directory is removed)
 */
export async function stageRestoredCopy(repoShardDir: string, snapshot: ShardSnapshot, staging: string, limiter?: RateLimiter): Promise<StagedCopy> {
  await rm(staging, { recursive: true, force: true });
  await ensureDirectory(staging);
  try {
    const bytes = await restoreShardFiles(repoShardDir, snapshot, staging, undefined, limiter);
    const pointPath = join(staging, snapshot.commit);
    const point = decodeCommitPoint(await readFile(pointPath), pointPath);
    // A new history (ES bootstrapNewHistory): the restored copy's checkpoint is its max seq_no.
    const fresh: CommitPoint = { ...point, generation: 1, seqNo: point.maxSeqNo };
    await writeFileAtomic(join(staging, 'segments_1'), encodeCommitPoint(fresh));
    if (snapshot.commit !== 'segments_1') await removeFiles(staging, [snapshot.commit]);
    const docs = await fillStoreFromCommit(staging, point, point.maxSeqNo, point.maxSeqNo);
    return { files: snapshot.files.length, bytes, docs, maxSeqNo: point.maxSeqNo };
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
}

/** What a {@link SnapshotCopy} works on: the registry's copy environment, the index, its primary copy and how to flush and persist it. */
interface SnapshotCopyContext {
  env: ShardCopyEnv;
  h: HostedIndex;
  s: number;
  /** The primary copy. */
  shard: Shard;
  /** Flushes the copy as an explicit flush does (counted in its `flush.total`). */
  flush: () => Promise<unknown>;
  /** Persists the registry's entry of the index. */
  persist: () => void;
}

/** The snapshot side of one primary copy (IndexRegistry.snapshotCopy): its commit for a snapshot, a restore into it. */
export class SnapshotCopy {
  private readonly c: SnapshotCopyContext;

  /** The copy `s` of `h`, whose primary is `shard`; `flush` flushes it as an explicit flush, `persist` persists the registry's entry. */
  constructor(env: ShardCopyEnv, h: HostedIndex, s: number, shard: Shard, flush: () => Promise<unknown>, persist: () => void) {
    this.c = { env, h, s, shard, flush, persist };
  }

  /**
   * Makes every acknowledged write durable in a commit point and holds that commit's files
   * ({@link SnapshotCommit}); the caller releases them once copied.
   * @throws EsError 400 `illegal_state_exception` when the copy has no data directory (nothing to copy)
   */
  async acquireCommit(): Promise<SnapshotCommit> {
    const { h, s, shard } = this.c;
    const store = h.stores.get(s);
    if (!store) throw new EsError(400, 'illegal_state_exception', `[${h.metadata.name}][${s}] has no data directory: a snapshot copies segment files`);
    await h.refresher.refreshAndRelease(s, shard);
    await this.c.flush();
    await store.flush(); // a flush that was already running when the refresh ended may predate it
    const pinned = store.segments.pinCommit();
    if (!pinned) throw new EsError(500, 'illegal_state_exception', `[${h.metadata.name}][${s}] has no commit point after its flush`);
    return { dir: store.segments.dir, ...pinned };
  }

  /**
   * {@link acquireCommit} for a file-based peer recovery's phase 1 (ES `RecoverySourceHandler`
   * acquires a safe commit and a retention lease): also holds the translog's ops above the
   * commit's seq_no for phase 2; `release` lets both go.
   * @throws EsError as {@link acquireCommit}; 409 when the translog no longer holds those ops (a
   *   flush folded them meanwhile: the recovery is retried)
   */
  async acquireRecoveryCommit(): Promise<SnapshotCommit & { seqNo: number; maxSeqNo: number; globalCheckpoint: number }> {
    const { h, s, shard } = this.c;
    const commit = await this.acquireCommit();
    const store = h.stores.get(s)!;
    const seqNo = store.segments.committedSeqNo ?? -1;
    const unhold = store.retainOps(seqNo);
    if (!unhold) {
      commit.release();
      throw new EsError(409, 'illegal_state_exception', `[${h.metadata.name}][${s}] the translog no longer holds the ops above the commit's seq_no [${seqNo}]`);
    }
    const release = () => {
      commit.release();
      unhold();
    };
    const point = decodeCommitPoint(await readFile(join(commit.dir, commit.commit)), commit.commit);
    if (point.seqNo !== seqNo) {
      release(); // another flush came between the pin and the hold: the next attempt pins again
      throw new EsError(409, 'illegal_state_exception', `[${h.metadata.name}][${s}] a flush moved the commit while it was pinned for a recovery`);
    }
    return { ...commit, release, seqNo: point.seqNo, maxSeqNo: point.maxSeqNo, globalCheckpoint: Math.min(shard.globalCheckpoint, point.seqNo) };
  }

  /**
   * Where a restore stages the copy (`<data>/<index uuid>/<shard>.restoring`, removed with the
   * index's data), after checking it can take one: an empty primary (ES restores into a new
   * index's unassigned primaries).
   * @throws EsError 409 `illegal_state_exception` when it holds operations; 400 without a data directory
   */
  restoreStaging(): string {
    const { env, h, s } = this.c;
    this.checkEmpty();
    if (!env.storage) throw new EsError(400, 'illegal_state_exception', `[${h.metadata.name}][${s}] has no data directory: a restore copies segment files`);
    return `${dirname(shardStorePath(env.storage.dataDir, h.metadata.uuid, s))}.restoring`;
  }

  /**
   * Where a file-based peer recovery stages the copy (`<data>/<index uuid>/<shard>.recovering`):
   * kept when the copy is emptied or the node restarts, so that an interrupted recovery resumes
   * with the files it received whole; removed with the index's data or renamed into place.
   * @throws EsError 400 `illegal_state_exception` without a data directory
   */
  recoveryStaging(): string {
    const { env, h, s } = this.c;
    if (!env.storage)
      throw new EsError(400, 'illegal_state_exception', `[${h.metadata.name}][${s}] has no data directory: a file-based recovery copies segment files`);
    return `${dirname(shardStorePath(env.storage.dataDir, h.metadata.uuid, s))}.recovering`;
  }

  /**
   * Fails the empty copy after its restore failed (hosted-index.ts `failCopy`): it serves nothing
   * and the node reports it failed, so its shard is red, as ES leaves a shard whose restore failed,
   * instead of serving an empty copy as if restored.
   */
  fail(err: Error): void {
    const { env, h, s } = this.c;
    if (h.shards.get(s)?.maxSeqNo === -1) failCopy(env.log, h, s, new Error(`restore from snapshot failed: ${err.message}`));
  }

  /** @throws EsError 409 `illegal_state_exception` when the copy now here holds operations */
  private checkEmpty(): void {
    const { h, s } = this.c;
    const current = h.shards.get(s);
    if (current && current.maxSeqNo !== -1)
      throw new EsError(
        409,
        'illegal_state_exception',
        `[${h.metadata.name}][${s}] cannot be restored: the copy holds operations up to seq_no [${current.maxSeqNo}]`,
      );
  }

  /**
   * Replaces the empty copy with the restored one staged in `staging` and opens it from its commit
   * point (shard-node/hosted-index.ts `recoverShardCopy`), all synchronously, so no write or
   * metadata change interleaves; the registry entry is persisted. Durable on return. `check`
   * (default: the copy is still empty) runs first; a file-based peer recovery checks instead that
   * the copy is a replica out of sync.
   * @throws EsError 409 when `check` fails, e.g. the copy took a write since the staging began (the staging is removed)
   */
  install(staging: string, check: () => void = () => this.checkEmpty()): Shard {
    const { env, h, s } = this.c;
    try {
      check();
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      throw err;
    }
    const target = dirname(shardStorePath(env.storage!.dataDir, h.metadata.uuid, s));
    dropShardCopy(env, h, s);
    renameSync(staging, target);
    fsyncDir(dirname(target));
    recoverShardCopy(env, h, s);
    this.c.persist();
    return h.shards.get(s)!;
  }
}
