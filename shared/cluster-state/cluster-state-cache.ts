/**
 * A process's cached copy of the cluster state (keys.ts: index metadata, the graveyard, the cluster
 * settings, the shard nodes' membership keys): read once with a
 * linearizable `range`, then kept current by one watch from the revision after that read, so
 * nothing polls the store (ES nodes apply the cluster states the master publishes; SolrCloud nodes
 * watch `state.json` in ZooKeeper). When the watch's history is compacted away the cache reads the
 * state again; when the store cannot be reached it keeps what it has and retries with a backoff.
 * Values only move forward: an entry is replaced only by a write of a higher mod revision.
 * @see docs/cluster-state.md
 * @see https://etcd.io/docs/v3.4/learning/api/#watch-api
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { isStateStoreError } from '../state-store/errors.ts';
import type { KeyValue, Revision, StateStore, WatchEvent } from '../state-store/types.ts';
import { BOOTSTRAPPED_KEY, CLUSTER_SETTINGS_KEY, CLUSTER_STATE_PREFIX, GRAVEYARD_PREFIX, INDICES_PREFIX, indexKey, NODES_PREFIX } from './keys.ts';

/** First delay (ms) before the watch is opened again after a failure; doubles up to {@link MAX_RETRY_MS}. */
export const MIN_RETRY_MS = 100;
/** Longest delay (ms) between attempts to reach the store. */
export const MAX_RETRY_MS = 2_000;

/** One index's metadata as stored, with the mod revision of its key (the value to compare for a CAS). */
export interface StoredIndex {
  readonly metadata: IndexMetadata;
  readonly modRevision: Revision;
}

/** A deleted index remembered by the graveyard (keys.ts {@link GRAVEYARD_PREFIX}). */
export interface Tombstone {
  readonly uuid: string;
  readonly name: string;
  /** Epoch ms of the delete. */
  readonly deletedAt: number;
  readonly modRevision: Revision;
}

/** Parses a stored index value; undefined (and logged) for a value that is not index metadata. */
function parseIndex(kv: KeyValue, log: Logger | undefined): IndexMetadata | undefined {
  try {
    const m = JSON.parse(kv.value) as IndexMetadata;
    if (m && typeof m === 'object' && typeof m.name === 'string' && typeof m.uuid === 'string' && typeof m.version === 'number') return m;
  } catch {
    // fall through
  }
  log?.error({ key: kv.key, modRevision: kv.modRevision }, 'cluster state: unreadable index metadata ignored');
  return undefined;
}

/** See the module comment. Create with {@link ClusterStateCache.open}; {@link ClusterStateCache.close} when done. */
export class ClusterStateCache {
  /** The store the cache follows (writers use it too: cluster-state-writer.ts). */
  readonly store: StateStore;
  private readonly log: Logger | undefined;
  private indices = new Map<string, StoredIndex>();
  private graves = new Map<string, Tombstone>();
  /** Indices deleted at a revision the watch has not reached yet: an older put it still delivers must not bring them back. */
  private readonly deletedAt = new Map<string, Revision>();
  private bootstrappedFlag = false;
  private settingsKv: KeyValue | undefined;
  /** Node ids whose membership key (keys.ts {@link NODES_PREFIX}) exists now. */
  private readonly members = new Set<string>();
  /** Node ids whose membership key this process has seen at least once: nodes that keep one. */
  private readonly leased = new Set<string>();
  private rev: Revision = 0;
  /** Bumped whenever an index is added, replaced or removed (what {@link indicesGeneration} reports). */
  private indicesGen = 0;
  private loadedFlag = false;
  private readonly stop = new AbortController();
  private readonly listeners = new Set<() => void>();
  private following: Promise<void> = Promise.resolve();

  private constructor(store: StateStore, log: Logger | undefined) {
    this.store = store;
    this.log = log;
  }

  /**
   * Starts following the store. Tries one read first and resolves after it whether or not it
   * succeeded: a process must start while the store is down (it then answers state reads with
   * `cluster_block_exception` until the store is back, and keeps trying in the background).
   */
  static async open(store: StateStore, log?: Logger): Promise<ClusterStateCache> {
    const cache = new ClusterStateCache(store, log);
    await cache.load().catch((err: Error) => log?.warn({ err: err.message }, 'cluster state not readable at start; retrying in the background'));
    cache.following = cache.follow();
    return cache;
  }

  /** Whether a full read of the state has succeeded (before that, {@link get} knows nothing). */
  get loaded(): boolean {
    return this.loadedFlag;
  }

  /** The store revision the cache reflects (every change up to it is applied). */
  get revision(): Revision {
    return this.rev;
  }

  /**
   * A number that changes whenever any index's stored value changes (put or delete, by the watch or
   * by this process's own writes): values derived from every index (the alias lookup) are kept
   * until it moves.
   */
  get indicesGeneration(): number {
    return this.indicesGen;
  }

  /** Whether the store holds the cluster's indices (keys.ts {@link BOOTSTRAPPED_KEY}). */
  get bootstrapped(): boolean {
    return this.bootstrappedFlag;
  }

  /** The stored cluster settings key as last seen (its value is a `ClusterSettingsState` as JSON), or undefined. */
  get clusterSettings(): KeyValue | undefined {
    return this.settingsKv;
  }

  /**
   * A shard node's membership (node-membership.ts): `member` while its key exists, `departed` once
   * its key, seen before by this process, is gone (its lease expired or was revoked), `unknown` for
   * a node this process has never seen registered (one that keeps no lease, or that was gone before
   * this process started: other signals decide about it).
   */
  membership(nodeId: string): 'member' | 'departed' | 'unknown' {
    if (this.members.has(nodeId)) return 'member';
    return this.leased.has(nodeId) ? 'departed' : 'unknown';
  }

  /** The index as last seen, or undefined. */
  get(name: string): StoredIndex | undefined {
    return this.indices.get(name);
  }

  /** Every known index name, sorted. */
  names(): string[] {
    return [...this.indices.keys()].sort();
  }

  /** The graveyard entry of a deleted index's uuid, if remembered. */
  tombstone(uuid: string): Tombstone | undefined {
    return this.graves.get(uuid);
  }

  /** Every remembered deleted index, oldest delete first. */
  tombstones(): Tombstone[] {
    return [...this.graves.values()].sort((a, b) => a.modRevision - b.modRevision);
  }

  /** Calls `listener` after each applied change (never awaited; must not throw). Returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A linearizable read of one index (the watch may lag a write another process just made), applied
   * to the cache when newer. Undefined when the key is absent.
   * @throws StateStoreError `unavailable` when the store cannot be reached
   */
  async read(name: string): Promise<StoredIndex | undefined> {
    const kv = await this.store.get(indexKey(name));
    if (!kv) return undefined;
    this.applyPut(kv);
    return this.indices.get(name);
  }

  /**
   * Applies a key this process has just written or read (a CAS's own result, or a loser's view of
   * the winner), so that the process reads its own writes before the watch delivers them.
   */
  noteKv(kv: KeyValue): void {
    this.applyPut(kv);
  }

  /** Applies the delete of `key` at `revision`, done or seen by this process. */
  noteDeleted(key: string, revision: Revision): void {
    this.applyDelete(key, revision);
  }

  /** Stops the watch. The store is not closed (its owner closes it). */
  async close(): Promise<void> {
    this.stop.abort();
    await this.following;
  }

  /** Reads the whole state and replaces the cache with it. */
  private async load(): Promise<void> {
    const r = await this.store.range(CLUSTER_STATE_PREFIX);
    this.indices = new Map();
    this.indicesGen++;
    this.graves = new Map();
    this.deletedAt.clear();
    this.bootstrappedFlag = false;
    this.settingsKv = undefined;
    this.members.clear(); // `leased` stays: a node seen before and absent from this read has departed
    for (const kv of r.kvs) this.applyPut(kv);
    this.rev = r.revision;
    this.loadedFlag = true;
    this.notify();
  }

  /** Follows the store until closed: watch from the revision after the last applied one, re-read on compaction. */
  private async follow(): Promise<void> {
    const signal = this.stop.signal;
    let delayMs = MIN_RETRY_MS;
    while (!signal.aborted) {
      try {
        if (!this.loadedFlag) await this.load();
        for await (const batch of this.store.watch(CLUSTER_STATE_PREFIX, { fromRevision: this.rev + 1, signal })) {
          for (const e of batch.events) this.applyEvent(e);
          this.rev = Math.max(this.rev, batch.revision);
          for (const [name, at] of this.deletedAt) if (at <= this.rev) this.deletedAt.delete(name);
          delayMs = MIN_RETRY_MS;
          this.notify();
        }
      } catch (err) {
        if (signal.aborted) return;
        if (isStateStoreError(err, 'closed')) return;
        if (isStateStoreError(err, 'compacted')) {
          this.loadedFlag = false;
          continue;
        }
        this.log?.warn({ err: (err as Error).message, retryMs: delayMs }, 'cluster state watch failed; retrying');
        await sleep(delayMs, undefined, { signal }).catch(() => undefined);
        delayMs = Math.min(delayMs * 2, MAX_RETRY_MS);
      }
    }
  }

  private applyEvent(e: WatchEvent): void {
    if (e.type === 'put') this.applyPut(e.kv);
    else this.applyDelete(e.kv.key, e.kv.modRevision);
  }

  private applyPut(kv: KeyValue): void {
    if (kv.key.startsWith(INDICES_PREFIX)) {
      const name = kv.key.slice(INDICES_PREFIX.length);
      const current = this.indices.get(name);
      if ((current && current.modRevision >= kv.modRevision) || (this.deletedAt.get(name) ?? 0) >= kv.modRevision) return;
      const metadata = parseIndex(kv, this.log);
      if (metadata) this.indices.set(name, { metadata, modRevision: kv.modRevision });
      this.indicesGen++;
    } else if (kv.key.startsWith(GRAVEYARD_PREFIX)) {
      const uuid = kv.key.slice(GRAVEYARD_PREFIX.length);
      let entry: { name?: unknown; deletedAt?: unknown } = {};
      try {
        entry = JSON.parse(kv.value) as typeof entry;
      } catch {
        // a tombstone without readable details still names the uuid
      }
      this.graves.set(uuid, {
        uuid,
        name: typeof entry.name === 'string' ? entry.name : '',
        deletedAt: Number(entry.deletedAt ?? 0),
        modRevision: kv.modRevision,
      });
    } else if (kv.key.startsWith(NODES_PREFIX)) {
      const nodeId = kv.key.slice(NODES_PREFIX.length);
      this.members.add(nodeId);
      this.leased.add(nodeId);
    } else if (kv.key === BOOTSTRAPPED_KEY) {
      this.bootstrappedFlag = true;
    } else if (kv.key === CLUSTER_SETTINGS_KEY) {
      if (!this.settingsKv || this.settingsKv.modRevision < kv.modRevision) this.settingsKv = kv;
    }
  }

  private applyDelete(key: string, revision: Revision): void {
    if (key.startsWith(INDICES_PREFIX)) {
      const name = key.slice(INDICES_PREFIX.length);
      const current = this.indices.get(name);
      if (current && current.modRevision < revision) this.indices.delete(name);
      this.indicesGen++;
      if (revision > this.rev) this.deletedAt.set(name, Math.max(revision, this.deletedAt.get(name) ?? 0));
    } else if (key.startsWith(GRAVEYARD_PREFIX)) {
      this.graves.delete(key.slice(GRAVEYARD_PREFIX.length));
    } else if (key.startsWith(NODES_PREFIX)) {
      this.members.delete(key.slice(NODES_PREFIX.length));
    } else if (key === BOOTSTRAPPED_KEY) {
      this.bootstrappedFlag = false;
    } else if (key === CLUSTER_SETTINGS_KEY) {
      if (this.settingsKv && this.settingsKv.modRevision < revision) this.settingsKv = undefined;
    }
  }

  private notify(): void {
    for (const l of this.listeners) l();
  }
}
