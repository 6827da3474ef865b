/**
 * The layout of a shared filesystem snapshot repository (docs/snapshots.md), modelled on ES's
 * `BlobStoreRepository`: a root `index-<N>` (the repository data: every snapshot and which index
 * ids it holds), written atomically with a new N each change and named by `index.latest`; one
 * `snap-<uuid>.dat` per snapshot (its info); per index id the index metadata of each snapshot
 * (`indices/<index id>/meta-<uuid>.dat`); per shard the segment files as content-addressed blobs
 * (`__<uuid>`, shared by every snapshot whose commit holds the same file: same name, length and
 * checksum, as ES's `BlobStoreIndexShardSnapshots` finds them), one `snap-<uuid>.dat` per snapshot
 * (its file list) and a shard-level `index-<N>` listing every snapshot's files.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/repositories/blobstore/BlobStoreRepository.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/repositories/RepositoryData.java
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { EsError } from '../../protocol/errors.ts';
import { readJsonFile, removeFiles, writeFileAtomic, writeNewFileAtomic } from './repository-files.ts';

/** ES `SnapshotState` of a finished snapshot. */
export type SnapshotState = 'SUCCESS' | 'PARTIAL' | 'FAILED';

/** A shard that failed to snapshot (ES `SnapshotShardFailure`). */
export interface ShardFailure {
  index: string;
  index_uuid: string;
  shard_id: number;
  reason: string;
  node_id?: string;
  status: string;
}

/** One snapshot as `snap-<uuid>.dat` stores it (ES `SnapshotInfo`; times in epoch ms). */
export interface SnapshotInfo {
  snapshot: string;
  uuid: string;
  /** The index names of the snapshot, in the order taken. */
  indices: string[];
  state: SnapshotState;
  include_global_state: boolean;
  metadata?: Record<string, unknown>;
  start_time_in_millis: number;
  end_time_in_millis: number;
  shards: { total: number; failed: number; successful: number };
  failures: ShardFailure[];
  /** The repository's index id of each index (`indices/<id>/`). */
  index_ids: Record<string, string>;
  /** Each index's shard count (the shard directories to read). */
  index_shards: Record<string, number>;
  /** Bytes and files each shard copied and referenced (the `_status` totals). */
  stats: SnapshotStats;
}

/** File and byte counts of a snapshot (ES `SnapshotStats`): `incremental` is what it wrote, `total` what it references. */
export interface SnapshotStats {
  incremental: { file_count: number; size_in_bytes: number };
  total: { file_count: number; size_in_bytes: number };
}

/** A snapshot's entry in the root repository data (ES `RepositoryData.SnapshotDetails`). */
export interface SnapshotEntry {
  name: string;
  uuid: string;
  state: SnapshotState;
  start_time_in_millis: number;
  end_time_in_millis: number;
}

/** The root `index-<N>` (ES `RepositoryData`): the snapshots, and each index name's id and the snapshots holding it. */
export interface RepositoryData {
  snapshots: SnapshotEntry[];
  indices: Record<string, { id: string; snapshots: string[] }>;
}

/** One file of a shard snapshot (ES `BlobStoreIndexShardSnapshot.FileInfo`). */
export interface SnapshotFile {
  /** The blob in the shard's directory (`__<uuid>`). */
  name: string;
  /** The file's name in the shard copy (`_3.fseg`, `segments_4`). */
  physical_name: string;
  length: number;
  checksum: string;
}

/** A shard's `snap-<uuid>.dat` (ES `BlobStoreIndexShardSnapshot`). */
export interface ShardSnapshot {
  name: string;
  /** The commit point among {@link files} (its physical name). */
  commit: string;
  files: SnapshotFile[];
  start_time: number;
  /** ms */
  time: number;
  incremental_file_count: number;
  incremental_size: number;
}

/** A shard-level `index-<N>` (ES `BlobStoreIndexShardSnapshots`): every snapshot's blobs and each blob's identity. */
export interface ShardSnapshots {
  snapshots: { name: string; files: string[] }[];
  files: SnapshotFile[];
}

/** The empty repository data of a new repository (generation -1: no `index-<N>` yet). */
export function emptyRepositoryData(): RepositoryData {
  return { snapshots: [], indices: {} };
}

/** `<location>/snap-<uuid>.dat` */
export function snapshotInfoPath(location: string, uuid: string): string {
  return join(location, `snap-${uuid}.dat`);
}

/** `<location>/indices/<index id>` */
export function indexDir(location: string, indexId: string): string {
  return join(location, 'indices', indexId);
}

/** `<location>/indices/<index id>/meta-<uuid>.dat`: the index metadata in snapshot `uuid`. */
export function indexMetadataPath(location: string, indexId: string, uuid: string): string {
  return join(indexDir(location, indexId), `meta-${uuid}.dat`);
}

/** `<location>/indices/<index id>/<shard>` */
export function shardDir(location: string, indexId: string, shard: number): string {
  return join(indexDir(location, indexId), String(shard));
}

/** `<shard dir>/snap-<uuid>.dat` */
export function shardSnapshotPath(dir: string, uuid: string): string {
  return join(dir, `snap-${uuid}.dat`);
}

const ROOT_INDEX = /^index-(\d+)$/;

/** The highest `index-<N>` in `dir` (-1: none), the generation a reader trusts (ES lists the root blobs too, beside `index.latest`). */
export async function latestGeneration(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return -1;
    throw err;
  }
  let n = -1;
  for (const name of names) {
    const m = ROOT_INDEX.exec(name);
    if (m) n = Math.max(n, Number(m[1]));
  }
  return n;
}

/** The repository data at `location` and its generation (-1 and empty for a new repository). */
export async function readRepositoryData(location: string): Promise<{ generation: number; data: RepositoryData }> {
  const generation = await latestGeneration(location);
  if (generation < 0) return { generation, data: emptyRepositoryData() };
  const data = await readJsonFile<RepositoryData>(join(location, `index-${generation}`));
  return { generation, data: data ?? emptyRepositoryData() };
}

/**
 * ES's error when the repository's generation moved under a writer (another coordinator wrote it).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/repositories/blobstore/BlobStoreRepository.java (writeIndexGen)
 */
function concurrentModification(dir: string, expected: number, actual: number): EsError {
  return new EsError(
    500,
    'repository_exception',
    `[${dir}] concurrent modification of the index-N file, expected current generation [${expected}], actual current generation [${actual}]`,
  );
}

/** Writes `data` as `index-<generation + 1>` unless another writer did. @throws EsError 500 `repository_exception` then */
async function writeNextGeneration(dir: string, generation: number, data: unknown): Promise<number> {
  const next = generation + 1;
  if (!(await writeNewFileAtomic(join(dir, `index-${next}`), JSON.stringify(data)))) throw concurrentModification(dir, generation, await latestGeneration(dir));
  return next;
}

/**
 * Writes `data` as `index-<generation + 1>` atomically (refused when another writer wrote that
 * generation first), then `index.latest`, then removes the older `index-<N>` (ES
 * `BlobStoreRepository.writeIndexGen`). @returns the new generation
 * @throws EsError 500 `repository_exception` `concurrent modification of the index-N file, ...`
 */
export async function writeRepositoryData(location: string, generation: number, data: RepositoryData): Promise<number> {
  const next = await writeNextGeneration(location, generation, data);
  await writeFileAtomic(join(location, 'index.latest'), String(next));
  const older: string[] = [];
  for (let g = Math.max(0, next - 3); g < next; g++) older.push(`index-${g}`);
  await removeFiles(location, older);
  return next;
}

/** The shard-level `index-<N>` of `dir` and its generation (-1 and empty: no snapshot of the shard yet). */
export async function readShardSnapshots(dir: string): Promise<{ generation: number; data: ShardSnapshots }> {
  const generation = await latestGeneration(dir);
  if (generation < 0) return { generation, data: { snapshots: [], files: [] } };
  const data = await readJsonFile<ShardSnapshots>(join(dir, `index-${generation}`));
  return { generation, data: data ?? { snapshots: [], files: [] } };
}

/** Writes the shard-level `index-<generation + 1>` atomically (as {@link writeRepositoryData}) and removes the older ones. */
export async function writeShardSnapshots(dir: string, generation: number, data: ShardSnapshots): Promise<number> {
  const next = await writeNextGeneration(dir, generation, data);
  const older: string[] = [];
  for (let g = Math.max(0, next - 3); g < next; g++) older.push(`index-${g}`);
  await removeFiles(dir, older);
  return next;
}

/** The index metadata a snapshot holds for one index (settings, mappings, aliases; the copies are the cluster's, not kept). */
export type SnapshotIndexMetadata = Pick<
  IndexMetadata,
  'name' | 'uuid' | 'numberOfShards' | 'numberOfReplicas' | 'routingNumShards' | 'settings' | 'mappings' | 'aliases' | 'state'
>;
