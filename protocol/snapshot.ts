/**
 * The shard-node actions of snapshots (protocol/rpc.ts `snapshotShard`, `restoreShard`): the
 * coordinator asks each shard's primary to copy its commit's files into a repository, or to
 * restore a shard snapshot into its empty copy (ES `SnapshotShardsService` and the restore a data
 * node runs in `StoreRecovery`). Repository paths travel absolute; the node checks them against
 * its own `path.repo` (FOLIO_PATH_REPO), as every ES node checks a repository's location.
 * @see docs/snapshots.md
 */

/** Copy one shard's commit into the repository as snapshot `snapshot` (its uuid). */
export interface SnapshotShardRequest {
  index: string;
  shard: number;
  /** The repository's absolute directory. */
  location: string;
  /** The repository's id of the index (`indices/<id>/`). */
  indexId: string;
  /** The snapshot's uuid. */
  snapshot: string;
  /** The repository's `max_snapshot_bytes_per_sec` in bytes (0 or absent: unlimited), shared by the node's copies to it. */
  maxBytesPerSec?: number;
}

/** What the shard's snapshot wrote and references (bytes and files). */
export interface SnapshotShardResponse {
  node: string;
  index: string;
  shard: number;
  incrementalFileCount: number;
  incrementalSize: number;
  totalFileCount: number;
  totalSize: number;
  /** ms */
  startTime: number;
  /** ms */
  time: number;
}

/** Restore shard `shard` of `index` (a new, empty primary here) from the shard snapshot of `indexId` in `snapshot`. */
export interface RestoreShardRequest {
  index: string;
  shard: number;
  location: string;
  indexId: string;
  snapshot: string;
  /** The repository's `max_restore_bytes_per_sec` in bytes (0 or absent: unlimited). */
  maxBytesPerSec?: number;
}

/** What the restore copied and opened. */
export interface RestoreShardResponse {
  node: string;
  index: string;
  shard: number;
  files: number;
  bytes: number;
  /** Rows written to the copy's SQLite snapshot (live docs and delete tombstones). */
  docs: number;
  maxSeqNo: number;
  /** ms */
  time: number;
}

/**
 * Check that this node reaches repository `location` (ES `BlobStoreRepository.verify` on each
 * node): the location is under its `path.repo`, it reads the coordinator's `tests-<seed>/master.dat`
 * there, and writes `tests-<seed>/data-<node>.dat` beside it.
 */
export interface VerifyRepositoryRequest {
  location: string;
  seed: string;
}

/** The node that verified the repository. */
export interface VerifyRepositoryResponse {
  node: string;
}
