/**
 * Peer recovery of a shard copy from its primary, driven by the coordinator (coordinator/recovery.ts).
 * Part of the internal shard-node protocol; shared/protocol.ts re-exports every piece.
 */
import type { ShardEcho } from './echo.ts';
import type { IndexMetadata } from './metadata.ts';
import type { ReplicaOp } from './write.ts';

/** Shard calls of a peer recovery name the index, the shard and the target copy's node ordinal. */
export interface RecoveryShardRequest {
  index: string;
  shard: number;
}

/** Reply of POST /_internal/v1/recovery/state (on the target): how far its copy is. */
export interface RecoveryStateResponse extends ShardEcho {
  /** ES local checkpoint: every op up to it is applied here (-1: none known). */
  checkpoint: number;
  maxSeqNo: number;
  /** This instance of the copy; a reset or a restart changes it. */
  copyId: string;
}

/**
 * POST /_internal/v1/recovery/start (on the primary): track `target` in the replication group from
 * now on (live writes reach it), and answer what it misses: the ops above `fromSeqNo` when the
 * primary's translog still has them all (unless `full`), else a full copy of the primary's
 * documents and tombstones, with their version and seq_no (ES `RecoverySourceHandler` phase 1 and 2).
 */
export interface RecoveryStartRequest extends RecoveryShardRequest {
  target: number;
  fromSeqNo: number;
  full?: boolean;
  primaryTerm: number;
}

/** Reply to {@link RecoveryStartRequest}. */
export interface RecoveryStartResponse extends ShardEcho {
  mode: 'ops' | 'full';
  /** Each op with its `source` (ops mode: seq_no order; full mode: every `_id`'s latest state). */
  ops: ReplicaOp[];
  /** The primary's max seq_no when the ops were taken: the target holds everything up to it once they are applied. */
  upTo: number;
}

/** POST /_internal/v1/recovery/apply (on the target): apply recovery ops idempotently; with `upTo`, the last chunk. */
export interface RecoveryApplyRequest extends RecoveryShardRequest {
  ops: ReplicaOp[];
  upTo?: number;
  primaryTerm: number;
  /** The copy instance the recovery started on ({@link RecoveryStateResponse.copyId}); another one answers 409. */
  copyId: string;
  /**
   * Set on every chunk of a `full` mode recovery (one id per recovery): on the last chunk the target
   * drops the documents at or below `upTo` that the primary did not send (deleted there, their
   * tombstones possibly collected after `index.gc_deletes`), as ES's file copy replaces them.
   */
  fullRecoveryId?: string;
}

/** POST /_internal/v1/recovery/finalize (on the primary): put `target` in sync in the primary's metadata. */
export interface RecoveryFinalizeRequest extends RecoveryShardRequest {
  target: number;
  primaryTerm: number;
}

/** Reply to {@link RecoveryFinalizeRequest}: the primary's metadata and its max seq_no at that moment. */
export interface RecoveryFinalizeResponse {
  node: string;
  metadata: IndexMetadata;
  maxSeqNo: number;
}
