/**
 * A replicated write of one shard's share of a bulk, ES's primary-backup model (ES
 * `ReplicationOperation`), driven by the coordinator: the primary applies the ops (assigning
 * seq_no and version), fsyncs and answers with the ops as it logged them; the coordinator sends
 * those to every in-sync replica, which applies them with the primary's seq_no and version; a
 * replica that fails is taken out of the in-sync set, durably on the nodes, before the write is
 * acknowledged. The items are acknowledged only once every in-sync copy has them.
 *
 * Coordinator-driven rather than ES's primary-driven forwarding: Folio's shard nodes never talk to
 * each other (they know neither the node list nor each other's addresses, and only the coordinator
 * holds the pools and the cluster secret for outbound calls), so the coordinator, which already
 * knows every copy, does the second hop. Hops and latency are the same (coordinator → primary →
 * coordinator → replicas instead of coordinator → primary → replicas → primary → coordinator); the
 * cost is the ops' bytes crossing the coordinator twice, reduced by the primary leaving out the
 * `_source` the coordinator sent it (replica-ops.ts on the node).
 *
 * The replicas are the in-sync copies of the coordinator's view plus the primary's replication
 * group as the primary answers it (its in-sync copies and the copies it is recovering: ES
 * `ReplicationTracker`), so a coordinator with a stale view still reaches a copy that has just
 * joined or started recovering. A failure on a copy that is in sync (by either) takes it out of
 * sync before the acknowledgement; a failure on a recovering copy only stalls its recovery (its
 * local checkpoint does not reach the primary's, so it is not put in sync). Every call carries the
 * shard's primary term; a copy of a newer term refuses it (a demoted primary cannot acknowledge).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-replication.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/support/replication/ReplicationOperation.java
 */
import { toEsError } from '../shared/errors.ts';
import {
  INTERNAL_PREFIX,
  type RefreshPolicy,
  type ReplicaBulkRequest,
  type ReplicaBulkResponse,
  primaryTermOf,
  type ReplicaOp,
  type ShardBulkRequest,
  type ShardBulkResponse,
  type WriteOp,
  type WriteResult,
} from '../shared/protocol.ts';
import type { ClusterView, IndexView } from './cluster-view.ts';
import { decodeShardBulkReply } from '../shared/shard-bulk-reply.ts';
import { NDJSON_CONTENT_TYPE, stringifySliced } from '../shared/sliced-json.ts';
import { JsonText, ShardCallError, type ShardClient } from './shard-client.ts';

/** One replica that failed a write, as ES's `ReplicationResponse.ShardInfo.Failure` prints it. */
export interface ShardInfoFailure {
  _index: string;
  _shard: number;
  /** The node's URL (ES: its node id). */
  _node: string;
  reason: { type: string; reason: string };
  /** ES `RestStatus` name, e.g. `SERVICE_UNAVAILABLE`. */
  status: string;
  primary: false;
}

/** ES `ReplicationResponse.ShardInfo`: copies configured, copies that acknowledged, replicas that failed. */
export interface ShardInfo {
  total: number;
  successful: number;
  failed: number;
  failures?: ShardInfoFailure[];
}

/** The outcome of one shard's write: the primary's items and the shard info every acknowledged item carries. */
export interface ShardWriteOutcome {
  items: WriteResult[];
  shardInfo: ShardInfo;
}

/** Services a replicated write uses. */
export interface ReplicationDeps {
  view: ClusterView;
  client: ShardClient;
  /** Deadline of each call (FOLIO_INTERNAL_TIMEOUT_MS). */
  timeoutMs: number;
}

const REST_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST', 404: 'NOT_FOUND', 409: 'CONFLICT', 429: 'TOO_MANY_REQUESTS', 500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY', 503: 'SERVICE_UNAVAILABLE', 504: 'GATEWAY_TIMEOUT',
};

/** The ES cause and HTTP status of a failed replica call. */
function failureCause(err: unknown): { type: string; reason: string; status: number } {
  if (err instanceof ShardCallError) return { type: err.cause_.type, reason: String(err.cause_.reason ?? ''), status: err.status };
  const es = toEsError(err);
  return { type: es.type, reason: es.message, status: es.status };
}

/**
 * Fills in the `source` of the replica ops that name a request op (`item`), from the request's ops.
 * @throws Error when an op names no `index` op of the request (a primary bug).
 */
export function withSources(replicaOps: readonly ReplicaOp[], requestOps: readonly WriteOp[]): ReplicaOp[] {
  return replicaOps.map((op) => {
    if (op.op === 'delete' || op.source !== undefined) return op;
    const from = op.item === undefined ? undefined : requestOps[op.item];
    if (from?.op !== 'index') throw new Error(`replica op [${op._id}] names no index op of the request (item ${op.item})`);
    return { op: 'index', _id: op._id, seqNo: op.seqNo, version: op.version, source: from.source };
  });
}

/**
 * Writes `ops` to shard `shard` of `view`'s index: primary, then every in-sync replica, then the
 * in-sync removal of the replicas that failed.
 * @throws the primary call's error (no item is acknowledged), or EsError 503 when a failed replica
 *   cannot be taken out of the in-sync set durably (the write is then not acknowledged, though the
 *   primary holds it, as in ES).
 */
export async function writeShard(deps: ReplicationDeps, view: IndexView, shard: number, ops: WriteOp[], refresh: RefreshPolicy): Promise<ShardWriteOutcome> {
  const index = view.metadata.name;
  const primary = view.placement[shard];
  const primaryTerm = primaryTermOf(view.metadata, shard);
  const viewReplicas = view.copies[shard].filter((c) => !c.primary && c.inSync).map((c) => c.node);
  const body: ShardBulkRequest = { index, shard, ops, refresh, primaryTerm, ...(viewReplicas.length > 0 ? { replicate: true } : {}) };
  // A shard's share of a large bulk is tens of thousands of ops: the request is serialized, and the
  // reply (NDJSON, shared/shard-bulk-reply.ts) parsed, in slices that yield to the event loop.
  const reply = await deps.client.call<unknown[] | ShardBulkResponse>(primary, `${INTERNAL_PREFIX}/bulk`, new JsonText(await stringifySliced({ ...body })), {
    timeoutMs: deps.timeoutMs,
    accept: NDJSON_CONTENT_TYPE,
  });
  const res = Array.isArray(reply) ? decodeShardBulkReply(reply) : reply;
  if (res.index !== index || res.shard !== shard) throw new Error(`node [${res.node}] answered for the wrong shard`);
  const total = 1 + view.metadata.numberOfReplicas;
  const replicaOps = res.replicaOps ?? [];
  const group = res.replicationGroup ?? [];
  const inSync = new Set([...viewReplicas, ...group.filter((g) => g.inSync).map((g) => g.node)]);
  inSync.delete(primary);
  const recovering = group.filter((g) => !inSync.has(g.node) && g.node !== primary).map((g) => g.node);
  const replicas = [...inSync];
  if ((replicas.length === 0 && recovering.length === 0) || replicaOps.length === 0) return { items: res.items, shardInfo: { total, successful: 1 + inSync.size, failed: 0 } };

  const request: ReplicaBulkRequest = { index, shard, ops: withSources(replicaOps, ops), refresh, primaryTerm };
  const requestText = new JsonText(await stringifySliced({ ...request }));
  const send = async (node: number) => {
    const r = await deps.client.call<ReplicaBulkResponse>(node, `${INTERNAL_PREFIX}/replicate`, requestText, { timeoutMs: deps.timeoutMs });
    if (r.index !== index || r.shard !== shard) throw new Error(`node [${r.node}] answered for [${r.index}][${r.shard}] but [${index}][${shard}] was asked`);
  };
  // Recovering copies are not waited for: the acknowledgement does not depend on them, and one that
  // misses the ops stays below the primary's checkpoint, so its recovery does not finish (recovery.ts).
  for (const node of recovering) void send(node).catch(() => undefined);
  const outcomes = await Promise.allSettled(replicas.map(send));
  const failures: ShardInfoFailure[] = [];
  const failedNodes: number[] = [];
  outcomes.forEach((o, i) => {
    if (o.status === 'fulfilled' || !inSync.has(replicas[i])) return;
    const cause = failureCause(o.reason);
    failedNodes.push(replicas[i]);
    failures.push({
      _index: index, _shard: shard, _node: deps.client.nodes[replicas[i]], reason: { type: cause.type, reason: cause.reason },
      status: REST_STATUS[cause.status] ?? 'INTERNAL_SERVER_ERROR', primary: false,
    });
  });
  if (failedNodes.length > 0) await deps.view.markOutOfSync(index, shard, failedNodes);
  return {
    items: res.items,
    shardInfo: { total, successful: 1 + inSync.size - failedNodes.length, failed: failedNodes.length, ...(failures.length > 0 ? { failures } : {}) },
  };
}
