/**
 * One index as this shard node hosts it ({@link HostedIndex}: its metadata, the shard copies placed
 * here with their durable stores, refresh scheduling and replication state) and the lifecycle of
 * those copies: opening one (with its store when the node has a data directory), dropping one
 * with its files, and failing one whose disk cannot be trusted. The registry
 * (shard-node/index-registry.ts) decides which copies to open or drop; this module does it.
 * Mirrors ES `IndexService` (`createShard`, `removeShard`) and `IndexShard.failShard`.
 * @see https://github.com/elastic/elasticsearch/blob/v8.15.0/server/src/main/java/org/elasticsearch/index/IndexService.java
 */
import { dirname } from 'node:path';
import { EsError } from '../protocol/errors.ts';
import type { Logger } from '../shared/logger.ts';
import type { Mapping } from '../protocol/mapping.ts';
import { primaryTermOf, type IndexMetadata, type NodeIndexEntry } from '../protocol/metadata.ts';
import { Shard } from './engine/shard.ts';
import type { ShardCommit } from './engine/shard-commit.ts';
import { CorruptSegmentFileError } from './engine/segment-file/corrupt-segment-file.ts';
import { failCorruptCopy } from './corrupt-copies.ts';
import { readCorruptionMarker, removeCorruptionMarkers } from './storage/corruption-marker.ts';
import { DEFAULT_GC_DELETES_MS } from './engine/tombstone-gc.ts';
import { IndexRefresher } from './index-refresher.ts';
import { PrimaryInSyncState } from './primary-in-sync-state.ts';
import { ReplicaCheckpoints } from './replica-checkpoints.ts';
import { OperationPermits } from './operation-permits.ts';
import { removeShardData, shardStorePath } from './storage/metadata-store.ts';
import { ShardStore } from './storage/shard-store.ts';
import type { TranslogDurability } from './storage/translog-writer.ts';

/** One index on this node: its metadata, the shards hosted here, and its refresh scheduling. */
export interface HostedIndex {
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

/** What `IndexRegistry.recover` reopened (shard-node/index-registry.ts). */
export interface RecoveryReport {
  indices: number;
  shards: number;
  /** Snapshot rows plus translog ops replayed. */
  ops: number;
  tookMs: number;
}

/** Where and how the shard copies of this node are stored (absent: in memory only). */
export interface ShardCopyStorage {
  /** FOLIO_DATA: root of `node-state.sqlite` and `<index-uuid>/<shard>/shard.sqlite`. */
  dataDir: string;
  /** ES `index.translog.durability` applied to every shard of this node (default request). */
  durability?: TranslogDurability;
  /** ES `index.translog.sync_interval` in ms, for `async` (default 5000). */
  syncIntervalMs?: number;
}

/** What opening and dropping copies needs from the registry. */
export interface ShardCopyEnv {
  /** Null: copies are in memory only. */
  storage: ShardCopyStorage | null;
  log: Logger | undefined;
  /** Merges a dynamic-mapping update into the index's mapping (the registry's `mergeMapping`). */
  mergeMapping: (index: string, update: Mapping) => IndexMetadata;
}

/**
 * A new record for an index this node starts hosting, with no copies yet. `onRefreshed` receives
 * each refresh's duration in seconds (shard-node/metrics.ts).
 */
export function hostIndex(metadata: IndexMetadata, onRefreshed: (index: string, seconds: number) => void, log: Logger | undefined): HostedIndex {
  const shards = new Map<number, Shard>();
  const refresher = new IndexRefresher(metadata.name, shards, onRefreshed, log);
  return {
    metadata,
    ordinal: null,
    shards,
    stores: new Map(),
    refresher,
    failed: new Map(),
    inSync: new PrimaryInSyncState(),
    permits: new OperationPermits(),
    replicaCheckpoints: new ReplicaCheckpoints(),
  };
}

/** The translog durability of an index's shards: its own setting, else this node's default. */
export function durabilityOf(h: HostedIndex, storage: ShardCopyStorage): TranslogDurability {
  return h.metadata.translogDurability ?? storage.durability ?? 'request';
}

/** What the metadata store keeps of a hosted index: its metadata, shards hosted here and ordinal. */
export function persistedEntry(h: HostedIndex): NodeIndexEntry {
  return { metadata: h.metadata, shards: [...h.shards.keys()].sort((a, b) => a - b), ...(h.ordinal !== null ? { node: h.ordinal } : {}) };
}

/**
 * Opens the copy `s` of the index here (ES `IndexService.createShard`): its durable store first,
 * when the node has storage (a copy whose files had to be created although the metadata has it in
 * sync is failed at once, {@link checkNotLost}), then the in-memory shard over it, with the
 * primary term of the metadata. The shard is not recovered from the store here.
 */
export function openShardCopy(env: ShardCopyEnv, h: HostedIndex, s: number): Shard {
  const name = h.metadata.name;
  let store: ShardStore | undefined;
  if (env.storage) {
    store = ShardStore.open({
      path: shardStorePath(env.storage.dataDir, h.metadata.uuid, s),
      durability: durabilityOf(h, env.storage),
      syncIntervalMs: env.storage.syncIntervalMs,
      onError: (err) => failCopy(env.log, h, s, err),
    });
    h.stores.set(s, store);
    if (store.created) checkNotLost(env.log, h, s);
  }
  const shard = new Shard({
    index: name,
    shard: s,
    getMapping: () => h.metadata.mappings,
    updateMapping: (update: Mapping) => env.mergeMapping(name, update),
    translog: store,
    gcDeletesMs: h.metadata.gcDeletesMs ?? DEFAULT_GC_DELETES_MS,
    backgroundMerges: true, // merges run in event-loop slices, not inside a refresh (docs/reliability.md)
    // A merge reads its inputs from their files: one that fails its checksum fails this copy (not a later instance of it).
    onMergeError: (err) => {
      if (err instanceof CorruptSegmentFileError && h.shards.get(s) === shard) failCorruptCopy(env.log, h, s, err.message, err.resource);
    },
  });
  shard.primaryTerm = primaryTermOf(h.metadata, s);
  // The store records the checkpoints at each flush (ES: a commit's local_checkpoint, the translog's global checkpoint).
  if (store) {
    store.checkpointSource = () => ({ local: shard.localCheckpoint, global: shard.globalCheckpoint });
    store.commitSource = () => shard.commit(); // each flush writes it as segment files (docs/segment-files.md)
    shard.onCheckpointsMoved = () => store.recordCheckpointsSoon();
  }
  h.shards.set(s, shard);
  return shard;
}

/**
 * Start-up recovery of the copy `s` (ES `StoreRecovery.recoverFromStore`): opens it over its
 * store; with a commit point, opens its segment files (no document is re-analysed) and replays
 * the translog above it, else (a data directory from before segment files) replays the store's
 * flush snapshot and translog; either way from the recorded checkpoints, then refreshes, so every
 * acknowledged write is searchable. A copy with a corruption marker, or whose segment files fail
 * their checks, is failed when another in-sync copy exists (it stays empty until peer recovery
 * rebuilds it), else rebuilt from the flush snapshot and translog ({@link readCommit}). Needs
 * storage. @returns the ops replayed
 */
export function recoverShardCopy(env: ShardCopyEnv, h: HostedIndex, s: number): number {
  const shard = openShardCopy(env, h, s);
  const store = h.stores.get(s)!;
  const translogOps = store.stats().translogOps;
  const commit = readCommit(env.log, h, s, store);
  if (commit === 'failed') {
    // Its memory stays empty: a flush must neither commit that nor record its checkpoints.
    store.commitSource = null;
    store.checkpointSource = null;
    return 0;
  }
  const local = store.recordedLocalCheckpoint();
  const global = store.recordedGlobalCheckpoint();
  const ops = commit
    ? shard.recoverFromStore(store.translogOpsAbove(commit.seqNo), local, global, commit)
    : shard.recoverFromStore(store.recoveredOps(), local, global);
  shard.refresh();
  if (!commit) removeCorruptionMarkers(dirname(store.path)); // rebuilt whole without the files
  env.log?.info(
    {
      index: h.metadata.name,
      shard: s,
      from: commit ? 'segment files' : 'store snapshot',
      ops,
      translogOps,
      maxSeqNo: shard.maxSeqNo,
      localCheckpoint: shard.localCheckpoint,
      globalCheckpoint: shard.globalCheckpoint,
    },
    'shard recovered',
  );
  return ops;
}

/**
 * The copy's newest commit point and segments (shard-node/storage/segment-commits.ts), null when
 * it has none, or `failed`. A copy with a corruption marker (a read found one of its files
 * corrupt: shard-node/corrupt-copies.ts), or whose commit point or segment file fails its
 * checks, is never served as it is: when another in-sync copy exists, it is failed
 * (`failCorruptCopy`: the marker stays or is written, and peer recovery rebuilds it) and `failed`
 * returned; otherwise null is returned, so the copy is rebuilt from its SQLite flush snapshot and
 * translog, which a flush keeps whole up to the commit (docs/segment-files.md, "Corruption"); the
 * next flush writes new files and deletes the bad ones. Either choice is logged.
 */
function readCommit(log: Logger | undefined, h: HostedIndex, s: number, store: ShardStore): ShardCommit | null | 'failed' {
  let corruption = readCorruptionMarker(dirname(store.path));
  let err: CorruptSegmentFileError | undefined;
  if (corruption === null) {
    try {
      return store.segments.load();
    } catch (e) {
      if (!(e instanceof CorruptSegmentFileError)) throw e;
      err = e;
      corruption = { reason: e.message, resource: e.resource, markedAt: Date.now() };
    }
  }
  if (failCorruptCopy(log, h, s, corruption.reason, corruption.resource)) return 'failed';
  log?.error(
    { err, reason: corruption.reason, index: h.metadata.name, shard: s },
    'segment files failed their checks: rebuilding the copy from its store snapshot',
  );
  return null;
}

/**
 * Empties the copy `shard` before a full recovery (a copy left behind by a promotion may hold ops
 * of the old term): its data is dropped, what its primary heard of it forgotten, and an empty copy
 * opened. The caller persists the registry's entry.
 * @throws EsError 409 `illegal_state_exception` when the copy here is the primary or in sync.
 */
export function resetShardCopy(env: ShardCopyEnv, h: HostedIndex, nodeId: string, shard: number): Shard {
  const index = h.metadata.name;
  const copy = h.ordinal === null ? undefined : h.metadata.shardCopies?.[shard]?.find((c) => c.node === h.ordinal);
  if (!copy || copy.primary || copy.inSync) {
    throw new EsError(409, 'illegal_state_exception', `[${index}][${shard}] the copy on node [${nodeId}] is not a recovering replica and cannot be emptied`);
  }
  dropShardCopy(env, h, shard);
  h.replicaCheckpoints.forget(shard);
  return openShardCopy(env, h, shard);
}

/** Closes a copy this node no longer hosts and removes its files (ES `IndexService.removeShard`). */
export function dropShardCopy(env: ShardCopyEnv, h: HostedIndex, s: number): void {
  h.shards.delete(s);
  h.failed.delete(s);
  const store = h.stores.get(s);
  h.stores.delete(s);
  store?.close();
  h.refresher.releaseShard(s);
  if (env.storage) removeShardData(env.storage.dataDir, h.metadata.uuid, s);
  env.log?.info({ index: h.metadata.name, shard: s }, 'shard copy removed');
}

/**
 * Fails a copy whose translog commit failed (ES `IndexShard.failShard`): it answers nothing from
 * then on (its memory holds writes its disk does not), the node reports it failed (coordinators
 * read elsewhere, and the cluster manager promotes a replica when it was the primary) and not ready.
 * Reopening it (a recovery's reset, or a restart, which replays what the disk holds) clears it.
 */
export function failCopy(log: Logger | undefined, h: HostedIndex, shard: number, err: Error): void {
  if (h.failed.has(shard)) return;
  h.failed.set(shard, err.message);
  log?.error({ err, index: h.metadata.name, shard }, 'shard copy failed: translog commit failed');
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
export function checkNotLost(log: Logger | undefined, h: HostedIndex, shard: number): void {
  const copy = h.ordinal === null ? undefined : h.metadata.shardCopies?.[shard]?.find((c) => c.node === h.ordinal);
  if (!copy?.inSync || h.metadata.version <= 1) return;
  const reason = `the copy's files are missing: it is in sync in the index metadata (version ${h.metadata.version}) but had to be created empty`;
  h.failed.set(shard, reason);
  log?.error({ index: h.metadata.name, shard, primary: copy.primary }, `shard copy failed: ${reason}`);
}
