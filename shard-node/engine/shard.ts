/**
 * One shard of one index (ES `IndexShard` over its `InternalEngine`): the write path (ES
 * `index`/`create`/`update`/`delete` semantics with versions and sequence numbers), the in-memory
 * buffer made searchable by `refresh()` (ES near-real-time search), copy-on-write live docs,
 * merges, real-time `get`, recovery, and retained generations for multi-phase searches and
 * point-in-time readers. This class is the shard's API; each part is its own module over the
 * shared state (shard-state.ts): the write path (shard-writes.ts), the refresh (shard-refresh.ts),
 * background merges (merge-scheduler.ts), versions and tombstones (live-version-map.ts), the
 * published generations (reader-manager.ts) and recovery (shard-recovery.ts).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/near-real-time.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-index_.html
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_SLICE_MS } from '../../shared/event-loop-slices.ts';
import type { Mapping } from '../../protocol/mapping.ts';
import type { WriteOp, WriteResult } from '../../protocol/write.ts';
import type { Generation } from './generation.ts';
import type { VersionMapStats } from './live-version-map.ts';
import { MergeScheduler } from './merge-scheduler.ts';
import type { RecoverySnapshot } from './recovery-snapshot.ts';
import { Refresher } from './shard-refresh.ts';
import { takeCommit, type ShardCommit } from './shard-commit.ts';
import { ShardRecovery } from './shard-recovery.ts';
import { ShardState } from './shard-state.ts';
import type { ShardCounters } from '../../protocol/metadata.ts';
import { WritePath, type GetResult } from './shard-writes.ts';
import { DEFAULT_GC_DELETES_MS } from './tombstone-gc.ts';
import type { Translog, TranslogOp } from './translog.ts';
import { MemoryTranslog } from './translog.ts';

/** Constructor options of {@link Shard}. */
export interface ShardOptions {
  index: string;
  shard: number;
  /** The index-level mapping (shared by the shards of a node). */
  getMapping: () => Mapping;
  /** Applies a dynamic mapping update (new fields only) to the index-level mapping. */
  updateMapping: (update: Mapping) => void;
  translog?: Translog;
  /** Clock in epoch ms (for keep-alive expiry and tombstone age); defaults to Date.now. */
  now?: () => number;
  /** ES `index.gc_deletes` in ms (default 60 s); see {@link Shard.gcDeletesMs}. */
  gcDeletesMs?: number;
  /**
   * Merge in the background, in event-loop slices, instead of inside `refresh()` (what the shard
   * node does: a merge of the sample data took 1.0-1.4 s in one task, docs/reliability.md).
   * Default false: tests and tools get the merged segments on return from `refresh()`.
   */
  backgroundMerges?: boolean;
  /** Slice length of background merges in ms (default `DEFAULT_SLICE_MS`; tests use 0 to cut them everywhere). */
  mergeSliceMs?: number;
  /** Told of each background merge failure (ES `Engine.failEngine`; a corrupt input fails the copy: shard-node/corrupt-copies.ts). */
  onMergeError?: (err: unknown) => void;
}

/** Shard statistics (`NodeStats` entry without index/shard). */
export interface ShardStats {
  docs: number;
  deleted: number;
  segments: number;
  generation: number;
}

/** A shard engine. All methods are synchronous except the sliced write paths ({@link Shard.applySliced}). */
export class Shard {
  readonly index: string;
  readonly shard: number;
  private readonly state: ShardState;
  private readonly writes: WritePath;
  private readonly refresher: Refresher;
  private readonly merges: MergeScheduler;
  private readonly recovery: ShardRecovery;
  /** Processed seq_nos of this copy (ES local checkpoint); a peer recovery waits for it (local-checkpoint.ts). */
  private readonly checkpoints: ShardState['checkpoints'];
  /** Names this instance of the copy (random per open): a recovery moves only its own instance's checkpoint (ES allocation id). */
  readonly copyId = randomUUID();

  constructor(opts: ShardOptions) {
    this.index = opts.index;
    this.shard = opts.shard;
    const now = opts.now ?? Date.now;
    this.state = new ShardState({
      index: opts.index,
      shard: opts.shard,
      getMapping: opts.getMapping,
      updateMapping: opts.updateMapping,
      translog: opts.translog ?? new MemoryTranslog(),
      now,
      gcDeletesMs: opts.gcDeletesMs ?? DEFAULT_GC_DELETES_MS,
    });
    this.checkpoints = this.state.checkpoints;
    this.writes = new WritePath(this.state);
    this.merges = new MergeScheduler(this.state, opts.mergeSliceMs ?? DEFAULT_SLICE_MS, opts.onMergeError);
    this.refresher = new Refresher(this.state, this.merges, opts.backgroundMerges ?? false);
    this.recovery = new ShardRecovery(this.state, this.writes);
  }

  /** Operation counters since the node started (`GET /_stats`, shard-counters.ts). */
  get counters(): ShardCounters {
    return this.state.counters;
  }

  /** ES `index.gc_deletes` in ms (dynamic: the registry sets it from the index metadata; live-version-map.ts). */
  get gcDeletesMs(): number {
    return this.state.versions.gcDeletesMs;
  }

  set gcDeletesMs(ms: number) {
    this.state.versions.gcDeletesMs = ms;
  }

  /**
   * The shard's primary term (ES `IndexShard.getOperationPrimaryTerm`), set by the registry from the
   * index metadata; reported as `_primary_term` of writes and gets. Folio keeps no term per
   * document, so a GET reports the shard's current term rather than the term that wrote the doc.
   */
  get primaryTerm(): number {
    return this.state.primaryTerm;
  }

  set primaryTerm(term: number) {
    this.state.primaryTerm = term;
  }

  /** The last background merge failure (the merge is dropped; the segments stay as they were). */
  get lastMergeError(): unknown {
    return this.merges.lastError;
  }

  /**
   * True when some writes are not searchable yet: made since the last refresh started, or being
   * sealed by a refresh that runs in slices (a `wait_for` must wait for them too).
   */
  get hasPendingWrites(): boolean {
    return this.state.dirty || this.state.sealing;
  }

  /** Id of the current (latest published) generation. */
  get generation(): number {
    return this.state.readers.latest.id;
  }

  /** The highest sequence number assigned (-1 before the first write). */
  get maxSeqNo(): number {
    return this.state.seqNo;
  }

  /**
   * ES local checkpoint: every op up to it has been processed by this copy (-1 when unknown: an
   * empty copy; after a restart, the checkpoint its store recorded at the last flush, moved on by
   * the translog replayed, see {@link Shard.recoverFromStore}).
   */
  get localCheckpoint(): number {
    return this.checkpoints.checkpoint;
  }

  /**
   * ES global checkpoint as this copy knows it: every op up to it is processed on every in-sync
   * copy of the shard, so no promotion ever loses or replaces it (-1: none known). A primary
   * advances it from its in-sync replicas' acknowledged local checkpoints; a replica learns it with
   * the primary's forwarded writes; the store records it at each flush. It never goes back.
   * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules-translog.html
   * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/seqno/ReplicationTracker.java
   */
  get globalCheckpoint(): number {
    return this.state.globalCp;
  }

  /**
   * Called after the {@link Shard.globalCheckpoint} moved on, or a recovery fast-forwarded the local
   * checkpoint (the registry has the store record both soon after).
   */
  get onCheckpointsMoved(): (() => void) | null {
    return this.state.onCheckpointsMoved;
  }

  set onCheckpointsMoved(fn: (() => void) | null) {
    this.state.onCheckpointsMoved = fn;
  }

  /** Moves the {@link Shard.globalCheckpoint} on to `seqNo` (an older value changes nothing). */
  advanceGlobalCheckpoint(seqNo: number): void {
    const s = this.state;
    if (seqNo <= s.globalCp) return;
    s.globalCp = seqNo;
    s.onCheckpointsMoved?.();
  }

  /**
   * Whether every op this copy holds is at or below both its local and its global checkpoint: its
   * history is then a prefix of every in-sync copy's, and after a promotion it can recover by the
   * new primary's ops above its local checkpoint instead of being emptied (ES: a copy is rolled back
   * to the global checkpoint, `IndexShard.resetEngineToGlobalCheckpoint`, and needs nothing to roll back).
   */
  get heldWithinGlobalCheckpoint(): boolean {
    const s = this.state;
    return s.seqNo <= this.checkpoints.checkpoint && s.seqNo <= s.globalCp;
  }

  /**
   * Applies writes in order with ES semantics; a failed op does not stop the others. Accepted ops
   * are appended to the translog (updates as the resulting index op) before returning; `logged`,
   * when given, receives those same ops in seq_no order (what the replicas then apply, see
   * {@link Shard.applyReplicated}).
   */
  apply(ops: readonly WriteOp[], logged?: TranslogOp[]): WriteResult[] {
    const results: WriteResult[] = [];
    this.writes.applySlice(ops, 0, Infinity, results, logged);
    return results;
  }

  /**
   * {@link Shard.apply} in slices of about `sliceMs` of work, yielding to the event loop between
   * slices (docs/reliability.md); each op is applied whole (shard-writes.ts `applySliced`).
   * `afterLast` runs in the same synchronous step as the last slice.
   */
  applySliced(ops: readonly WriteOp[], logged?: TranslogOp[], sliceMs = DEFAULT_SLICE_MS, afterLast?: () => void): Promise<WriteResult[]> {
    return this.writes.applySliced(ops, logged, sliceMs, afterLast);
  }

  /**
   * A replica's write (ES `IndexShard.applyIndexOperationOnReplica`): applies ops exactly as the
   * primary logged them, skipping stale ones (shard-writes.ts `applyReplicatedSlice` says which).
   * @returns the ops applied (not skipped).
   */
  applyReplicated(ops: readonly TranslogOp[]): TranslogOp[] {
    const fresh: TranslogOp[] = [];
    this.writes.applyReplicatedSlice(ops, 0, Infinity, fresh);
    return fresh;
  }

  /** {@link Shard.applyReplicated} in slices of about `sliceMs`, as {@link Shard.applySliced}. @returns the ops applied (not skipped) */
  applyReplicatedSliced(ops: readonly TranslogOp[], sliceMs = DEFAULT_SLICE_MS): Promise<TranslogOp[]> {
    return this.writes.applyReplicatedSliced(ops, sliceMs);
  }

  /**
   * A peer recovery's ops on the target (ES `RecoveryTarget.indexTranslogOperations`), one chunk of
   * a paged copy, applied in event-loop slices; with `upTo` (the last chunk) the local checkpoint
   * fast-forwards there, and a file-based recovery (`fullRecoveryId`) drops the documents the
   * primary did not send (shard-recovery.ts `applySliced`).
   * @returns the ops applied (not skipped).
   */
  applyRecoverySliced(ops: readonly TranslogOp[], upTo?: number, fullRecoveryId?: string, sliceMs = DEFAULT_SLICE_MS): Promise<TranslogOp[]> {
    return this.recovery.applySliced(ops, upTo, fullRecoveryId, sliceMs);
  }

  /** {@link Shard.applyRecoverySliced} in one synchronous step (tests). */
  applyRecovery(ops: readonly TranslogOp[], upTo?: number, fullRecoveryId?: string): TranslogOp[] {
    return this.recovery.apply(ops, upTo, fullRecoveryId);
  }

  /** ES `IndexShard.fillSeqNoGaps` on promotion (shard-recovery.ts). @returns the seq_nos filled (0 when there was no gap) */
  fillSeqNoGaps(): number {
    return this.recovery.fillSeqNoGaps();
  }

  /**
   * Start-up recovery from this copy's durable store (shard-recovery.ts `fromStore`): opens the
   * `commit` read from segment files, if any, replays `ops` (with a commit: the translog above it)
   * and rebuilds the local checkpoint from `checkpoint` and the ops replayed. @returns the ops applied.
   */
  recoverFromStore(ops: Iterable<TranslogOp>, checkpoint: number, globalCheckpoint = -1, commit?: ShardCommit): number {
    return this.recovery.fromStore(ops, checkpoint, globalCheckpoint, commit);
  }

  /** This copy's commit now, for its store to write as segment files (shard-commit.ts `takeCommit`). */
  commit(): ShardCommit {
    return takeCommit(this.state);
  }

  /**
   * The ops with seq_no above `fromSeqNo`, in seq_no order, when this copy's translog still holds
   * them all (ES `IndexShard.newChangesSnapshot` for an ops-based recovery); null when some were
   * trimmed or flushed away (the recovery then copies every document).
   */
  opsSince(fromSeqNo: number): TranslogOp[] | null {
    return this.recovery.opsSince(fromSeqNo);
  }

  /** Pins what a peer recovery of another copy reads from this primary (shard-recovery.ts `openSnapshot`); release it. */
  openRecoverySnapshot(fromSeqNo: number | null): RecoverySnapshot {
    return this.recovery.openSnapshot(fromSeqNo);
  }

  /**
   * The latest state of every `_id` this copy knows in seq_no order: a full
   * {@link Shard.openRecoverySnapshot} read whole (tests and small shards).
   */
  snapshotOps(): TranslogOp[] {
    return this.recovery.snapshotOps();
  }

  /**
   * Resolves once every write applied so far is durable in the translog (immediately for a
   * non-durable one). Rejects when the store could not write: the writes must not be acknowledged.
   */
  sync(): Promise<void> {
    return this.state.translog.sync?.() ?? Promise.resolve();
  }

  /** Recovery: re-applies recorded ops exactly as logged (shard-writes.ts `restore`); refresh afterwards. @returns the ops applied */
  restore(ops: Iterable<TranslogOp>): number {
    return this.writes.restore(ops);
  }

  /**
   * Makes pending writes searchable: seals the buffer into a segment, drops fully deleted segments,
   * runs the merge policy, and publishes a new generation. Without pending writes the current
   * generation is kept. Returns the current generation id. A refresh running in slices
   * ({@link Shard.refreshSliced}) is first run to its end in this task.
   */
  refresh(): number {
    return this.refresher.refresh();
  }

  /**
   * {@link Shard.refresh} in event-loop slices of about `sliceMs` (shard-refresh.ts
   * `refreshSliced`): resolves with the generation id once every write made before the call is
   * searchable.
   */
  refreshSliced(sliceMs = DEFAULT_SLICE_MS): Promise<number> {
    return this.refresher.refreshSliced(sliceMs);
  }

  /** True while a sliced refresh runs. */
  get refreshRunning(): boolean {
    return this.refresher.running;
  }

  /** True while a background merge runs. */
  get mergeRunning(): boolean {
    return this.merges.running;
  }

  /** Resolves once no background merge is running (tests, and a flush that wants merged segments). */
  mergesIdle(): Promise<void> {
    return this.merges.idle();
  }

  /** ES `InternalEngine.maybePruneDeletes` (live-version-map.ts `maybePrune`). @returns the tombstones pruned by this call */
  maybePruneTombstones(maxMs = Infinity): number {
    return this.state.versions.maybePrune(maxMs);
  }

  /** True while a pruning pass cut by `maybePruneTombstones(maxMs)` is not finished. */
  get pruneRunning(): boolean {
    return this.state.versions.pruneRunning;
  }

  /** ES `InternalEngine.pruneDeletedTombstones`, one full pass now (live-version-map.ts `prune`). @returns the tombstones pruned */
  pruneTombstones(): number {
    return this.state.versions.prune();
  }

  /** Entries and tombstones in the live version map (ES `LiveVersionMap` size), counted. */
  versionMapStats(): VersionMapStats {
    return this.state.versions.stats();
  }

  /**
   * The current generation (no id), or a retained one by id. With `keepAliveMs`, the returned
   * generation is retained until `keepAliveMs` after this call (each acquire extends it).
   * @throws EsError 404 `search_context_missing_exception` for an unknown or expired id.
   */
  acquire(generation?: number, keepAliveMs?: number): Generation {
    return this.state.readers.acquire(generation, keepAliveMs);
  }

  /** Retained generations other than the current one (what `Folio-Snapshot` tokens can keep alive), expired ones dropped first. */
  retainedPastGenerations(): number {
    return this.state.readers.retainedPast();
  }

  /** Stops retaining a generation (ES: close a PIT). Returns whether it was retained. */
  release(generation: number): boolean {
    return this.state.readers.release(generation);
  }

  /** Real-time get: sees writes that are not refreshed yet, like ES GET `_doc`; `_source` is the stored text. */
  get(id: string): GetResult {
    return this.writes.get(id);
  }

  /**
   * Non-real-time get (ES GET `realtime=false`): the document as the current generation, what a
   * search sees, holds it; a write not refreshed yet is not seen.
   */
  getRefreshed(id: string): GetResult {
    return this.writes.getRefreshed(id);
  }

  /** Doc counts of the current generation. */
  stats(): ShardStats {
    const g = this.state.readers.latest;
    return { docs: g.docCount, deleted: g.deletedCount, segments: g.views.length, generation: g.id };
  }
}
