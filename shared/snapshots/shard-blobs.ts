/**
 * A shard's files in a snapshot repository (ES `BlobStoreRepository.snapshotShard`, `restoreShard`
 * and the shard part of `deleteSnapshots`). Snapshotting copies each file of a commit that no
 * earlier snapshot of the shard holds, identified as ES's `StoreFileMetadata.isSame` does (same
 * physical name, length and checksum), to a new blob `__<uuid>`; a file an earlier snapshot holds
 * is referenced again, so the bytes of an unchanged segment are never copied twice. The shard's
 * `snap-<uuid>.dat` lists the snapshot's files, and the shard-level `index-<N>` every snapshot's.
 * Deleting a snapshot drops the blobs no remaining snapshot references. Files are copied one at a
 * time through a bounded stream buffer (repository-files.ts).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/snapshots/blobstore/BlobStoreIndexShardSnapshots.java
 */
import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { RateLimiter } from './rate-limiter.ts';
import { copyFileDurably, fsyncDirectory, readFileIdentity, readJsonFile, removeFiles, writeJsonAtomic } from './repository-files.ts';
import { readShardSnapshots, shardSnapshotPath, writeShardSnapshots, type ShardSnapshot, type SnapshotFile } from './repository-layout.ts';

/** What snapshotting one shard wrote and references ({@link snapshotShardFiles}). */
export interface ShardSnapshotResult {
  /** Files and bytes copied by this snapshot. */
  incrementalFileCount: number;
  incrementalSize: number;
  /** Files and bytes the snapshot references (copied now or before). */
  totalFileCount: number;
  totalSize: number;
  /** ms */
  time: number;
}

/** A blob name for a new file: `__` and a url-safe uuid (ES `UUIDs.randomBase64UUID`). */
function newBlobName(): string {
  return `__${Buffer.from(randomUUID().replaceAll('-', ''), 'hex').toString('base64url')}`;
}

/**
 * Copies the files `files` (physical names in `sourceDir`) of one shard commit into the shard's
 * repository directory `dir` as snapshot `snapshot`, reusing the blobs of files an earlier snapshot
 * holds. `commit` names the commit point among them. `shouldStop` is checked between files (an
 * aborted snapshot stops early and throws).
 */
export async function snapshotShardFiles(opts: {
  dir: string;
  sourceDir: string;
  snapshot: string;
  files: readonly string[];
  commit: string;
  shouldStop?: () => string | null;
  /** Throttles the copies (`max_snapshot_bytes_per_sec`). */
  limiter?: RateLimiter;
}): Promise<ShardSnapshotResult> {
  const started = Date.now();
  const { generation, data } = await readShardSnapshots(opts.dir);
  const known = data.files;
  const out: SnapshotFile[] = [];
  let incrementalFileCount = 0;
  let incrementalSize = 0;
  for (const physical of opts.files) {
    const stop = opts.shouldStop?.();
    if (stop) throw new Error(stop);
    const source = join(opts.sourceDir, physical);
    const id = await readFileIdentity(source);
    const same = known.find((f) => f.physical_name === physical && f.length === id.length && f.checksum === id.checksum);
    if (same) {
      out.push(same);
      continue;
    }
    const name = newBlobName();
    const copied = await copyFileDurably(source, join(opts.dir, name), opts.limiter);
    if (copied !== id.length) throw new Error(`[${physical}] changed while it was copied (${copied} bytes, ${id.length} expected)`);
    out.push({ name, physical_name: physical, length: id.length, checksum: id.checksum });
    incrementalFileCount++;
    incrementalSize += id.length;
  }
  await fsyncDirectory(opts.dir);
  const time = Date.now() - started;
  const shardSnapshot: ShardSnapshot = {
    name: opts.snapshot,
    commit: opts.commit,
    files: out,
    start_time: started,
    time,
    incremental_file_count: incrementalFileCount,
    incremental_size: incrementalSize,
  };
  await writeJsonAtomic(shardSnapshotPath(opts.dir, opts.snapshot), shardSnapshot);
  const files = [...known];
  for (const f of out) if (!known.some((k) => k.name === f.name)) files.push(f);
  const snapshots = [...data.snapshots.filter((s) => s.name !== opts.snapshot), { name: opts.snapshot, files: out.map((f) => f.name) }];
  await writeShardSnapshots(opts.dir, generation, { snapshots, files });
  return {
    incrementalFileCount,
    incrementalSize,
    totalFileCount: out.length,
    totalSize: out.reduce((n, f) => n + f.length, 0),
    time,
  };
}

/** A shard's `snap-<uuid>.dat` in `dir`; undefined when the shard has no such snapshot. */
export function readShardSnapshot(dir: string, snapshot: string): Promise<ShardSnapshot | undefined> {
  return readJsonFile<ShardSnapshot>(shardSnapshotPath(dir, snapshot));
}

/**
 * Removes snapshot `snapshot` from the shard directory `dir`: its `snap-<uuid>.dat`, its entry in
 * the shard-level index, and the blobs no other snapshot references (ES's `deleteFromContainer` of
 * unreferenced blobs). @returns the blobs removed
 */
export async function deleteShardSnapshot(dir: string, snapshot: string): Promise<number> {
  const { generation, data } = await readShardSnapshots(dir);
  const snapshots = data.snapshots.filter((s) => s.name !== snapshot);
  const referenced = new Set(snapshots.flatMap((s) => s.files));
  const files = data.files.filter((f) => referenced.has(f.name));
  await writeShardSnapshots(dir, generation, { snapshots, files });
  await removeFiles(dir, [`snap-${snapshot}.dat`]);
  // Blobs no snapshot references, including those a failed snapshot left behind.
  let names: string[] = [];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return removeFiles(
    dir,
    names.filter((n) => n.startsWith('__') && !referenced.has(n)),
  );
}

/**
 * Copies the files of a shard snapshot from the repository directory `dir` into `targetDir` under
 * their physical names, checking each one's length and footer checksum against the snapshot's
 * record (ES `FileRestoreContext` verifies every restored file). @returns the bytes copied
 * @throws Error when a blob is missing or differs from its record
 */
export async function restoreShardFiles(
  dir: string,
  shardSnapshot: ShardSnapshot,
  targetDir: string,
  shouldStop?: () => string | null,
  limiter?: RateLimiter,
): Promise<number> {
  let bytes = 0;
  for (const f of shardSnapshot.files) {
    const stop = shouldStop?.();
    if (stop) throw new Error(stop);
    const target = join(targetDir, f.physical_name);
    bytes += await copyFileDurably(join(dir, f.name), target, limiter);
    const id = await readFileIdentity(target);
    if (id.length !== f.length || id.checksum !== f.checksum)
      throw new Error(
        `restored file [${f.physical_name}] does not match the snapshot: length ${id.length} checksum ${id.checksum}, expected ${f.length} ${f.checksum}`,
      );
  }
  await fsyncDirectory(targetDir);
  return bytes;
}
