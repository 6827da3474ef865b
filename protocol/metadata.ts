/**
 * Index metadata and shard copies as the nodes hold them, and the internal calls that read or change them (create, mappings, settings, in-sync set, promotion, node stats).
 * Part of the internal shard-node protocol (docs/architecture.md lists its modules).
 */
import type { Mapping } from './mapping.ts';
import type { ShardRecoveryState } from './recovery-report.ts';

/** Index metadata, held by every shard node and rebuilt from them by any coordinator. */
export interface IndexMetadata {
  name: string;
  uuid: string;
  numberOfShards: number;
  numberOfReplicas: number;
  /** ES `index.number_of_routing_shards` used by the routing formula. */
  routingNumShards: number;
  /** ES `index.max_result_window` (Folio default 10,000,000; see index-settings.ts). */
  maxResultWindow: number;
  /** ES `index.refresh_interval` in ms; -1 disables periodic refresh. */
  refreshIntervalMs: number;
  /** ES `index.translog.durability` (dynamic); absent = the shard node's `FOLIO_TRANSLOG_DURABILITY`. */
  translogDurability?: 'request' | 'async';
  /** ES `index.gc_deletes` in ms (dynamic, ≥ -1): how long delete tombstones are kept; absent = 60 s. */
  gcDeletesMs?: number;
  mappings: Mapping;
  /**
   * The index settings as ES stores and prints them: flat keys with the `index.` prefix, values as
   * given (strings, or lists of strings), only those set explicitly (at creation or by
   * `PUT /{index}/_settings`) plus `index.number_of_shards` and `index.number_of_replicas`, which ES
   * always stores. The typed fields above are derived from it (coordinator/cluster/index-settings.ts).
   * Absent on indices created before it existed: rebuilt from the typed fields.
   * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules.html
   */
  settings?: Record<string, IndexSettingValue>;
  /**
   * ES `IndexMetadata.State`: `close` after `POST /{index}/_close`, when the index refuses reads and
   * writes (400 `index_closed_exception`) and its shard copies stay where they are; absent = open.
   * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-close.html
   */
  state?: 'close';
  /** Epoch ms, as ES `index.creation_date`. */
  creationDate: number;
  /** Bumped on every metadata change; the highest version wins when nodes disagree. */
  version: number;
  /**
   * Where each shard's copies live, `shardCopies[s]` primary first: ES's routing table and in-sync
   * allocation ids, simplified (one copy per node, so a node's ordinal names its copy). Absent on
   * indices created before replicas existed: their only copy is the one a node reports hosting.
   */
  shardCopies?: ShardCopy[][];
  /**
   * ES `IndexMetadata.primaryTerm(shard)`: `primaryTerms[s]` starts at 1 and grows by one each time
   * a replica of shard s is promoted. Every write carries it; a copy rejects a write of an older
   * term. Absent (an index from before promotion existed): every shard is in term 1.
   * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/IndexMetadata.java (primaryTerm)
   */
  primaryTerms?: number[];
  /**
   * ES `IndexMetadata.getAliases()`: the aliases that name this index, by alias name. Absent or
   * empty: none. Changed only through the alias APIs (coordinator/cluster/aliases/), each change one
   * compare-and-swap of every index it touches (docs/cluster-state.md, "Aliases").
   * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/aliases.html
   */
  aliases?: Record<string, AliasMetadata>;
}

/**
 * ES `AliasMetadata`: one alias of one index, with ES's field names as `GET /_alias` prints them.
 * `routing` given to the APIs sets both routings.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/AliasMetadata.java
 */
export interface AliasMetadata {
  /** A query (ES query DSL, as given) that searches through the alias add as a filter. */
  filter?: Record<string, unknown>;
  /** The routing of writes and single-document reads through the alias (one value). */
  index_routing?: string;
  /** The routing of searches through the alias (comma-separated values). */
  search_routing?: string;
  /** Writes through the alias go to this index (true), never to it (false), or, unset, to it when it is the alias's only index. */
  is_write_index?: boolean;
  /** A hidden alias is left out of wildcard expressions unless `expand_wildcards` includes `hidden`. */
  is_hidden?: boolean;
}

/** One index setting's value as ES's `Settings` holds it: a string, or a list of strings. */
export type IndexSettingValue = string | string[];

/**
 * The primary term of shard `s` of an index (1 when the metadata predates primary terms), ES
 * `IndexMetadata.primaryTerm(int)`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/optimistic-concurrency-control.html
 */
export function primaryTermOf(metadata: Pick<IndexMetadata, 'primaryTerms'>, s: number): number {
  return metadata.primaryTerms?.[s] ?? 1;
}

/**
 * One allocated copy of a shard in the index metadata.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/IndexMetadata.java (inSyncAllocationIds)
 */
export interface ShardCopy {
  /** Ordinal of the node hosting it in the ordered FOLIO_NODES list. */
  node: number;
  primary: boolean;
  /**
   * ES's in-sync set: the copy holds every acknowledged write, so it takes writes and serves
   * searches. A replica that failed a write is taken out of it before the write is acknowledged,
   * and comes back into it only through a peer recovery from its primary (coordinator/cluster/recovery.ts).
   */
  inSync: boolean;
  /**
   * Set on the copies left behind by a promotion (the old primary, the other replicas): they may
   * hold ops of the old term the new primary never had, so their recovery is a full copy onto an
   * emptied copy rather than an ops replay. Cleared when the copy is back in sync.
   */
  resync?: boolean;
  /**
   * How many times this copy has been failed (taken or kept out of the in-sync set by a write or
   * a report): bumped on every failure, even of a copy already out of sync, so a recovery that
   * started before a failure cannot put the copy back in sync (ES gives a failed copy a new
   * allocation id for the same reason). Absent: 0.
   */
  failures?: number;
}

/** POST /_internal/v1/refresh (and /flush, same body): refresh shards of an index hosted here. */
export interface RefreshRequest {
  index: string;
  shards: number[];
}

/** `POST /_internal/v1/cache/clear`: empty the shard request cache of every copy here of `indices`. */
export interface ClearCacheRequest {
  indices: string[];
}

/** Reply to {@link ClearCacheRequest}: the copies here whose request cache was emptied. */
export interface ClearCacheResponse {
  node: string;
  shards: { index: string; shard: number }[];
}

/** Reply to {@link RefreshRequest}: the shards refreshed (or flushed) here. */
export interface RefreshResponse {
  node: string;
  index: string;
  shards: number[];
}

/** Reply to GET /_internal/v1/health: the node is up, and its id. */
export interface HealthResponse {
  status: 'ok';
  node: string;
}

/** Reply to PUT and DELETE /_internal/v1/indices/{index}. */
export interface AcknowledgedResponse {
  node: string;
  acknowledged: true;
}

/** DELETE /_internal/v1/indices/{index}: drop an index here (its name travels in the path). */
export interface DeleteIndexRequest {
  index: string;
}

/** PUT /_internal/v1/indices/{index}: store an index's metadata and open the listed shards here. */
export interface PutIndexRequest {
  metadata: IndexMetadata;
  /**
   * The shards of this index that this node hosts (may be empty: every node keeps all metadata).
   * With `metadata.shardCopies` and `node`, the node derives them from the metadata instead.
   */
  shards: number[];
  /** This node's ordinal in the coordinator's FOLIO_NODES (what `shardCopies` name it by). */
  node?: number;
}

/** Reply to recovery finalize: the primary node's resulting metadata. */
export interface MetadataResponse {
  node: string;
  metadata: IndexMetadata;
}

/** One entry of GET /_internal/v1/indices: what this node knows and hosts. */
export interface NodeIndexEntry {
  metadata: IndexMetadata;
  /** Every shard of the index with a copy here, primary or replica. */
  shards: number[];
  /** This node's ordinal in FOLIO_NODES when the index was stored (absent: unknown). */
  node?: number;
  /** The copies hosted here with their role and in-sync state, from the node's metadata. */
  copies?: HostedCopy[];
  /** Shards whose copy here has failed (a translog commit failed): not in `shards`, serving nothing. */
  failed?: number[];
  /**
   * In-sync replicas a write forwarded by a primary here failed on, not yet out of sync in the
   * cluster state; `failures`: the copy's failure count (ShardCopy.failures) when the write was
   * forwarded. A report whose count is below the stored one is about an in-sync period that has
   * ended (the copy failed and recovered since): it is ignored.
   */
  pendingFailures?: { shard: number; node: number; failures?: number }[];
  /**
   * Shards whose primary here has writes in progress (from the first op to the reply, replication
   * included; ES `IndexShard.getActiveOperationsCount`). Absent: none.
   */
  activeWrites?: { shard: number; writes: number }[];
}

/** A shard copy a node hosts, as `GET /_internal/v1/indices` reports it. */
export interface HostedCopy {
  shard: number;
  primary: boolean;
  inSync: boolean;
}

/** Reply to GET /_internal/v1/indices. */
export interface NodeIndicesResponse {
  node: string;
  indices: NodeIndexEntry[];
}

/**
 * A shard copy's operation counters since its node started (shard-node/engine/shard-counters.ts),
 * what `GET /_stats` sums: ES's indexing, get, search, refresh and flush totals.
 */
export interface ShardCounters {
  /** Index operations applied (primary writes, updates included, and live replication on a replica; not recoveries), ES `index_total`. */
  indexTotal: number;
  /** Index or update operations that failed on the primary, ES `index_failed`. */
  indexFailed: number;
  /** Delete operations applied (also of a missing document), ES `delete_total`. */
  deleteTotal: number;
  /** Updates that changed nothing (`result: noop`), ES `noop_update_total`. */
  noopUpdateTotal: number;
  /** Gets served (GET, `_source`, `_mget` items, terms lookups, an update's read), ES `get.total`. */
  getTotal: number;
  /** Gets that found the document, ES `exists_total`. */
  getExists: number;
  /** Gets that did not, ES `missing_total`. */
  getMissing: number;
  /** Query phases run, ES `query_total`. */
  queryTotal: number;
  /** Fetch phases run (a query phase that also fetched counts one), ES `fetch_total`. */
  fetchTotal: number;
  /** Refreshes run, ES `refresh.total`. */
  refreshTotal: number;
  /** Flushes run, ES `flush.total`. */
  flushTotal: number;
}

/** One shard copy in {@link NodeStats}. */
export interface NodeShardStats {
  index: string;
  shard: number;
  docs: number;
  deleted: number;
  generation: number;
  segments: number;
  /** Whether this copy is the primary (as this node holds it). */
  primary?: boolean;
  /** Operation counters, with the copy's open search contexts (PIT, scroll) and the scroll contexts it closed or let expire (ES `scroll_total`). */
  ops?: ShardCounters & { openContexts: number; scrollTotal: number };
  /** ES `seq_no` of the copy: highest seq_no, local and global checkpoints (-1: none). */
  seqNo?: { maxSeqNo: number; localCheckpoint: number; globalCheckpoint: number };
  /** The copy's latest recovery (ES `RecoveryState`: `GET /_recovery`, `GET /_cat/recovery`). */
  recovery?: ShardRecoveryState;
  /** ES `request_cache` of the copy (shard-node/request-cache.ts). */
  requestCache?: { memorySizeInBytes: number; evictions: number; hitCount: number; missCount: number };
}

/** GET /_internal/v1/stats: per-shard document counts, generations, counters and checkpoints. */
export interface NodeStats {
  node: string;
  shards: NodeShardStats[];
}
