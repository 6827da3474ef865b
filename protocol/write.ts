/**
 * The write path between coordinator and shard nodes: the primary's bulk, its replication to the replicas, and the real-time get.
 * Part of the internal shard-node protocol (docs/architecture.md lists its modules).
 */
import type { ShardEcho } from './echo.ts';

/**
 * One write on one shard (`routing`: the custom routing it was sent with, stored with the document
 * and shown as `_routing`, ES `RoutingFieldMapper`). `index`'s `source` is the document's JSON text exactly as the client sent
 * it: the shard parses it to index it, and stores and returns that text unchanged (ES keeps the
 * `_source` bytes). `update` merges `doc` into the stored `_source` (real-time get) and stores the
 * merged document re-serialized, as ES does.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-source-field.html
 */
export type WriteOp =
  | ({ op: 'index'; _id: string; source: string; create: boolean; routing?: string } & WriteConditions)
  | ({ op: 'delete'; _id: string } & WriteConditions)
  | ({
      op: 'update';
      _id: string;
      doc: Record<string, unknown>;
      docAsUpsert: boolean;
      upsert?: Record<string, unknown>;
      routing?: string;
      /** ES `detect_noop` (absent: true): a `doc` that changes nothing answers `noop` without a new version. */
      detectNoop?: boolean;
      /** Return the document's `_source` text after the update ({@link WriteResult.source}), for the reply's `get`. */
      fetchSource?: boolean;
    } & Pick<WriteConditions, 'ifSeqNo' | 'ifPrimaryTerm'>);

/**
 * The optimistic concurrency conditions of a write, checked by the primary against the live
 * version map under the shard's per-`_id` serialization (ES `InternalEngine.planIndexingAsPrimary`
 * and `planDeletionAsPrimary`); a replica never re-checks them (it applies the primary's seq_no and
 * version). The coordinator has validated the combination (ES `DocWriteRequest.validateSeqNoBasedCASParams`):
 * `ifSeqNo` and `ifPrimaryTerm` come together, and never with `version`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/optimistic-concurrency-control.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-index_.html#index-versioning
 */
export interface WriteConditions {
  /** Write only when the document's last change has this seq_no (and `ifPrimaryTerm`), else 409. */
  ifSeqNo?: number;
  ifPrimaryTerm?: number;
  /** An external version (≥ 0) the document gets, with {@link WriteConditions.versionType}. */
  version?: number;
  /** `external`: the write needs `version` > the current one; `external_gte`: ≥. */
  versionType?: 'external' | 'external_gte';
}

/** `?refresh` of write APIs: refresh now, wait for the next refresh, or nothing. */
export type RefreshPolicy = 'true' | 'wait_for' | 'false';

/** POST /_internal/v1/bulk: apply a batch of writes to one shard, in order. */
export interface ShardBulkRequest {
  index: string;
  shard: number;
  ops: WriteOp[];
  refresh: RefreshPolicy;
  /**
   * Primary-driven replication (ES `ReplicationOperation`): after applying and fsyncing the ops, the
   * primary forwards them to every copy of its replication group and answers once the in-sync ones
   * acknowledged ({@link ShardBulkResponse.replicas}). Absent: nothing is forwarded (an index
   * without replicas).
   */
  replication?: ReplicationTargets;
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
  /** An update with `fetchSource`: the document's stored `_source` text after the update (or as it is, for a `noop`). */
  source?: string;
}

/**
 * Reply to {@link ShardBulkRequest}: one result per op, in order. Sent as one JSON object, or as
 * NDJSON (one line per item, protocol/shard-bulk-reply.ts) when the call has `accept: application/x-ndjson`.
 */
export interface ShardBulkResponse extends ShardEcho {
  items: WriteResult[];
  /**
   * True when the shard refreshed because of the request: `refresh=true`, or a `wait_for` that had
   * to force one (its index has periodic refresh disabled); ES's `forced_refresh`.
   */
  forcedRefresh: boolean;
  /** With {@link ShardBulkRequest.replication}: which in-sync replicas acknowledged the ops, and which failed. */
  replicas?: ReplicasOutcome;
}

/** Where a primary forwards a bulk: its copies' nodes, and the replicas the coordinator's cluster state has in sync. */
export interface ReplicationTargets {
  /** Shard-node base URLs by ordinal (the coordinator's FOLIO_NODES): how the primary reaches a copy `shardCopies` names by ordinal. */
  nodes: string[];
  /** The replicas in sync by the coordinator's cluster state (the primary adds the ones its own metadata has in sync, and the recovering ones). */
  inSyncReplicas: number[];
  /** Deadline (ms) of each replica call. */
  timeoutMs: number;
}

/** What a primary's forwarding did (ES `ReplicationResponse.ShardInfo`, by node ordinal). */
export interface ReplicasOutcome {
  /** In-sync replicas that applied and fsynced the ops. */
  acknowledged: number[];
  /**
   * In-sync replicas that failed them: the write must not be acknowledged until each has left the
   * in-sync set (the coordinator stores that; the primary also reports them until it sees it done).
   */
  failed: FailedReplica[];
}

/** One in-sync replica that failed a forwarded write, with the ES error it answered (or the call's). */
export interface FailedReplica {
  node: number;
  status: number;
  type: string;
  reason: string;
}

/** A copy of the primary's replication group: its node ordinal and whether it is in sync. */
export interface GroupMember {
  node: number;
  inSync: boolean;
}

/**
 * One write as a replica applies it: the primary's outcome (seq_no, version) and the resulting
 * document, `source` being the stored JSON text byte for byte (ES sends the primary's `IndexRequest`
 * with its seq_no to each replica).
 */
export type ReplicaOp =
  | { op: 'index'; _id: string; seqNo: number; version: number; source: string; routing?: string }
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
  /** The primary's global checkpoint when it forwarded the ops (ES piggybacks it on every replicated op). */
  globalCheckpoint?: number;
}

/** Reply to {@link ReplicaBulkRequest}. */
export interface ReplicaBulkResponse extends ShardEcho {
  /** Ops applied; the others were already there or superseded. */
  applied: number;
  /** The replica's local checkpoint once the ops are durable (the primary's global checkpoint follows the lowest). */
  localCheckpoint?: number;
}

/**
 * POST /_internal/v1/get: get of one document. Real-time by default (reads the live buffer, like
 * ES's GET); with `realtime: false` from the last refreshed generation only, as ES reads its last
 * refreshed searcher.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-get.html#realtime
 */
export interface GetRequest {
  index: string;
  shard: number;
  _id: string;
  /** False: what a search would see (the current generation), not unrefreshed writes. Absent: true. */
  realtime?: boolean;
  /** Refresh the shard before reading (ES GET `refresh=true`). */
  refresh?: boolean;
}

/** Reply to {@link GetRequest}; `_source` is the stored JSON text, exactly as indexed. */
export interface GetResponse extends ShardEcho {
  found: boolean;
  _version?: number;
  _seq_no?: number;
  _primary_term?: number;
  /** The custom routing the document was indexed with (ES returns it as `_routing`). */
  _routing?: string;
  /** ES `_ignored`: the fields of the document whose values were not indexed, sorted (absent: none). */
  _ignored?: string[];
  _source?: string;
}
