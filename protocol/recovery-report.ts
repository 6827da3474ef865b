/**
 * The recovery state a shard copy reports (ES `RecoveryState`), read by `GET /_recovery` and
 * `GET /_cat/recovery` (coordinator/cluster/recovery-responses.ts) through the node stats.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoveryState.java
 */

/** The stage of a recovery (ES `RecoveryState.Stage`, lower case as the APIs print it). */
export type RecoveryStage = 'init' | 'index' | 'verify_index' | 'translog' | 'finalize' | 'done';

/** The type of a recovery (ES `RecoverySource.Type`, lower case). */
export type RecoveryType = 'empty_store' | 'existing_store' | 'peer' | 'snapshot';

/** One file of a recovery's index stage (ES `RecoveryState.FileDetail`). */
export interface RecoveryFileReport {
  name: string;
  length: number;
  recovered: number;
  reused: boolean;
}

/**
 * The latest recovery of one shard copy on a node (ES `RecoveryState`), as its node reports it in
 * its stats (protocol/metadata.ts `NodeShardStats.recovery`). Times in epoch ms (`stopTime` unset
 * while running).
 */
export interface ShardRecoveryState {
  type: RecoveryType;
  stage: RecoveryStage;
  primary: boolean;
  startTime: number;
  stopTime?: number;
  /** A peer recovery's source: the primary's node ordinal (FOLIO_NODES); the target is the reporting node. */
  source?: number;
  /** Index stage: files and bytes to recover, reused, recovered (ES `RecoveryState.Index`). */
  files: { total: number; reused: number; recovered: number };
  bytes: { total: number; reused: number; recovered: number };
  /** Per file (`?detailed`). */
  details?: RecoveryFileReport[];
  /** ms spent in the index stage, and the time it was throttled (ES `total_time`, `source_throttle_time`). */
  indexTimeMs: number;
  throttleTimeMs: number;
  /** Translog stage: ops replayed and expected (-1: unknown; ES `RecoveryState.Translog`). */
  translog: { recovered: number; total: number };
  translogTimeMs: number;
  /** verify_index stage (ES `RecoveryState.VerifyIndex`). */
  verifyTimeMs: number;
}
