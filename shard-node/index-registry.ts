/**
 * What one shard node hosts: the metadata of every index (each node keeps all of it, so any
 * coordinator can rebuild its view from any node) and the shard copies placed here, primaries and
 * replicas alike (the metadata's `shardCopies` says which), with their periodic refresh (ES
 * `index.refresh_interval`, default 1 s) and `?refresh=wait_for` listeners.
 * With a data directory, metadata and every shard's translog are durable (shard-node/storage/) and
 * {@link IndexRegistry.recover} reopens them at start; without one, everything is in memory.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/near-real-time.html
 */
import { indexNotFound, EsError } from '../protocol/errors.ts';
import { mergeMappings } from '../shared/dynamic-mapping.ts';
import type { Logger } from '../shared/logger.ts';
import type { Mapping } from '../protocol/mapping.ts';
import { primaryTermOf, type IndexMetadata, type NodeIndexEntry, type ShardCopy } from '../protocol/metadata.ts';
import { type GroupMember } from '../protocol/write.ts';
import { Shard } from './engine/shard.ts';
import { DEFAULT_GC_DELETES_MS } from './engine/tombstone-gc.ts';
import { IndexRefresher } from './index-refresher.ts';
import { FlushPolicy, type FlushPolicyOptions } from './storage/flush-policy.ts';
import { PrimaryInSyncState } from './primary-in-sync-state.ts';
import { ReplicaCheckpoints } from './replica-checkpoints.ts';
import { OperationPermits } from './operation-permits.ts';
import { RecoveryTracker } from './replication-tracker.ts';
import { hostedCopies, shardsOnNode, withInSync } from '../shared/cluster-state/shard-copies.ts';
import { MetadataStore, removeIndexData, removeShardData, shardStorePath } from './storage/metadata-store.ts';
import { ShardStore } from './storage/shard-store.ts';
import type { TranslogDurability } from './storage/translog-writer.ts';

/** Durable storage of a registry (absent: in memory only). */
export interface RegistryStorageOptions extends FlushPolicyOptions {
  /** FOLIO_DATA: root of `node-state.sqlite` and `<index-uuid>/<shard>/shard.sqlite`. */
  dataDir: string;
  /** ES `index.translog.durability` applied to every shard of this node (default request). */
  durability?: TranslogDurability;
  /** ES `index.translog.sync_interval` in ms, for `async` (default 5000). */
  syncIntervalMs?: number;
}

/** What {@link IndexRegistry.recover} reopened. */
export interface RecoveryReport {
  indices: number;
  shards: number;
  /** Snapshot rows plus translog ops replayed. */
  ops: number;
  tookMs: number;
}

/** One index on this node: its metadata, the shards hosted here, and its refresh scheduling. */
interface HostedIndex {
  metadata: IndexMetadata;
  /** This node's ordinal in the coordinator's FOLIO_NODES (what `shardCopies` names it by); null: unknown. */
  ordinal: number | null;
  shards: Map<number, Shard>;
  /** The durable store of each hosted shard (empty without a data directory). */
  stores: Map<number, ShardStore>;
  /** The periodic refresh and the `wait_for` waiters (shard-node/index-refresher.ts). */
  refresher: IndexRefresher;
  /**
   * Copies whose translog commit failed, with why (ES: a shard that hit an engine failure is failed
   * and reallocated). Their memory is ahead of their disk, so they serve nothing until reopened.
   */
  failed: Map<number, string>;
  /** The primary's view of its replicas ahead of the cluster state: pending failures, finalized copies. */
  inSync: PrimaryInSyncState;
  /** The writes in progress on its copies here and their operation terms (shard-node/operation-permits.ts). */
  permits: OperationPermits;
  /** The local checkpoints the primaries here know of their replicas (their global checkpoints follow). */
  replicaCheckpoints: ReplicaCheckpoints;
}

/** Receives refresh and flush durations in seconds (shard-node/metrics.ts). */
export interface RegistryTimings {
  refreshed(index: string, seconds: number): void;
  flushed(index: string, seconds: number): void;
}

/**
 * The registry of indices and shards on this node. Metadata changes bump `version` so that
 * coordinators prefer the newest copy; with storage, each change is fsynced before it returns.
 */
export class IndexRegistry {
  readonly nodeId: string;
  private readonly indices = new Map<string, HostedIndex>();
  private readonly storage: RegistryStorageOptions | null;
  private readonly metaStore: MetadataStore | null;
  private readonly flushPolicy: FlushPolicy | null;
  private readonly log: Logger | undefined;
  /** Set by the app to time refreshes (explicit and periodic) and flushes; null: not timed. */
  timings: RegistryTimings | null = null;
  /** This node's ordinal in FOLIO_NODES, as the coordinators first named it (null: not yet). */
  private ordinal: number | null = null;
  /** Copies this node, as a primary, is recovering (they receive its live writes). */
  readonly recoveries = new RecoveryTracker();

  constructor(nodeId: string, storage?: RegistryStorageOptions, log?: Logger) {
    this.nodeId = nodeId;
    this.storage = storage ?? null;
    this.log = log;
    this.metaStore = storage ? new MetadataStore(storage.dataDir) : null;
    this.flushPolicy = storage ? new FlushPolicy(storage, () => this.allStores(), log, (store, seconds) => {
      this.countFlush(store);
      this.timings?.flushed(this.indexOf(store), seconds);
    }) : null;
    this.flushPolicy?.start();
  }

  /**
   * Start-up recovery: reopens every persisted index and its shards, replays each shard's flush
   * snapshot and translog, and refreshes, so every acknowledged write is searchable. A no-op
   * without storage.
   */
  recover(): RecoveryReport {
    const started = Date.now();
    const report: RecoveryReport = { indices: 0, shards: 0, ops: 0, tookMs: 0 };
    for (const entry of this.metaStore?.list() ?? []) {
      const h = this.host(entry.metadata);
      h.ordinal = entry.node ?? null;
      this.ordinal ??= h.ordinal;
      report.indices++;
      for (const s of entry.shards) {
        const shard = this.openShard(h, s);
        const store = h.stores.get(s)!;
        const translogOps = store.stats().translogOps;
        const ops = shard.recoverFromStore(store.recoveredOps(), store.recordedLocalCheckpoint(), store.recordedGlobalCheckpoint());
        shard.refresh();
        report.shards++;
        report.ops += ops;
        this.log?.info({ index: entry.metadata.name, shard: s, ops, translogOps, maxSeqNo: shard.maxSeqNo, localCheckpoint: shard.localCheckpoint, globalCheckpoint: shard.globalCheckpoint }, 'shard recovered');
        this.suspectReplicasAfterRestart(h, s);
      }
      h.refresher.schedule(h.metadata.refreshIntervalMs);
    }
    report.tookMs = Date.now() - started;
    return report;
  }

  /**
   * Stores (or replaces, when not older) an index's metadata and opens the shard copies placed
   * here: with `ordinal` (this node's position in FOLIO_NODES) and a `shardCopies` list, the ones
   * that list names, dropping copies it no longer names; else the listed `shards`. Existing copies
   * keep their data. Restarts the refresh timer when the interval changed. Durable on return.
   */
  putIndex(metadata: IndexMetadata, shards: number[], ordinal?: number): void {
    this.checkOrdinal(ordinal);
    let hosted = this.indices.get(metadata.name);
    if (hosted && hosted.metadata.uuid !== metadata.uuid) {
      this.deleteIndex(metadata.name);
      hosted = undefined;
    }
    const adopted = !hosted || metadata.version >= hosted.metadata.version;
    if (!hosted) hosted = this.host(metadata);
    else if (adopted) hosted.metadata = hosted.inSync.adopt(metadata, hosted.ordinal);
    const h = hosted;
    // Recovered copies the cluster state now has in sync are no longer tracked as recovering (the
    // failures it has stored are no longer pending: PrimaryInSyncState.adopt).
    if (adopted) {
      metadata.shardCopies?.forEach((copies, s) => {
        for (const c of copies) if (c.inSync && !c.primary) this.recoveries.untrack(metadata.name, s, c.node);
      });
    }
    if (ordinal !== undefined) h.ordinal = ordinal;
    this.placeCopies(h, shards);
    this.applyTerms(h);
    // A replica the cluster state now has out of sync no longer holds the global checkpoint back.
    for (const s of h.shards.keys()) this.advanceGlobalCheckpoint(h, s);
    this.persist(h);
    h.refresher.schedule(h.metadata.refreshIntervalMs);
    if (this.storage) for (const st of h.stores.values()) st.setDurability(this.durabilityOf(h), this.storage.syncIntervalMs ?? 5000);
  }

  /**
   * Puts the copies of `shard` on `nodes` back in the in-sync set of this node's copy of the
   * metadata (recovery finalize on the primary: from now on a write that fails on them fails the
   * write's copy, ES `ReplicationTracker.markAllocationIdAsInSync`); a no-op when they are in sync
   * already. The version is not bumped: versions belong to the cluster state, whose own in-sync
   * change follows (coordinator/cluster/recovery.ts). Until a pushed value shows them in sync they stay in
   * sync here (shard-node/primary-in-sync-state.ts), so a push in between cannot drop them from the
   * in-sync group. `failures`: the copy's failure count in the cluster state when its recovery
   * started (recorded here when higher than this node's: it tags the failures this primary
   * reports, {@link IndexRegistry.notePendingFailures}). Durable on return.
   * @throws EsError 400 for an index without a copy list, or a node without a copy of the shard.
   * @returns the resulting metadata.
   */
  markInSync(index: string, shard: number, nodes: readonly number[], failures?: number): IndexMetadata {
    const h = this.hosted(index);
    const copies = h.metadata.shardCopies;
    if (!copies) throw new EsError(400, 'illegal_argument_exception', `index [${index}] has no replica copies`);
    let next = withInSync(copies, shard, nodes);
    // The copy's failure count as the cluster state had it when its recovery started: this node may
    // not have adopted the value that counted its last failure yet.
    if (failures !== undefined && next[shard]?.some((c) => nodes.includes(c.node) && (c.failures ?? 0) < failures)) {
      next = next.map((l, s) => (s !== shard ? l : l.map((c) => (nodes.includes(c.node) && (c.failures ?? 0) < failures ? { ...c, failures } : c))));
    }
    h.inSync.noteFinalized(h.metadata, shard, nodes, failures);
    if (next !== copies) {
      h.metadata = { ...h.metadata, shardCopies: next };
      this.persist(h);
    }
    return h.metadata;
  }

  /** The primary term of a shard by this node's metadata. @throws EsError 404 for an unknown index */
  termOf(index: string, shard: number): number {
    return primaryTermOf(this.hosted(index).metadata, shard);
  }

  /**
   * Refuses an operation of another primary term than this node's for the shard (ES
   * `IndexShard.acquirePrimaryOperationPermit` / `acquireReplicaOperationPermit`): a primary takes only
   * its own term; a replica refuses an older one (a newer one means this node's metadata lags, and
   * the coordinator's next reload repairs it). Without a term (an older coordinator) nothing is checked.
   * @throws EsError 409 `illegal_state_exception`
   */
  checkTerm(index: string, shard: number, term: number | undefined, role: 'primary' | 'replica'): void {
    if (term === undefined) return;
    const mine = Math.max(this.termOf(index, shard), this.hosted(index).permits.termFloor(shard));
    if (term < mine || (role === 'primary' && term !== mine)) {
      throw new EsError(409, 'illegal_state_exception', `[${index}][${shard}] operation primary term [${term}] is ${term < mine ? 'too old' : 'newer than this copy\'s'}, current [${mine}]`, {
        metadata: { index, shard: String(shard) },
      });
    }
  }

  /**
   * The primary's replication group for a write (ES `ReplicationTracker.getReplicationGroup`): the
   * other copies in sync by this node's metadata and the copies being recovered here.
   */
  replicationGroup(index: string, shard: number): GroupMember[] {
    const h = this.hosted(index);
    const group: GroupMember[] = (h.metadata.shardCopies?.[shard] ?? []).filter((c) => c.node !== h.ordinal && c.inSync).map((c) => ({ node: c.node, inSync: true }));
    for (const node of this.recoveries.nodes(index, shard)) if (node !== h.ordinal && !group.some((g) => g.node === node)) group.push({ node, inSync: false });
    return group;
  }

  /**
   * Records in-sync replicas of `shard` that a forwarded write failed on: reported by {@link list}
   * until a cluster-state value has them out of sync (ES: a shard-failed request the master has not
   * processed yet).
   */
  notePendingFailures(index: string, shard: number, nodes: readonly number[], copies: readonly ShardCopy[]): void {
    this.hosted(index).inSync.notePending(shard, nodes, copies);
  }

  /**
   * Takes a primary write permit on `shard` from the write's first op to its reply, replication
   * included ({@link OperationPermits}; {@link list} reports the count as `activeWrites`).
   * @returns the release function (idempotent) @throws EsError 404 for an unknown index
   */
  beginPrimaryWrite(index: string, shard: number): () => void {
    return this.hosted(index).permits.beginPrimaryWrite(shard);
  }

  /** Takes a replica write permit on `shard` ({@link OperationPermits}). @returns the release function (idempotent) */
  beginReplicaWrite(index: string, shard: number): () => void {
    return this.hosted(index).permits.beginReplicaWrite(shard);
  }

  /**
   * Records the local checkpoints in-sync replicas of `shard` answered a forwarded write with, and
   * moves the primary's global checkpoint on: the lowest local checkpoint of this copy and of the
   * write's in-sync replicas (`inSync`) and the ones this node's metadata has in sync.
   */
  noteReplicaCheckpoints(index: string, shard: number, checkpoints: ReadonlyMap<number, number>, inSync: readonly number[]): void {
    const h = this.hosted(index);
    h.replicaCheckpoints.note(shard, checkpoints);
    this.advanceGlobalCheckpoint(h, shard, inSync);
  }

  /**
   * Moves the global checkpoint of the primary copy of `shard` here on (see {@link ReplicaCheckpoints}),
   * over the in-sync replicas of this node's metadata and `alsoInSync`; a no-op on a replica.
   */
  private advanceGlobalCheckpoint(h: HostedIndex, shard: number, alsoInSync: readonly number[] = []): void {
    const copy = h.shards.get(shard);
    const copies = h.metadata.shardCopies?.[shard];
    if (!copy || h.failed.has(shard) || h.ordinal === null || !copies?.some((c) => c.primary && c.node === h.ordinal)) return;
    const inSync = new Set([...alsoInSync, ...copies.filter((c) => c.inSync && !c.primary).map((c) => c.node)]);
    inSync.delete(h.ordinal);
    copy.advanceGlobalCheckpoint(h.replicaCheckpoints.globalCheckpoint(shard, copy.localCheckpoint, inSync));
  }

  /** Replica writes in progress on `shard` ({@link beginReplicaWrite}). */
  replicaWritesOf(index: string, shard: number): number {
    return this.hosted(index).permits.replicaWritesOf(shard);
  }

  /**
   * From now on the copy of `shard` here refuses ops of a primary term below `term`, whatever its
   * metadata holds ({@link OperationPermits.raiseTerm}): a recovery from the new primary calls this
   * before it reads where the copy is, so that no op of a demoted primary lands after that read.
   */
  raiseOperationTerm(index: string, shard: number, term: number): void {
    this.hosted(index).permits.raiseTerm(shard, term);
  }

  /**
   * The copies of `shard` by this node's metadata (a value that is replaced, never changed: reading
   * it costs nothing), read with the replication group of a write: their failure counts are what
   * {@link IndexRegistry.notePendingFailures} tags a failure of that write with.
   */
  copiesOf(index: string, shard: number): readonly ShardCopy[] {
    return this.hosted(index).metadata.shardCopies?.[shard] ?? [];
  }

  /**
   * A primary copy reopened after its node stopped (a crash, or a stop that cut writes short) may
   * hold ops it made durable but never got to forward: their writes were not acknowledged, but its
   * in-sync replicas lack them, and the failures it would have reported died with the process (the
   * fault suite's seeds 1076 and 1088: a SIGKILLed primary came back as the primary of its term,
   * nobody promoted meanwhile, and its replica stayed in sync without an op the primary had). Every
   * in-sync replica of such a primary is therefore reported as a pending failure, as if a forwarded
   * write had failed on it: the cluster manager takes it out of sync and it recovers by the ops above
   * its local checkpoint (ES never keeps a restarted copy as primary: the node's return is a new
   * allocation, and a promoted primary resyncs its replicas, `PrimaryReplicaSyncer`).
   */
  private suspectReplicasAfterRestart(h: HostedIndex, shard: number): void {
    const copies = h.metadata.shardCopies?.[shard];
    if (h.ordinal === null || !copies?.some((c) => c.primary && c.node === h.ordinal)) return;
    const replicas = copies.filter((c) => !c.primary && c.inSync).map((c) => c.node);
    if (replicas.length === 0) return;
    this.notePendingFailures(h.metadata.name, shard, replicas, copies);
    this.log?.info({ index: h.metadata.name, shard, replicas }, 'primary reopened after a stop: its in-sync replicas are reported for recovery');
  }

  /** This node's ordinal as the index's copies name it (null: not known yet). */
  ordinalOf(index: string): number | null {
    return this.hosted(index).ordinal;
  }

  /**
   * Empties the copy of a shard hosted here before a full recovery (a copy left behind by a
   * promotion may hold ops of the old term): its data is dropped and an empty copy opened.
   * @throws EsError 409 `illegal_state_exception` when the copy here is the primary or in sync.
   */
  resetCopy(index: string, shard: number): Shard {
    this.hostedShard(index, shard); // a failed copy may be emptied too: that is how it comes back
    const h = this.hosted(index);
    const copy = h.ordinal === null ? undefined : h.metadata.shardCopies?.[shard]?.find((c) => c.node === h.ordinal);
    if (!copy || copy.primary || copy.inSync) {
      throw new EsError(409, 'illegal_state_exception', `[${index}][${shard}] the copy on node [${this.nodeId}] is not a recovering replica and cannot be emptied`);
    }
    this.dropShard(h, shard);
    h.replicaCheckpoints.forget(shard);
    const fresh = this.openShard(h, shard);
    this.persist(h);
    return fresh;
  }

  /** Gives every shard hosted here its primary term and `index.gc_deletes` from the metadata. */
  private applyTerms(h: HostedIndex): void {
    for (const [s, shard] of h.shards) {
      const term = primaryTermOf(h.metadata, s);
      const promotedHere = term > shard.primaryTerm && h.metadata.shardCopies?.[s]?.some((c) => c.primary && c.node === h.ordinal) === true;
      // What a primary of another term heard from its replicas says nothing of this term's copies.
      if (term !== shard.primaryTerm) h.replicaCheckpoints.forget(s);
      shard.primaryTerm = term;
      shard.gcDeletesMs = h.metadata.gcDeletesMs ?? DEFAULT_GC_DELETES_MS;
      if (promotedHere) {
        // The new primary's gaps (ops of the old primary it never got) become no-ops (ES fillSeqNoGaps).
        const filled = shard.fillSeqNoGaps();
        this.log?.info({ index: h.metadata.name, shard: s, term, filled }, 'primary promoted');
      }
    }
  }

  /**
   * Guards the data against a reordered FOLIO_NODES: copies are named by ordinal, so a coordinator
   * that addresses this node by another ordinal than before would make it drop its copies.
   * @throws EsError 409 `illegal_state_exception` on a different ordinal than the one this node holds its copies by.
   */
  private checkOrdinal(ordinal: number | undefined): void {
    if (ordinal === undefined) return;
    this.ordinal ??= ordinal;
    if (this.ordinal !== ordinal) {
      throw new EsError(409, 'illegal_state_exception', `node [${this.nodeId}] holds its copies as FOLIO_NODES[${this.ordinal}] but was addressed as FOLIO_NODES[${ordinal}]: the node list must keep its order`);
    }
  }

  /** Opens the copies the metadata places here (else `explicit`), and removes the ones it no longer places here. */
  private placeCopies(h: HostedIndex, explicit: readonly number[]): void {
    const placed = shardsOnNode(h.metadata, h.ordinal);
    for (const s of placed ?? explicit) if (!h.shards.has(s)) this.openShard(h, s);
    if (placed === null) return;
    for (const s of [...h.shards.keys()]) if (!placed.includes(s)) this.dropShard(h, s);
  }

  /** Closes a copy this node no longer hosts and removes its files. */
  private dropShard(h: HostedIndex, s: number): void {
    h.shards.delete(s);
    h.failed.delete(s);
    const store = h.stores.get(s);
    h.stores.delete(s);
    store?.close();
    h.refresher.releaseShard(s);
    if (this.storage) removeShardData(this.storage.dataDir, h.metadata.uuid, s);
    this.log?.info({ index: h.metadata.name, shard: s }, 'shard copy removed');
  }

  /** Merges new fields into an index's mapping (dynamic mapping); throws on a type conflict. */
  mergeMapping(index: string, update: Mapping): IndexMetadata {
    const h = this.hosted(index);
    const merged = mergeMappings(h.metadata.mappings, update);
    if (JSON.stringify(merged) !== JSON.stringify(h.metadata.mappings)) {
      h.metadata = { ...h.metadata, mappings: merged, version: h.metadata.version + 1 };
      this.persist(h);
    }
    return h.metadata;
  }

  /** The translog durability of an index's shards: its own setting, else this node's default. */
  private durabilityOf(h: HostedIndex): TranslogDurability {
    return h.metadata.translogDurability ?? this.storage!.durability ?? 'request';
  }

  /** Drops an index, its shards and their files; unknown names are ignored (idempotent). */
  deleteIndex(index: string): void {
    const h = this.indices.get(index);
    if (!h) return;
    this.recoveries.dropIndex(index);
    h.refresher.stop();
    for (const st of h.stores.values()) st.close();
    this.indices.delete(index);
    if (this.storage) {
      this.metaStore!.delete(index);
      removeIndexData(this.storage.dataDir, h.metadata.uuid);
    }
  }

  /** This node's ordinal in FOLIO_NODES as the coordinators named it, or null before any did. */
  nodeOrdinal(): number | null {
    return this.ordinal;
  }

  /** Each index this node knows with the metadata it holds (no copy details: see {@link IndexRegistry.list}). */
  metadataList(): IndexMetadata[] {
    return [...this.indices.values()].map((h) => h.metadata);
  }

  /** Every index this node knows, with the shard copies it hosts, their role and in-sync state. */
  list(): NodeIndexEntry[] {
    return [...this.indices.values()].map((h) => {
      const shards = [...h.shards.keys()].filter((s) => !h.failed.has(s)).sort((a, b) => a - b);
      const failed = [...h.failed.keys()].sort((a, b) => a - b);
      const pendingFailures = h.inSync.pendingList();
      const activeWrites = h.permits.activePrimaryWrites();
      return {
        metadata: h.metadata,
        shards,
        ...(h.ordinal !== null ? { node: h.ordinal } : {}),
        copies: hostedCopies(h.metadata, h.ordinal, shards),
        ...(failed.length > 0 ? { failed } : {}),
        ...(pendingFailures.length > 0 ? { pendingFailures } : {}),
        ...(activeWrites.length > 0 ? { activeWrites } : {}),
      };
    });
  }

  /**
   * The shard `shard` of `index` hosted here.
   * @throws EsError 404 index_not_found_exception, or 404 shard_not_found_exception when the index
   *   exists but this node does not host that shard (a mis-wired coordinator).
   */
  shard(index: string, shard: number): Shard {
    const s = this.hostedShard(index, shard);
    const failure = this.hosted(index).failed.get(shard);
    if (failure !== undefined) {
      throw new EsError(503, 'no_shard_available_action_exception', `[${index}][${shard}] the copy on node [${this.nodeId}] failed: ${failure}`, {
        metadata: { index, shard: String(shard) },
      });
    }
    return s;
  }

  /**
   * Refuses a read or a primary write on a closed index (ES `IndexClosedException`), by this node's
   * copy of the metadata: a coordinator whose view is older than the close cannot reach the data
   * through this node. Replica ops and recoveries still run (a closed index keeps its copies).
   * @throws EsError 400 `index_closed_exception`; 404 index_not_found_exception for an unknown index
   */
  checkOpen(index: string): void {
    const m = this.hosted(index).metadata;
    if (m.state === 'close') throw new EsError(400, 'index_closed_exception', 'closed', { metadata: { index_uuid: m.uuid, index } });
  }

  /** The shard object hosted here, failed or not. @throws as {@link IndexRegistry.shard} for a missing one */
  private hostedShard(index: string, shard: number): Shard {
    const s = this.hosted(index).shards.get(shard);
    if (!s) {
      throw new EsError(404, 'shard_not_found_exception', `no such shard [${index}][${shard}] on node [${this.nodeId}]`, {
        metadata: { index, shard: String(shard) },
      });
    }
    return s;
  }

  /**
   * Fails a copy whose translog commit failed (ES `IndexShard.failShard`): it answers nothing from
   * then on (its memory holds writes its disk does not), the node reports it failed (coordinators
   * read elsewhere, and the cluster manager promotes a replica when it was the primary) and not ready.
   * Reopening it (a recovery's reset, or a restart, which replays what the disk holds) clears it.
   */
  private failCopy(h: HostedIndex, shard: number, err: Error): void {
    if (h.failed.has(shard)) return;
    h.failed.set(shard, err.message);
    this.log?.error({ err, index: h.metadata.name, shard }, 'shard copy failed: translog commit failed');
  }

  /**
   * Fails a copy whose files had to be created empty although the metadata has it in sync with
   * data: its node lost them (a wiped or replaced disk, a data directory removed, shard files
   * deleted). Only at the index's creation (metadata version 1) is an in-sync copy legitimately
   * empty; later, an in-sync copy either was created then, or became in sync through a recovery
   * that filled its files. Serving the empty copy as in sync would hide every acknowledged write
   * from its searches, and promoting it would lose them all: ES refuses such a copy because its
   * allocation id is not in the in-sync set. It is reported failed like a copy whose translog
   * commit failed: a replica is taken out of sync and recovered by a full copy; a primary is
   * replaced by an in-sync replica, or, with none, its shard stays red (ES asks for
   * `allocate_empty_primary` with `accept_data_loss`, which Folio does not offer).
   * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-reroute.html
   */
  private checkNotLost(h: HostedIndex, shard: number): void {
    const copy = h.ordinal === null ? undefined : h.metadata.shardCopies?.[shard]?.find((c) => c.node === h.ordinal);
    if (!copy?.inSync || h.metadata.version <= 1) return;
    const reason = `the copy's files are missing: it is in sync in the index metadata (version ${h.metadata.version}) but had to be created empty`;
    h.failed.set(shard, reason);
    this.log?.error({ index: h.metadata.name, shard, primary: copy.primary }, `shard copy failed: ${reason}`);
  }

  /** The copies hosted here that have failed, as `index/shard`. */
  failedCopies(): string[] {
    return [...this.indices.values()].flatMap((h) => [...h.failed.keys()].map((s) => `${h.metadata.name}/${s}`));
  }

  /**
   * The shard `shard` of `index` for a primary write: the copy here must be the primary by this
   * node's metadata (ES refuses a primary operation on a replica the same way).
   * @throws EsError 404 `shard_not_in_primary_mode_exception` when the copy here is a replica;
   *   else as {@link IndexRegistry.shard}.
   */
  primaryShard(index: string, shard: number): Shard {
    const s = this.shard(index, shard);
    const h = this.hosted(index);
    const copy = h.ordinal === null ? undefined : h.metadata.shardCopies?.[shard]?.find((c) => c.node === h.ordinal);
    if (copy && !copy.primary) {
      throw new EsError(404, 'shard_not_in_primary_mode_exception', 'CurrentState[STARTED] shard is not in primary mode', { metadata: { index, shard: String(shard) } });
    }
    return s;
  }

  /**
   * Refreshes the given shards now (all hosted shards of the index when `shards` is empty), in
   * event-loop slices (`Shard.refreshSliced`); resolves once every write made before the call is
   * searchable on each, with the shards refreshed. Each shard's `wait_for` waiters registered
   * before the call are released then.
   * @throws EsError 404 for an unknown index or a shard not hosted here (before refreshing any).
   */
  async refresh(index: string, shards: number[] = []): Promise<number[]> {
    const h = this.hosted(index);
    const targets = shards.length > 0 ? shards : [...h.shards.keys()];
    const hosted = targets.map((s) => this.shard(index, s));
    await Promise.all(hosted.map((shard, i) => h.refresher.refreshAndRelease(targets[i], shard)));
    return targets;
  }

  /**
   * ES flush of the given shards (all hosted shards of the index when `shards` is empty): folds
   * each translog into its snapshot. Resolves with the shards flushed (all of them without storage,
   * where there is nothing to do).
   */
  async flush(index: string, shards: number[] = []): Promise<number[]> {
    const h = this.hosted(index);
    const targets = shards.length > 0 ? shards : [...h.shards.keys()];
    for (const s of targets) this.shard(index, s);
    await Promise.all(targets.map((s) => this.timedFlush(index, h.stores.get(s))));
    for (const s of targets) h.shards.get(s)!.counters.flushTotal++; // counted without storage too, as ES counts every flush
    return targets;
  }

  /**
   * Resolves after the next refresh of the shard (ES `refresh=wait_for`), with whether it had to
   * force one (ES `forced_refresh`): true only when the index has periodic refresh disabled.
   */
  waitForRefresh(index: string, shard: number): Promise<boolean> {
    const h = this.hosted(index);
    if (h.metadata.refreshIntervalMs < 0) {
      // Periodic refresh disabled: nobody would ever refresh, so refresh now as ES's forced refresh does.
      return this.refresh(index, [shard]).then(() => true);
    }
    return h.refresher.waitForNext(shard).then(() => false);
  }

  /**
   * Graceful shutdown: stops the timers, flushes every shard (ES flushes on close) and closes the
   * files. The data stays; memory-only registries just stop their timers.
   */
  async close(): Promise<void> {
    this.flushPolicy?.stop();
    for (const h of this.indices.values()) h.refresher.stop();
    const stores = this.allStores();
    await Promise.all(stores.map((st) => st.flush().catch((err: Error) => this.log?.error({ err, path: st.path }, 'flush on close failed'))));
    for (const st of stores) st.close();
    this.indices.clear();
    this.metaStore?.close();
  }

  private async timedFlush(index: string, store: ShardStore | undefined): Promise<void> {
    if (!store) return;
    const started = performance.now();
    await store.flush();
    this.timings?.flushed(index, (performance.now() - started) / 1000);
  }

  /** Counts a flush the flush policy ran on `store` (`GET /_stats` `flush.total`). */
  private countFlush(store: ShardStore): void {
    for (const h of this.indices.values()) {
      for (const [s, st] of h.stores) if (st === store) h.shards.get(s)!.counters.flushTotal++;
    }
  }

  /** The index a store belongs to ('' once it is gone). */
  private indexOf(store: ShardStore): string {
    for (const [name, h] of this.indices) for (const st of h.stores.values()) if (st === store) return name;
    return '';
  }

  private allStores(): ShardStore[] {
    return [...this.indices.values()].flatMap((h) => [...h.stores.values()]);
  }

  private host(metadata: IndexMetadata): HostedIndex {
    const shards = new Map<number, Shard>();
    const refresher = new IndexRefresher(metadata.name, shards, (index, seconds) => this.timings?.refreshed(index, seconds), this.log);
    const h: HostedIndex = { metadata, ordinal: null, shards, stores: new Map(), refresher, failed: new Map(), inSync: new PrimaryInSyncState(), permits: new OperationPermits(), replicaCheckpoints: new ReplicaCheckpoints() };
    this.indices.set(metadata.name, h);
    return h;
  }

  private openShard(h: HostedIndex, s: number): Shard {
    const name = h.metadata.name;
    let store: ShardStore | undefined;
    if (this.storage) {
      store = ShardStore.open({
        path: shardStorePath(this.storage.dataDir, h.metadata.uuid, s),
        durability: this.durabilityOf(h),
        syncIntervalMs: this.storage.syncIntervalMs,
        onError: (err) => this.failCopy(h, s, err),
      });
      h.stores.set(s, store);
      if (store.created) this.checkNotLost(h, s);
    }
    const shard = new Shard({
      index: name,
      shard: s,
      getMapping: () => h.metadata.mappings,
      updateMapping: (update: Mapping) => this.mergeMapping(name, update),
      translog: store,
      gcDeletesMs: h.metadata.gcDeletesMs ?? DEFAULT_GC_DELETES_MS,
      backgroundMerges: true, // merges run in event-loop slices, not inside a refresh (docs/reliability.md)
    });
    shard.primaryTerm = primaryTermOf(h.metadata, s);
    // The store records the checkpoints at each flush (ES: a commit's local_checkpoint, the translog's global checkpoint).
    if (store) {
      store.checkpointSource = () => ({ local: shard.localCheckpoint, global: shard.globalCheckpoint });
      shard.onCheckpointsMoved = () => store.recordCheckpointsSoon();
    }
    h.shards.set(s, shard);
    return shard;
  }

  private persist(h: HostedIndex): void {
    this.metaStore?.put({ metadata: h.metadata, shards: [...h.shards.keys()].sort((a, b) => a - b), ...(h.ordinal !== null ? { node: h.ordinal } : {}) });
  }

  private hosted(index: string): HostedIndex {
    const h = this.indices.get(index);
    if (!h) throw indexNotFound(index);
    return h;
  }
}
