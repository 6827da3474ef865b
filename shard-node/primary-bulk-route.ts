/**
 * The shard node's internal route for a write on a primary copy, `POST /_internal/v1/bulk` (ES
 * `TransportShardBulkAction`'s primary half): the primary applies the ops (assigning `_seq_no`s and
 * versions), fsyncs its translog, forwards what it logged to its replication group and answers once
 * the in-sync replicas have acknowledged (shard-node/replication-operation.ts).
 * - The op must carry this copy's primary term (a demoted copy answers 409 and acknowledges nothing).
 * - From the first op to the reply the write holds a primary operation permit
 *   ({@link IndexRegistry.beginPrimaryWrite}, ES `IndexShard.acquirePrimaryOperationPermit`), which
 *   `GET /_internal/v1/indices` counts as `activeWrites`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/bulk/TransportShardBulkAction.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-replication.html
 */
import type { Context } from 'hono';
import { rpc } from '../protocol/rpc.ts';
import { type ShardCopy } from '../protocol/metadata.ts';
import { type ReplicasOutcome, type ShardBulkRequest, type ShardBulkResponse } from '../protocol/write.ts';
import { NDJSON_CONTENT_TYPE, stringifySliced } from '../shared/sliced-json.ts';
import { acceptsNdjson, encodeShardBulkReply } from '../protocol/shard-bulk-reply.ts';
import type { Shard } from './engine/shard.ts';
import type { TranslogOp } from './engine/translog.ts';
import type { IndexRegistry } from './index-registry.ts';
import type { PeerClient } from './peer-client.ts';
import { forwardToReplicas } from './replication-operation.ts';
import { serve, type RpcApp } from './rpc-serve.ts';

/** What the primary bulk route needs from the node's app. */
export interface PrimaryBulkRouteDeps {
  registry: IndexRegistry;
  /** This node's id, echoed in every reply. */
  node: string;
  /** The client for calls to other shard nodes (the replicas). */
  peers: PeerClient;
  /** The node's own addresses of its peers by ordinal (ShardNodeConfig.peerUrls); unset: the coordinator's. */
  peerUrls?: readonly string[];
}

/** Binds `bulk` (`POST /_internal/v1/bulk`) on the node's internal API (behind its cluster-secret check). */
export function servePrimaryBulk(app: RpcApp, deps: PrimaryBulkRouteDeps): void {
  const { registry } = deps;
  serve(app, rpc.bulk, async (req, c) => {
    const shard = registry.primaryShard(req.index, req.shard);
    registry.checkOpen(req.index);
    registry.checkTerm(req.index, req.shard, req.primaryTerm, 'primary');
    const release = registry.beginPrimaryWrite(req.index, req.shard);
    try {
      return await primaryBulk(deps, c, req, shard);
    } finally {
      release();
    }
  });
}

/** The primary's half of a shard bulk once its permit is held (the route above). */
async function primaryBulk(deps: PrimaryBulkRouteDeps, c: Context, req: ShardBulkRequest, shard: Shard): Promise<Response> {
  const { registry, node, peers, peerUrls } = deps;
  // The ops are applied in slices that yield to the event loop (a large bulk must not stall the
  // node, docs/reliability.md). The replication group is read in the same synchronous step as the
  // last slice: every copy tracked by then gets all of these ops (replicas skip what they hold
  // already), and a copy whose recovery starts later gets them in its recovery instead
  // (replication-tracker.ts).
  let group: ReturnType<typeof registry.replicationGroup> = [];
  let copies: readonly ShardCopy[] = [];
  const collected: TranslogOp[] = [];
  const items = await shard.applySliced(req.ops, collected, undefined, () => {
    // A promotion may have landed between slices: a copy that is no longer primary in this term
    // acknowledges nothing (409; it recovers from the new primary like any demoted copy).
    registry.primaryShard(req.index, req.shard);
    registry.checkTerm(req.index, req.shard, req.primaryTerm, 'primary');
    group = registry.replicationGroup(req.index, req.shard);
    copies = registry.copiesOf(req.index, req.shard);
  });
  // Acknowledge only once the translog entries are fsynced (ES index.translog.durability: request);
  // concurrent bulks share one fsync (group commit). A failed commit answers 500: nothing is acked.
  await shard.sync();
  // ES's `forced_refresh`: refresh=true, or a wait_for that had to force the refresh it waits for.
  let forcedRefresh = false;
  if (req.refresh === 'true') {
    await registry.refresh(req.index, [req.shard]);
    forcedRefresh = true;
  } else if (req.refresh === 'wait_for' && shard.hasPendingWrites) {
    forcedRefresh = await registry.waitForRefresh(req.index, req.shard);
  }
  // Primary-driven replication: forward to the replication group, wait for the in-sync copies
  // (shard-node/replication-operation.ts); a failed one stays pending until the cluster state has it out of sync.
  let replicas: ReplicasOutcome | undefined;
  if (req.replication) {
    const targets = req.replication;
    const forwarded = await forwardToReplicas(peers, {
      index: req.index,
      shard: req.shard,
      refresh: req.refresh,
      primaryTerm: req.primaryTerm,
      logged: collected,
      group,
      targets,
      self: registry.ordinalOf(req.index),
      globalCheckpoint: shard.globalCheckpoint,
      ...(peerUrls ? { peerUrls } : {}),
    });
    replicas = forwarded.replicas;
    registry.notePendingFailures(
      req.index,
      req.shard,
      replicas.failed.map((f) => f.node),
      copies,
    );
    registry.noteReplicaCheckpoints(req.index, req.shard, forwarded.checkpoints, forwarded.inSync);
  }
  // A reply of tens of thousands of items is serialized in slices (sliced-json.ts); as NDJSON
  // when the coordinator asks for it, which it then parses line by line (protocol/shard-bulk-reply.ts).
  const reply = { node, index: req.index, shard: req.shard, items, forcedRefresh, ...(replicas ? { replicas } : {}) } satisfies ShardBulkResponse;
  if (acceptsNdjson(c.req.header('accept'))) return c.body(await encodeShardBulkReply(reply), 200, { 'content-type': NDJSON_CONTENT_TYPE });
  return c.body(await stringifySliced(reply), 200, { 'content-type': 'application/json' });
}
