/**
 * The state store for single-host use: etcd's v3 data model in one process, so `npm start` needs
 * nothing else. In-memory MVCC (a store revision raised by one per write, per-key create/mod
 * revisions and versions, a bounded history for watches), leases on timers, and durability
 * through {@link EmbeddedLog} (every write is fsynced before it is applied, read or acknowledged).
 *
 * Writes (transactions, lease grants and ends, compactions) run one at a time in arrival order;
 * reads are served from memory and only ever see durable writes. That makes every operation
 * linearizable, as etcd's are by default.
 *
 * Differences from etcd, all documented in docs/cluster-state.md:
 * - History is kept in memory only: after a restart, watches can start at the revision after the
 *   current one (older starts fail with `compacted`), and at most `historyRetainRevisions` revisions
 *   are kept (etcd's revision-mode auto-compaction).
 * - Leases restart with their full TTL when the store reopens, as etcd's do when a new leader takes
 *   over; there is no minimum TTL (etcd rounds up to about 2 s with default timings).
 *
 * @see https://etcd.io/docs/v3.4/learning/api/
 * @see https://etcd.io/docs/v3.4/learning/data_model/
 * @example
 * const store = await EmbeddedStore.open({ dir: 'data/cluster-state' });
 * const r = await store.txn({ compare: [{ key: 'a', modRevision: 0 }], ops: [{ op: 'put', key: 'a', value: '1' }] });
 */
import { EmbeddedLog } from './embedded-log.ts';
import type { LogRecord, Snapshot } from './embedded-log.ts';
import { StateStoreError } from './errors.ts';
import { checkKey, checkTtl, checkTxn, compareKeyBytes } from './request-checks.ts';
import { WatchHistory } from './watch-history.ts';
import type { KeyValue, Lease, LeaseId, RangeResult, Revision, StateStore, TxnRequest, TxnResult, WatchBatch, WatchEvent, WatchOptions } from './types.ts';

/** Revisions of history kept for watches before the oldest is compacted away. */
export const DEFAULT_HISTORY_RETAIN_REVISIONS = 10_000;
/** Log size after which the state is written as a new snapshot and the log emptied. */
export const DEFAULT_WAL_ROTATE_BYTES = 4 * 1024 * 1024;

/** Options of {@link EmbeddedStore.open}. */
export interface EmbeddedStoreOptions {
  /** Directory holding the store's files (created if absent; locked while open). */
  dir: string;
  /** Default {@link DEFAULT_HISTORY_RETAIN_REVISIONS}. */
  historyRetainRevisions?: number;
  /** Default {@link DEFAULT_WAL_ROTATE_BYTES}. */
  walRotateBytes?: number;
}

interface LeaseState {
  ttlSeconds: number;
  /** `performance.now()` at which the lease ends without a keep-alive. */
  expiresAtMs: number;
  keys: Set<string>;
  timer: NodeJS.Timeout | undefined;
}

/** A key-value change resolved from a transaction: a put (with lease or null) or a delete. */
type Change = { key: string; value: string; lease: string | null } | { key: string; value: undefined; lease?: undefined };

/** See the module comment. Create with {@link EmbeddedStore.open}. */
export class EmbeddedStore implements StateStore {
  private readonly log: EmbeddedLog;
  private readonly walRotateBytes: number;
  private readonly kvs = new Map<string, KeyValue>();
  private readonly leases = new Map<LeaseId, LeaseState>();
  /** The history and the open watches. */
  private readonly watches: WatchHistory;
  private revision: Revision = 1;
  private nextLeaseId = 1n;
  private writes: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** A snapshot is queued to empty the log. */
  private rotating = false;
  /** Set when a write failed on disk: memory and disk may differ, so the store refuses everything. */
  private failure: Error | undefined;

  private constructor(log: EmbeddedLog, options: EmbeddedStoreOptions) {
    this.log = log;
    this.watches = new WatchHistory(options.historyRetainRevisions ?? DEFAULT_HISTORY_RETAIN_REVISIONS);
    this.walRotateBytes = options.walRotateBytes ?? DEFAULT_WAL_ROTATE_BYTES;
  }

  /**
   * Opens (or creates) the store in `options.dir`: takes the lock, reads the snapshot and log back,
   * restarts the leases' timers, and writes a fresh snapshot. Throws `locked` or `corrupt`.
   */
  static async open(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
    const { log, snapshot, records } = await EmbeddedLog.open(options.dir);
    const store = new EmbeddedStore(log, options);
    try {
      store.restore(snapshot, records);
      await log.writeSnapshot(store.snapshot());
    } catch (err) {
      await log.close();
      throw err;
    }
    return store;
  }

  /** The store revision now (etcd's response `header.revision`): every write applied so far is durable. */
  get currentRevision(): Revision {
    return this.revision;
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the StateStore interface is async: a throw here must reject, as the etcd client's calls do
  async get(key: string): Promise<KeyValue | undefined> {
    this.checkOpen();
    checkKey(key);
    return this.kvs.get(key);
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the StateStore interface is async: a throw here must reject, as the etcd client's calls do
  async range(prefix: string): Promise<RangeResult> {
    this.checkOpen();
    if (typeof prefix !== 'string') throw new StateStoreError('invalid_argument', 'prefix must be a string');
    const kvs: KeyValue[] = [];
    for (const kv of this.kvs.values()) if (kv.key.startsWith(prefix)) kvs.push(kv);
    kvs.sort((a, b) => compareKeyBytes(a.key, b.key));
    return { kvs, revision: this.revision };
  }

  async txn(request: TxnRequest): Promise<TxnResult> {
    return (await this.txnWithDeletes(request)).result;
  }

  /**
   * {@link txn}, also returning the keys it deleted (in op order; empty when it failed or deleted
   * nothing), so the served store (state-store/kv-service.ts) can answer etcd's per-op `deleted` counts.
   */
  async txnWithDeletes(request: TxnRequest): Promise<{ result: TxnResult; deletedKeys: string[] }> {
    checkTxn(request);
    return this.serialize(async (): Promise<{ result: TxnResult; deletedKeys: string[] }> => {
      const holds = request.compare.every((c) => {
        const kv = this.kvs.get(c.key);
        return 'modRevision' in c ? (kv?.modRevision ?? 0) === c.modRevision : (kv?.createRevision ?? 0) === c.createRevision;
      });
      if (!holds) {
        const current = new Map<string, KeyValue | undefined>();
        for (const c of request.compare) current.set(c.key, this.kvs.get(c.key));
        return { result: { succeeded: false, revision: this.revision, current }, deletedKeys: [] };
      }
      const changes: Change[] = [];
      for (const op of request.ops) {
        if (op.op === 'put') {
          if (op.lease !== undefined && !this.leases.has(op.lease)) throw new StateStoreError('lease_not_found', 'requested lease not found');
          changes.push({ key: op.key, value: op.value, lease: op.lease ?? null });
        } else if (op.op === 'delete') {
          if (this.kvs.has(op.key)) changes.push({ key: op.key, value: undefined });
        } else {
          const keys = [...this.kvs.keys()].filter((k) => k.startsWith(op.prefix)).sort(compareKeyBytes);
          for (const key of keys) changes.push({ key, value: undefined });
        }
      }
      // A key deleted twice (overlapping deletes) is one delete event, as in etcd.
      const seen = new Set<string>();
      const unique = changes.filter((c) => !seen.has(c.key) && seen.add(c.key));
      if (unique.length === 0) return { result: { succeeded: true, revision: this.revision }, deletedKeys: [] };
      const rev = this.revision + 1;
      const puts: Array<[string, string, string | null]> = [];
      const dels: string[] = [];
      for (const c of unique) {
        if (c.value === undefined) dels.push(c.key);
        else puts.push([c.key, c.value, c.lease]);
      }
      await this.persist({ t: 'txn', rev, puts, dels });
      this.apply(rev, unique);
      return { result: { succeeded: true, revision: rev }, deletedKeys: dels };
    });
  }

  async grantLease(ttlSeconds: number): Promise<Lease> {
    checkTtl(ttlSeconds);
    return this.serialize(async () => {
      const id = String(this.nextLeaseId);
      await this.persist({ t: 'grant', id, ttl: ttlSeconds });
      this.nextLeaseId += 1n;
      this.leases.set(id, { ttlSeconds, expiresAtMs: 0, keys: new Set(), timer: undefined });
      this.armLease(id);
      return { id, ttlSeconds };
    });
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the StateStore interface is async: a throw here must reject, as the etcd client's calls do
  async keepAliveLease(id: LeaseId): Promise<number> {
    this.checkOpen();
    const lease = this.leases.get(id);
    if (!lease) throw new StateStoreError('lease_not_found', 'requested lease not found');
    this.armLease(id);
    return lease.ttlSeconds;
  }

  async revokeLease(id: LeaseId): Promise<void> {
    return this.serialize(async () => {
      if (!this.leases.has(id)) throw new StateStoreError('lease_not_found', 'requested lease not found');
      await this.endLease(id);
    });
  }

  watch(prefix: string, options: WatchOptions = {}): AsyncIterable<WatchBatch> {
    this.checkOpen();
    if (typeof prefix !== 'string') throw new StateStoreError('invalid_argument', 'prefix must be a string');
    const start = options.fromRevision ?? this.revision + 1;
    if (!Number.isSafeInteger(start) || start < 1) throw new StateStoreError('invalid_argument', `fromRevision must be an integer ≥ 1, got ${start}`);
    return this.watchFrom(prefix, start, options.signal);
  }

  async compact(revision: Revision): Promise<void> {
    return this.serialize(async () => {
      if (revision <= this.watches.compactRevision) {
        throw new StateStoreError('compacted', 'mvcc: required revision has been compacted', { compactRevision: this.watches.compactRevision });
      }
      if (revision > this.revision) throw new StateStoreError('invalid_argument', 'mvcc: required revision is a future revision');
      await this.persist({ t: 'compact', rev: revision });
      this.watches.compactTo(revision);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes.catch(() => undefined);
    for (const lease of this.leases.values()) clearTimeout(lease.timer);
    this.watches.endAll();
    await this.log.close();
  }

  // --- internals ---

  private checkOpen(): void {
    if (this.closed) throw new StateStoreError('closed', 'the embedded state store is closed');
    if (this.failure) throw new StateStoreError('unavailable', `the embedded state store failed to write: ${this.failure.message}`, { cause: this.failure });
  }

  /** Runs `write` after every earlier write, one at a time. */
  private serialize<T>(write: () => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      this.checkOpen();
      return write();
    };
    const result = this.writes.then(run, run);
    this.writes = result.catch(() => undefined);
    return result;
  }

  /** Appends a record durably; a disk failure fails the store for good (memory may not match disk). */
  private async persist(record: LogRecord): Promise<void> {
    try {
      await this.log.append(record);
      if (this.log.logBytes > this.walRotateBytes && !this.rotating) {
        // The snapshot must include this record, so it is queued behind the write now running.
        this.rotating = true;
        void this.serialize(() => this.log.writeSnapshot(this.snapshot()))
          .catch((err: Error) => (this.failure ??= err))
          .finally(() => (this.rotating = false));
      }
    } catch (err) {
      this.failure ??= err as Error;
      throw new StateStoreError('unavailable', `the embedded state store failed to write: ${(err as Error).message}`, { ambiguous: true, cause: err });
    }
  }

  /** Applies resolved changes at `rev` in memory and hands the batch to the watches. */
  private apply(rev: Revision, changes: Change[]): void {
    const events: WatchEvent[] = [];
    for (const c of changes) {
      const old = this.kvs.get(c.key);
      if (old?.lease !== undefined) this.leases.get(old.lease)?.keys.delete(c.key);
      if (c.value === undefined) {
        this.kvs.delete(c.key);
        events.push({ type: 'delete', kv: Object.freeze({ key: c.key, value: '', createRevision: 0, modRevision: rev, version: 0 }) });
        continue;
      }
      const kv: KeyValue = { key: c.key, value: c.value, createRevision: old?.createRevision ?? rev, modRevision: rev, version: (old?.version ?? 0) + 1 };
      if (c.lease !== null) {
        kv.lease = c.lease;
        this.leases.get(c.lease)?.keys.add(c.key);
      }
      Object.freeze(kv);
      this.kvs.set(c.key, kv);
      events.push({ type: 'put', kv });
    }
    this.revision = rev;
    this.watches.append({ revision: rev, events });
  }

  private async *watchFrom(prefix: string, start: Revision, signal: AbortSignal | undefined): AsyncGenerator<WatchBatch> {
    this.checkOpen();
    yield* this.watches.watch(prefix, start, signal);
  }

  /** (Re)starts a lease's expiry timer at its full TTL. */
  private armLease(id: LeaseId): void {
    const lease = this.leases.get(id);
    if (!lease) return;
    clearTimeout(lease.timer);
    lease.expiresAtMs = performance.now() + lease.ttlSeconds * 1000;
    lease.timer = setTimeout(() => this.expire(id), lease.ttlSeconds * 1000);
    lease.timer.unref();
  }

  /** A lease's timer fired: end it, unless a keep-alive moved its end since (or the timer ran early). */
  private expire(id: LeaseId): void {
    void this.serialize(async () => {
      const lease = this.leases.get(id);
      if (!lease) return;
      const remainingMs = lease.expiresAtMs - performance.now();
      if (remainingMs > 0) {
        clearTimeout(lease.timer);
        lease.timer = setTimeout(() => this.expire(id), Math.ceil(remainingMs));
        lease.timer.unref();
        return;
      }
      await this.endLease(id);
    }).catch(() => undefined); // a closed or failed store keeps its leases on disk; they restart on open
  }

  /** Ends a lease durably and deletes its keys in one revision. Runs inside {@link serialize}. */
  private async endLease(id: LeaseId): Promise<void> {
    const lease = this.leases.get(id);
    if (!lease) return;
    const keys = [...lease.keys].sort(compareKeyBytes);
    const rev = keys.length > 0 ? this.revision + 1 : null;
    await this.persist({ t: 'revoke', id, rev, dels: keys });
    clearTimeout(lease.timer);
    this.leases.delete(id);
    if (rev !== null)
      this.apply(
        rev,
        keys.map((key) => ({ key, value: undefined })),
      );
  }

  /** Rebuilds the state from the snapshot and the log records after it. */
  private restore(snapshot: Snapshot | undefined, records: LogRecord[]): void {
    if (snapshot) {
      this.revision = snapshot.revision;
      this.nextLeaseId = BigInt(snapshot.nextLeaseId);
      for (const l of snapshot.leases) this.leases.set(l.id, { ttlSeconds: l.ttlSeconds, expiresAtMs: 0, keys: new Set(), timer: undefined });
      for (const kv of snapshot.kvs) {
        this.kvs.set(kv.key, Object.freeze({ ...kv }));
        if (kv.lease !== undefined) this.leases.get(kv.lease)?.keys.add(kv.key);
      }
    }
    for (const r of records) {
      if (r.t === 'grant') {
        if (BigInt(r.id) < this.nextLeaseId) continue;
        this.leases.set(r.id, { ttlSeconds: r.ttl, expiresAtMs: 0, keys: new Set(), timer: undefined });
        this.nextLeaseId = BigInt(r.id) + 1n;
      } else if (r.t === 'txn') {
        if (r.rev <= this.revision) continue;
        const changes: Change[] = [...r.puts.map(([key, value, lease]) => ({ key, value, lease })), ...r.dels.map((key) => ({ key, value: undefined }))];
        this.apply(r.rev, changes);
      } else if (r.t === 'revoke') {
        if (r.rev !== null && r.rev <= this.revision) continue;
        this.leases.delete(r.id);
        if (r.rev !== null)
          this.apply(
            r.rev,
            r.dels.map((key) => ({ key, value: undefined })),
          );
      } else if (r.t === 'compact') {
        this.watches.compactTo(r.rev);
      }
    }
    // History lives in memory only: after a restart, watches start after the current revision.
    this.watches.restart(this.revision + 1);
    for (const id of this.leases.keys()) this.armLease(id);
  }

  private snapshot(): Snapshot {
    return {
      format: 1,
      revision: this.revision,
      compactRevision: this.watches.compactRevision,
      nextLeaseId: String(this.nextLeaseId),
      kvs: [...this.kvs.values()],
      leases: [...this.leases].map(([id, l]) => ({ id, ttlSeconds: l.ttlSeconds })),
    };
  }
}
