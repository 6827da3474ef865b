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
import type { Context, Hono } from 'hono';
import { INTERNAL_PREFIX } from '../protocol/echo.ts';
import { type ReplicaBulkRequest, type ReplicaBulkResponse } from '../protocol/write.ts';
import type { IndexRegistry } from './index-registry.ts';
import { toTranslogOps } from './replica-ops.ts';

/** What the replica routes need from the node's app. */
export interface ReplicaRouteDeps {
  registry: IndexRegistry;
  /** This node's id, echoed in every reply. */
  node: string;
  /** Reads and parses the internal JSON body (the app's reader: its size limit, its 400 on bad JSON). */
  readJson: <T>(c: Context) => Promise<T>;
}

/** Registers the replica routes on the node's internal API (behind its cluster-secret check). */
export function registerReplicaRoutes(app: Hono, deps: ReplicaRouteDeps): void {
  const { registry, node } = deps;
  const p = INTERNAL_PREFIX;

  app.post(`${p}/replicate`, async (c) => {
    const req = await deps.readJson<ReplicaBulkRequest>(c);
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
      return c.json({ node, index: req.index, shard: req.shard, applied: applied.length, localCheckpoint: shard.localCheckpoint } satisfies ReplicaBulkResponse);
    } finally {
      release();
    }
  });
}
