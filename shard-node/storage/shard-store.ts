/**
 * The durable store of one shard, in one SQLite file (`FOLIO_DATA/<index-uuid>/<shard>/shard.sqlite`):
 * - `translog`: every accepted op since the last flush (`source` NULL for a delete tombstone);
 * - `docs`: the flush snapshot, one row per `_id` (latest version, seq_no, `_source`; tombstones
 *   keep a deleted id's version sequence);
 * - `meta`: `flushed_seq_no`, and `local_checkpoint` (the shard's local checkpoint when the flush
 *   began: every op at or below it is in `docs` ⊕ `translog`; ES keeps it in each Lucene commit).
 *
 * Writes are acknowledged by ES's rules: with `index.translog.durability: request` (the default)
 * {@link ShardStore.sync} resolves only after the op's transaction is committed with fsync. Group
 * commit: every op appended before the commit runs (at `setImmediate`, after the bulks read in the
 * same event-loop turn) shares one batch, one transaction and one fsync. A batch is written in
 * time slices of `commitSliceMs`, yielding to the event loop between slices inside its transaction,
 * so a large bulk does not hold the node's event loop (docs/reliability.md); its waiters settle
 * once the transaction is committed. With `async`, ops are committed every `syncIntervalMs` and acknowledged at
 * once (a crash loses up to that interval, as in ES).
 *
 * Flush folds the translog into `docs` in chunks (each its own transaction, so a crash mid-flush
 * leaves `docs` ⊕ `translog` whole), then truncates the WAL.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules-translog.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-flush.html
 */
import { yieldToEventLoop } from '../../shared/event-loop-slices.ts';
import { setLongInterval, type LongTimer } from '../../shared/long-timer.ts';
import { existsSync } from 'node:fs';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { RetentionHolds, type Translog, type TranslogOp } from '../engine/translog.ts';
import { inTransaction, openDurableDatabase } from './sqlite.ts';

/** ES `index.translog.durability`: fsync before each acknowledgement, or every sync interval. */
export type TranslogDurability = 'request' | 'async';

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

const SCHEMA = `
CREATE TABLE IF NOT EXISTS translog (seq_no INTEGER PRIMARY KEY, id TEXT NOT NULL, version INTEGER NOT NULL, source TEXT, routing TEXT);
CREATE TABLE IF NOT EXISTS docs (id TEXT PRIMARY KEY, seq_no INTEGER NOT NULL, version INTEGER NOT NULL, source TEXT, routing TEXT);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
`;

/** Rough on-disk cost of an op, for the flush threshold. */
function opBytes(op: TranslogOp): number {
  return op._id.length + (op.op === 'index' ? op.json.length : 0) + 24;
}

interface Row {
  id: string;
  seq_no: number;
  version: number;
  source: string | null;
  /** The document's custom routing (null: none, or a delete). */
  routing: string | null;
}

/**
 * Adds the `routing` column to the tables of a store written before documents kept their custom
 * routing (their documents had none recorded: they read back without one).
 */
function addRoutingColumns(db: DatabaseSync): void {
  for (const table of ['translog', 'docs']) {
    const cols = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
    if (!cols.some((c) => c.name === 'routing')) db.exec(`ALTER TABLE ${table} ADD COLUMN routing TEXT`);
  }
}

/** A caller of {@link ShardStore.sync} waiting for a batch to be committed. */
interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

/** Ops taken from `pending` for one group commit, written from `pos` on, and who waits for them. */
interface Batch {
  ops: TranslogOp[];
  pos: number;
  waiters: Waiter[];
}

function rowToOp(r: Row): TranslogOp {
  if (r.source === null) return { op: 'delete', _id: r.id, seqNo: r.seq_no, version: r.version };
  return { op: 'index', _id: r.id, json: r.source, seqNo: r.seq_no, version: r.version, ...(r.routing !== null ? { routing: r.routing } : {}) };
}

/** How soon (ms) moved checkpoints are recorded durably ({@link ShardStore.recordCheckpointsSoon}). */
export const CHECKPOINTS_RECORD_MS = 1_000;

/** A shard's durable translog and flush snapshot. Implements the engine's {@link Translog}. */
export class ShardStore implements Translog {
  readonly path: string;
  /**
   * True when the file did not exist and was created by this open: the copy starts empty. The
   * registry refuses to let such a copy pass for one the cluster state has in sync with data
   * (shard-node/index-registry.ts: a lost copy).
   */
  readonly created: boolean;
  private readonly db: DatabaseSync;
  private readonly insert: StatementSync;
  private readonly flushChunkOps: number;
  private readonly commitSliceMs: number;
  private readonly onError: (err: Error) => void;
  private durability: TranslogDurability = 'request';
  private syncTimer: LongTimer | null = null;
  private pending: TranslogOp[] = [];
  private waiters: Waiter[] = [];
  private commitScheduled = false;
  /** The batch being written in slices (null when none is). */
  private batch: Batch | null = null;
  /** Whether the sliced commit loop is running (it picks up what is appended meanwhile). */
  private committing = false;
  private flushing: Promise<number> | null = null;
  /** Set when a commit failed: the shard's memory is ahead of its disk, so nothing more is acknowledged. */
  private failure: Error | null = null;
  private closed = false;
  private readonly counters: ShardStoreStats;
  /** The shard's local and global checkpoints, recorded at each flush (set by the registry once the shard exists). */
  checkpointSource: (() => { local: number; global: number }) | null = null;
  /** The pending {@link recordCheckpointsSoon}, if any. */
  private checkpointsTimer: NodeJS.Timeout | null = null;
  /** Ops a running ops-based peer recovery reads (ES retention leases): a flush leaves them in the translog. */
  private readonly holds = new RetentionHolds();

  private constructor(opts: ShardStoreOptions) {
    this.path = opts.path;
    this.created = !existsSync(opts.path);
    this.db = openDurableDatabase(opts.path);
    this.db.exec(SCHEMA);
    addRoutingColumns(this.db);
    this.insert = this.db.prepare('INSERT INTO translog (seq_no, id, version, source, routing) VALUES (?, ?, ?, ?, ?)');
    this.flushChunkOps = opts.flushChunkOps ?? 2_000;
    this.commitSliceMs = opts.commitSliceMs ?? 10;
    this.onError = opts.onError ?? (() => {});
    const flushed = this.db.prepare("SELECT value FROM meta WHERE key = 'flushed_seq_no'").get() as { value: number } | undefined;
    const t = this.db.prepare('SELECT count(*) AS n, coalesce(sum(length(id) + coalesce(length(source), 0) + 24), 0) AS b FROM translog').get() as { n: number; b: number };
    this.counters = { translogOps: t.n, translogBytes: t.b, commits: 0, committedOps: 0, flushedSeqNo: flushed?.value ?? -1, lastFlushAt: Date.now() };
    this.setDurability(opts.durability ?? 'request', opts.syncIntervalMs ?? 5000);
  }

  /** Opens (or creates) the store at `opts.path`. @throws when the file is not a readable database */
  static open(opts: ShardStoreOptions): ShardStore {
    return new ShardStore(opts);
  }

  /** Switches durability at run time (ES: `index.translog.durability` is a dynamic setting). */
  setDurability(durability: TranslogDurability, syncIntervalMs: number): void {
    this.syncTimer?.clear();
    this.syncTimer = null;
    this.durability = durability;
    if (durability === 'async') {
      this.syncTimer = setLongInterval(() => this.commitNow(), Math.max(syncIntervalMs, 10)).unref();
    } else if (this.pending.length > 0) this.scheduleCommit();
  }

  /**
   * Queues accepted ops. With `request` durability they are committed by the group commit that the
   * next {@link ShardStore.sync} schedules (every write path syncs before it acknowledges), so a
   * bulk applied in slices is committed once, after its last slice, not once per slice.
   */
  append(ops: readonly TranslogOp[]): void {
    if (this.closed) throw new Error(`shard store [${this.path}] is closed`);
    for (const op of ops) {
      this.pending.push(op);
      this.counters.translogOps++;
      this.counters.translogBytes += opBytes(op);
    }
  }

  /**
   * Resolves when every op appended so far is committed with fsync (`request`), or at once
   * (`async`). Rejects once a commit has failed: the caller must not acknowledge.
   */
  sync(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.durability === 'async') return Promise.resolve();
    // Nothing pending: the caller's ops are committed already, or in the batch being written.
    if (this.pending.length === 0 && this.batch === null) return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) this.batch!.waiters.push({ resolve, reject });
      else {
        this.waiters.push({ resolve, reject });
        this.scheduleCommit();
      }
    });
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
    for (const r of this.db.prepare('SELECT id, seq_no, version, source, routing FROM translog WHERE seq_no > ? ORDER BY seq_no').iterate(fromSeqNo)) out.push(rowToOp(r as unknown as Row));
    // The batch being committed: its ops not written yet are in neither the table nor `pending`.
    if (this.batch) for (let i = this.batch.pos; i < this.batch.ops.length; i++) if (this.batch.ops[i].seqNo > fromSeqNo) out.push(this.batch.ops[i]);
    for (const op of this.pending) if (op.seqNo > fromSeqNo) out.push(op);
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
    if (this.batch) for (let i = this.batch.pos; i < this.batch.ops.length; i++) fromMemory(this.batch.ops[i]);
    for (const op of this.pending) fromMemory(op);
    if (memory) out.sort((a, b) => a.seqNo - b.seqNo);
    return out.length > limit ? out.slice(0, limit) : out;
  }

  private scheduleCommit(): void {
    if (this.commitScheduled || this.committing) return;
    this.commitScheduled = true;
    setImmediate(() => {
      this.commitScheduled = false;
      void this.commitSliced();
    });
  }

  /**
   * The group commit of `request` durability: takes the pending ops as one batch and writes it in
   * slices of about `commitSliceMs`, yielding to the event loop between slices; settles the batch's
   * waiters once it is whole, then takes what was appended meanwhile. Never throws.
   */
  private async commitSliced(): Promise<void> {
    if (this.committing) return;
    this.committing = true;
    try {
      while (this.batch !== null || this.pending.length > 0 || this.waiters.length > 0) {
        const batch = this.batch ?? this.takeBatch();
        this.writeSlice(batch, this.commitSliceMs);
        if (batch.pos < batch.ops.length && !this.failure && !this.closed) await yieldToEventLoop();
        // commitNow() may have finished the batch meanwhile (a flush or close).
        if (this.batch === batch && (batch.pos >= batch.ops.length || this.failure || this.closed)) this.settle(batch);
      }
    } finally {
      this.committing = false;
    }
  }

  private takeBatch(): Batch {
    this.batch = { ops: this.pending, pos: 0, waiters: this.waiters };
    this.pending = [];
    this.waiters = [];
    return this.batch;
  }

  /**
   * Writes the batch's next ops for about `maxMs` (all of them when `maxMs` is Infinity). A batch is
   * one transaction, opened by its first slice and committed (one fsync) by its last: the slices
   * between run across event-loop turns, and every other transaction of this store waits for it
   * ({@link ShardStore.commitNow} finishes it first), so a batch is durable whole or not at all.
   */
  private writeSlice(batch: Batch, maxMs: number): void {
    if (batch.pos >= batch.ops.length || this.failure || this.closed) return;
    const started = performance.now();
    try {
      if (!this.db.isTransaction) this.db.exec('BEGIN IMMEDIATE');
      const ops = batch.ops;
      let i = batch.pos;
      while (i < ops.length) {
        const op = ops[i++];
        this.insert.run(op.seqNo, op._id, op.version, op.op === 'index' ? op.json : null, op.op === 'index' ? (op.routing ?? null) : null);
        if ((i & 63) === 0 && performance.now() - started >= maxMs) break;
      }
      batch.pos = i;
      if (i >= ops.length) {
        this.db.exec('COMMIT');
        if (ops.length > 0) {
          this.counters.commits++;
          this.counters.committedOps += ops.length;
        }
      }
    } catch (err) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      this.failure = new Error(`translog commit failed for [${this.path}]: ${(err as Error).message}`);
      this.onError(this.failure);
    }
  }

  /** Ends the current batch: its waiters resolve, or reject when a commit failed. */
  private settle(batch: Batch): void {
    this.batch = null;
    for (const w of batch.waiters) {
      if (this.failure) w.reject(this.failure);
      else w.resolve();
    }
  }

  /** Writes the rest of the batch being committed in slices, if any, and settles it (its transaction is then closed). */
  private finishBatch(): void {
    if (this.batch) {
      this.writeSlice(this.batch, Infinity);
      this.settle(this.batch);
    }
  }

  /**
   * Writes every pending op now, synchronously (the batch being written in slices first, so seq_no
   * order holds), and settles the waiters. Used by flushes, `close` and `async` durability. Never throws.
   */
  commitNow(): void {
    this.finishBatch();
    if (this.pending.length > 0 || this.waiters.length > 0) {
      const batch = this.takeBatch();
      this.writeSlice(batch, Infinity);
      this.settle(batch);
    }
  }

  /**
   * Recovery: the snapshot's rows then the translog's, each in seq_no order, one op at a time
   * (each `_source` text as stored; the shard parses it when it re-indexes the op).
   */
  *recoveredOps(): Generator<TranslogOp> {
    for (const r of this.db.prepare('SELECT id, seq_no, version, source, routing FROM docs ORDER BY seq_no').iterate()) yield rowToOp(r as unknown as Row);
    for (const r of this.db.prepare('SELECT id, seq_no, version, source, routing FROM translog ORDER BY seq_no').iterate()) yield rowToOp(r as unknown as Row);
  }

  /**
   * ES flush: commits pending ops, then folds the translog into the snapshot in chunks of
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
    if (this.failure) throw this.failure;
    if (checkpoints !== undefined) this.writeCheckpoints(checkpoints);
    const top = this.db.prepare('SELECT max(seq_no) AS hi FROM translog').get() as { hi: number | null };
    // Folded: the ops at or below the local checkpoint and below every retention hold. Ops above
    // the checkpoint stay in the translog (ES keeps the translog above the safe commit's local
    // checkpoint): a restart replays them one by one and marks each processed, so a gap below them
    // (an op this copy never received) is still a gap, and an op a running recovery reads is kept.
    const foldable = Math.min(top.hi ?? -1, checkpoint ?? Infinity, this.holds.floor);
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
        this.finishBatch(); // a group commit may have opened its transaction while the flush yielded
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
      this.finishBatch();
      this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      const t = this.db.prepare('SELECT count(*) AS n, coalesce(sum(length(id) + coalesce(length(source), 0) + 24), 0) AS b FROM translog').get() as { n: number; b: number };
      let pendingBytes = 0;
      for (const op of this.pending) pendingBytes += opBytes(op);
      this.counters.translogOps = t.n + this.pending.length;
      this.counters.translogBytes = t.b + pendingBytes;
    }
    this.counters.lastFlushAt = Date.now();
    return folded;
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
      if (this.failure) return;
      this.writeCheckpoints(this.checkpointSource());
    }, CHECKPOINTS_RECORD_MS);
    this.checkpointsTimer.unref();
  }

  /** Records the checkpoints in `meta` in one transaction (neither ever goes back: a lower value changes nothing). */
  private writeCheckpoints(checkpoints: { local: number; global: number }): void {
    const mark = this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE excluded.value > meta.value');
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
    this.syncTimer?.clear();
    if (this.checkpointsTimer !== null) clearTimeout(this.checkpointsTimer);
    this.checkpointsTimer = null;
    this.commitNow();
    this.closed = true;
    this.db.close();
  }
}
