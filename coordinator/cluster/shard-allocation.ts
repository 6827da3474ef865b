/**
 * Where the copies of each shard go (pure functions), Folio's stand-in for ES's allocation
 * deciders: the primary of shard s on node `p = (s + floorMod(murmur3(index), N)) mod N` (as before
 * replicas), replica r (0-based) on node `(p + r + 1) mod N`, so no two copies of a shard share a
 * node (ES's `SameShardAllocationDecider`). Replicas beyond N − 1 stay unassigned, which makes the
 * index yellow, as in ES. There is no rebalancing: copies stay where they were placed.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/modules-cluster.html#cluster-shard-allocation-settings
 */
import type { ShardCopy } from '../../protocol/metadata.ts';
import { nodeForShard } from './routing.ts';

/** How many replicas of one shard can be placed on `nodeCount` nodes: min(replicas, N − 1). */
export function assignableReplicas(numberOfReplicas: number, nodeCount: number): number {
  return Math.max(0, Math.min(numberOfReplicas, nodeCount - 1));
}

/**
 * The copies of a new index, primary first per shard, all in sync (a new index is empty, so every
 * copy holds every write there is).
 * @throws RangeError when `nodeCount` < 1 (from {@link nodeForShard}).
 */
export function allocateCopies(index: string, numberOfShards: number, numberOfReplicas: number, nodeCount: number): ShardCopy[][] {
  const replicas = assignableReplicas(numberOfReplicas, nodeCount);
  return Array.from({ length: numberOfShards }, (_, s) => {
    const p = nodeForShard(index, s, nodeCount);
    const copies: ShardCopy[] = [{ node: p, primary: true, inSync: true }];
    for (let r = 0; r < replicas; r++) copies.push({ node: (p + r + 1) % nodeCount, primary: false, inSync: true });
    return copies;
  });
}

/**
 * The copies after `number_of_replicas` changed: the primary and the first replicas are kept (in
 * their order) up to the new count; missing replicas go to the next nodes after the primary that
 * hold no copy of the shard, out of sync (ES: a new replica initializes and recovers from the
 * primary before it is in sync).
 */
export function reallocateReplicas(copies: readonly (readonly ShardCopy[])[], numberOfReplicas: number, nodeCount: number): ShardCopy[][] {
  const wanted = assignableReplicas(numberOfReplicas, nodeCount);
  return copies.map((list) => {
    const primary = list.find((c) => c.primary) ?? list[0];
    const out: ShardCopy[] = [{ ...primary }];
    for (const c of list) if (!c.primary && c !== primary && out.length <= wanted) out.push({ ...c });
    for (let k = 1; out.length <= wanted && k < nodeCount; k++) {
      const node = (primary.node + k) % nodeCount;
      if (!out.some((c) => c.node === node)) out.push({ node, primary: false, inSync: false });
    }
    return out;
  });
}
