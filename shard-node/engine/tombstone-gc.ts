/**
 * When a delete's tombstone may leave the live version map: ES `index.gc_deletes` (dynamic, default
 * 60 s). A tombstone keeps a deleted `_id`'s version sequence going and tells a replica that an
 * older op on that `_id`, arriving late, is stale. ES drops it once it is (1) older than
 * `gc_deletes`, (2) refreshed (no longer in the "current" maps, i.e. the searcher no longer sees the
 * deleted doc), and (3) at or below the local checkpoint, so that the stale-op check can fall back on
 * "seq_no ≤ local checkpoint means already processed" for every op the tombstone would have caught.
 * ES runs the pruning at most every `gc_deletes / 4` (`InternalEngine.maybePruneDeletes`), after
 * writes and refreshes, and on flush.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules.html#dynamic-index-settings (index.gc_deletes)
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/engine/LiveVersionMap.java (canRemoveTombstone, pruneTombstones)
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/engine/InternalEngine.java (pruneDeletedTombstones, maybePruneDeletes)
 */

/** ES's default `index.gc_deletes`: 60 s. */
export const DEFAULT_GC_DELETES_MS = 60_000;

/** How long the shard scans its live version map per call while pruning after writes and refreshes (ms); a pass goes on at the next call. */
export const PRUNE_SLICE_MS = 5;

/** ES prunes at most once per this fraction of `gc_deletes` (`maybePruneDeletes`: 0.25). */
export const PRUNE_INTERVAL_FRACTION = 0.25;

/** What a tombstone records for its collection (ES `DeleteVersionValue`: time and seq_no). */
export interface TombstoneStamp {
  seqNo: number;
  /** Epoch ms of the delete (ES `DeleteVersionValue.time`). */
  deletedAt: number;
  /** The shard's published generation when the delete was made: refreshed once a newer one exists. */
  generation: number;
}

/** The shard's state a pruning pass compares tombstones against. */
export interface PruneBounds {
  /** Tombstones made strictly before this epoch ms are old enough (now − gc_deletes). */
  maxTimestampMs: number;
  /** The local checkpoint: only tombstones at or below it may go. */
  maxSeqNo: number;
  /** The current generation id: only tombstones made under an older one are refreshed. */
  currentGeneration: number;
}

/** ES `LiveVersionMap.canRemoveTombstone`: too old, safe by seq_no, and refreshed. */
export function canPruneTombstone(t: TombstoneStamp, b: PruneBounds): boolean {
  return t.deletedAt < b.maxTimestampMs && t.seqNo <= b.maxSeqNo && t.generation < b.currentGeneration;
}

/**
 * Whether a pruning pass is due (ES `maybePruneDeletes`): more than `gcDeletesMs / 4` since the last
 * one. With `gc_deletes` ≤ 0 (ES accepts down to -1 ms) every call is due.
 */
export function pruneDue(nowMs: number, lastPruneMs: number, gcDeletesMs: number): boolean {
  return nowMs - lastPruneMs > gcDeletesMs * PRUNE_INTERVAL_FRACTION;
}
