/**
 * What one shard node hosts: the metadata of every index (each node keeps all of it, so any
 * coordinator can rebuild its view from any node) and the shard copies placed here, primaries and
 * replicas alike (the metadata's `shardCopies` says which), with their periodic refresh (ES
 * `index.refresh_interval`, default 1 s) and `?refresh=wait_for` listeners.
 * With a data directory, metadata and every shard's translog are durable (shard-node/storage/) and
 * {@link IndexRegistry.recover} reopens them at start; without one, everything is in memory.
 * This module is the registry's index lifecycle (recover, put, delete, close) and its entry point;
 * the work is its siblings': one hosted index and its copies' lifecycle (hosted-index.ts), applying
 * pushed metadata (index-metadata-apply.ts), replication state (hosted-replication.ts), shard lookup
 * (hosted-shard-lookup.ts), flushes (hosted-flush.ts) and the node's ordinal guard (node-ordinal.ts). Mirrors ES `IndicesService`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/near-real-time.html
 * @see https://github.com/elastic/elasticsearch/blob/v8.15.0/server/src/main/java/org/elasticsearch/indices/IndicesService.java
 */
import { indexNotFound } from '../protocol/errors.ts';
import { mergeMappings } from '../shared/dynamic-mapping.ts';
import type { Logger } from '../shared/logger.ts';
import type { Mapping } from '../protocol/mapping.ts';
import { primaryTermOf, type IndexMetadata, type NodeIndexEntry, type ShardCopy } from '../protocol/metadata.ts';
import type { GroupMember } from '../protocol/write.ts';
import type { Shard } from './engine/shard.ts';
import { FlushPolicy, type FlushPolicyOptions } from './storage/flush-policy.ts';
import { RecoveryTracker } from './replication-tracker.ts';
import { MetadataStore, removeIndexData } from './storage/metadata-store.ts';
import {
  durabilityOf,
  hostIndex,
  persistedEntry,
  recoverShardCopy,
  resetShardCopy,
  type HostedIndex,
  type RecoveryReport,
  type ShardCopyEnv,
  type ShardCopyStorage,
} from './hosted-index.ts';
import { advanceGlobalCheckpoint, checkOperationTerm, finalizeInSync, replicationGroupOf, suspectReplicasAfterRestart } from './hosted-replication.ts';
import { checkIndexOpen, hostedShardOf, nodeIndexEntry, primaryShardOf, servingShardOf } from './hosted-shard-lookup.ts';
import { countPolicyFlush, flushAndCloseStores, flushCopies, indexOfStore, sealBeforeClose, storesOf } from './hosted-flush.ts';
import { applyIndexMetadata } from './index-metadata-apply.ts';
import { SnapshotCopy } from './hosted-snapshot.ts';
import { NodeOrdinal } from './node-ordinal.ts';
import { failCorruptFileCopy } from './corrupt-copies.ts';

/** Durable storage of a registry (absent: in memory only): where its copies live, and when they are flushed. */
export interface RegistryStorageOptions extends FlushPolicyOptions, ShardCopyStorage {}

export type { RecoveryReport } from './hosted-index.ts';

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
  /** This node's ordinal in FOLIO_NODES and its guard (shard-node/node-ordinal.ts). */
  private readonly ordinal: NodeOrdinal;
  /** Copies this node, as a primary, is recovering (they receive its live writes). */
  readonly recoveries = new RecoveryTracker();
  /** What opening and dropping copies needs (shard-node/hosted-index.ts). */
  private readonly copyEnv: ShardCopyEnv;

  constructor(nodeId: string, storage?: RegistryStorageOptions, log?: Logger) {
    this.nodeId = nodeId;
    this.storage = storage ?? null;
    this.log = log;
    this.ordinal = new NodeOrdinal(nodeId);
    this.copyEnv = { storage: this.storage, log, mergeMapping: (index, update) => this.mergeMapping(index, update) };
    this.metaStore = storage ? new MetadataStore(storage.dataDir) : null;
    this.flushPolicy = storage
      ? new FlushPolicy(
          storage,
          () => storesOf(this.indices.values()),
          log,
          (store, seconds) => {
            countPolicyFlush(this.indices.values(), store);
            this.timings?.flushed(indexOfStore(this.indices.values(), store), seconds);
          },
        )
      : null;
    this.flushPolicy?.start();
  }

  /**
   * Start-up recovery: reopens every persisted index and its copies (hosted-index.ts `recoverShardCopy`),
   * so every acknowledged write is searchable. A no-op without storage.
   */
  recover(): RecoveryReport {
    const started = Date.now();
    const report: RecoveryReport = { indices: 0, shards: 0, ops: 0, tookMs: 0 };
    for (const entry of this.metaStore?.list() ?? []) {
      const h = this.host(entry.metadata);
      h.ordinal = entry.node ?? null;
      this.ordinal.adopt(h.ordinal);
      report.indices++;
      for (const s of entry.shards) {
        report.ops += recoverShardCopy(this.copyEnv, h, s);
        report.shards++;
        suspectReplicasAfterRestart(h, s, this.log);
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
   * @throws EsError 409 `illegal_state_exception` on another ordinal than the node's ({@link NodeOrdinal.check}).
   */
  putIndex(metadata: IndexMetadata, shards: number[], ordinal?: number): void {
    this.ordinal.check(ordinal);
    let hosted = this.indices.get(metadata.name);
    if (hosted && hosted.metadata.uuid !== metadata.uuid) {
      this.deleteIndex(metadata.name);
      hosted = undefined;
    }
    const h = hosted ?? this.host(metadata);
    applyIndexMetadata(this.copyEnv, h, metadata, { isNew: !hosted, shards, ordinal, recoveries: this.recoveries });
    this.persist(h);
    h.refresher.schedule(h.metadata.refreshIntervalMs);
    if (this.storage) for (const st of h.stores.values()) st.setDurability(durabilityOf(h, this.storage), this.storage.syncIntervalMs ?? 5000);
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
    if (finalizeInSync(h, index, shard, nodes, failures)) this.persist(h);
    return h.metadata;
  }

  /** The primary term of a shard by this node's metadata. @throws EsError 404 for an unknown index */
  termOf(index: string, shard: number): number {
    return primaryTermOf(this.hosted(index).metadata, shard);
  }

  /**
   * Refuses an operation of another primary term than this node's for the shard ({@link checkOperationTerm}).
   * @throws EsError 409 `illegal_state_exception`; 404 for an unknown index
   */
  checkTerm(index: string, shard: number, term: number | undefined, role: 'primary' | 'replica'): void {
    checkOperationTerm(this.hosted(index), index, shard, term, role);
  }

  /** The primary's replication group for a write ({@link replicationGroupOf}, with the copies being recovered here). */
  replicationGroup(index: string, shard: number): GroupMember[] {
    return replicationGroupOf(this.hosted(index), shard, this.recoveries.nodes(index, shard));
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
    advanceGlobalCheckpoint(h, shard, inSync);
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
    const h = this.hosted(index);
    hostedShardOf(h, this.nodeId, index, shard); // a failed copy may be emptied too: that is how it comes back
    const fresh = resetShardCopy(this.copyEnv, h, this.nodeId, shard);
    this.persist(h);
    return fresh;
  }

  /** The file side (hosted-snapshot.ts) of `copy`: the primary `shard` of `index` by default, a file recovery's target copy otherwise. @throws EsError as {@link IndexRegistry.primaryShard} */
  snapshotCopy(index: string, shard: number, copy: Shard = this.primaryShard(index, shard)): SnapshotCopy {
    const h = this.hosted(index);
    const flush = () => this.flush(index, [shard]);
    return new SnapshotCopy(this.copyEnv, h, shard, copy, flush, () => this.persist(h));
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
    return this.ordinal.value;
  }

  /** Each index this node knows with the metadata it holds (no copy details: see {@link IndexRegistry.list}). */
  metadataList(): IndexMetadata[] {
    return [...this.indices.values()].map((h) => h.metadata);
  }

  /** Every index this node knows, with the shard copies it hosts, their role and in-sync state. */
  list(): NodeIndexEntry[] {
    return [...this.indices.values()].map(nodeIndexEntry);
  }

  /**
   * The shard `shard` of `index` hosted here, refused when failed ({@link servingShardOf}).
   * @throws EsError 404 index_not_found_exception, or as {@link servingShardOf}.
   */
  shard(index: string, shard: number): Shard {
    return servingShardOf(this.hosted(index), this.nodeId, index, shard);
  }

  /**
   * Refuses a read or a primary write on a closed index (ES `IndexClosedException`), as
   * {@link checkIndexOpen}. Replica ops and recoveries still run (a closed index keeps its copies).
   * @throws EsError 400 `index_closed_exception`; 404 index_not_found_exception for an unknown index
   */
  checkOpen(index: string): void {
    checkIndexOpen(this.hosted(index), index);
  }

  /** A read found the segment file `resource` corrupt: fails its copy, as corrupt-copies.ts `failCorruptFileCopy`. */
  failCorruptCopy(resource: string, reason: string): boolean {
    return failCorruptFileCopy(this.log, this.indices.values(), resource, reason);
  }

  /** The copies hosted here that have failed, as `index/shard`. */
  failedCopies(): string[] {
    return [...this.indices.values()].flatMap((h) => [...h.failed.keys()].map((s) => `${h.metadata.name}/${s}`));
  }

  /** The shard `shard` of `index` for a primary write. @throws as {@link primaryShardOf}; 404 for an unknown index */
  primaryShard(index: string, shard: number): Shard {
    return primaryShardOf(this.hosted(index), this.nodeId, index, shard);
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
    await flushCopies(h, targets, (name, seconds) => this.timings?.flushed(name, seconds));
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
   * Graceful shutdown: stops the timers, seals and flushes every shard (ES flushes on close) and
   * closes the files. The data stays; memory-only registries just stop their timers.
   */
  async close(): Promise<void> {
    this.flushPolicy?.stop();
    for (const h of this.indices.values()) h.refresher.stop();
    await sealBeforeClose(this.indices.values(), this.log);
    await flushAndCloseStores(storesOf(this.indices.values()), this.log);
    this.indices.clear();
    this.metaStore?.close();
  }

  private host(metadata: IndexMetadata): HostedIndex {
    const h = hostIndex(metadata, (index, seconds) => this.timings?.refreshed(index, seconds), this.log);
    this.indices.set(metadata.name, h);
    return h;
  }

  private persist(h: HostedIndex): void {
    this.metaStore?.put(persistedEntry(h));
  }

  private hosted(index: string): HostedIndex {
    const h = this.indices.get(index);
    if (!h) throw indexNotFound(index);
    return h;
  }
}
