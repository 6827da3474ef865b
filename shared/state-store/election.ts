/**
 * Leader election on a {@link StateStore}, the recipe of etcd's Go client
 * (`clientv3/concurrency/election.go`): each candidate puts `<prefix><lease id in hex>` with its
 * lease, if absent; the candidate whose key has the lowest create revision leads; the others wait
 * until every lower key is deleted (resigned, revoked or expired). The leader's key value names it.
 *
 * **Fencing token.** The leader key's create revision ({@link Leadership.fencingToken}) grows
 * strictly from one leader to the next (a new leader's key was created after every earlier
 * leader's). A lease is not mutual exclusion: a paused leader can outlive its lease. So a leader
 * guards its writes to the store with {@link Leadership.guard} in the transaction's compares, and
 * any other resource it commands checks the token and refuses a smaller one.
 *
 * @see https://github.com/etcd-io/etcd/blob/release-3.4/clientv3/concurrency/election.go
 * @see https://etcd.io/docs/v3.4/learning/why/#notes-on-the-usage-of-lock-and-lease
 * @see https://jepsen.io/analyses/etcd-3.4.3 (why locks need fencing)
 * @example
 * const lease = await store.grantLease(5);
 * const keeper = new LeaseKeeper(store, lease);
 * const election = new Election(store, 'folio/cluster-manager/');
 * const leadership = await election.campaign(lease.id, 'coordinator-1');
 * await store.txn({ compare: [leadership.guard, …], ops: […] }); // fails once deposed
 */
import { isStateStoreError, StateStoreError } from './errors.ts';
import type { Compare, KeyValue, LeaseId, Revision, StateStore } from './types.ts';

/** The current leader: its key, the value it proclaimed, and its fencing token. */
export interface Leader {
  key: string;
  value: string;
  /** The leader key's create revision: the fencing token. */
  createRevision: Revision;
  lease: LeaseId | undefined;
}

/** Elections under one key prefix; see the module comment. */
export class Election {
  readonly prefix: string;
  private readonly store: StateStore;

  /** `prefix` should end with a separator (e.g. `'folio/election/manager/'`); every candidate key lives under it. */
  constructor(store: StateStore, prefix: string) {
    if (typeof prefix !== 'string' || prefix.length === 0) throw new StateStoreError('invalid_argument', 'an election needs a key prefix');
    this.store = store;
    this.prefix = prefix;
  }

  /**
   * Stands for election with `lease` and resolves once elected. Campaigning again with the same
   * lease reuses its key (and proclaims `value`). Throws `not_leader` when the candidate's key
   * vanishes while it waits (its lease ended), and the signal's reason when `signal` aborts, after
   * withdrawing the candidacy.
   */
  async campaign(lease: LeaseId, value: string, signal?: AbortSignal): Promise<Leadership> {
    const key = `${this.prefix}${BigInt(lease).toString(16)}`;
    let createRevision: Revision;
    for (;;) {
      const r = await this.store.txn({ compare: [{ key, createRevision: 0 }], ops: [{ op: 'put', key, value, lease }] });
      if (r.succeeded) {
        createRevision = r.revision;
        break;
      }
      const existing = r.current.get(key);
      if (!existing) continue; // deleted between the compare and the read: try again
      createRevision = existing.createRevision;
      if (existing.value !== value) {
        const p = await this.store.txn({ compare: [{ key, createRevision }], ops: [{ op: 'put', key, value, lease }] });
        if (!p.succeeded) continue;
      }
      break;
    }
    const leadership = new Leadership(this.store, key, createRevision, lease);
    try {
      await this.waitForLowerKeys(key, createRevision, signal);
    } catch (err) {
      if (!isStateStoreError(err, 'not_leader')) await leadership.resign().catch(() => undefined);
      throw err;
    }
    return leadership;
  }

  /** The current leader, or `undefined` when nobody campaigns. */
  async leader(): Promise<Leader | undefined> {
    return lowest((await this.store.range(this.prefix)).kvs);
  }

  /**
   * The leader now and every change of leader (or of its value) after it, in order; `undefined`
   * while nobody campaigns. Survives compaction by re-reading. Ends when `signal` aborts.
   */
  async *observe(signal?: AbortSignal): AsyncGenerator<Leader | undefined> {
    let last: Leader | undefined | null = null; // null: nothing reported yet
    while (!signal?.aborted) {
      const { kvs, revision } = await this.store.range(this.prefix);
      const candidates = new Map(kvs.map((kv) => [kv.key, kv]));
      const now = lowest(candidates.values());
      if (last === null || !sameLeader(last, now)) yield (last = now);
      try {
        for await (const batch of this.store.watch(this.prefix, { fromRevision: revision + 1, signal })) {
          for (const e of batch.events) {
            if (e.type === 'put') candidates.set(e.kv.key, e.kv);
            else candidates.delete(e.kv.key);
          }
          const leader = lowest(candidates.values());
          if (!sameLeader(last, leader)) yield (last = leader);
        }
        return;
      } catch (err) {
        if (!isStateStoreError(err, 'compacted')) throw err;
      }
    }
  }

  /** Waits until no candidate key older than ours is left (Go's `waitDeletes`). */
  private async waitForLowerKeys(key: string, createRevision: Revision, signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const { kvs, revision } = await this.store.range(this.prefix);
      if (!kvs.some((kv) => kv.key === key && kv.createRevision === createRevision)) {
        throw new StateStoreError('not_leader', `election ${this.prefix}: candidate key ${key} is gone (its lease ended)`);
      }
      const older = kvs.filter((kv) => kv.createRevision < createRevision);
      if (older.length === 0) return;
      // Wait for the newest older key to go (then look again), or for our own key to go.
      const ahead = older.reduce((a, b) => (b.createRevision > a.createRevision ? b : a));
      const stop = new AbortController();
      const watchSignal = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
      try {
        for await (const batch of this.store.watch(this.prefix, { fromRevision: revision + 1, signal: watchSignal })) {
          if (batch.events.some((e) => e.type === 'delete' && (e.kv.key === ahead.key || e.kv.key === key))) break;
        }
      } catch (err) {
        if (!isStateStoreError(err, 'compacted')) throw err;
      } finally {
        stop.abort();
      }
    }
  }
}

/** A won election: the fencing token, a compare that holds only while it leads, proclaim and resign. */
export class Leadership {
  /** The leader key. */
  readonly key: string;
  /** The leader key's create revision; grows strictly from one leader to the next. */
  readonly fencingToken: Revision;
  readonly lease: LeaseId;
  private readonly store: StateStore;

  constructor(store: StateStore, key: string, createRevision: Revision, lease: LeaseId) {
    this.store = store;
    this.key = key;
    this.fencingToken = createRevision;
    this.lease = lease;
  }

  /** A txn compare that holds only while this leadership lasts: put it in every write the leader makes. */
  get guard(): Compare {
    return { key: this.key, createRevision: this.fencingToken };
  }

  /** Whether the leader key is still this one (a linearizable read). */
  async isCurrent(): Promise<boolean> {
    const kv = await this.store.get(this.key);
    return kv?.createRevision === this.fencingToken;
  }

  /** Replaces the leader's value. Throws `not_leader` if the leadership has ended. */
  async proclaim(value: string): Promise<void> {
    const r = await this.store.txn({ compare: [this.guard], ops: [{ op: 'put', key: this.key, value, lease: this.lease }] });
    if (!r.succeeded) throw new StateStoreError('not_leader', `leadership ${this.key} has ended`);
  }

  /** Gives up leadership (deletes the leader key, so the next candidate is elected). A no-op if already ended. */
  async resign(): Promise<void> {
    await this.store.txn({ compare: [this.guard], ops: [{ op: 'delete', key: this.key }] });
  }
}

/** The candidate with the lowest create revision. */
function lowest(kvs: Iterable<KeyValue>): Leader | undefined {
  let best: KeyValue | undefined;
  for (const kv of kvs) if (!best || kv.createRevision < best.createRevision) best = kv;
  return best && { key: best.key, value: best.value, createRevision: best.createRevision, lease: best.lease };
}

function sameLeader(a: Leader | undefined | null, b: Leader | undefined): boolean {
  return a === b || (!!a && !!b && a.key === b.key && a.createRevision === b.createRevision && a.value === b.value);
}
