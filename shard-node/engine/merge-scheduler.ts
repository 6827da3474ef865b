/**
 * Background merges of one shard copy (Lucene's `ConcurrentMergeScheduler` with one thread): when
 * the merge policy (segment-merge.ts `selectMerge`) picks segments and no merge runs, they are
 * merged in event-loop slices while searches read the published generations, which do not change;
 * the result is then swapped in with the deletes made meanwhile carried over
 * (Lucene's `IndexWriter.commitMergedDeletes`), and another merge starts if the policy still picks one.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/index/ConcurrentMergeScheduler.html
 */
import { runSliced } from '../../shared/sliced-work.ts';
import { mergeSteps, selectMerge, type MergedSegment, type SegmentView } from './segment-merge.ts';
import type { SegState, ShardState } from './shard-state.ts';

/** Runs a shard's background merges, one at a time. */
export class MergeScheduler {
  private readonly s: ShardState;
  private readonly sliceMs: number;
  /** The background merge running, if any (one at a time per shard). */
  private merging: Promise<void> | null = null;
  /** The last background merge failure (the merge is dropped; the segments stay as they were). */
  lastError: unknown = null;
  /** Told of each background merge failure (a merge input that fails its checksum fails the copy: shard-node/corrupt-copies.ts). */
  private readonly onError: ((err: unknown) => void) | undefined;

  constructor(state: ShardState, sliceMs: number, onError?: (err: unknown) => void) {
    this.s = state;
    this.sliceMs = sliceMs;
    this.onError = onError;
  }

  /** True while a background merge runs. */
  get running(): boolean {
    return this.merging !== null;
  }

  /** Resolves once no background merge is running. */
  async idle(): Promise<void> {
    while (this.merging) await this.merging;
  }

  /**
   * Starts a background merge when the merge policy picks one and none is running: the picked
   * segments, as the generation just published holds them, are merged in event-loop slices
   * (segment-merge.ts `mergeSteps`). {@link MergeScheduler.commit} then swaps the result in, and
   * another merge starts if the policy still picks one.
   */
  maybeMerge(): void {
    const s = this.s;
    if (this.merging) return;
    const pick = selectMerge(s.segs.map((st) => s.view(st)));
    if (pick.length < 2) return;
    const chosen = pick.map((i) => s.segs[i]);
    // Live docs marked shared: a delete during the merge copies them, so the merge's stay as they are.
    for (const st of chosen) st.shared = true;
    const views = chosen.map((st) => s.view(st));
    this.merging = runSliced((clock) => mergeSteps(views, clock), this.sliceMs).then(
      (merged) => {
        this.merging = null;
        this.commit(chosen, views, merged);
        this.maybeMerge();
      },
      (err: unknown) => {
        this.merging = null;
        this.lastError = err;
        this.onError?.(err);
      },
    );
  }

  /**
   * Swaps a finished background merge in (synchronously, between two writes): dropped when one of
   * its segments is gone meanwhile (fully deleted, or the copy was recovered), else the documents
   * deleted or updated since the merge started are deleted in the merged segment too (Lucene's
   * `IndexWriter.commitMergedDeletes`), so no document is lost or comes back. Published at once
   * when nothing is pending (a new generation with the same documents), else by the next refresh,
   * so a search never sees a write before its refresh.
   */
  private commit(chosen: readonly SegState[], views: readonly SegmentView[], merged: MergedSegment): void {
    const s = this.s;
    if (chosen.some((st) => !s.segs.includes(st))) return;
    const n = merged.segment.maxDoc;
    let live: Uint8Array | null = null;
    let liveCount = n;
    for (const [k, st] of chosen.entries()) {
      if (st.live === views[k].live) continue; // no delete since the merge started
      const now = st.live!;
      const map = merged.ordMaps[k];
      for (let d = 0; d < map.length; d++) {
        const nd = map[d];
        if (nd < 0 || now[d]) continue;
        live ??= new Uint8Array(n).fill(1);
        live[nd] = 0;
        liveCount--;
      }
    }
    // Not published while writes are pending (they would show before their refresh) or a refresh
    // runs (it publishes the segments as they were when it started): the next refresh publishes it.
    const pendingBefore = s.dirty || s.sealing;
    s.replaceMerged(chosen, { segment: merged.segment, live, shared: false, liveCount });
    s.segs = s.segs.filter((st) => st.liveCount > 0);
    if (pendingBefore) s.dirty = true;
    else
      s.publish(
        s.segs.map((st) => s.view(st)),
        s.seqNo,
      );
  }
}
