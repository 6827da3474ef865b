/**
 * The internal shard-node protocol (`/_internal/v1/…`, JSON). Every response echoes `node`, `index`
 * and `shard` so that the coordinator detects a mis-wired node. Shapes mirror ES's transport
 * actions: the query phase returns sort keys only (`QuerySearchResult`), the fetch phase loads
 * `_source` for the final page (`FetchSearchResult`).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/SearchPhaseController.java
 */
import type { Mapping } from './mapping.ts';
import type { Query } from './query-ast.ts';
import type { SortField, SortKey, SortValue } from './sort.ts';

/** Path prefix of every internal endpoint. */
export const INTERNAL_PREFIX = '/_internal/v1';

/**
 * The identity every shard reply echoes (the node's id and the index and shard it answered for), so
 * that the coordinator detects a mis-wired node (`checkIdentity` in coordinator/search/fan-out.ts).
 */
export interface ShardEcho {
  node: string;
  index: string;
  shard: number;
}

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
  mappings: Mapping;
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
}

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
   * and comes back into it only through a peer recovery from its primary (coordinator/recovery.ts).
   */
  inSync: boolean;
  /**
   * Set on the copies left behind by a promotion (the old primary, the other replicas): they may
   * hold ops of the old term the new primary never had, so their recovery is a full copy onto an
   * emptied copy rather than an ops replay. Cleared when the copy is back in sync.
   */
  resync?: boolean;
}

/** One write on one shard. `update` merges `doc` into the stored `_source` (real-time get). */
export type WriteOp =
  | { op: 'index'; _id: string; source: Record<string, unknown>; create: boolean }
  | { op: 'delete'; _id: string }
  | { op: 'update'; _id: string; doc: Record<string, unknown>; docAsUpsert: boolean; upsert?: Record<string, unknown> };

/** `?refresh` of write APIs: refresh now, wait for the next refresh, or nothing. */
export type RefreshPolicy = 'true' | 'wait_for' | 'false';

/** POST /_internal/v1/bulk: apply a batch of writes to one shard, in order. */
export interface ShardBulkRequest {
  index: string;
  shard: number;
  ops: WriteOp[];
  refresh: RefreshPolicy;
  /** Answer the ops the replicas must apply ({@link ShardBulkResponse.replicaOps}). */
  replicate?: boolean;
  /** The primary term the coordinator's metadata has for the shard; the node refuses any other (409). */
  primaryTerm?: number;
}

/** The outcome of one write, in the ES bulk item shape (without `_index`, added by the coordinator). */
export interface WriteResult {
  _id: string;
  status: number;
  result?: 'created' | 'updated' | 'deleted' | 'not_found' | 'noop';
  _version?: number;
  _seq_no?: number;
  _primary_term?: number;
  error?: { type: string; reason: string; [k: string]: unknown };
}

/** Reply to {@link ShardBulkRequest}: one result per op, in order. */
export interface ShardBulkResponse extends ShardEcho {
  items: WriteResult[];
  /** True when the shard refreshed (or waited for a refresh) before answering. */
  forcedRefresh: boolean;
  /** With {@link ShardBulkRequest.replicate}: every op the primary logged, in seq_no order. */
  replicaOps?: ReplicaOp[];
  /**
   * The primary's replication group when it applied the ops (ES `ReplicationTracker`): every other
   * copy that must receive them, in sync by the primary's metadata or recovering (tracked). The
   * coordinator sends the ops to these as well as to the in-sync copies of its own view.
   */
  replicationGroup?: GroupMember[];
}

/** A copy of the primary's replication group: its node ordinal and whether it is in sync. */
export interface GroupMember {
  node: number;
  inSync: boolean;
}

/**
 * One write as a replica applies it: the primary's outcome (seq_no, version) and the resulting
 * document (ES sends the primary's `IndexRequest` with its seq_no to each replica). For an `index`
 * op, `source` is absent when it is the `_source` of the primary request's op number `item` (the
 * coordinator has it already); updates carry the merged document.
 */
export type ReplicaOp =
  | { op: 'index'; _id: string; seqNo: number; version: number; source?: Record<string, unknown>; item?: number }
  | { op: 'delete'; _id: string; seqNo: number; version: number };

/**
 * POST /_internal/v1/replicate: apply a primary's ops to a replica copy, idempotently (an op older
 * than what the copy holds for its `_id` is skipped), durably (fsynced like a bulk) before answering.
 */
export interface ReplicaBulkRequest {
  index: string;
  shard: number;
  /** The primary's ops, each `index` op with its `source`. */
  ops: ReplicaOp[];
  refresh: RefreshPolicy;
  /** The term of the primary that assigned the ops; a copy whose metadata has a newer term refuses them (409). */
  primaryTerm?: number;
}

/** Reply to {@link ReplicaBulkRequest}. */
export interface ReplicaBulkResponse extends ShardEcho {
  /** Ops applied; the others were already there or superseded. */
  applied: number;
}

/** Per-term statistics for distributed scoring (ES `dfs_query_then_fetch`). */
export interface TermStatistics {
  docFreq: number;
  totalTermFreq: number;
}

/** Per-field statistics for BM25's idf N and avgdl (Lucene `CollectionStatistics`). */
export interface FieldStatistics {
  /** Documents that have the field. */
  docCount: number;
  /** Sum over documents of the field length in tokens. */
  sumTotalTermFreq: number;
}

/** Term statistics keyed `field\u0000term`, with field statistics keyed by field. */
export interface ScoringStatistics {
  terms: Record<string, TermStatistics>;
  fields: Record<string, FieldStatistics>;
}

/**
 * A reference to an explicitly opened search context (PIT or scroll, see {@link OpenContextRequest}):
 * the shard reads the context's pinned generation and renews its keep-alive (to `keepAliveMs` when
 * given). An unknown or expired id answers 404 `search_context_missing_exception`.
 */
export interface ContextRef {
  id: number;
  keepAliveMs?: number;
}

/** POST /_internal/v1/dfs: the shard's statistics for the scored terms of a query. */
export interface DfsRequest {
  index: string;
  shard: number;
  query: Query;
  /** Read this retained generation (a Folio-Snapshot pin); absent = the current one. */
  generation?: number;
  /** Read this context's generation (PIT, scroll). */
  context?: ContextRef;
}

/** Reply to {@link DfsRequest}; `generation` is the refresh generation the statistics describe, kept open for the search. */
export interface DfsResponse extends ShardEcho {
  generation: number;
  stats: ScoringStatistics;
}

/** `track_total_hits` normalized: -1 = disabled, `Number.MAX_SAFE_INTEGER` = accurate, else count up to N. */
export type TrackTotalHits = number;

/** POST /_internal/v1/query: the query phase on one shard. */
export interface QueryPhaseRequest {
  index: string;
  shard: number;
  query: Query;
  sort: SortField[];
  /** How many top entries to return (ES: from + size). */
  k: number;
  /** Return only entries strictly after this key in the global order (values, then `_id` if given). */
  searchAfter?: { sort: SortValue[]; _id?: string };
  trackTotalHits: TrackTotalHits;
  /** ES `track_scores`: compute scores even when sorting by fields. */
  trackScores?: boolean;
  /** Global statistics (dfs). Without them the shard scores with its local statistics. */
  stats?: ScoringStatistics;
  /** Search this retained refresh generation (the one a dfs reply named); absent = the current one. */
  generation?: number;
  /** Search this context's generation (PIT, scroll); takes precedence over `generation`. */
  context?: ContextRef;
  /**
   * The generation `stats` were gathered at, for cached statistics: when the shard has refreshed
   * since, it answers `statsStale: true` without searching, and the coordinator re-runs dfs.
   */
  statsGeneration?: number;
  /**
   * Fused fetch: also return each hit's `_source` (filtered like the fetch phase) as `sources`, so
   * a small page needs no fetch round (ES fuses query and fetch for a single shard:
   * `SearchService.executeQueryPhase` → `QueryFetchSearchResult`). Absent: keys only.
   */
  fetchSource?: SourceFilter;
}

/** One query-phase entry: no `_source`, just what the merge needs. */
export interface ShardHit {
  _id: string;
  /** The score, or null when it was not computed (field sort). */
  _score: number | null;
  /** One value per SortField. */
  sort: SortValue[];
}

/** Reply to {@link QueryPhaseRequest}: exactly this shard's top k in the requested order. */
export interface QueryPhaseResponse extends ShardEcho {
  generation: number;
  total: { value: number; relation: 'eq' | 'gte' };
  /** Highest score among matches, null when scores were not computed or nothing matched. */
  max_score: number | null;
  hits: ShardHit[];
  /**
   * With {@link QueryPhaseRequest.fetchSource}: per hit, its filtered `_source` as JSON text (null
   * when the filter leaves none), read from the same generation as the hits.
   */
  sources?: (string | null)[];
  /** Set (with no hits) when `statsGeneration` is no longer this shard's current generation. */
  statsStale?: boolean;
}

/** ES `_source` filtering: false, true, or include/exclude patterns (with `*` wildcards). */
export type SourceFilter = boolean | { includes: string[]; excludes: string[] };

/** POST /_internal/v1/fetch: load documents of the final page from the generation the query phase read. */
export interface FetchRequest {
  index: string;
  shard: number;
  generation: number;
  ids: string[];
  _source: SourceFilter;
}

/** A fetched document; `_source` is omitted when filtered out by `_source: false`. */
export interface FetchedDoc {
  _id: string;
  _source?: Record<string, unknown>;
}

/** Reply to {@link FetchRequest}: one entry per requested id in order, null for an id not present. */
export interface FetchResponse extends ShardEcho {
  docs: (FetchedDoc | null)[];
}

/** POST /_internal/v1/get: real-time get of one document (reads the live buffer, like ES's GET). */
export interface GetRequest {
  index: string;
  shard: number;
  _id: string;
}

/** Reply to {@link GetRequest}. */
export interface GetResponse extends ShardEcho {
  found: boolean;
  _version?: number;
  _seq_no?: number;
  _primary_term?: number;
  _source?: Record<string, unknown>;
}

/** POST /_internal/v1/refresh: refresh shards of an index hosted here. */
export interface RefreshRequest {
  index: string;
  shards: number[];
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

/**
 * PUT /_internal/v1/indices/{index}/_metadata: dynamic settings and, when `number_of_replicas`
 * changed, the new copies. The node merges it into its own metadata (mappings and in-sync state
 * stay its own; a copy out of sync there stays out of sync) and bumps the version.
 */
export type MetadataUpdateRequest = Partial<Pick<IndexMetadata, 'maxResultWindow' | 'refreshIntervalMs' | 'numberOfReplicas' | 'translogDurability' | 'shardCopies'>> & {
  /** This node's ordinal in FOLIO_NODES. */
  node?: number;
};

/**
 * PUT /_internal/v1/indices/{index}/_in_sync: take copies out of a shard's in-sync set (ES
 * `ShardStateAction.remoteShardFailed` → the master's `IndexMetadata.inSyncAllocationIds`), durably.
 */
export interface InSyncUpdateRequest {
  shard: number;
  /** Ordinals of the nodes whose copies leave (or, with `inSync`, join) the in-sync set. */
  nodes: number[];
  /** True: the copies join the in-sync set (a finished recovery). Default false. */
  inSync?: boolean;
}

/**
 * PUT /_internal/v1/indices/{index}/_promote: the replica of `shard` on node `node` becomes the
 * primary in term `term` (ES `PrimaryShardAllocator` promoting an in-sync replica after the primary
 * failed); every other copy is left out of sync with `resync`. Idempotent: a node whose metadata
 * has the term already answers it unchanged.
 */
export interface PromoteRequest {
  shard: number;
  node: number;
  term: number;
}

/** Shard calls of a peer recovery name the index, the shard and the target copy's node ordinal. */
export interface RecoveryShardRequest {
  index: string;
  shard: number;
}

/** Reply of POST /_internal/v1/recovery/state (on the target): how far its copy is. */
export interface RecoveryStateResponse extends ShardEcho {
  /** ES local checkpoint: every op up to it is applied here (-1: none known). */
  checkpoint: number;
  maxSeqNo: number;
  /** This instance of the copy; a reset or a restart changes it. */
  copyId: string;
}

/**
 * POST /_internal/v1/recovery/start (on the primary): track `target` in the replication group from
 * now on (live writes reach it), and answer what it misses: the ops above `fromSeqNo` when the
 * primary's translog still has them all (unless `full`), else a full copy of the primary's
 * documents and tombstones, with their version and seq_no (ES `RecoverySourceHandler` phase 1 and 2).
 */
export interface RecoveryStartRequest extends RecoveryShardRequest {
  target: number;
  fromSeqNo: number;
  full?: boolean;
  primaryTerm: number;
}

/** Reply to {@link RecoveryStartRequest}. */
export interface RecoveryStartResponse extends ShardEcho {
  mode: 'ops' | 'full';
  /** Each op with its `source` (ops mode: seq_no order; full mode: every `_id`'s latest state). */
  ops: ReplicaOp[];
  /** The primary's max seq_no when the ops were taken: the target holds everything up to it once they are applied. */
  upTo: number;
}

/** POST /_internal/v1/recovery/apply (on the target): apply recovery ops idempotently; with `upTo`, the last chunk. */
export interface RecoveryApplyRequest extends RecoveryShardRequest {
  ops: ReplicaOp[];
  upTo?: number;
  primaryTerm: number;
  /** The copy instance the recovery started on ({@link RecoveryStateResponse.copyId}); another one answers 409. */
  copyId: string;
}

/** POST /_internal/v1/recovery/finalize (on the primary): put `target` in sync in the primary's metadata. */
export interface RecoveryFinalizeRequest extends RecoveryShardRequest {
  target: number;
  primaryTerm: number;
}

/** Reply to {@link RecoveryFinalizeRequest}: the primary's metadata and its max seq_no at that moment. */
export interface RecoveryFinalizeResponse {
  node: string;
  metadata: IndexMetadata;
  maxSeqNo: number;
}

/** Reply to the metadata calls that change an index: this node's resulting metadata. */
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

/** GET /_internal/v1/stats: per-shard document counts and generations. */
export interface NodeStats {
  node: string;
  shards: { index: string; shard: number; docs: number; deleted: number; generation: number; segments: number }[];
}

/**
 * POST /_internal/v1/contexts/open: pin the current generation of a shard in a new search context
 * (PIT or scroll) for `keepAliveMs`. Over the node's limit: 429 (`too_many_scroll_contexts_exception`
 * for scroll, `rejected_execution_exception` for PIT).
 */
export interface OpenContextRequest {
  index: string;
  shard: number;
  kind: 'pit' | 'scroll';
  keepAliveMs: number;
}

/** Reply to {@link OpenContextRequest}. */
export interface OpenContextResponse extends ShardEcho {
  /** Node-local context id. */
  context: number;
  generation: number;
}

/** POST /_internal/v1/contexts/close: close contexts by id, or every context of a kind. */
export interface CloseContextsRequest {
  ids?: number[];
  allOfKind?: 'pit' | 'scroll';
}

/** Reply to {@link CloseContextsRequest}: how many of them were open. */
export interface CloseContextsResponse {
  node: string;
  freed: number;
}

/** POST /_internal/v1/settings: dynamic node settings (ES cluster settings Folio honours). */
export interface NodeSettingsRequest {
  /** `search.max_open_scroll_context`; null restores the default. */
  maxOpenScrollContext?: number | null;
  /** `search.max_open_pit_context`; null restores the default. */
  maxOpenPitContext?: number | null;
}

/**
 * A key bounding a selection range: sort values and `_id` (unique within an index). When several
 * indices are searched, equal (sort, `_id`) keys are ordered by index name (as the merge does);
 * `equalBefore` tells a shard that its own doc equal to this key sorts before it.
 */
export interface SelectionBound {
  sort: SortValue[];
  _id: string;
  equalBefore?: boolean;
}

/**
 * POST /_internal/v1/select/sample: the sample round of exact distributed selection for a deep
 * `from`. The shard pins the generation it reads (current, or `generation`) with the search keep-alive.
 */
export interface SelectSampleRequest {
  index: string;
  shard: number;
  query: Query;
  sort: SortField[];
  /** S: how many evenly spaced keys to return. */
  samples: number;
  generation?: number;
  /** As in {@link QueryPhaseRequest}. */
  context?: ContextRef;
  trackScores?: boolean;
  /** Global statistics (dfs), as in {@link QueryPhaseRequest}. */
  stats?: ScoringStatistics;
  /** As in {@link QueryPhaseRequest}: answer `statsStale` when the shard refreshed since. */
  statsGeneration?: number;
}

/** Reply to {@link SelectSampleRequest}: keys at local ranks {@link sampleRanks}(total.value, samples). */
export interface SelectSampleResponse extends ShardEcho {
  generation: number;
  /** Exact count of live matches (relation always `eq`). */
  total: { value: number; relation: 'eq' | 'gte' };
  max_score: number | null;
  keys: SortKey[];
  statsStale?: boolean;
}

/**
 * POST /_internal/v1/select/range: the range round, on the generation the sample round pinned
 * (a missing one answers 404 `search_context_missing_exception`).
 */
export interface SelectRangeRequest {
  index: string;
  shard: number;
  query: Query;
  sort: SortField[];
  generation: number;
  /** Inclusive lower key; absent = from the first match. */
  lower?: SelectionBound;
  /** Exclusive upper key; absent = to the last match. */
  upper?: SelectionBound;
  /** At most this many hits. */
  limit: number;
  trackScores?: boolean;
  stats?: ScoringStatistics;
  /**
   * Set when the window came from a cached sample round: `generation` must still be the shard's
   * current one, else the shard answers `stale: true` (no hits) and the coordinator samples anew.
   */
  requireCurrent?: boolean;
}

/** Reply to {@link SelectRangeRequest}. */
export interface SelectRangeResponse extends ShardEcho {
  generation: number;
  /** Matches strictly before `lower` (0 without it). */
  before: number;
  /** Matches in [lower, upper) in the global order, at most `limit`. */
  hits: ShardHit[];
  /** With `requireCurrent`: the shard has refreshed since the cached sample; nothing was read. */
  stale?: boolean;
}

/**
 * The local ranks the sample round returns keys at, for `n` matches and S = `samples`: every rank
 * when n ≤ S, else ⌊j·n/S⌋ for j = 0…S−1 (strictly increasing, starting at 0). Shared by the shard
 * (which picks the keys) and the coordinator (which bounds global ranks with them).
 * @example sampleRanks(10, 4) // [0, 2, 5, 7]
 */
export function sampleRanks(n: number, samples: number): number[] {
  const s = Math.max(0, Math.floor(samples));
  if (n <= s) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: s }, (_, j) => Math.floor((j * n) / s));
}
