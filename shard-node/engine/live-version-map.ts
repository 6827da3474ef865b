/**
 * The live version map of one shard copy (ES `LiveVersionMap`): for each `_id` written since the
 * last refresh, where its live copy is (the unrefreshed buffer) with its version and seq_no, and
 * for each deleted `_id`, a tombstone. A refreshed document's version lives in its segment's columns
 * (shard-state.ts `lookup`), so the map does not grow with the index; tombstones leave it after
 * `index.gc_deletes` (tombstone-gc.ts), so it does not grow with deletes either.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/engine/LiveVersionMap.java
 */
import { CLOCK_EVERY } from '../../shared/sliced-work.ts';
import type { Segment } from './segment.ts';
import type { SegmentBuilder } from './segment-builder.ts';
import { canPruneTombstone, pruneDue, type PruneBounds } from './tombstone-gc.ts';

/** Unrefreshed docs, already inverted (Lucene's in-memory segment), and which of them died before their refresh. */
export interface PendingBuffer {
  builder: SegmentBuilder;
  /** Buffer ordinals overwritten or deleted before the refresh. */
  dead: Set<number>;
}

/** Where the live copy of an `_id` is: an unrefreshed buffer (`buf`), a segment (`seg`), or nowhere (a tombstone). */
export interface DocEntry {
  version: number;
  seqNo: number;
  deleted: boolean;
  seg: Segment | null;
  /** The buffer holding the doc until its refresh (null for segment docs and tombstones). */
  buf: PendingBuffer | null;
  /** Ordinal in `seg` or `buf`; -1 for tombstones. */
  ord: number;
  /** Tombstones: epoch ms of the delete (ES `DeleteVersionValue.time`), for `index.gc_deletes`. */
  deletedAt?: number;
  /** Tombstones: the generation current when the delete was made (refreshed once a newer one is published). */
  generation?: number;
}

/** Size of the live version map (ES `LiveVersionMap`): entries in all, and how many are delete tombstones. */
export interface VersionMapStats {
  entries: number;
  tombstones: number;
}

/** What a pruning pass needs of the shard: the local checkpoint and the current generation id. */
export interface PruneState {
  localCheckpoint(): number;
  currentGeneration(): number;
}

/** The live version map with its tombstone collection. */
export class LiveVersionMap {
  /** Entries by `_id`: unrefreshed writes (`seg` null, `buf` set) and tombstones. */
  readonly entries = new Map<string, DocEntry>();
  /**
   * ES `index.gc_deletes` in ms (dynamic: the registry sets it from the index metadata): how long a
   * delete tombstone stays in the live version map at least. -1 (ES's minimum) or 0: as soon as it
   * is refreshed and below the local checkpoint.
   */
  gcDeletesMs: number;
  private readonly now: () => number;
  private readonly shard: PruneState;
  /** Epoch ms of the last tombstone pruning pass. */
  private lastPruneAt: number;
  /** The pruning pass in progress when cut in pieces ({@link LiveVersionMap.maybePrune} with `maxMs`). */
  private pruning: { entries: MapIterator<[string, DocEntry]>; bounds: PruneBounds; now: number } | null = null;

  constructor(now: () => number, gcDeletesMs: number, shard: PruneState) {
    this.now = now;
    this.gcDeletesMs = gcDeletesMs;
    this.shard = shard;
    this.lastPruneAt = now();
  }

  /** Entries and tombstones in the map (ES `LiveVersionMap` size), counted. */
  stats(): VersionMapStats {
    let tombstones = 0;
    for (const e of this.entries.values()) if (e.deleted) tombstones++;
    return { entries: this.entries.size, tombstones };
  }

  /**
   * ES `InternalEngine.maybePruneDeletes`: runs a pruning pass (shard.ts `Shard.pruneTombstones`) when
   * more than `gc_deletes / 4` passed since the last one (called after writes and refreshes, and by
   * the registry's refresh timer so that an idle shard prunes too). With `maxMs`, the pass scans the
   * live version map for about that long and goes on at the next call, due or not (a map of
   * 50,000 tombstones took 20-26 ms in one task on a loaded shard node, docs/reliability.md).
   * @returns the tombstones pruned by this call (0 when no pass was due).
   */
  maybePrune(maxMs = Infinity): number {
    if (!this.pruning) {
      if (!pruneDue(this.now(), this.lastPruneAt, this.gcDeletesMs)) return 0;
      this.startPruning();
    }
    return this.pruneFor(maxMs);
  }

  /** True while a pruning pass cut by `maybePrune(maxMs)` is not finished. */
  get pruneRunning(): boolean {
    return this.pruning !== null;
  }

  /**
   * ES `InternalEngine.pruneDeletedTombstones`: drops the delete tombstones older than
   * `index.gc_deletes`, refreshed, and at or below the local checkpoint (tombstone-gc.ts), in one
   * full pass now (a pass in progress starts over). Afterwards the shard has no record of those
   * `_id`s: a re-index starts again at version 1 and a delete answers `not_found` with version 1, as
   * ES does once its tombstone is collected.
   * @returns the tombstones pruned.
   */
  prune(): number {
    this.startPruning();
    return this.pruneFor(Infinity);
  }

  /**
   * Starts a pass with the bounds of now. A pass cut in pieces keeps them: the local checkpoint and
   * the generation only grow, so bounds taken at its start are the conservative ones.
   */
  private startPruning(): void {
    const now = this.now();
    this.lastPruneAt = now;
    const bounds: PruneBounds = {
      maxTimestampMs: now - this.gcDeletesMs,
      maxSeqNo: this.shard.localCheckpoint(),
      currentGeneration: this.shard.currentGeneration(),
    };
    this.pruning = { entries: this.entries.entries(), bounds, now };
  }

  /**
   * Goes on with the pass for about `maxMs` (a `Map` iterator stays valid while entries are deleted
   * and added: new ones are visited too, and cannot qualify under the pass's bounds).
   * @returns the tombstones pruned.
   */
  private pruneFor(maxMs: number): number {
    const pass = this.pruning!;
    const started = performance.now();
    let pruned = 0;
    for (let n = 1; ; n++) {
      const next = pass.entries.next();
      if (next.done) {
        this.pruning = null;
        return pruned;
      }
      const [id, e] = next.value;
      if (
        e.deleted &&
        canPruneTombstone({ seqNo: e.seqNo, deletedAt: e.deletedAt ?? pass.now, generation: e.generation ?? pass.bounds.currentGeneration }, pass.bounds)
      ) {
        this.entries.delete(id);
        pruned++;
      }
      if ((n & (CLOCK_EVERY - 1)) === 0 && performance.now() - started >= maxMs) return pruned;
    }
  }
}
