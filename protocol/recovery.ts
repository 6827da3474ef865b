/**
 * Peer recovery of a shard copy from its primary, driven by the coordinator (coordinator/cluster/recovery.ts).
 * Part of the internal shard-node protocol (docs/architecture.md lists its modules).
 */
import type { ShardEcho } from './echo.ts';
import type { IndexMetadata } from './metadata.ts';

/** Shard calls of a peer recovery name the index, the shard and the target copy's node ordinal. */
export interface RecoveryShardRequest {
  index: string;
  shard: number;
  /**
   * `state` and `reset`: the recovering primary's term. The copy first refuses ops of older terms
   * (IndexRegistry.raiseOperationTerm) and, for `state`, waits for the replica writes it admitted
   * before, so that what it reports cannot change under a demoted primary's writes.
   */
  primaryTerm?: number;
}

/** Reply of POST /_internal/v1/recovery/state (on the target): how far its copy is. */
export interface RecoveryStateResponse extends ShardEcho {
  /** ES local checkpoint: every op up to it is applied here (-1: none known). */
  checkpoint: number;
  maxSeqNo: number;
  /** This instance of the copy; a reset or a restart changes it. */
  copyId: string;
  /** ES global checkpoint as the copy knows it (-1: none known; absent from an older node). */
  globalCheckpoint?: number;
  /**
   * Every op the copy holds is at or below its local and global checkpoints (Shard.heldWithinGlobalCheckpoint):
   * after a promotion it needs no emptying, only the new primary's ops above its local checkpoint.
   */
  withinGlobalCheckpoint?: boolean;
}

/**
 * POST /_internal/v1/recovery/start (on the primary): track `target` in the replication group from
 * now on (live writes reach it), and pin what it misses (ES `RecoverySourceHandler`): the ops above
 * `fromSeqNo` when the primary's translog still has them all (unless `full`), held there by a
 * retention hold, else a point-in-time snapshot of the primary's documents and tombstones (ES pins
 * a safe commit). The coordinator then reads the pin in chunks ({@link RecoveryChunkRequest}).
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
  /** Names the pinned snapshot in {@link RecoveryChunkRequest} and {@link RecoveryCancelRequest}. */
  recoveryId: string;
  /** The primary's max seq_no when the snapshot was pinned: the target holds everything up to it once every chunk is applied. */
  upTo: number;
}

/**
 * POST /_internal/v1/recovery/chunk (on the primary): the next ops of a pinned recovery, at most
 * `maxBytes` encoded (at least one op) and `maxOps`, as an `application/x-folio-recovery-ops` body
 * (shard-node/recovery-wire.ts); {@link RECOVERY_CHUNK_OPS_HEADER} counts them and
 * {@link RECOVERY_CHUNK_DONE_HEADER} is `true` on the last chunk, which releases the pin. 404 once
 * the pin was released (finished, cancelled, or idle too long).
 */
export interface RecoveryChunkRequest extends RecoveryShardRequest {
  recoveryId: string;
  primaryTerm: number;
  maxBytes: number;
  maxOps: number;
}

/** Reply header of a recovery chunk: how many ops its body holds. */
export const RECOVERY_CHUNK_OPS_HEADER = 'x-folio-recovery-ops';
/** Reply header of a recovery chunk: `true` on the last one. */
export const RECOVERY_CHUNK_DONE_HEADER = 'x-folio-recovery-done';

/** POST /_internal/v1/recovery/cancel (on the primary): release a pinned recovery (a failed one); idempotent. */
export interface RecoveryCancelRequest extends RecoveryShardRequest {
  recoveryId: string;
}

/** Reply to {@link RecoveryCancelRequest}. */
export interface RecoveryCancelResponse extends ShardEcho {
  acknowledged: true;
}

/**
 * POST /_internal/v1/recovery/apply?meta=<this, as JSON> (on the target), with a chunk's
 * `application/x-folio-recovery-ops` body as the primary wrote it: apply the ops idempotently; with
 * `upTo`, the last chunk.
 */
export interface RecoveryApplyRequest extends RecoveryShardRequest {
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
  /** The recovery this chunk belongs to, for the target's recovery state (protocol/recovery-report.ts). */
  recovery?: RecoveryIdentity;
}

/**
 * One peer recovery as the coordinator names it to the target: its id (one for both phases of a
 * file-based recovery), where it comes from, and the ops it expects to replay.
 */
export interface RecoveryIdentity {
  id: string;
  /** The primary's node ordinal (FOLIO_NODES). */
  source: number;
  /** Ops the translog stage expects (ES `total_on_start`; -1: unknown). */
  opsTotal: number;
}

/** Reply to {@link RecoveryApplyRequest}. */
export interface RecoveryApplyResponse extends ShardEcho {
  /** Ops applied (the others were there already or superseded). */
  applied: number;
  /** The target's local checkpoint afterwards. */
  checkpoint: number;
}

/** POST /_internal/v1/recovery/finalize (on the primary): put `target` in sync in the primary's metadata. */
export interface RecoveryFinalizeRequest extends RecoveryShardRequest {
  target: number;
  primaryTerm: number;
  /** The target copy's failure count (ShardCopy.failures) in the cluster state when its recovery started. */
  failures?: number;
}

/** Reply to {@link RecoveryFinalizeRequest}: the primary's metadata and its max seq_no at that moment. */
export interface RecoveryFinalizeResponse {
  node: string;
  metadata: IndexMetadata;
  maxSeqNo: number;
}
