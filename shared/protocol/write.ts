/**
 * The write path between coordinator and shard nodes: the primary's bulk, its replication to the replicas, and the real-time get.
 * Part of the internal shard-node protocol; shared/protocol.ts re-exports every piece.
 */
import type { ShardEcho } from './echo.ts';

/**
 * One write on one shard. `index`'s `source` is the document's JSON text exactly as the client sent
 * it: the shard parses it to index it, and stores and returns that text unchanged (ES keeps the
 * `_source` bytes). `update` merges `doc` into the stored `_source` (real-time get) and stores the
 * merged document re-serialized, as ES does.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-source-field.html
 */
export type WriteOp =
  | { op: 'index'; _id: string; source: string; create: boolean }
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

/**
 * Reply to {@link ShardBulkRequest}: one result per op, in order. Sent as one JSON object, or as
 * NDJSON (one line per item, shared/shard-bulk-reply.ts) when the call has `accept: application/x-ndjson`.
 */
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
 * op, `source` (the stored JSON text, byte for byte) is absent when it is the `_source` of the
 * primary request's op number `item` (the coordinator has it already); updates carry the merged
 * document's text.
 */
export type ReplicaOp =
  | { op: 'index'; _id: string; seqNo: number; version: number; source?: string; item?: number }
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

/** POST /_internal/v1/get: real-time get of one document (reads the live buffer, like ES's GET). */
export interface GetRequest {
  index: string;
  shard: number;
  _id: string;
}

/** Reply to {@link GetRequest}; `_source` is the stored JSON text, exactly as indexed. */
export interface GetResponse extends ShardEcho {
  found: boolean;
  _version?: number;
  _seq_no?: number;
  _primary_term?: number;
  _source?: string;
}
