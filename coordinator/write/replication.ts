/**
 * A replicated write of one shard's share of a bulk, primary-driven as in ES
 * (`ReplicationOperation`): the coordinator sends the ops to the primary only, with the addresses of
 * the shard nodes and the replicas its cluster state has in sync; the primary applies them (assigning
 * seq_no and version), fsyncs, forwards them to every copy of its replication group in parallel and
 * answers once the in-sync ones acknowledged (shard-node/replication-operation.ts). A replica that
 * failed is taken out of the in-sync set in the cluster state before the write is acknowledged; the
 * primary keeps reporting it until that is stored, so a coordinator that dies mid-write cannot leave
 * it silently behind (the cluster manager stores it: coordinator/cluster/copy-maintenance.ts). Every call carries the
 * shard's primary term; a copy of a newer term refuses it (a demoted primary cannot acknowledge).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-replication.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/support/replication/ReplicationOperation.java
 */
import { JsonText, rpc, type ShardBulkReply } from '../../protocol/rpc.ts';
import { primaryTermOf } from '../../protocol/metadata.ts';
import { type FailedReplica, type RefreshPolicy, type ShardBulkRequest, type WriteOp, type WriteResult } from '../../protocol/write.ts';
import type { ClusterView } from '../cluster/cluster-view.ts';
import { PrimaryDemotedError } from '../cluster/copy-state-changes.ts';
import { type IndexView } from '../cluster/index-view.ts';
import { ShardBulkReplyReader, type CompactShardBulkReply } from '../../protocol/shard-bulk-reply.ts';
import { WriteResultColumns } from '../../protocol/write-result-columns.ts';
import { NDJSON_CONTENT_TYPE } from '../../shared/sliced-json.ts';
import { shardOpsOf, type ShardOps } from './shard-ops.ts';
import type { ShardClient } from '../transport/shard-client.ts';
import { ShardCallError } from '../transport/shard-call-error.ts';

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
  /** The primary's items, in op order, as columns. */
  results: WriteResultColumns;
  /** {@link ShardWriteOutcome.results} as objects, built on each read. */
  readonly items: WriteResult[];
  shardInfo: ShardInfo;
  /** The primary refreshed because of the write (ES `forced_refresh`: `refresh=true`, or a `wait_for` that had to force one). */
  forcedRefresh: boolean;
}

/** Services a replicated write uses. */
export interface ReplicationDeps {
  view: ClusterView;
  client: ShardClient;
  /** Deadline of each call (FOLIO_INTERNAL_TIMEOUT_MS). */
  timeoutMs: number;
}

const REST_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

/**
 * Writes `ops` to shard `shard` of `view`'s index through its primary, which replicates them; takes
 * the replicas that failed out of the in-sync set before answering. When the primary turns out to
 * have been demoted (the stored primary term moved past the write's, or the copy refused the write as
 * no longer primary of its term), the write is retried once on the new primary (`retried`: this is
 * that retry), as ES retries on `RetryOnPrimaryException` and `ShardNotInPrimaryModeException`.
 * @throws the primary call's error (no item is acknowledged), or EsError 503 when a failed replica
 *   cannot be taken out of the in-sync set (the write is then not acknowledged, though the primary
 *   holds it, as in ES), `retry_on_primary_exception` when the retry's primary was demoted too.
 */
export async function writeShard(
  deps: ReplicationDeps,
  view: IndexView,
  shard: number,
  ops: readonly WriteOp[] | ShardOps,
  refresh: RefreshPolicy,
  retried = false,
): Promise<ShardWriteOutcome> {
  if (isOpList(ops)) return writeShard(deps, view, shard, shardOpsOf(ops), refresh, retried);
  const index = view.metadata.name;
  const primary = view.placement[shard];
  const primaryTerm = primaryTermOf(view.metadata, shard);
  const inSyncReplicas = view.copies[shard].filter((c) => !c.primary && c.inSync).map((c) => c.node);
  const head: Omit<ShardBulkRequest, 'ops'> = {
    index,
    shard,
    refresh,
    primaryTerm,
    // The primary's replica calls end before this call's deadline, so their failures come back as data.
    replication: { nodes: [...deps.client.nodes], inSyncReplicas, timeoutMs: Math.max(1, Math.floor(deps.timeoutMs * 0.8)) },
  };
  let res: CompactShardBulkReply;
  try {
    res = await callPrimary(deps, primary, head, ops);
  } catch (err) {
    // The copy is no longer the primary of this term (a promotion this view has not seen yet):
    // nothing was acknowledged. ES's reroute phase waits for the cluster state that names the new
    // primary and sends the request there (`ShardNotInPrimaryModeException` is retryable).
    if (!retried && primaryMoved(err)) {
      const moved = await newPrimaryView(deps, index, shard, primary, primaryTerm);
      if (moved) return writeShard(deps, moved, shard, ops, refresh, true);
    }
    throw err;
  }
  if (res.index !== index || res.shard !== shard) throw new Error(`node [${res.node}] answered for the wrong shard`);
  const total = 1 + view.metadata.numberOfReplicas;
  const outcome = res.replicas ?? { acknowledged: [], failed: [] };
  const failedNodes = outcome.failed.map((f) => f.node);
  const failures = replicaFailures(outcome.failed, index, shard, deps.client.nodes);
  if (failedNodes.length > 0) {
    try {
      await deps.view.markOutOfSync(
        index,
        shard,
        failedNodes,
        primaryTerm,
        `a write failed on them: ${outcome.failed
          .map((f) => `[${f.node}] ${f.type}: ${f.reason}`)
          .join('; ')
          .slice(0, 500)}`,
      );
    } catch (err) {
      // The primary was demoted meanwhile (a replica refused its term, or a promotion raced the
      // write): nothing it applied is acknowledged. ES's reroute phase retries the request on the
      // new primary (`RetryOnPrimaryException`); the demoted copy's ops are discarded when it
      // recovers from the new primary (a `resync` copy is emptied first).
      if (err instanceof PrimaryDemotedError && !retried && primaryTermOf(err.view.metadata, shard) > primaryTerm) {
        return writeShard(deps, err.view, shard, ops, refresh, true);
      }
      throw err;
    }
  }
  const results = res.items;
  return {
    results,
    get items() {
      return results.toArray();
    },
    forcedRefresh: res.forcedRefresh === true,
    shardInfo: { total, successful: 1 + outcome.acknowledged.length, failed: failedNodes.length, ...(failures.length > 0 ? { failures } : {}) },
  };
}

/**
 * Sends a shard's bulk to its primary. A shard's share of a large bulk is tens of thousands of ops:
 * the request is sent as the bytes its ops were built into (shard-ops.ts), and the reply (NDJSON,
 * protocol/shard-bulk-reply.ts) parsed in slices that yield to the event loop, its items read into columns as the lines arrive
 * (protocol/write-result-columns.ts): 50,000 parsed objects held until the whole `_bulk` is
 * answered would wait for a major GC (docs/reliability.md, issue 11).
 * @throws the call's error; Error when the reply's lines do not match its head
 */
async function callPrimary(deps: ReplicationDeps, primary: number, head: Omit<ShardBulkRequest, 'ops'>, ops: ShardOps): Promise<CompactShardBulkReply> {
  const reader = new ShardBulkReplyReader((j) => ops.id(j));
  const reply: ShardBulkReply = await deps.client.rpc(primary, rpc.bulk, new JsonText<ShardBulkRequest>(shardBulkRequestBytes(head, ops)), {
    timeoutMs: deps.timeoutMs,
    accept: NDJSON_CONTENT_TYPE,
    onNdjsonLine: (line) => reader.line(line),
  });
  if (!Array.isArray(reply)) return { ...reply, items: WriteResultColumns.of(reply.items) };
  for (const line of reply) reader.line(line); // none when the lines went to onNdjsonLine
  return reader.reply();
}

/** Whether `ops` is a list of op objects (a single document's write, a test) rather than {@link ShardOps}. */
function isOpList(ops: readonly WriteOp[] | ShardOps): ops is readonly WriteOp[] {
  return Array.isArray(ops);
}

/**
 * The shard bulk request's JSON as bytes, the ops' bytes as they were built between the head's
 * fields: the text `JSON.stringify({ index, shard, ops, ...rest })` makes.
 */
export function shardBulkRequestBytes(head: Omit<ShardBulkRequest, 'ops'>, ops: ShardOps): Buffer {
  const { index, shard, ...rest } = head;
  const tail = JSON.stringify(rest);
  return Buffer.concat([
    Buffer.from(`${JSON.stringify({ index, shard }).slice(0, -1)},"ops":`),
    ...ops.json,
    Buffer.from(tail === '{}' ? '}' : `,${tail.slice(1)}`),
  ]);
}

/** The replicas that failed a write, as ES's `ShardInfo.Failure`s: `nodes` turns a node number into its URL, statuses print as `RestStatus` names. */
function replicaFailures(failed: readonly FailedReplica[], index: string, shard: number, nodes: readonly string[]): ShardInfoFailure[] {
  return failed.map((f) => ({
    _index: index,
    _shard: shard,
    _node: nodes[f.node] ?? String(f.node),
    reason: { type: f.type, reason: f.reason },
    status: REST_STATUS[f.status] ?? 'INTERNAL_SERVER_ERROR',
    primary: false,
  }));
}

/** How long (ms) a write whose primary was demoted waits for the view to name the new one. */
const NEW_PRIMARY_WAIT_MS = 5_000;

/** Whether a primary's refusal says it is no longer the primary of the write's term (a replica now, or another term). */
function primaryMoved(err: unknown): boolean {
  if (!(err instanceof ShardCallError)) return false;
  const { type, reason } = err.cause_;
  return (
    type === 'shard_not_in_primary_mode_exception' ||
    (err.status === 409 && type === 'illegal_state_exception' && /operation primary term \[\d+\] is/.test(reason ?? ''))
  );
}

/**
 * The index's view once the stored state names another primary or a newer term for `shard` than
 * the write used (polled for at most {@link NEW_PRIMARY_WAIT_MS}, within the call deadline), or null.
 */
async function newPrimaryView(deps: ReplicationDeps, index: string, shard: number, primary: number, primaryTerm: number): Promise<IndexView | null> {
  const deadline = Date.now() + Math.min(NEW_PRIMARY_WAIT_MS, deps.timeoutMs);
  for (;;) {
    const view = await deps.view.get(index);
    if (view.placement[shard] !== primary || primaryTermOf(view.metadata, shard) > primaryTerm) return view;
    if (Date.now() >= deadline) return null;
    await new Promise((r) => setTimeout(r, 100));
  }
}
