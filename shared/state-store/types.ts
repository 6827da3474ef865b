/**
 * The narrow interface through which Folio reads and writes its cluster state: a versioned
 * key-value store with compare-and-swap transactions, leases and ordered watches. It is the subset
 * of etcd's v3 API that the cluster state needs, so it has two implementations with the same
 * behaviour: {@link import('./etcd-store.ts').EtcdStore} (a real etcd over its JSON gateway) and
 * {@link import('./embedded-store.ts').EmbeddedStore} (one process, durable to a directory).
 * Both pass one contract suite (`state-store.contract.ts`). The design and the choice of client
 * are written down in docs/cluster-state.md.
 *
 * Keys and values are strings, stored as their UTF-8 bytes; keys sort by those bytes, as in etcd.
 *
 * @see https://etcd.io/docs/v3.4/learning/api/ (the data model, revisions, txn, lease and watch)
 * @see https://etcd.io/docs/v3.4/learning/api_guarantees/ (what a client may rely on)
 */

/**
 * A store revision: etcd's 64-bit `revision`, a counter that every write transaction raises by
 * exactly one (a transaction that changes nothing does not raise it). A fresh store is at
 * revision 1. Held as a JS number, exact up to 2^53 writes.
 * @see https://etcd.io/docs/v3.4/learning/data_model/
 */
export type Revision = number;

/**
 * A lease id: etcd's int64 lease `ID`, kept as its decimal string because lease ids use all 63
 * bits and do not fit a JS number. Never `'0'` (etcd's "no lease").
 */
export type LeaseId = string;

/**
 * One key as stored, with its MVCC metadata (etcd's `mvccpb.KeyValue`).
 * - `createRevision`: the revision of the write that created the key (a delete and re-create gives a new one).
 * - `modRevision`: the revision of the key's last write; the value to compare for compare-and-swap.
 * - `version`: writes to the key since it was created (1 after the create).
 * - `lease`: the lease the key is attached to; the key is deleted when that lease ends.
 * @see https://etcd.io/docs/v3.4/learning/api/#key-value-pair
 */
export interface KeyValue {
  key: string;
  value: string;
  createRevision: Revision;
  modRevision: Revision;
  version: number;
  lease?: LeaseId;
}

/** The keys under a prefix as of one revision (etcd's `RangeResponse`), sorted by key bytes. */
export interface RangeResult {
  kvs: KeyValue[];
  /** The store revision the read was taken at (etcd's `header.revision`). */
  revision: Revision;
}

/**
 * One guard of a transaction: the key's mod or create revision must equal the given value. `0`
 * means "the key does not exist" (etcd compares a missing key's revisions as 0). Compare on the
 * `modRevision` you read to write only if nobody wrote since; on `createRevision` to act only on
 * the same incarnation of a key (the election's leader key).
 * @see https://etcd.io/docs/v3.4/learning/api/#transaction (Compare targets MOD and CREATE, result EQUAL)
 */
export type Compare = { key: string; modRevision: Revision } | { key: string; createRevision: Revision };

/**
 * One write of a transaction. A key may be written at most once per transaction, and a `put`
 * may not fall inside a `deletePrefix` of the same transaction (etcd: "duplicate key given in txn
 * request"); such a transaction is refused with `invalid_argument`.
 * - `put`: sets `value`; with `lease`, attaches the key to that lease (`lease_not_found` if it has ended).
 * - `delete`: removes one key (nothing happens if it is absent).
 * - `deletePrefix`: removes every key that starts with `prefix` (not `''`).
 * @see https://etcd.io/docs/v3.4/learning/api/#transaction (RequestOp: put, delete_range)
 */
export type TxnOp = { op: 'put'; key: string; value: string; lease?: LeaseId } | { op: 'delete'; key: string } | { op: 'deletePrefix'; prefix: string };

/** A compare-and-swap transaction: if every compare holds, all of `ops` apply at one revision. */
export interface TxnRequest {
  compare: Compare[];
  ops: TxnOp[];
}

/**
 * The outcome of a transaction.
 * - Succeeded: every op applied, atomically, at `revision` (the store revision after it; unchanged
 *   if the ops changed nothing).
 * - Failed: a compare did not hold and nothing was written. `current` holds, for every compared
 *   key, what is stored now (`undefined` when absent), read at `revision` in the same transaction,
 *   so the loser can decide and retry without another read.
 * @see https://etcd.io/docs/v3.4/learning/api/#transaction (TxnResponse.succeeded, failure ops)
 */
export type TxnResult = { succeeded: true; revision: Revision } | { succeeded: false; revision: Revision; current: Map<string, KeyValue | undefined> };

/** A granted lease (etcd's `LeaseGrantResponse`). */
export interface Lease {
  id: LeaseId;
  /** Seconds the lease lives without a keep-alive (the server may round up; etcd's minimum TTL applies). */
  ttlSeconds: number;
}

/**
 * One change seen by a watch. For a `delete`, `kv` carries only `key` and `modRevision` (the
 * revision of the delete), with `value` `''` and the other revisions 0, as etcd sends it.
 * @see https://etcd.io/docs/v3.4/learning/api/#events
 */
export interface WatchEvent {
  type: 'put' | 'delete';
  kv: KeyValue;
}

/** Every event of one revision under the watched prefix: one transaction's changes, never split. */
export interface WatchBatch {
  revision: Revision;
  events: WatchEvent[];
}

/** Options of {@link StateStore.watch}. */
export interface WatchOptions {
  /**
   * First revision to report, inclusive (etcd's `start_revision`), an integer ≥ 1. Default: the
   * revision after the current one, i.e. only changes made after the watch starts. Below the
   * compacted revision the watch fails with `compacted`.
   */
  fromRevision?: Revision;
  /** Ends the watch: the iterator then returns normally. */
  signal?: AbortSignal;
}

/**
 * A versioned key-value store with etcd v3's semantics. Every method may throw a
 * {@link import('./errors.ts').StateStoreError}: `unavailable` (no quorum, no endpoint answered,
 * or a write whose outcome is unknown: re-read before retrying), `invalid_argument`, `closed`, and
 * the method-specific codes named below.
 */
export interface StateStore {
  /** The key's current value, or `undefined`. A linearizable read. */
  get(key: string): Promise<KeyValue | undefined>;
  /** Every key starting with `prefix` (`''` for all keys), sorted by key bytes. A linearizable read. */
  range(prefix: string): Promise<RangeResult>;
  /** Applies `ops` atomically if every compare holds; see {@link TxnResult}. `lease_not_found` for a put on an ended lease. */
  txn(request: TxnRequest): Promise<TxnResult>;
  /**
   * Grants a lease of `ttlSeconds` (an integer ≥ 1). Keys put with it are deleted when it expires
   * or is revoked, in one revision.
   * @see https://etcd.io/docs/v3.4/learning/api/#lease-api
   */
  grantLease(ttlSeconds: number): Promise<Lease>;
  /** Renews the lease to its full TTL; returns that TTL in seconds. `lease_not_found` once it has ended. */
  keepAliveLease(id: LeaseId): Promise<number>;
  /** Ends the lease now and deletes its keys. `lease_not_found` if it has already ended. */
  revokeLease(id: LeaseId): Promise<void>;
  /**
   * Changes under `prefix`, in revision order, one {@link WatchBatch} per revision, with no gap:
   * every revision after `fromRevision` that touched the prefix is reported exactly once, across
   * reconnects. Throws `compacted` (with `compactRevision`) when the history it needs is gone; the
   * caller then re-reads with {@link StateStore.range} and watches from that read's revision + 1.
   * @see https://etcd.io/docs/v3.4/learning/api/#watch-api
   */
  watch(prefix: string, options?: WatchOptions): AsyncIterable<WatchBatch>;
  /**
   * Discards the history before `revision` (etcd's compaction): watches and reads below it fail
   * with `compacted`. `compacted` if already compacted at or past it; `invalid_argument` for a
   * future revision.
   * @see https://etcd.io/docs/v3.4/op-guide/maintenance/#history-compaction-v3-api-key-value-database
   */
  compact(revision: Revision): Promise<void>;
  /** Releases connections, timers and files; open watches end. Leases are not revoked. */
  close(): Promise<void>;
}
