/**
 * The write side of a shard's durable translog (the `translog` table of its SQLite file,
 * shard-node/storage/shard-store-schema.ts): accepted ops are queued by {@link TranslogWriter.append}
 * and acknowledged by ES's rules. With `index.translog.durability: request` (the default)
 * {@link TranslogWriter.sync} resolves only after the op's transaction is committed with fsync.
 * Group commit: every op appended before the commit runs (at `setImmediate`, after the bulks read
 * in the same event-loop turn) shares one batch, one transaction and one fsync. A batch is written
 * in time slices of `commitSliceMs`, yielding to the event loop between slices inside its
 * transaction, so a large bulk does not hold the node's event loop (docs/reliability.md); its
 * waiters settle once the transaction is committed. With `async`, ops are committed every
 * `syncIntervalMs` and acknowledged at once (a crash loses up to that interval, as in ES).
 * Mirrors ES `TranslogWriter` (`add`, `syncUpTo`) and the `AsyncIOProcessor` that batches the
 * fsyncs of concurrent requests.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules-translog.html
 * @see https://github.com/elastic/elasticsearch/blob/v8.15.0/server/src/main/java/org/elasticsearch/index/translog/TranslogWriter.java
 */
import { yieldToEventLoop } from '../../shared/event-loop-slices.ts';
import { setLongInterval, type LongTimer } from '../../shared/long-timer.ts';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { TranslogOp } from '../engine/translog.ts';
import { opBytes } from './shard-store-schema.ts';

/** ES `index.translog.durability`: fsync before each acknowledgement, or every sync interval. */
export type TranslogDurability = 'request' | 'async';

/** The counters a {@link TranslogWriter} keeps (the store's stats object, shared by reference). */
export interface TranslogWriterCounters {
  /** Ops in the translog (committed, not yet flushed) plus those pending commit. */
  translogOps: number;
  /** Approximate bytes of those ops ({@link opBytes}). */
  translogBytes: number;
  /** Transactions committed for appends (each one fsync). */
  commits: number;
  /** Ops made durable by those commits. */
  committedOps: number;
}

/** A caller of {@link TranslogWriter.sync} waiting for a batch to be committed. */
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

/** Options of a {@link TranslogWriter}. */
export interface TranslogWriterOptions {
  /** The store's open database (its `translog` table exists). */
  db: DatabaseSync;
  /** The store's path, for error messages. */
  path: string;
  /** Longest stretch of translog inserts in one transaction before yielding to the event loop (ms). */
  commitSliceMs: number;
  /** Called when a commit fails. */
  onError: (err: Error) => void;
  /** Counters updated in place. */
  counters: TranslogWriterCounters;
}

/** Queues, group-commits and acknowledges a shard's translog appends. */
export class TranslogWriter {
  private readonly db: DatabaseSync;
  private readonly path: string;
  private readonly insert: StatementSync;
  private readonly commitSliceMs: number;
  private readonly onError: (err: Error) => void;
  private readonly counters: TranslogWriterCounters;
  private durability: TranslogDurability = 'request';
  private syncTimer: LongTimer | null = null;
  private pending: TranslogOp[] = [];
  private waiters: Waiter[] = [];
  private commitScheduled = false;
  /** The batch being written in slices (null when none is). */
  private batch: Batch | null = null;
  /** Whether the sliced commit loop is running (it picks up what is appended meanwhile). */
  private committing = false;
  /** Set when a commit failed: the shard's memory is ahead of its disk, so nothing more is acknowledged. */
  private failed: Error | null = null;
  private closed = false;

  constructor(opts: TranslogWriterOptions) {
    this.db = opts.db;
    this.path = opts.path;
    this.insert = this.db.prepare('INSERT INTO translog (seq_no, id, version, source, routing) VALUES (?, ?, ?, ?, ?)');
    this.commitSliceMs = opts.commitSliceMs;
    this.onError = opts.onError;
    this.counters = opts.counters;
  }

  /** The error of the commit that failed, if one did (nothing is acknowledged after it). */
  get failure(): Error | null {
    return this.failed;
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
   * next {@link TranslogWriter.sync} schedules (every write path syncs before it acknowledges), so a
   * bulk applied in slices is committed once, after its last slice, not once per slice.
   * @throws Error once the writer is closed
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
    if (this.failed) return Promise.reject(this.failed);
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

  /**
   * Visits the ops appended but not written to the table yet, in append order: those of the batch
   * being committed, then the pending ones (disjoint from the table's rows).
   */
  forEachUnwritten(visit: (op: TranslogOp) => void): void {
    if (this.batch) for (let i = this.batch.pos; i < this.batch.ops.length; i++) visit(this.batch.ops[i]);
    for (const op of this.pending) visit(op);
  }

  /** The ops pending commit (not taken into a batch yet) and their bytes ({@link opBytes}). */
  pendingSize(): { ops: number; bytes: number } {
    let bytes = 0;
    for (const op of this.pending) bytes += opBytes(op);
    return { ops: this.pending.length, bytes };
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
        if (batch.pos < batch.ops.length && !this.failed && !this.closed) await yieldToEventLoop();
        // commitNow() may have finished the batch meanwhile (a flush or close).
        if (this.batch === batch && (batch.pos >= batch.ops.length || this.failed || this.closed)) this.settle(batch);
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
   * ({@link TranslogWriter.commitNow} finishes it first), so a batch is durable whole or not at all.
   */
  private writeSlice(batch: Batch, maxMs: number): void {
    if (batch.pos >= batch.ops.length || this.failed || this.closed) return;
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
      this.failed = new Error(`translog commit failed for [${this.path}]: ${(err as Error).message}`);
      this.onError(this.failed);
    }
  }

  /** Ends the current batch: its waiters resolve, or reject when a commit failed. */
  private settle(batch: Batch): void {
    this.batch = null;
    for (const w of batch.waiters) {
      if (this.failed) w.reject(this.failed);
      else w.resolve();
    }
  }

  /**
   * Writes the rest of the batch being committed in slices, if any, and settles it (its transaction
   * is then closed): any other transaction of the store must call this first.
   */
  finishBatch(): void {
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

  /** Stops the sync timer and commits what is pending; later appends throw. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.syncTimer?.clear();
    this.commitNow();
    this.closed = true;
  }
}
