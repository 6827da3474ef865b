/**
 * The primary's half of a replicated write (ES `ReplicationOperation`): once the primary has
 * applied and fsynced a bulk, it forwards the ops it logged, with its seq_nos and versions, to every
 * copy of its replication group in parallel, and waits for the in-sync ones.
 *
 * - The replication group is read in the same synchronous step as the primary's last slice of ops
 *   (shard-node/app.ts): its in-sync copies (by this node's metadata, plus those the coordinator's
 *   cluster state names) and the copies it is recovering (ES `ReplicationTracker`'s tracked ids).
 * - An in-sync replica that fails is reported in the reply, and the write is not acknowledged until
 *   it has left the in-sync set in the cluster state (the coordinator stores that before it answers;
 *   ES: the primary's shard-failed request to the master). The primary also keeps the failure pending
 *   and reports it on every node reload until the cluster state shows the copy out of sync, so a
 *   coordinator that dies mid-write cannot leave a replica silently behind: the cluster manager
 *   stores the pending failure instead (issue 10, scenario 2).
 * - A recovering copy is sent the ops without waiting: the acknowledgement does not depend on it, and
 *   one that misses an op stays below the primary's checkpoint, so its recovery does not finish.
 * - Every replica call carries the primary's term; a copy that knows a newer term refuses it (409),
 *   so a demoted primary acknowledges nothing.
 * - Calls to in-sync replicas carry the primary's global checkpoint, and each answers with its local
 *   checkpoint, from which the primary's global checkpoint follows (shard-node/replica-checkpoints.ts).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/support/replication/ReplicationOperation.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-replication.html
 */
import { JsonText, rpc } from '../protocol/rpc.ts';
import {
  type FailedReplica,
  type GroupMember,
  type RefreshPolicy,
  type ReplicaBulkRequest,
  type ReplicasOutcome,
  type ReplicationTargets,
} from '../protocol/write.ts';
import { stringifySliced } from '../shared/sliced-json.ts';
import type { TranslogOp } from './engine/translog.ts';
import { PeerCallError, type PeerClient } from './peer-client.ts';
import { replicaOpsOf } from './replica-ops.ts';

/** One forwarded bulk: the shard, what the primary logged, where to send it. */
export interface ForwardedWrite {
  index: string;
  shard: number;
  refresh: RefreshPolicy;
  primaryTerm: number | undefined;
  /** The ops the primary logged, in seq_no order (nothing logged: nothing to forward). */
  logged: readonly TranslogOp[];
  /** The primary's replication group when it applied them. */
  group: readonly GroupMember[];
  targets: ReplicationTargets;
  /** This node's ordinal (never a target). */
  self: number | null;
  /** This node's own addresses of the shard nodes by ordinal (its FOLIO_NODES), used instead of `targets.nodes` when set. */
  peerUrls?: readonly string[];
  /** The primary's global checkpoint, sent to the in-sync replicas only (a recovering copy's history may not be the primary's yet). */
  globalCheckpoint: number;
}

/** What a forward came to: the replicas' outcome, and the local checkpoints the in-sync ones answered with. */
export interface ForwardResult {
  replicas: ReplicasOutcome;
  /** Node ordinal → the local checkpoint each in-sync replica that acknowledged answered with. */
  checkpoints: Map<number, number>;
  /** The in-sync replicas the write was sent to (by this node's metadata and the write's coordinator). */
  inSync: number[];
}

/**
 * Forwards `write` to its replication group (see the module comment) and returns which in-sync
 * replicas acknowledged and which failed. Never throws for a replica's failure.
 */
export async function forwardToReplicas(peers: PeerClient, write: ForwardedWrite): Promise<ForwardResult> {
  const inSync = new Set([...write.targets.inSyncReplicas, ...write.group.filter((g) => g.inSync).map((g) => g.node)]);
  if (write.self !== null) inSync.delete(write.self);
  const recovering = write.group.filter((g) => !g.inSync && !inSync.has(g.node) && g.node !== write.self).map((g) => g.node);
  if (write.logged.length === 0 || (inSync.size === 0 && recovering.length === 0))
    return { replicas: { acknowledged: [...inSync], failed: [] }, checkpoints: new Map(), inSync: [...inSync] };

  const request: ReplicaBulkRequest = {
    index: write.index,
    shard: write.shard,
    ops: replicaOpsOf(write.logged),
    refresh: write.refresh,
    ...(write.primaryTerm !== undefined ? { primaryTerm: write.primaryTerm } : {}),
  };
  const inSyncBody = inSync.size > 0 ? await stringifySliced({ ...request, globalCheckpoint: write.globalCheckpoint }) : '';
  const recoveringBody = recovering.length > 0 ? await stringifySliced({ ...request }) : '';
  const send = async (node: number, body: string): Promise<number | undefined> => {
    const url = (write.peerUrls ?? write.targets.nodes)[node];
    if (url === undefined) throw new PeerCallError(503, 'node_not_connected_exception', `no address for node [${node}]`);
    const r = await peers.rpc(url, rpc.replicate, new JsonText<ReplicaBulkRequest>(body), write.targets.timeoutMs);
    if (r.index !== write.index || r.shard !== write.shard)
      throw new PeerCallError(502, 'illegal_state_exception', `node [${r.node}] answered for [${r.index}][${r.shard}]`);
    return r.localCheckpoint;
  };
  for (const node of recovering) void send(node, recoveringBody).catch(() => undefined);
  const replicas = [...inSync];
  const outcomes = await Promise.allSettled(replicas.map((node) => send(node, inSyncBody)));
  const acknowledged: number[] = [];
  const failed: FailedReplica[] = [];
  const checkpoints = new Map<number, number>();
  outcomes.forEach((o, i) => {
    if (o.status === 'fulfilled') {
      acknowledged.push(replicas[i]);
      if (o.value !== undefined) checkpoints.set(replicas[i], o.value);
      return;
    }
    const err = o.reason as Error;
    const status = err instanceof PeerCallError ? err.status : 500;
    const type = err instanceof PeerCallError ? err.type : 'exception';
    failed.push({ node: replicas[i], status, type, reason: err.message });
  });
  return { replicas: { acknowledged, failed }, checkpoints, inSync: replicas };
}
