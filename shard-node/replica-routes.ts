/**
 * The shard node's internal routes for replicas:
 * - `POST /_internal/v1/replicate`: a replica copy applies the primary's ops (its seq_no and
 *   version, idempotently) and answers once they are fsynced, as a bulk does (ES's replica write,
 *   `TransportShardBulkAction.dispatchedShardOperationOnReplica`), with its local checkpoint; it
 *   takes the primary's global checkpoint that came with them;
 * Replicated ops carry the primary's term; a copy whose metadata has a newer one refuses them (409).
 * In-sync changes and promotions are not routes of the node: they are decided in the cluster state
 * and reach the node as a new metadata value (docs/cluster-state.md).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/support/replication/ReplicationOperation.java
 */
import { rpc } from '../protocol/rpc.ts';
import type { IndexRegistry } from './index-registry.ts';
import { toTranslogOps } from './replica-ops.ts';
import { serve, type RpcApp } from './rpc-serve.ts';

/** What the replica routes need from the node's app. */
export interface ReplicaRouteDeps {
  registry: IndexRegistry;
  /** This node's id, echoed in every reply. */
  node: string;
}

/** Binds `replicate` on the node's internal API (behind its cluster-secret check). */
export function serveReplicate(app: RpcApp, deps: ReplicaRouteDeps): void {
  const { registry, node } = deps;
  serve(app, rpc.replicate, async (req) => {
    const shard = registry.shard(req.index, req.shard);
    registry.checkTerm(req.index, req.shard, req.primaryTerm, 'replica');
    const release = registry.beginReplicaWrite(req.index, req.shard);
    try {
      const applied = await shard.applyReplicatedSliced(toTranslogOps(req.ops)); // in slices: docs/reliability.md
      // Acknowledged only once durable, like the primary's bulk (a failure answers 500: not acknowledged).
      await shard.sync();
      if (req.globalCheckpoint !== undefined) shard.advanceGlobalCheckpoint(req.globalCheckpoint);
      if (req.refresh === 'true') await registry.refresh(req.index, [req.shard]);
      else if (req.refresh === 'wait_for' && shard.hasPendingWrites) await registry.waitForRefresh(req.index, req.shard);
      return { node, index: req.index, shard: req.shard, applied: applied.length, localCheckpoint: shard.localCheckpoint };
    } finally {
      release();
    }
  });
}
