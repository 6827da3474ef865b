/**
 * Recovery of one shard copy, both ends (shard.ts documents each entry point): on a primary, what a
 * peer recovery reads (the ops above a target's checkpoint while the translog holds them, else a
 * pinned snapshot of every `_id`'s latest state: ES ops-based and file-based recovery); on a
 * target, the recovery's ops applied chunk by chunk and its end (documents a full copy did not
 * send are dropped, the local checkpoint fast-forwards); at start-up, the replay of the store's
 * ops; on promotion, the seq_no gaps filled.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules-translog.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoverySourceHandler.java
 */
import { FullSnapshot, OpsSnapshot, type PinnedSegment, type RecoverySnapshot } from './recovery-snapshot.ts';
import { openCommit, type ShardCommit } from './shard-commit.ts';
import type { ShardState } from './shard-state.ts';
import type { WritePath } from './shard-writes.ts';
import type { TranslogOp } from './translog.ts';

/** A shard's recovery, both as source and as target. */
export class ShardRecovery {
  private readonly s: ShardState;
  private readonly writes: WritePath;
  /** The `_id`s a running file-based (full) peer recovery has sent this copy (shard.ts `applyRecovery`). */
  private fullRecovery: { id: string; seen: Set<string> | null } | null = null;

  constructor(state: ShardState, writes: WritePath) {
    this.s = state;
    this.writes = writes;
  }

  /**
   * A peer recovery's ops on the target (ES `RecoveryTarget.indexTranslogOperations`), one chunk of
   * a paged copy: applied in event-loop slices as shard.ts `Shard.applyReplicatedSliced` does
   * (idempotent by seq_no). Their seq_nos are not marked processed one by one (a full copy's
   * seq_nos have gaps where the primary's overwritten versions were, which would sit in the
   * checkpoint tracker until the end): with `upTo` (the last chunk) the copy holds every op up to
   * it (the primary's state when the recovery pinned its snapshot), so the local checkpoint
   * fast-forwards there.
   *
   * A file-based recovery (`fullRecoveryId`, the same on every chunk of one recovery) sends the
   * primary's whole state up to `upTo`. ES replaces the target's files with the primary's; here the
   * ops are merged into the copy, so on the last chunk every document of the copy with a seq_no at
   * or below `upTo` that the primary did not send is dropped: the primary deleted it, and its
   * tombstone may have been pruned since (`index.gc_deletes`), so nothing else would remove it.
   * Documents written above `upTo` (live writes that reached the copy during the recovery) stay.
   * The `_id`s sent are remembered for that only when the copy held documents at or below `upTo`
   * when the first chunk came (an emptied or new copy has nothing to drop).
   * @returns the ops applied (not skipped).
   */
  async applySliced(ops: readonly TranslogOp[], upTo: number | undefined, fullRecoveryId: string | undefined, sliceMs: number): Promise<TranslogOp[]> {
    this.noteSent(ops, upTo, fullRecoveryId);
    const fresh = await this.writes.applyReplicatedSliced(ops, sliceMs, false);
    if (upTo !== undefined) this.finish(upTo, fullRecoveryId);
    return fresh;
  }

  /** {@link ShardRecovery.applySliced} in one synchronous step (tests). @returns the ops applied */
  apply(ops: readonly TranslogOp[], upTo?: number, fullRecoveryId?: string): TranslogOp[] {
    this.noteSent(ops, upTo, fullRecoveryId);
    const fresh: TranslogOp[] = [];
    this.writes.applyReplicatedSlice(ops, 0, Infinity, fresh, false);
    if (upTo !== undefined) this.finish(upTo, fullRecoveryId);
    return fresh;
  }

  /**
   * A full recovery's chunk: remembers the `_id`s sent, when the copy held documents at or below
   * `upTo` when the first chunk came (an emptied or new copy has nothing to drop at the end).
   */
  private noteSent(ops: readonly TranslogOp[], upTo: number | undefined, fullRecoveryId: string | undefined): void {
    if (fullRecoveryId === undefined) return;
    if (this.fullRecovery?.id !== fullRecoveryId)
      this.fullRecovery = { id: fullRecoveryId, seen: this.holdsDocsAtOrBelow(upTo ?? Infinity) ? new Set() : null };
    const seen = this.fullRecovery.seen;
    if (seen) for (const op of ops) seen.add(op._id);
  }

  /** The last chunk of a recovery: drops what a full copy did not send, and fast-forwards the checkpoint to `upTo`. */
  private finish(upTo: number, fullRecoveryId: string | undefined): void {
    const s = this.s;
    if (fullRecoveryId !== undefined && this.fullRecovery?.id === fullRecoveryId && this.fullRecovery.seen) this.dropUnsent(this.fullRecovery.seen, upTo);
    this.fullRecovery = null;
    s.checkpoints.fastForward(upTo);
    if (upTo > s.seqNo) s.seqNo = upTo;
    s.onCheckpointsMoved?.();
  }

  /** True when this copy holds a document or tombstone with seq_no ≤ `seqNo` (segments are checked by existence only). */
  private holdsDocsAtOrBelow(seqNo: number): boolean {
    if (this.s.segs.length > 0) return true;
    for (const e of this.s.versions.entries.values()) if (e.seqNo <= seqNo) return true;
    return false;
  }

  /** Removes the live documents with seq_no ≤ `upTo` whose `_id` is not in `sent` (end of a full recovery). */
  private dropUnsent(sent: ReadonlySet<string>, upTo: number): void {
    const s = this.s;
    const entries = s.versions.entries;
    for (const [id, e] of entries) {
      if (!e.deleted && e.seqNo <= upTo && !sent.has(id)) {
        s.removeLive(e);
        entries.delete(id);
      }
    }
    for (const st of s.segs) {
      const seg = st.segment;
      for (let ord = 0; ord < seg.maxDoc; ord++) {
        if (st.live && !st.live[ord]) continue;
        const id = seg.ids.get(ord);
        if (entries.has(id) || sent.has(id) || seg.seqNos[ord] > upTo) continue;
        s.removeLive({ version: seg.versions[ord], seqNo: seg.seqNos[ord], deleted: false, seg, buf: null, ord });
      }
    }
  }

  /**
   * ES `IndexShard` on promotion (`fillSeqNoGaps`): a copy promoted to primary with gaps below its
   * max seq_no (ops of the old primary it never received) counts them as processed no-ops, so its
   * local checkpoint reaches its max seq_no and the checkpoint tracker does not keep every later
   * write's seq_no above a gap that can no longer close.
   * @returns the seq_nos filled (0 when there was no gap).
   */
  fillSeqNoGaps(): number {
    const s = this.s;
    const gap = s.seqNo - s.checkpoints.checkpoint;
    if (gap <= 0) return 0;
    const pendingBefore = s.checkpoints.pending;
    s.checkpoints.fastForward(s.seqNo);
    return gap - pendingBefore;
  }

  /**
   * Start-up recovery from this copy's durable store: shard.ts `Shard.restore`s its ops (flush
   * snapshot, then translog) and rebuilds the local checkpoint as ES does from a commit's
   * `local_checkpoint` and the translog replayed above it: `checkpoint` (what the store recorded at
   * its last flush; every op at or below it is in the store), then every replayed op is processed;
   * `globalCheckpoint`: the one the store recorded with it. With a `commit` (segment files read
   * back, shard-commit.ts `openCommit`), `ops` are the translog above its seq_no, and the local
   * checkpoint starts at least there (every op at or below it is in the commit).
   * @returns the ops applied (with a commit, each of its live docs and tombstones counts as one, as the snapshot's rows did).
   */
  fromStore(ops: Iterable<TranslogOp>, checkpoint: number, globalCheckpoint: number, commit?: ShardCommit): number {
    const s = this.s;
    const restored = commit ? openCommit(s, commit) : 0;
    s.checkpoints.fastForward(commit ? Math.max(checkpoint, commit.seqNo) : checkpoint);
    s.globalCp = Math.max(s.globalCp, globalCheckpoint); // read from the store: nothing to record again
    const checkpoints = s.checkpoints;
    function* marked(): Generator<TranslogOp> {
      for (const op of ops) {
        checkpoints.markProcessed(op.seqNo);
        yield op;
      }
    }
    return restored + this.writes.restore(marked());
  }

  /** The ops above `fromSeqNo` while the translog holds them all, else null (shard.ts `Shard.opsSince`). */
  opsSince(fromSeqNo: number): TranslogOp[] | null {
    if (fromSeqNo >= this.s.seqNo) return [];
    return this.s.translog.opsSince?.(fromSeqNo) ?? null;
  }

  /**
   * Pins what a peer recovery of another copy reads from this primary ({@link RecoverySnapshot}),
   * synchronously, so that it is the state at the instant the target starts being tracked: every
   * later op reaches the target live. With `fromSeqNo` (the target's local checkpoint) and a
   * translog that still holds every op above it, an `ops` snapshot held by a retention hold (ES
   * ops-based recovery); else a `full` one: every `_id`'s latest state, live documents and delete
   * tombstones, with version and seq_no (ES file-based recovery: a pinned commit plus the
   * translog above it). The caller must {@link RecoverySnapshot.release} it.
   */
  openSnapshot(fromSeqNo: number | null): RecoverySnapshot {
    const s = this.s;
    const upTo = s.seqNo;
    if (fromSeqNo !== null) {
      if (fromSeqNo >= upTo) return new OpsSnapshot(s.translog, upTo, upTo, () => {});
      const unhold = s.translog.readOps ? (s.translog.retainOps?.(fromSeqNo) ?? null) : null;
      if (unhold) return new OpsSnapshot(s.translog, fromSeqNo, upTo, unhold);
    }
    const pinned: PinnedSegment[] = [];
    for (const st of s.segs) {
      st.shared = true; // the next delete copies the bitmap: the pinned one stays as it is now
      pinned.push({ segment: st.segment, live: st.live });
    }
    const extra: TranslogOp[] = [];
    const superseded = new Set<string>();
    for (const [id, e] of s.versions.entries) {
      superseded.add(id);
      if (e.deleted) extra.push({ op: 'delete', _id: id, seqNo: e.seqNo, version: e.version });
      else {
        const routing = e.seg ? e.seg.routings?.get(e.ord) : e.buf!.builder.routing(e.ord);
        extra.push({
          op: 'index',
          _id: id,
          json: e.seg ? e.seg.source(e.ord) : e.buf!.builder.source(e.ord),
          seqNo: e.seqNo,
          version: e.version,
          ...(routing !== undefined ? { routing } : {}),
        });
      }
    }
    return new FullSnapshot(pinned, extra, superseded, upTo);
  }

  /** Every `_id`'s latest state in seq_no order: a full snapshot read whole (tests and small shards). */
  snapshotOps(): TranslogOp[] {
    const snap = this.openSnapshot(null);
    const out: TranslogOp[] = [];
    for (let op = snap.next(); op !== null; op = snap.next()) out.push(op);
    snap.release();
    return out.sort((a, b) => a.seqNo - b.seqNo);
  }
}
