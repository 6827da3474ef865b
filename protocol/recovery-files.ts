/**
 * Phase 1 of a file-based peer recovery (ES `RecoverySourceHandler.phase1`, `RecoveryTarget`'s
 * file chunks and `cleanFiles`), driven by the coordinator (coordinator/cluster/file-recovery.ts),
 * and the recovery state a copy reports for `GET /_recovery` and `GET /_cat/recovery`
 * (protocol/recovery-report.ts). Part of the internal shard-node protocol (docs/recovery.md).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoverySourceHandler.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoveryState.java
 */
import type { ShardEcho } from './echo.ts';
import type { RecoveryIdentity, RecoveryShardRequest } from './recovery.ts';

/** One file of a pinned commit (ES `StoreFileMetadata`): name, length in bytes, footer CRC32 in base 36. */
export interface RecoveryFileMetadata {
  name: string;
  length: number;
  checksum: string;
}

/**
 * POST /_internal/v1/recovery/files/start (on the primary): refresh, flush, pin the last commit's
 * files and keep the translog's ops above the commit's `seqNo` (a retention hold) until the
 * recovery ends, is cancelled (`recovery/cancel` with the id) or stays idle too long.
 */
export interface RecoveryFilesStartRequest extends RecoveryShardRequest {
  target: number;
  primaryTerm: number;
}

/** Reply to {@link RecoveryFilesStartRequest}. */
export interface RecoveryFilesStartResponse extends ShardEcho {
  recoveryId: string;
  /** The commit point's file name (`segments_<N>`), also last in {@link files}. */
  commit: string;
  files: RecoveryFileMetadata[];
  /** The commit's checkpoint: every op at or below it is in its files; phase 2 replays the ops above it. */
  seqNo: number;
  maxSeqNo: number;
  /** The primary's global checkpoint when the commit was pinned. */
  globalCheckpoint: number;
}

/**
 * POST /_internal/v1/recovery/files/chunk (on the primary): `length` bytes (at most
 * {@link MAX_FILE_CHUNK_BYTES}) of a pinned file from `offset`, as a raw body, read through the
 * node's recovery throttle (`maxBytesPerSec`, ES `indices.recovery.max_bytes_per_sec`; 0: none).
 */
export interface RecoveryFileChunkRequest extends RecoveryShardRequest {
  recoveryId: string;
  primaryTerm: number;
  file: string;
  offset: number;
  length: number;
  maxBytesPerSec?: number;
}

/** Reply header of a file chunk: the ms the primary's throttle held it (ES `source_throttle_time`). */
export const RECOVERY_THROTTLED_MS_HEADER = 'x-folio-recovery-throttled-ms';

/** Largest file chunk a caller may ask for (bytes). */
export const MAX_FILE_CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * POST /_internal/v1/recovery/files/plan (on the target): the primary's files. The target keeps
 * the ones its staging directory already holds whole with the same name, length and checksum
 * (ES "reused" files: an interrupted recovery resumes with them), removes the rest, and starts
 * its recovery state (type `peer`, stage `index`).
 */
export interface RecoveryFilesPlanRequest extends RecoveryShardRequest {
  primaryTerm: number;
  files: RecoveryFileMetadata[];
  /** The recovery's id and ends (the recovery state's source and target). */
  recovery: RecoveryIdentity;
}

/** Reply to {@link RecoveryFilesPlanRequest}: the files not to send. */
export interface RecoveryFilesPlanResponse extends ShardEcho {
  reused: string[];
}

/**
 * POST /_internal/v1/recovery/files/write?meta=<this, as JSON> (on the target), with a chunk of
 * `file` from `offset` as the raw body; on the `last` chunk the file is fsynced and verified
 * (length and CRC32 against the plan's) before it takes its name.
 */
export interface RecoveryFileWriteRequest extends RecoveryShardRequest {
  primaryTerm: number;
  file: string;
  offset: number;
  last: boolean;
  /** The ms the primary's throttle held this chunk (the recovery state's `source_throttle_time`). */
  throttledMs?: number;
}

/** Reply to {@link RecoveryFileWriteRequest}. */
export interface RecoveryFileWriteResponse extends ShardEcho {
  /** Bytes of the file received so far. */
  received: number;
}

/**
 * POST /_internal/v1/recovery/files/finish (on the target): stage `verify_index`: every planned
 * file is there and whole, the commit point and segments load with their checksums, the copy's
 * store is filled from them, then the copy is replaced by the staged one and opened from its
 * commit point (stage `translog`). Answers the new copy's state.
 */
export interface RecoveryFilesFinishRequest extends RecoveryShardRequest {
  primaryTerm: number;
  commit: string;
  /** The primary's global checkpoint when the commit was pinned (recorded with the copy). */
  globalCheckpoint: number;
}

/** POST /_internal/v1/recovery/done (on the target): the recovery finished (`failure` unset) or failed. */
export interface RecoveryDoneRequest extends RecoveryShardRequest {
  failure?: string;
}
