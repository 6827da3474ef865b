/**
 * A broadcast action over the shard copies of some indices, as ES's `TransportBroadcastByNodeAction`
 * (`_refresh`, `_flush`, `_cache/clear`): every in-sync copy of each index's shards is addressed,
 * one call per node and index; the reply's `_shards` counts every configured copy in `total`
 * (unassigned or out-of-sync copies are neither addressed nor failed), and a node whose call fails
 * fails all the copies it was asked for.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/support/broadcast/node/TransportBroadcastByNodeAction.java
 */
import type { ClusterView } from './cluster-view.ts';
import { inSyncCopiesByNode } from './index-view.ts';

/** ES `BroadcastResponse`'s `_shards` header. */
export interface BroadcastShards {
  total: number;
  successful: number;
  failed: number;
}

/**
 * Calls `send(node, index, shards)` once per node holding in-sync copies of each of `names`, all in
 * parallel, and counts the copies as above. `send` null addresses the copies without calling them
 * (a `_cache/clear` that names no cache Folio has). A rejected call fails its copies; it never throws.
 */
export async function broadcastToCopies(
  view: Pick<ClusterView, 'get'>,
  names: readonly string[],
  send: ((node: number, index: string, shards: number[]) => Promise<unknown>) | null,
): Promise<BroadcastShards> {
  let total = 0;
  let addressed = 0;
  let failed = 0;
  await Promise.all(
    names.map(async (name) => {
      const v = await view.get(name);
      total += v.metadata.numberOfShards * (1 + v.metadata.numberOfReplicas);
      const byNode = inSyncCopiesByNode(v);
      for (const shards of byNode.values()) addressed += shards.length;
      if (send === null) return;
      await Promise.all([...byNode].map(([node, shards]) => send(node, name, shards).catch(() => (failed += shards.length))));
    }),
  );
  return { total, successful: addressed - failed, failed };
}
