/**
 * One shard of one index: the write path (ES `index`/`create`/`update`/`delete` semantics with
 * versions and sequence numbers), the in-memory buffer made searchable by `refresh()` (ES near-real-
 * time search), copy-on-write live docs, merges, real-time `get`, and retained generations for
 * multi-phase searches and point-in-time readers.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/near-real-time.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-index_.html
 */
import { DEFAULT_SLICE_MS, yieldToEventLoop } from '../../shared/event-loop-slices.ts';
import { hashId } from './columns/id-hash.ts';
import { randomUUID } from 'node:crypto';
import { inferMappingUpdate } from '../../shared/dynamic-mapping.ts';
import { EsError, searchContextMissing } from '../../protocol/errors.ts';
import type { Mapping } from '../../protocol/mapping.ts';
import type { WriteConditions, WriteOp, WriteResult } from '../../protocol/write.ts';
import { parseDocument } from './doc-parser.ts';
import { Generation } from './generation.ts';
import { ignoredFields } from './hit-fetch.ts';
import { visibleSourceText } from '../../shared/source-mapping.ts';
import type { Segment } from './segment.ts';
import { SegmentBuilder } from './segment.ts';
import type { SegmentView } from './segment-merge.ts';
import { mergeSegments, mergeSteps, selectMerge, type MergedSegment } from './segment-merge.ts';
import { CLOCK_EVERY, runAtOnce, runSliced, type SliceClock, type Steps } from '../../shared/sliced-work.ts';
import { LocalCheckpointTracker } from './local-checkpoint.ts';
import { newShardCounters, type ShardCounters } from './shard-counters.ts';
import { FullSnapshot, OpsSnapshot, type PinnedSegment, type RecoverySnapshot } from './recovery-snapshot.ts';
import { canPruneTombstone, DEFAULT_GC_DELETES_MS, PRUNE_SLICE_MS, pruneDue, type PruneBounds } from './tombstone-gc.ts';
import type { Translog, TranslogOp } from './translog.ts';
import { checkWriteConditions, mergeUpdate, nextVersion } from './write-conditions.ts';
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
}

/** Real-time get result (ES GET `_doc`). */
export interface GetResult {
  found: boolean;
  _version?: number;
  _seq_no?: number;
  _primary_term?: number;
  /** The custom routing the document was indexed with. */
  _routing?: string;
  /** ES `_ignored`: the fields whose values were not indexed (malformed, over `ignore_above`), sorted. */
  _ignored?: string[];
  /** The stored `_source` JSON text, exactly as indexed. */
  _source?: string;
}

/** Shard statistics (`NodeStats` entry without index/shard). */
export interface ShardStats {
  docs: number;
  deleted: number;
  segments: number;
  generation: number;
}

/** Where the live copy of an `_id` is: an unrefreshed buffer (`buf`), a segment (`seg`), or nowhere (a tombstone). */
interface DocEntry {
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

/** Unrefreshed docs, already inverted (Lucene's in-memory segment), and which of them died before their refresh. */
interface PendingBuffer {
  builder: SegmentBuilder;
  /** Buffer ordinals overwritten or deleted before the refresh. */
  dead: Set<number>;
}

/** What a refresh took at its start ({@link Shard.refreshSteps}). */
interface RefreshStart {
  /** The buffer being sealed (writes from now on go to a new one), or null. */
  buffer: PendingBuffer | null;
  /** Its dead ordinals at the start (compacted away while sealing). */
  dead: Set<number>;
  /** The segments as they were at the start: what the new generation publishes beside the sealed one. */
  views: SegmentView[];
  /** The highest seq_no at the start (what the new generation holds). */
  seqNo: number;
}

/** A sealed buffer: its segment (dead docs compacted away), and buffer ordinal → segment ordinal when compacted (-1: dropped). */
interface SealedBuffer {
  segment: Segment;
  ordMap: Int32Array | null;
}

/**
 * Seals a buffer into a segment, as steps: the docs in `dead` (overwritten or deleted before this
 * refresh) never reach a published segment, nor its term statistics: they are compacted away, as
 * if they had never been buffered.
 */
function* sealSteps(builder: SegmentBuilder, dead: ReadonlySet<number>, clock: SliceClock): Steps<SealedBuffer> {
  const segment = yield* builder.buildSteps(clock);
  if (dead.size === 0) return { segment, ordMap: null };
  const live = new Uint8Array(segment.maxDoc).fill(1);
  for (const d of dead) live[d] = 0;
  const merged = yield* mergeSteps([{ segment, live, liveCount: segment.maxDoc - dead.size }], clock);
  return { segment: merged.segment, ordMap: merged.ordMaps[0] };
}

/** A refresh running in event-loop slices ({@link Shard.refreshSliced}). */
interface RefreshJob {
  steps: Steps<number>;
  /** Set once the steps ran to the end (in slices, or drained by a synchronous refresh). */
  result: { id: number } | { error: unknown } | null;
  done: Promise<number>;
  settle: () => void;
}

interface SegState {
  segment: Segment;
  /** null = all live. Shared with a published generation when `shared`: copy before writing. */
  live: Uint8Array | null;
  shared: boolean;
  liveCount: number;
}

/**
 * Parses a document's `_source` text for indexing. Numbers become doubles (what doc values hold);
 * the text itself is what the shard stores and returns.
 * @throws EsError 400 `mapper_parsing_exception` when the text is not a JSON object.
 */
export function parseSource(json: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch (e) {
    throw new EsError(400, 'mapper_parsing_exception', `failed to parse: ${(e as Error).message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new EsError(400, 'mapper_parsing_exception', 'failed to parse, document is empty');
  return v as Record<string, unknown>;
}

/**
 * The id of a new shard's first generation: the start time in ms × 1,000. Generation ids name
 * snapshots across requests (fetch phase, dfs and sample caches, `Folio-Snapshot`, PIT), so a
 * restarted shard node must never reuse one: ids grow by one per refresh, and no shard refreshes
 * 1,000 times per millisecond, so ids stay above any earlier process's (and below 2^53 until 2255).
 */
export function firstGenerationId(nowMs: number): number {
  return Math.floor(nowMs) * 1000;
}


/** A shard engine. All methods are synchronous except the sliced write paths ({@link Shard.applySliced}). */
export class Shard {
  readonly index: string;
  readonly shard: number;
  private readonly getMapping: () => Mapping;
  private readonly updateMapping: (update: Mapping) => void;
  private readonly translog: Translog;
  private readonly now: () => number;
  /**
   * The live version map (ES `LiveVersionMap`): entries for writes not yet refreshed (`seg` null)
   * and tombstones of deletes. A refreshed document's version lives in its segment's columns and
   * is found by {@link Shard.lookup}, so the map does not grow with the index; tombstones leave it
   * after `index.gc_deletes` ({@link Shard.pruneTombstones}), so it does not grow with deletes either.
   */
  private readonly entries = new Map<string, DocEntry>();
  /** Unrefreshed docs (Lucene's in-memory segment); null when empty. */
  private buffer: PendingBuffer | null = null;
  /** The refresh running in slices, if any (one at a time). */
  private refreshJob: RefreshJob | null = null;
  /** True between the start and the end of a refresh (sealing in slices). */
  private sealing = false;
  /** Buffers whose sealing failed, sealed first by the next refreshes (one each). */
  private readonly unsealed: PendingBuffer[] = [];
  private segs: SegState[] = [];
  private dirty = false;
  private seqNo = -1;
  private current: Generation;
  private readonly retained = new Map<number, { gen: Generation; keepAliveMs: number; expiresAt: number }>();
  /** Processed seq_nos of this copy (ES local checkpoint); a peer recovery waits for it (local-checkpoint.ts). */
  private readonly checkpoints = new LocalCheckpointTracker();
  /** See {@link Shard.globalCheckpoint}. */
  private globalCp = -1;
  /** Operation counters since the node started (`GET /_stats`, shard-counters.ts). */
  readonly counters: ShardCounters = newShardCounters();
  /**
   * ES `index.gc_deletes` in ms (dynamic: the registry sets it from the index metadata): how long a
   * delete tombstone stays in the live version map at least. -1 (ES's minimum) or 0: as soon as it
   * is refreshed and below the local checkpoint.
   */
  gcDeletesMs: number;
  /** Epoch ms of the last tombstone pruning pass. */
  private lastPruneAt: number;
  /** The pruning pass in progress when cut in pieces ({@link Shard.maybePruneTombstones} with `maxMs`). */
  private pruning: { entries: MapIterator<[string, DocEntry]>; bounds: PruneBounds; now: number } | null = null;
  /** See {@link ShardOptions.backgroundMerges}. */
  private readonly backgroundMerges: boolean;
  private readonly mergeSliceMs: number;
  /** The background merge running, if any (one at a time per shard). */
  private merging: Promise<void> | null = null;
  /** The last background merge failure (the merge is dropped; the segments stay as they were). */
  lastMergeError: unknown = null;
  /** The `_id`s a running file-based (full) peer recovery has sent this copy ({@link Shard.applyRecovery}). */
  private fullRecovery: { id: string; seen: Set<string> | null } | null = null;
  /**
   * The shard's primary term (ES `IndexShard.getOperationPrimaryTerm`), set by the registry from the
   * index metadata; reported as `_primary_term` of writes and gets. Folio keeps no term per
   * document, so a GET reports the shard's current term rather than the term that wrote the doc.
   */
  primaryTerm = 1;
  /**
   * Names this instance of the copy (random per open): a peer recovery moves the local checkpoint
   * only on the instance it started on, so a copy emptied meanwhile by another recovery (or
   * reopened) is not declared complete by the first one (ES: a recovery targets one allocation id).
   */
  readonly copyId = randomUUID();

  constructor(opts: ShardOptions) {
    this.index = opts.index;
    this.shard = opts.shard;
    this.getMapping = opts.getMapping;
    this.updateMapping = opts.updateMapping;
    this.translog = opts.translog ?? new MemoryTranslog();
    this.now = opts.now ?? Date.now;
    this.gcDeletesMs = opts.gcDeletesMs ?? DEFAULT_GC_DELETES_MS;
    this.backgroundMerges = opts.backgroundMerges ?? false;
    this.mergeSliceMs = opts.mergeSliceMs ?? DEFAULT_SLICE_MS;
    this.lastPruneAt = this.now();
    this.current = new Generation(firstGenerationId(this.now()), [], this.getMapping);
  }

  /**
   * True when some writes are not searchable yet: made since the last refresh started, or being
   * sealed by a refresh that runs in slices (a `wait_for` must wait for them too).
   */
  get hasPendingWrites(): boolean {
    return this.dirty || this.sealing;
  }

  /** Id of the current (latest published) generation. */
  get generation(): number {
    return this.current.id;
  }

  /** The highest sequence number assigned (-1 before the first write). */
  get maxSeqNo(): number {
    return this.seqNo;
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
    return this.globalCp;
  }

  /**
   * Called after the {@link Shard.globalCheckpoint} moved on, or a recovery fast-forwarded the local
   * checkpoint (the registry has the store record both soon after).
   */
  onCheckpointsMoved: (() => void) | null = null;

  /** Moves the {@link Shard.globalCheckpoint} on to `seqNo` (an older value changes nothing). */
  advanceGlobalCheckpoint(seqNo: number): void {
    if (seqNo <= this.globalCp) return;
    this.globalCp = seqNo;
    this.onCheckpointsMoved?.();
  }

  /**
   * Whether every op this copy holds is at or below both its local and its global checkpoint: its
   * history is then a prefix of every in-sync copy's, and after a promotion it can recover by the
   * new primary's ops above its local checkpoint instead of being emptied (ES: a copy is rolled back
   * to the global checkpoint, `IndexShard.resetEngineToGlobalCheckpoint`, and needs nothing to roll back).
   */
  get heldWithinGlobalCheckpoint(): boolean {
    return this.seqNo <= this.checkpoints.checkpoint && this.seqNo <= this.globalCp;
  }

  /**
   * Applies writes in order with ES semantics; a failed op does not stop the others. Accepted ops
   * are appended to the translog (updates as the resulting index op) before returning; `logged`,
   * when given, receives those same ops in seq_no order (what the replicas then apply, see
   * {@link Shard.applyReplicated}).
   */
  apply(ops: readonly WriteOp[], logged?: TranslogOp[]): WriteResult[] {
    const results: WriteResult[] = [];
    this.applySlice(ops, 0, Infinity, results, logged);
    return results;
  }

  /**
   * {@link Shard.apply} in slices of about `sliceMs` of work, yielding to the event loop between
   * slices, so that a large bulk does not hold the node's event loop (docs/reliability.md). Each
   * op is applied whole and logged to the translog in the slice that applied it, so ops keep their
   * order and seq_no order, and a reader between slices sees some ops of the request and not the
   * others, never half an op: Elasticsearch promises per-document atomicity for a bulk, not
   * per-request (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-bulk.html).
   * Ops of concurrent requests may interleave, as they do in ES. `afterLast` runs in the same
   * synchronous step as the last slice (to read state, such as the replication group, that must be
   * consistent with the request's last op).
   */
  async applySliced(ops: readonly WriteOp[], logged?: TranslogOp[], sliceMs = DEFAULT_SLICE_MS, afterLast?: () => void): Promise<WriteResult[]> {
    const results: WriteResult[] = [];
    let pos = 0;
    for (;;) {
      pos = this.applySlice(ops, pos, sliceMs, results, logged);
      if (pos >= ops.length) break;
      await yieldToEventLoop();
    }
    afterLast?.();
    return results;
  }

  /** Applies `ops` from `from` on, for about `maxMs`; logs them to the translog. @returns where it stopped */
  private applySlice(ops: readonly WriteOp[], from: number, maxMs: number, results: WriteResult[], logged?: TranslogOp[]): number {
    const started = performance.now();
    const log: TranslogOp[] = [];
    let i = from;
    while (i < ops.length) {
      results.push(this.applyOne(ops[i++], log));
      if ((i & 31) === 0 && performance.now() - started >= maxMs) break;
    }
    if (log.length > 0) this.translog.append(log);
    for (const op of log) this.checkpoints.markProcessed(op.seqNo);
    if (logged) for (const op of log) logged.push(op);
    this.maybePruneTombstones(PRUNE_SLICE_MS);
    return i;
  }

  private applyOne(op: WriteOp, log: TranslogOp[]): WriteResult {
    const c = this.counters;
    try {
      if (op.op === 'delete') {
        c.deleteTotal++;
        return this.deleteDoc(op._id, log, op);
      }
      const r = op.op === 'index' ? this.indexDoc(op._id, parseSource(op.source), op.source, op.create, log, false, op) : this.updateDoc(op, log);
      if (r.result === 'noop') c.noopUpdateTotal++;
      else if (r.error) c.indexFailed++;
      else c.indexTotal++;
      return r;
    } catch (e) {
      if (!(e instanceof EsError)) throw e;
      if (op.op !== 'delete') c.indexFailed++;
      const error = { type: e.type, reason: e.message, shard: String(this.shard), index: this.index, ...(e.causedBy ? { caused_by: e.causedBy } : {}) };
      return { _id: op._id, status: e.status, error };
    }
  }

  /**
   * A replica's write (ES `IndexShard.applyIndexOperationOnReplica`): applies ops exactly as the
   * primary logged them, with the primary's seq_no and version and no conflict checks, skipping an
   * op that is stale (replication requests may arrive out of order or twice), and appends the
   * applied ops to the translog. {@link Shard.sync} makes them durable.
   *
   * An op is stale as in ES `InternalEngine.planIndexingAsNonPrimary`: its seq_no is at or below
   * the local checkpoint (this copy processed it already), or the copy holds a newer op for its
   * `_id` (a live doc, an unrefreshed write, or a tombstone). The first rule is what makes pruning
   * tombstones safe: a tombstone is pruned only once its seq_no is at or below the local checkpoint
   * ({@link Shard.pruneTombstones}), so any older op on that `_id` has a seq_no below the checkpoint
   * too and is still recognised as stale without the tombstone, and a deleted document cannot be
   * resurrected by a late op. ES explains the argument in `InternalEngine.pruneDeletedTombstones`:
   * https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/engine/InternalEngine.java
   * @returns the ops applied (not skipped).
   */
  applyReplicated(ops: readonly TranslogOp[]): TranslogOp[] {
    const fresh: TranslogOp[] = [];
    this.applyReplicatedSlice(ops, 0, Infinity, fresh);
    return fresh;
  }

  /**
   * {@link Shard.applyReplicated} in slices of about `sliceMs`, yielding to the event loop between
   * slices (as {@link Shard.applySliced}); each slice is applied and logged whole.
   * @returns the ops applied (not skipped).
   */
  async applyReplicatedSliced(ops: readonly TranslogOp[], sliceMs = DEFAULT_SLICE_MS): Promise<TranslogOp[]> {
    const fresh: TranslogOp[] = [];
    let pos = 0;
    for (;;) {
      pos = this.applyReplicatedSlice(ops, pos, sliceMs, fresh);
      if (pos >= ops.length) return fresh;
      await yieldToEventLoop();
    }
  }

  /** `mark`: record each op's seq_no as processed (live replication); a recovery's copy leaves that to its last chunk's `upTo`. */
  private applyReplicatedSlice(ops: readonly TranslogOp[], from: number, maxMs: number, fresh: TranslogOp[], mark = true): number {
    const started = performance.now();
    const checkpoint = this.checkpoints.checkpoint;
    const applied: TranslogOp[] = [];
    let i = from;
    while (i < ops.length) {
      const op = ops[i++];
      if (op.seqNo > checkpoint) {
        const e = this.lookup(op._id);
        if (e === undefined || e.seqNo < op.seqNo) {
          this.restore([op]);
          applied.push(op);
        }
      }
      if ((i & 31) === 0 && performance.now() - started >= maxMs) break;
    }
    if (applied.length > 0) this.translog.append(applied);
    if (mark) {
      for (let j = from; j < i; j++) this.checkpoints.markProcessed(ops[j].seqNo);
      // Live replication counts as indexing on the replica, a recovery does not (ES `InternalIndexingStats`).
      for (const op of applied) {
        if (op.op === 'delete') this.counters.deleteTotal++;
        else this.counters.indexTotal++;
      }
    }
    for (const op of applied) fresh.push(op);
    this.maybePruneTombstones(PRUNE_SLICE_MS);
    return i;
  }

  /**
   * A peer recovery's ops on the target (ES `RecoveryTarget.indexTranslogOperations`), one chunk of
   * a paged copy: applied in event-loop slices as {@link Shard.applyReplicatedSliced} does
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
  async applyRecoverySliced(ops: readonly TranslogOp[], upTo?: number, fullRecoveryId?: string, sliceMs = DEFAULT_SLICE_MS): Promise<TranslogOp[]> {
    if (fullRecoveryId !== undefined) {
      if (this.fullRecovery?.id !== fullRecoveryId) this.fullRecovery = { id: fullRecoveryId, seen: this.holdsDocsAtOrBelow(upTo ?? Infinity) ? new Set() : null };
      const seen = this.fullRecovery.seen;
      if (seen) for (const op of ops) seen.add(op._id);
    }
    const fresh: TranslogOp[] = [];
    let pos = 0;
    for (;;) {
      pos = this.applyReplicatedSlice(ops, pos, sliceMs, fresh, false);
      if (pos >= ops.length) break;
      await yieldToEventLoop();
    }
    if (upTo !== undefined) this.finishRecovery(upTo, fullRecoveryId);
    return fresh;
  }

  /** {@link Shard.applyRecoverySliced} in one synchronous step (tests). */
  applyRecovery(ops: readonly TranslogOp[], upTo?: number, fullRecoveryId?: string): TranslogOp[] {
    if (fullRecoveryId !== undefined) {
      if (this.fullRecovery?.id !== fullRecoveryId) this.fullRecovery = { id: fullRecoveryId, seen: this.holdsDocsAtOrBelow(upTo ?? Infinity) ? new Set() : null };
      const seen = this.fullRecovery.seen;
      if (seen) for (const op of ops) seen.add(op._id);
    }
    const fresh: TranslogOp[] = [];
    this.applyReplicatedSlice(ops, 0, Infinity, fresh, false);
    if (upTo !== undefined) this.finishRecovery(upTo, fullRecoveryId);
    return fresh;
  }

  /** The last chunk of a recovery: drops what a full copy did not send, and fast-forwards the checkpoint to `upTo`. */
  private finishRecovery(upTo: number, fullRecoveryId: string | undefined): void {
    if (fullRecoveryId !== undefined && this.fullRecovery?.id === fullRecoveryId && this.fullRecovery.seen) this.dropUnsent(this.fullRecovery.seen, upTo);
    this.fullRecovery = null;
    this.checkpoints.fastForward(upTo);
    if (upTo > this.seqNo) this.seqNo = upTo;
    this.onCheckpointsMoved?.();
  }

  /** True when this copy holds a document or tombstone with seq_no ≤ `seqNo` (segments are checked by existence only). */
  private holdsDocsAtOrBelow(seqNo: number): boolean {
    if (this.segs.length > 0) return true;
    for (const e of this.entries.values()) if (e.seqNo <= seqNo) return true;
    return false;
  }

  /**
   * ES `IndexShard` on promotion (`fillSeqNoGaps`): a copy promoted to primary with gaps below its
   * max seq_no (ops of the old primary it never received) counts them as processed no-ops, so its
   * local checkpoint reaches its max seq_no and the checkpoint tracker does not keep every later
   * write's seq_no above a gap that can no longer close.
   * @returns the seq_nos filled (0 when there was no gap).
   */
  fillSeqNoGaps(): number {
    const gap = this.seqNo - this.checkpoints.checkpoint;
    if (gap <= 0) return 0;
    const pendingBefore = this.checkpoints.pending;
    this.checkpoints.fastForward(this.seqNo);
    return gap - pendingBefore;
  }

  /** Removes the live documents with seq_no ≤ `upTo` whose `_id` is not in `sent` (end of a full recovery). */
  private dropUnsent(sent: ReadonlySet<string>, upTo: number): void {
    for (const [id, e] of this.entries) {
      if (!e.deleted && e.seqNo <= upTo && !sent.has(id)) {
        this.removeLive(e);
        this.entries.delete(id);
      }
    }
    for (const st of this.segs) {
      const seg = st.segment;
      for (let ord = 0; ord < seg.maxDoc; ord++) {
        if (st.live && !st.live[ord]) continue;
        const id = seg.ids[ord];
        if (this.entries.has(id) || sent.has(id) || seg.seqNos[ord] > upTo) continue;
        this.removeLive({ version: seg.versions[ord], seqNo: seg.seqNos[ord], deleted: false, seg, buf: null, ord });
      }
    }
  }

  /**
   * Start-up recovery from this copy's durable store: {@link Shard.restore}s its ops (flush
   * snapshot, then translog) and rebuilds the local checkpoint as ES does from a commit's
   * `local_checkpoint` and the translog replayed above it: `checkpoint` (what the store recorded at
   * its last flush; every op at or below it is in the store), then every replayed op is processed;
   * `globalCheckpoint`: the one the store recorded with it.
   * @returns the ops applied.
   */
  recoverFromStore(ops: Iterable<TranslogOp>, checkpoint: number, globalCheckpoint = -1): number {
    this.checkpoints.fastForward(checkpoint);
    this.globalCp = Math.max(this.globalCp, globalCheckpoint); // read from the store: nothing to record again
    const checkpoints = this.checkpoints;
    function* marked(): Generator<TranslogOp> {
      for (const op of ops) {
        checkpoints.markProcessed(op.seqNo);
        yield op;
      }
    }
    return this.restore(marked());
  }

  /**
   * The ops with seq_no above `fromSeqNo`, in seq_no order, when this copy's translog still holds
   * them all (ES `IndexShard.newChangesSnapshot` for an ops-based recovery); null when some were
   * trimmed or flushed away (the recovery then copies every document).
   */
  opsSince(fromSeqNo: number): TranslogOp[] | null {
    if (fromSeqNo >= this.seqNo) return [];
    return this.translog.opsSince?.(fromSeqNo) ?? null;
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
  openRecoverySnapshot(fromSeqNo: number | null): RecoverySnapshot {
    const upTo = this.seqNo;
    if (fromSeqNo !== null) {
      if (fromSeqNo >= upTo) return new OpsSnapshot(this.translog, upTo, upTo, () => {});
      const unhold = this.translog.readOps ? (this.translog.retainOps?.(fromSeqNo) ?? null) : null;
      if (unhold) return new OpsSnapshot(this.translog, fromSeqNo, upTo, unhold);
    }
    const pinned: PinnedSegment[] = [];
    for (const st of this.segs) {
      st.shared = true; // the next delete copies the bitmap: the pinned one stays as it is now
      pinned.push({ segment: st.segment, live: st.live });
    }
    const extra: TranslogOp[] = [];
    const superseded = new Set<string>();
    for (const [id, e] of this.entries) {
      superseded.add(id);
      if (e.deleted) extra.push({ op: 'delete', _id: id, seqNo: e.seqNo, version: e.version });
      else {
        const routing = e.seg ? e.seg.routings?.get(e.ord) : e.buf!.builder.routing(e.ord);
        extra.push({ op: 'index', _id: id, json: e.seg ? e.seg.source(e.ord) : e.buf!.builder.source(e.ord), seqNo: e.seqNo, version: e.version, ...(routing !== undefined ? { routing } : {}) });
      }
    }
    return new FullSnapshot(pinned, extra, superseded, upTo);
  }

  /**
   * The latest state of every `_id` this copy knows in seq_no order: a full
   * {@link Shard.openRecoverySnapshot} read whole (tests and small shards).
   */
  snapshotOps(): TranslogOp[] {
    const snap = this.openRecoverySnapshot(null);
    const out: TranslogOp[] = [];
    for (let op = snap.next(); op !== null; op = snap.next()) out.push(op);
    snap.release();
    return out.sort((a, b) => a.seqNo - b.seqNo);
  }

  /**
   * Resolves once every write applied so far is durable in the translog (immediately for a
   * non-durable one). Rejects when the store could not write: the writes must not be acknowledged.
   */
  sync(): Promise<void> {
    return this.translog.sync?.() ?? Promise.resolve();
  }

  /**
   * Recovery: re-applies recorded ops (a flush snapshot, then the translog after it) exactly as
   * logged — same seq_no and version, no conflict checks, nothing written to the translog. An op
   * older than what the shard holds for its `_id` is skipped. The seq_no counter continues from the
   * highest replayed, as ES's local checkpoint does after a store recovery. Returns the ops applied;
   * call `refresh()` afterwards to make them searchable.
   * @throws EsError when a recorded document no longer parses under the mapping (corrupt store)
   */
  restore(ops: Iterable<TranslogOp>): number {
    let applied = 0;
    for (const op of ops) {
      const e = this.lookup(op._id);
      if (e && e.seqNo >= op.seqNo) continue;
      if (e && !e.deleted) this.removeLive(e);
      if (op.op === 'index') {
        const source = parseSource(op.json);
        const update = inferMappingUpdate(this.getMapping(), source);
        if (update) this.updateMapping(update);
        const parsed = parseDocument(op._id, source, this.getMapping());
        const buf = this.writeBuffer();
        const ord = buf.builder.add(op._id, op.json, parsed, op.version, op.seqNo, op.routing);
        this.entries.set(op._id, { version: op.version, seqNo: op.seqNo, deleted: false, seg: null, buf, ord });
      } else {
        this.entries.set(op._id, { version: op.version, seqNo: op.seqNo, deleted: true, seg: null, buf: null, ord: -1, deletedAt: this.now(), generation: this.tombstoneGeneration() });
      }
      this.dirty = true;
      if (op.seqNo > this.seqNo) this.seqNo = op.seqNo;
      applied++;
    }
    return applied;
  }

  private fail(status: number, type: string, reason: string): never {
    throw new EsError(status, type, reason);
  }

  /**
   * Indexes `source` (parsed from, or serialized as, `json`) and stores `json` as its `_source` and
   * `write.routing` as its `_routing`, once the conditions of `write` hold for the `_id`'s current
   * state (write-conditions.ts). The check, the version and the seq_no are decided in the same
   * synchronous step as the write: nothing else touches the `_id` in between (ES's per-`_id` lock).
   * A conflict assigns no seq_no, as in ES.
   */
  private indexDoc(id: string, source: Record<string, unknown>, json: string, create: boolean, log: TranslogOp[], forceCreated = false, write: WriteConditions & { routing?: string } = {}): WriteResult {
    const routing = write.routing;
    const e = this.lookup(id);
    const exists = e !== undefined && !e.deleted;
    if (create && exists) {
      this.fail(409, 'version_conflict_engine_exception', `[${id}]: version conflict, document already exists (current version [${e!.version}])`);
    }
    checkWriteConditions(id, write, e, this.primaryTerm);
    const update = inferMappingUpdate(this.getMapping(), source);
    if (update) this.updateMapping(update);
    const parsed = parseDocument(id, source, this.getMapping());
    if (exists) this.removeLive(e!);
    const version = nextVersion(write, e);
    const seqNo = ++this.seqNo;
    const buf = this.writeBuffer();
    const ord = buf.builder.add(id, json, parsed, version, seqNo, routing);
    this.entries.set(id, { version, seqNo, deleted: false, seg: null, buf, ord });
    this.dirty = true;
    log.push({ op: 'index', _id: id, json, seqNo, version, ...(routing !== undefined ? { routing } : {}) });
    const created = forceCreated || !exists;
    return { _id: id, status: created ? 201 : 200, result: created ? 'created' : 'updated', _version: version, _seq_no: seqNo, _primary_term: this.primaryTerm };
  }

  /** Deletes `id` once `cond` holds (as {@link Shard.indexDoc}); a missing `_id` answers `not_found` and still gets a tombstone. */
  private deleteDoc(id: string, log: TranslogOp[], cond: WriteConditions = {}): WriteResult {
    const e = this.lookup(id);
    const exists = e !== undefined && !e.deleted;
    checkWriteConditions(id, cond, e, this.primaryTerm);
    if (exists) this.removeLive(e!);
    const version = nextVersion(cond, e);
    const seqNo = ++this.seqNo;
    // Tombstone, even for an id that never existed (ES does the same): a later re-index continues
    // the version sequence, and a replica recognises older ops on the id as stale, until the
    // tombstone is pruned after index.gc_deletes (pruneTombstones).
    this.entries.set(id, { version, seqNo, deleted: true, seg: null, buf: null, ord: -1, deletedAt: this.now(), generation: this.tombstoneGeneration() });
    this.dirty = true; // a change to refresh even for a missing id (ES writes a tombstone doc): the tombstone is collected only once refreshed
    log.push({ op: 'delete', _id: id, seqNo, version });
    return { _id: id, status: exists ? 200 : 404, result: exists ? 'deleted' : 'not_found', _version: version, _seq_no: seqNo, _primary_term: this.primaryTerm };
  }

  /**
   * ES `UpdateHelper` on the primary: reads the document in real time; a missing one is created
   * from `upsert` (or `doc` with `doc_as_upsert`), else 404. With `ifSeqNo` the read document must
   * carry it (ES `getForUpdate`). `doc` is merged in (write-conditions.ts `mergeUpdate`); a merge
   * that changes nothing (with `detect_noop`, the default) answers `noop` with the current version
   * and seq_no and writes nothing. The document keeps its `_routing` unless the op gives one.
   */
  private updateDoc(op: Extract<WriteOp, { op: 'update' }>, log: TranslogOp[]): WriteResult {
    const id = op._id;
    const cur = this.get(id);
    const withSource = (r: WriteResult, json: string): WriteResult => (op.fetchSource ? { ...r, source: json } : r);
    if (!cur.found) {
      const doc = op.upsert ?? (op.docAsUpsert ? op.doc : undefined);
      if (doc === undefined) this.fail(404, 'document_missing_exception', `[${id}]: document missing`);
      const json = JSON.stringify(doc);
      return withSource(this.indexDoc(id, doc, json, false, log, true, { routing: op.routing }), json);
    }
    checkWriteConditions(id, op, { version: cur._version!, seqNo: cur._seq_no!, deleted: false }, this.primaryTerm);
    // The update reads the source as the mapping's `_source` keeps it (ES stores no more): none when disabled.
    const shown = visibleSourceText(cur._source!, this.getMapping());
    if (shown === undefined) this.fail(400, 'document_source_missing_exception', `[${id}]: document source missing`);
    const { merged, modified } = mergeUpdate(parseSource(shown), op.doc, op.detectNoop !== false);
    if (!modified) {
      return withSource({ _id: id, status: 200, result: 'noop', _version: cur._version, _seq_no: cur._seq_no, _primary_term: this.primaryTerm }, shown);
    }
    // ES re-serializes an updated document too (UpdateHelper builds a new source from the merged map).
    const json = JSON.stringify(merged);
    return withSource(this.indexDoc(id, merged, json, false, log, false, { routing: op.routing ?? cur._routing }), json);
  }

  /**
   * The newest state of `id`: its live-version-map entry (an unrefreshed write or a tombstone),
   * else its live copy in the newest segment holding one (version and seq_no from the segment's
   * columns, as ES resolves a version from the index when the live version map has none).
   */
  private lookup(id: string): DocEntry | undefined {
    const e = this.entries.get(id);
    if (e !== undefined) return e;
    const hash = hashId(id);
    for (let i = this.segs.length - 1; i >= 0; i--) {
      const st = this.segs[i];
      const ord = st.segment.idToOrd.get(id, hash);
      if (ord >= 0 && (!st.live || st.live[ord])) return { version: st.segment.versions[ord], seqNo: st.segment.seqNos[ord], deleted: false, seg: st.segment, buf: null, ord };
    }
    return undefined;
  }

  /** Removes the live copy of a doc: from the buffer, or from its segment's live docs (copy-on-write). */
  private removeLive(e: DocEntry): void {
    this.dirty = true;
    if (e.buf) {
      e.buf.dead.add(e.ord); // a buffer being sealed: its refresh carries the death over (finishRefresh)
      return;
    }
    const st = this.segs.find((s) => s.segment === e.seg);
    if (!st) return;
    if (!st.live) {
      st.live = new Uint8Array(st.segment.maxDoc).fill(1);
      st.shared = false;
    } else if (st.shared) {
      st.live = st.live.slice();
      st.shared = false;
    }
    if (st.live[e.ord]) {
      st.live[e.ord] = 0;
      st.liveCount--;
    }
  }

  /**
   * Makes pending writes searchable: seals the buffer into a segment, drops fully deleted segments,
   * runs the merge policy, and publishes a new generation. Without pending writes the current
   * generation is kept. Returns the current generation id. A refresh running in slices
   * ({@link Shard.refreshSliced}) is first run to its end in this task.
   */
  refresh(): number {
    this.drainRefresh();
    return runAtOnce((clock) => this.refreshSteps(clock));
  }

  /**
   * {@link Shard.refresh} in event-loop slices of about `sliceMs` (what the shard node runs: sealing
   * a 45k-document buffer took 130-220 ms in one task, docs/reliability.md). Meanwhile searches read
   * the last published generation, and writes go to a new buffer (Lucene's DocumentsWriter swaps in
   * a new in-memory segment at a flush): the new generation holds the writes made before the
   * refresh started, as they were then (a delete or update made while sealing shows in the next
   * one). Resolves with the generation id once every write made before the call is searchable: a
   * call while another sliced refresh runs waits for it, then refreshes again when writes are
   * pending. A synchronous {@link Shard.refresh} meanwhile finishes the running one first.
   */
  async refreshSliced(sliceMs = DEFAULT_SLICE_MS): Promise<number> {
    while (this.refreshJob) await this.refreshJob.done.catch(() => undefined);
    if (!this.dirty) return this.current.id;
    let started = performance.now();
    const clock: SliceClock = { due: () => performance.now() - started >= sliceMs };
    let settle!: () => void;
    const job: RefreshJob = { steps: this.refreshSteps(clock), result: null, done: new Promise<void>((r) => (settle = r)).then(() => this.jobResult(job)), settle };
    this.refreshJob = job;
    void job.done.catch(() => undefined);
    while (job.result === null) {
      this.stepRefresh(job);
      if (job.result !== null) break;
      await yieldToEventLoop();
      started = performance.now();
    }
    return job.done;
  }

  /** True while a sliced refresh runs. */
  get refreshRunning(): boolean {
    return this.refreshJob !== null;
  }

  /** Runs one slice of `job` (until its clock is due); records its end. */
  private stepRefresh(job: RefreshJob): void {
    try {
      const r = job.steps.next();
      if (!r.done) return;
      job.result = { id: r.value };
    } catch (error) {
      job.result = { error };
    }
    this.refreshJob = null;
    job.settle();
  }

  /** Runs the sliced refresh in flight, if any, to its end in this task. */
  private drainRefresh(): void {
    const job = this.refreshJob;
    while (job && job.result === null) this.stepRefresh(job);
  }

  private jobResult(job: RefreshJob): number {
    const r = job.result!;
    if ('error' in r) throw r.error;
    return r.id;
  }

  /**
   * The refresh, as steps (shared/sliced-work.ts): {@link Shard.beginRefresh} and
   * {@link Shard.finishRefresh} run synchronously; sealing the buffer (inverting postings, ranking
   * terms, compressing `_source` blocks, compacting dead docs away) may pause between them.
   */
  private *refreshSteps(clock: SliceClock): Steps<number> {
    if (!this.dirty) return this.current.id;
    this.counters.refreshTotal++;
    const start = this.beginRefresh();
    let sealed: SealedBuffer | null = null;
    try {
      if (start.buffer) sealed = yield* sealSteps(start.buffer.builder, start.dead, clock);
    } catch (err) {
      // Kept for the next refresh, which seals it first (its docs stay readable by real-time get).
      this.unsealed.push(start.buffer!);
      this.sealing = false;
      this.dirty = true;
      throw err;
    }
    return this.finishRefresh(start, sealed);
  }

  /**
   * The start of a refresh: detaches the buffer (one whose sealing failed first) and freezes the
   * segments' live docs (copy-on-write).
   */
  private beginRefresh(): RefreshStart {
    let buffer = this.unsealed.shift() ?? null;
    if (!buffer) {
      buffer = this.buffer;
      this.buffer = null;
    }
    for (const s of this.segs) s.shared = true;
    const views = this.segs.filter((s) => s.liveCount > 0).map((s) => this.view(s));
    this.dirty = this.unsealed.length > 0 || this.buffer !== null;
    this.sealing = true;
    return { buffer, dead: new Set(buffer?.dead), views, seqNo: this.seqNo };
  }

  /**
   * The end of a refresh (synchronous): the sealed segment joins the segments, the docs of the
   * buffer that died while it was sealed are deleted in it, the live version map forgets the docs
   * it now holds, and the new generation is published: the segments as they were at the start plus
   * the sealed one. When nothing was written meanwhile, that is the segments as they are now, and
   * (without background merges) the merge policy runs first.
   */
  private finishRefresh(start: RefreshStart, sealed: SealedBuffer | null): number {
    this.sealing = false;
    const views = start.views;
    if (sealed && sealed.segment.maxDoc > 0) {
      const { segment, ordMap } = sealed;
      let live: Uint8Array | null = null;
      let liveCount = segment.maxDoc;
      for (const d of start.buffer!.dead) {
        if (start.dead.has(d)) continue;
        const nd = ordMap ? ordMap[d] : d;
        if (nd < 0) continue;
        live ??= new Uint8Array(segment.maxDoc).fill(1);
        if (live[nd]) {
          live[nd] = 0;
          liveCount--;
        }
      }
      this.segs.push({ segment, live, shared: false, liveCount });
      views.push({ segment, live: null, liveCount: segment.maxDoc });
      // Refreshed: these docs' versions are now read from the segment (lookup); tombstones and
      // writes made since the start (entries of the next buffer) stay.
      for (let ord = 0; ord < segment.maxDoc; ord++) {
        const id = segment.ids[ord];
        if (this.entries.get(id)?.buf === start.buffer) this.entries.delete(id);
      }
    }
    this.segs = this.segs.filter((s) => s.liveCount > 0);
    const unchanged = !this.dirty;
    while (unchanged && !this.backgroundMerges) {
      const pick = selectMerge(this.segs.map((s) => this.view(s)));
      if (pick.length < 2) break;
      const chosen = pick.map((i) => this.segs[i]);
      const { segment } = mergeSegments(chosen.map((s) => this.view(s)));
      this.replaceMerged(chosen, { segment, live: null, shared: false, liveCount: segment.maxDoc });
    }
    this.publish(unchanged ? this.segs.map((s) => this.view(s)) : views.filter((v) => v.liveCount > 0), start.seqNo);
    if (this.backgroundMerges) this.maybeMergeInBackground();
    return this.current.id;
  }

  /**
   * Publishes `views` as the new current generation (the end of a refresh); ops up to `seqNo` are
   * in it. Writes made after the refresh started stay pending (`dirty`).
   */
  private publish(views: SegmentView[], seqNo: number): void {
    this.translog.trim?.(seqNo);
    for (const s of this.segs) s.shared = true;
    this.current = new Generation(this.current.id + 1, views, this.getMapping);
    this.expire();
    this.maybePruneTombstones(PRUNE_SLICE_MS);
  }

  /** The buffer new writes go to (a new one while the previous is being sealed). */
  private writeBuffer(): PendingBuffer {
    this.buffer ??= { builder: new SegmentBuilder(), dead: new Set() };
    return this.buffer;
  }

  /**
   * The generation a new tombstone counts as made under: while a refresh runs, the one it will
   * publish (which may still show the deleted doc), so that the tombstone counts as refreshed only
   * once the next refresh is published (tombstone-gc.ts).
   */
  private tombstoneGeneration(): number {
    return this.sealing ? this.current.id + 1 : this.current.id;
  }

  /** Puts `merged` where the first of `chosen` was and drops the others (the merge policy's picks, in order). */
  private replaceMerged(chosen: readonly SegState[], merged: SegState): void {
    const set = new Set(chosen);
    const at = this.segs.indexOf(chosen[0]);
    this.segs = this.segs.flatMap((s, i) => (i === at ? [merged] : set.has(s) ? [] : [s]));
  }

  /**
   * Starts a background merge when the merge policy picks one and none is running: the picked
   * segments, as the generation just published holds them, are merged in event-loop slices
   * (segment-merge.ts `mergeSteps`); searches meanwhile read the published generations, which do
   * not change. {@link Shard.commitMerge} then swaps the result in, and another merge starts if
   * the policy still picks one (Lucene's `ConcurrentMergeScheduler`, one thread).
   */
  private maybeMergeInBackground(): void {
    if (this.merging) return;
    const pick = selectMerge(this.segs.map((s) => this.view(s)));
    if (pick.length < 2) return;
    const chosen = pick.map((i) => this.segs[i]);
    // Live docs marked shared: a delete during the merge copies them, so the merge's stay as they are.
    for (const s of chosen) s.shared = true;
    const views = chosen.map((s) => this.view(s));
    this.merging = runSliced((clock) => mergeSteps(views, clock), this.mergeSliceMs).then(
      (merged) => {
        this.merging = null;
        this.commitMerge(chosen, views, merged);
        this.maybeMergeInBackground();
      },
      (err: unknown) => {
        this.merging = null;
        this.lastMergeError = err;
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
  private commitMerge(chosen: readonly SegState[], views: readonly SegmentView[], merged: MergedSegment): void {
    if (chosen.some((s) => !this.segs.includes(s))) return;
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
    const pendingBefore = this.dirty || this.sealing;
    this.replaceMerged(chosen, { segment: merged.segment, live, shared: false, liveCount });
    this.segs = this.segs.filter((s) => s.liveCount > 0);
    if (pendingBefore) this.dirty = true;
    else this.publish(this.segs.map((s) => this.view(s)), this.seqNo);
  }

  /** True while a background merge runs. */
  get mergeRunning(): boolean {
    return this.merging !== null;
  }

  /** Resolves once no background merge is running (tests, and a flush that wants merged segments). */
  async mergesIdle(): Promise<void> {
    while (this.merging) await this.merging;
  }

  /**
   * ES `InternalEngine.maybePruneDeletes`: runs a pruning pass ({@link Shard.pruneTombstones}) when
   * more than `gc_deletes / 4` passed since the last one (called after writes and refreshes, and by
   * the registry's refresh timer so that an idle shard prunes too). With `maxMs`, the pass scans the
   * live version map for about that long and goes on at the next call, due or not (a map of
   * 50,000 tombstones took 20-26 ms in one task on a loaded shard node, docs/reliability.md).
   * @returns the tombstones pruned by this call (0 when no pass was due).
   */
  maybePruneTombstones(maxMs = Infinity): number {
    if (!this.pruning) {
      if (!pruneDue(this.now(), this.lastPruneAt, this.gcDeletesMs)) return 0;
      this.startPruning();
    }
    return this.pruneFor(maxMs);
  }

  /** True while a pruning pass cut by `maybePruneTombstones(maxMs)` is not finished. */
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
  pruneTombstones(): number {
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
    const bounds: PruneBounds = { maxTimestampMs: now - this.gcDeletesMs, maxSeqNo: this.checkpoints.checkpoint, currentGeneration: this.current.id };
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
      if (e.deleted && canPruneTombstone({ seqNo: e.seqNo, deletedAt: e.deletedAt ?? pass.now, generation: e.generation ?? pass.bounds.currentGeneration }, pass.bounds)) {
        this.entries.delete(id);
        pruned++;
      }
      if ((n & (CLOCK_EVERY - 1)) === 0 && performance.now() - started >= maxMs) return pruned;
    }
  }

  /** Entries and tombstones in the live version map (ES `LiveVersionMap` size), counted. */
  versionMapStats(): VersionMapStats {
    let tombstones = 0;
    for (const e of this.entries.values()) if (e.deleted) tombstones++;
    return { entries: this.entries.size, tombstones };
  }

  private view(s: SegState): SegmentView {
    return { segment: s.segment, live: s.live, liveCount: s.liveCount };
  }

  private expire(): void {
    const t = this.now();
    for (const [id, r] of this.retained) if (r.expiresAt <= t) this.retained.delete(id);
  }

  /**
   * The current generation (no id), or a retained one by id. With `keepAliveMs`, the returned
   * generation is retained until `keepAliveMs` after this call (each acquire extends it).
   * @throws EsError 404 `search_context_missing_exception` for an unknown or expired id.
   */
  acquire(generation?: number, keepAliveMs?: number): Generation {
    this.expire();
    let gen: Generation;
    if (generation === undefined || generation === this.current.id) gen = this.current;
    else {
      const r = this.retained.get(generation);
      if (!r) throw searchContextMissing(generation);
      gen = r.gen;
      keepAliveMs ??= r.keepAliveMs;
    }
    if (keepAliveMs !== undefined) this.retained.set(gen.id, { gen, keepAliveMs, expiresAt: this.now() + keepAliveMs });
    return gen;
  }

  /** Retained generations other than the current one (what `Folio-Snapshot` tokens can keep alive), expired ones dropped first. */
  retainedPastGenerations(): number {
    this.expire();
    return this.retained.size - (this.retained.has(this.current.id) ? 1 : 0);
  }

  /** Stops retaining a generation (ES: close a PIT). Returns whether it was retained. */
  release(generation: number): boolean {
    return this.retained.delete(generation);
  }

  /** Real-time get: sees writes that are not refreshed yet, like ES GET `_doc`; `_source` is the stored text. */
  get(id: string): GetResult {
    const e = this.lookup(id);
    this.counters.getTotal++;
    if (!e || e.deleted) {
      this.counters.getMissing++;
      return { found: false };
    }
    this.counters.getExists++;
    const json = e.seg ? e.seg.source(e.ord) : e.buf!.builder.source(e.ord);
    const routing = e.seg ? e.seg.routings?.get(e.ord) : e.buf!.builder.routing(e.ord);
    const ignored = e.seg ? ignoredFields(e.seg, e.ord) : e.buf!.builder.ignored(e.ord);
    return {
      found: true, _version: e.version, _seq_no: e.seqNo, _primary_term: this.primaryTerm,
      ...(routing !== undefined ? { _routing: routing } : {}), ...(ignored !== undefined ? { _ignored: ignored } : {}), _source: json,
    };
  }

  /**
   * Non-real-time get (ES GET `realtime=false`): the document as the current generation, what a
   * search sees, holds it; a write not refreshed yet is not seen.
   */
  getRefreshed(id: string): GetResult {
    const doc = this.current.getDoc(id);
    this.counters.getTotal++;
    if (!doc) {
      this.counters.getMissing++;
      return { found: false };
    }
    this.counters.getExists++;
    return {
      found: true, _version: doc.version, _seq_no: doc.seqNo, _primary_term: this.primaryTerm,
      ...(doc.routing !== undefined ? { _routing: doc.routing } : {}), ...(doc.ignored !== undefined ? { _ignored: doc.ignored } : {}), _source: doc.source,
    };
  }

  /** Doc counts of the current generation. */
  stats(): ShardStats {
    const g = this.current;
    return { docs: g.docCount, deleted: g.deletedCount, segments: g.views.length, generation: g.id };
  }
}
