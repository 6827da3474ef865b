/**
 * The durable store of one shard, in one SQLite file (`FOLIO_DATA/<index-uuid>/<shard>/shard.sqlite`;
 * its tables: shard-node/storage/shard-store-schema.ts): the translog of every accepted op since
 * the last flush, the flush snapshot, and the checkpoints each flush records. Appends and their
 * acknowledgement by `index.translog.durability` (group commit) are the {@link TranslogWriter}'s
 * (shard-node/storage/translog-writer.ts); this module opens the file, reads ops back (recovery,
 * ops-based peer recovery) and flushes.
 *
 * Flush first writes the shard's commit as segment files and a commit point beside the file
 * (segment-commits.ts; a restart opens them and replays only the translog above the commit), then
 * folds the translog, up to the commit's seq_no, into `docs` in chunks (each its own transaction,
 * so a crash mid-flush leaves `docs` ⊕ `translog` whole: the rebuild a restart falls back to when
 * a segment file fails its checksum), then truncates the WAL. Mirrors ES `IndexShard`'s store and
 * translog pair (`Store`, `Translog`) behind the engine's {@link Translog} interface.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules-translog.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-flush.html
 */
import { yieldToEventLoop } from '../../shared/event-loop-slices.ts';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { ShardCommit } from '../engine/shard-commit.ts';
import { RetentionHolds, type Translog, type TranslogOp } from '../engine/translog.ts';
import { SegmentCommits } from './segment-commits.ts';
import { addRoutingColumns, rowToOp, SCHEMA, translogSize, type Row } from './shard-store-schema.ts';
import { inTransaction, openDurableDatabase } from './sqlite.ts';
import { TranslogWriter, type TranslogDurability } from './translog-writer.ts';

/** Options of {@link ShardStore.open}. */
export interface ShardStoreOptions {
  /** Path of the SQLite file; parent directories are created. */
  path: string;
  /** Default `request`. */
  durability?: TranslogDurability;
  /** ES `index.translog.sync_interval` in ms for `async` durability (default 5000). */
  syncIntervalMs?: number;
  /** Ops folded per flush transaction (default 2,000, ~10-30 ms here; 20,000 took 100-250 ms): bounds each event-loop pause. */
  flushChunkOps?: number;
  /** Longest stretch of translog inserts in one transaction before yielding to the event loop (default 10 ms). */
  commitSliceMs?: number;
  /** Called when a background (async-mode) commit fails. */
  onError?: (err: Error) => void;
}

/** Counters of a store, for stats, tests and the flush policy. */
export interface ShardStoreStats {
  /** Ops in the translog (committed, not yet flushed) plus those pending commit. */
  translogOps: number;
  /** Approximate bytes of those ops (`_id` + `_source` JSON + 24). */
  translogBytes: number;
  /** Transactions committed for appends (each one fsync): less than bulks when group commit works. */
  commits: number;
  /** Ops made durable by those commits. */
  committedOps: number;
  /** Highest seq_no folded into the snapshot (-1 before the first flush). */
  flushedSeqNo: number;
  /** Epoch ms of the last flush (or of the open). */
  lastFlushAt: number;
}

/** How soon (ms) moved checkpoints are recorded durably ({@link ShardStore.recordCheckpointsSoon}). */
export const CHECKPOINTS_RECORD_MS = 1_000;

/** A shard's durable translog and flush snapshot. Implements the engine's {@link Translog}. */
export class ShardStore implements Translog {
  readonly path: string;
  /**
   * True when the file did not exist and was created by this open: the copy starts empty. The
   * registry refuses to let such a copy pass for one the cluster state has in sync with data
   * (shard-node/hosted-index.ts `checkNotLost`: a lost copy).
   */
  readonly created: boolean;
  private readonly db: DatabaseSync;
  /** Appends, group commit and acknowledgement (shard-node/storage/translog-writer.ts). */
  private readonly writer: TranslogWriter;
  private readonly flushChunkOps: number;
  private flushing: Promise<number> | null = null;
  private closed = false;
  private readonly counters: ShardStoreStats;
  /** The shard's local and global checkpoints, recorded at each flush (set by the registry once the shard exists). */
  checkpointSource: (() => { local: number; global: number }) | null = null;
  /** The pending {@link recordCheckpointsSoon}, if any. */
  private checkpointsTimer: NodeJS.Timeout | null = null;
  /** The segment files and commit points beside the SQLite file (segment-commits.ts). */
  readonly segments: SegmentCommits;
  /**
   * The shard's commit (engine/shard-commit.ts `takeCommit`), set by the registry once the shard
   * exists: each flush then writes it as segment files and a commit point. Null: no segment files.
   */
  commitSource: (() => ShardCommit) | null = null;
  /** Ops a running ops-based peer recovery reads (ES retention leases): a flush leaves them in the translog. */
  private readonly holds = new RetentionHolds();

  private constructor(opts: ShardStoreOptions) {
    this.path = opts.path;
    this.created = !existsSync(opts.path);
    this.db = openDurableDatabase(opts.path);
    this.db.exec(SCHEMA);
    addRoutingColumns(this.db);
    this.flushChunkOps = opts.flushChunkOps ?? 2_000;
    this.segments = new SegmentCommits(dirname(opts.path));
    const flushed = this.db.prepare("SELECT value FROM meta WHERE key = 'flushed_seq_no'").get() as { value: number } | undefined;
    const t = translogSize(this.db);
    this.counters = { translogOps: t.n, translogBytes: t.b, commits: 0, committedOps: 0, flushedSeqNo: flushed?.value ?? -1, lastFlushAt: Date.now() };
    this.writer = new TranslogWriter({
      db: this.db,
      path: this.path,
      commitSliceMs: opts.commitSliceMs ?? 10,
      onError: opts.onError ?? (() => {}),
      counters: this.counters,
    });
    this.setDurability(opts.durability ?? 'request', opts.syncIntervalMs ?? 5000);
  }

  /** Opens (or creates) the store at `opts.path`. @throws when the file is not a readable database */
  static open(opts: ShardStoreOptions): ShardStore {
    return new ShardStore(opts);
  }

  /** Switches durability at run time (ES: `index.translog.durability` is a dynamic setting). */
  setDurability(durability: TranslogDurability, syncIntervalMs: number): void {
    this.writer.setDurability(durability, syncIntervalMs);
  }

  /** Queues accepted ops ({@link TranslogWriter.append}). @throws Error once the store is closed */
  append(ops: readonly TranslogOp[]): void {
    this.writer.append(ops);
  }

  /** Resolves when every op appended so far is durable by the store's durability ({@link TranslogWriter.sync}). */
  sync(): Promise<void> {
    return this.writer.sync();
  }

  /** Durable stores keep ops until a flush, whatever the refresh sealed. */
  trim(): void {}

  /**
   * The ops above `fromSeqNo` (committed and pending), in seq_no order; null when a flush has folded
   * some of them into the snapshot (`fromSeqNo` below the flushed seq_no), where they lost their
   * history.
   */
  opsSince(fromSeqNo: number): TranslogOp[] | null {
    if (this.closed || fromSeqNo < this.counters.flushedSeqNo) return null;
    const out: TranslogOp[] = [];
    for (const r of this.db.prepare('SELECT id, seq_no, version, source, routing FROM translog WHERE seq_no > ? ORDER BY seq_no').iterate(fromSeqNo))
      out.push(rowToOp(r as unknown as Row));
    // The ops not written yet (the batch being committed, the pending ones) are not in the table.
    this.writer.forEachUnwritten((op) => {
      if (op.seqNo > fromSeqNo) out.push(op);
    });
    return out.sort((a, b) => a.seqNo - b.seqNo);
  }

  /** Holds the ops above `fromSeqNo` in the translog (flushes fold none of them) until released; null when some were folded already. */
  retainOps(fromSeqNo: number): (() => void) | null {
    if (this.closed || fromSeqNo < this.counters.flushedSeqNo) return null;
    return this.holds.add(fromSeqNo);
  }

  /**
   * One page of an ops-based recovery: up to `limit` ops with `afterSeqNo` < seq_no ≤ `upToSeqNo`
   * in seq_no order, from the table and from the ops not written yet (the batch being committed,
   * the pending ones), which are disjoint.
   */
  readOps(afterSeqNo: number, upToSeqNo: number, limit: number): TranslogOp[] {
    if (this.closed) return [];
    const out: TranslogOp[] = [];
    const rows = this.db.prepare('SELECT id, seq_no, version, source, routing FROM translog WHERE seq_no > ? AND seq_no <= ? ORDER BY seq_no LIMIT ?');
    for (const r of rows.iterate(afterSeqNo, upToSeqNo, limit)) out.push(rowToOp(r as unknown as Row));
    const inRange = (op: TranslogOp) => op.seqNo > afterSeqNo && op.seqNo <= upToSeqNo;
    let memory = false;
    const fromMemory = (op: TranslogOp) => {
      if (!inRange(op)) return;
      out.push(op);
      memory = true;
    };
    this.writer.forEachUnwritten(fromMemory);
    if (memory) out.sort((a, b) => a.seqNo - b.seqNo);
    return out.length > limit ? out.slice(0, limit) : out;
  }

  /** Writes every pending op now, synchronously ({@link TranslogWriter.commitNow}). Never throws. */
  commitNow(): void {
    this.writer.commitNow();
  }

  /**
   * Recovery: the snapshot's rows then the translog's, each in seq_no order, one op at a time
   * (each `_source` text as stored; the shard parses it when it re-indexes the op).
   */
  *recoveredOps(): Generator<TranslogOp> {
    for (const r of this.db.prepare('SELECT id, seq_no, version, source, routing FROM docs ORDER BY seq_no').iterate()) yield rowToOp(r as unknown as Row);
    for (const r of this.db.prepare('SELECT id, seq_no, version, source, routing FROM translog ORDER BY seq_no').iterate()) yield rowToOp(r as unknown as Row);
  }

  /** Recovery from a commit point: the translog's ops above `seqNo` in seq_no order (the commit holds the rest). */
  *translogOpsAbove(seqNo: number): Generator<TranslogOp> {
    const rows = this.db.prepare('SELECT id, seq_no, version, source, routing FROM translog WHERE seq_no > ? ORDER BY seq_no');
    for (const r of rows.iterate(seqNo)) yield rowToOp(r as unknown as Row);
  }

  /**
   * ES flush: commits pending ops, writes the shard's commit ({@link commitSource}: segment files
   * and a commit point), then folds the translog (up to the commit's seq_no) into the snapshot in chunks of
   * `flushChunkOps` (yielding to the event loop between chunks) and truncates the WAL. Ops appended
   * during the flush stay in the translog. Concurrent calls share one flush. Resolves with the ops
   * folded.
   */
  flush(): Promise<number> {
    this.flushing ??= this.runFlush().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async runFlush(): Promise<number> {
    if (this.closed) return 0;
    // Taken before the commit: every op processed up to it is appended, so durable once committed.
    const checkpoints = this.checkpointSource?.();
    const checkpoint = checkpoints?.local;
    this.commitNow();
    if (this.writer.failure) throw this.writer.failure;
    if (checkpoints !== undefined) this.writeCheckpoints(checkpoints);
    // The commit (segment files, then the commit point) is durable before the fold, and the fold stops at its seq_no.
    if (this.commitSource) {
      try {
        await this.segments.write(this.commitSource());
      } catch (err) {
        if (this.closed) return 0; // the copy was closed (or dropped with its files) meanwhile
        throw err;
      }
    }
    const top = this.db.prepare('SELECT max(seq_no) AS hi FROM translog').get() as { hi: number | null };
    // Folded: the ops at or below the local checkpoint and below every retention hold. Ops above
    // the checkpoint stay in the translog (ES keeps the translog above the safe commit's local
    // checkpoint): a restart replays them one by one and marks each processed, so a gap below them
    // (an op this copy never received) is still a gap, and an op a running recovery reads is kept.
    const foldable = Math.min(top.hi ?? -1, checkpoint ?? Infinity, this.holds.floor, this.segments.committedSeqNo ?? Infinity);
    let folded = 0;
    if (top.hi !== null && foldable >= 0) {
      const upTo = foldable;
      const lowest = this.db.prepare('SELECT min(seq_no) AS lo FROM translog').get() as { lo: number };
      const fold = this.db.prepare(
        `INSERT INTO docs (id, seq_no, version, source, routing)
           SELECT id, seq_no, version, source, routing FROM translog WHERE seq_no BETWEEN ? AND ? ORDER BY seq_no
         ON CONFLICT (id) DO UPDATE SET seq_no = excluded.seq_no, version = excluded.version, source = excluded.source, routing = excluded.routing
           WHERE excluded.seq_no > docs.seq_no`,
      );
      const drop = this.db.prepare('DELETE FROM translog WHERE seq_no BETWEEN ? AND ?');
      const mark = this.db.prepare("INSERT INTO meta (key, value) VALUES ('flushed_seq_no', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
      for (let lo = lowest.lo; lo <= upTo && !this.closed; lo += this.flushChunkOps) {
        const hi = Math.min(lo + this.flushChunkOps - 1, upTo);
        this.writer.finishBatch(); // a group commit may have opened its transaction while the flush yielded
        inTransaction(this.db, () => {
          fold.run(lo, hi);
          folded += Number(drop.run(lo, hi).changes);
          mark.run(hi);
        });
        this.counters.flushedSeqNo = hi;
        if (hi < upTo) await yieldToEventLoop();
      }
    }
    if (!this.closed) {
      this.writer.finishBatch();
      this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      const t = translogSize(this.db);
      const pending = this.writer.pendingSize();
      this.counters.translogOps = t.n + pending.ops;
      this.counters.translogBytes = t.b + pending.bytes;
    }
    this.counters.lastFlushAt = Date.now();
    return folded;
  }

  /**
   * Fills the `docs` snapshot of a new, empty store with the state of a restored commit (ES's
   * restore writes a shard's files, then starts a new history on them): one row per `_id`, given as
   * the ops that set it, in transactions of `flushChunkOps` rows with a yield to the event loop
   * between them, then records `seqNo` as the flushed seq_no and local checkpoint, and
   * `globalCheckpoint` (default `seqNo`), so that the
   * store and the segment files hold the same copy (a segment file failing its checks later is
   * rebuilt from here, docs/segment-files.md). @returns the rows written
   * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/shard/StoreRecovery.java (restore, bootstrapNewHistory)
   */
  async restoreDocs(ops: Iterable<TranslogOp>, seqNo: number, globalCheckpoint = seqNo): Promise<number> {
    const written = await this.putDocs(ops);
    this.markRestored(seqNo, globalCheckpoint);
    return written;
  }

  /**
   * {@link restoreDocs}'s rows only: one per `_id` (the op with the highest seq_no wins, in any
   * order), in transactions of `flushChunkOps` rows with a yield between them. A file-based peer
   * recovery writes each segment's rows as its file arrives. @returns the rows written
   */
  async putDocs(ops: Iterable<TranslogOp>): Promise<number> {
    const put = this.db.prepare(
      `INSERT INTO docs (id, seq_no, version, source, routing) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET seq_no = excluded.seq_no, version = excluded.version, source = excluded.source, routing = excluded.routing
         WHERE excluded.seq_no > docs.seq_no`,
    );
    let batch: TranslogOp[] = [];
    let written = 0;
    const commit = () => {
      inTransaction(this.db, () => {
        for (const op of batch) put.run(op._id, op.seqNo, op.version, op.op === 'index' ? op.json : null, op.op === 'index' ? (op.routing ?? null) : null);
      });
      written += batch.length;
      batch = [];
    };
    for (const op of ops) {
      batch.push(op);
      if (batch.length >= this.flushChunkOps) {
        commit();
        await yieldToEventLoop();
      }
    }
    if (batch.length > 0) commit();
    return written;
  }

  /** {@link restoreDocs}'s end: records `seqNo` as the flushed seq_no and local checkpoint, and `globalCheckpoint`. */
  markRestored(seqNo: number, globalCheckpoint = seqNo): void {
    const mark = this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    inTransaction(this.db, () => {
      mark.run('flushed_seq_no', seqNo);
      mark.run('local_checkpoint', seqNo);
      mark.run('global_checkpoint', globalCheckpoint);
    });
    this.counters.flushedSeqNo = seqNo;
  }

  /**
   * The local checkpoint recorded by the last flush (-1 when none was): a restarted shard starts
   * its checkpoint there and moves it on with the translog it replays (ES store recovery).
   */
  recordedLocalCheckpoint(): number {
    return this.metaValue('local_checkpoint');
  }

  /**
   * Records the current local and global checkpoints ({@link checkpointSource}) within
   * {@link CHECKPOINTS_RECORD_MS}, after committing the ops pending by then (every op at or below
   * the local checkpoint is then in the store), so that a copy stopped by a crash after its writes
   * quiesced, or after a recovery, comes back knowing them (ES persists the global checkpoint in the
   * translog's checkpoint file at each sync, and a recovered copy's commit carries its local
   * checkpoint). Calls while one is pending share it; a flush records them too.
   */
  recordCheckpointsSoon(): void {
    if (this.checkpointsTimer !== null || this.closed) return;
    this.checkpointsTimer = setTimeout(() => {
      this.checkpointsTimer = null;
      if (this.closed || !this.checkpointSource) return;
      this.commitNow(); // the ops at or below them are durable first
      if (this.writer.failure) return;
      this.writeCheckpoints(this.checkpointSource());
    }, CHECKPOINTS_RECORD_MS);
    this.checkpointsTimer.unref();
  }

  /** Records the checkpoints in `meta` in one transaction (neither ever goes back: a lower value changes nothing). */
  private writeCheckpoints(checkpoints: { local: number; global: number }): void {
    const mark = this.db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE excluded.value > meta.value',
    );
    inTransaction(this.db, () => {
      mark.run('local_checkpoint', checkpoints.local);
      mark.run('global_checkpoint', checkpoints.global);
    });
  }

  /** A numeric value of `meta`, or -1 when it was never recorded. */
  private metaValue(key: string): number {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: number } | undefined;
    return row?.value ?? -1;
  }

  /** The global checkpoint recorded by the last flush (-1 when none was; ES keeps it in the translog's checkpoint file). */
  recordedGlobalCheckpoint(): number {
    return this.metaValue('global_checkpoint');
  }

  /** Current counters (a copy). */
  stats(): ShardStoreStats {
    return { ...this.counters };
  }

  /** Commits pending ops and closes the file. Idempotent. */
  close(): void {
    if (this.closed) return;
    if (this.checkpointsTimer !== null) clearTimeout(this.checkpointsTimer);
    this.checkpointsTimer = null;
    this.writer.close();
    this.closed = true;
    this.db.close();
  }
}
