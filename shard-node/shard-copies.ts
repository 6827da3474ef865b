/**
 * What the index metadata says about the shard copies of one node (pure functions): which shards it
 * hosts and in which role, how a `number_of_replicas` change merges into the node's own copy list,
 * and how copies leave the in-sync set. A node is named in `shardCopies` by its ordinal in the
 * coordinator's FOLIO_NODES, which the coordinator passes along with the metadata.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/IndexMetadata.java (inSyncAllocationIds)
 */
import { illegalArgument } from '../shared/errors.ts';
import type { HostedCopy, IndexMetadata, ShardCopy } from '../shared/protocol.ts';

/**
 * The shards with a copy on node `ordinal`, ascending, from `metadata.shardCopies`; null when the
 * metadata has no copy list or the ordinal is unknown (the caller then keeps the explicit list).
 */
export function shardsOnNode(metadata: IndexMetadata, ordinal: number | null): number[] | null {
  if (!metadata.shardCopies || ordinal === null) return null;
  const out: number[] = [];
  metadata.shardCopies.forEach((copies, s) => {
    if (copies.some((c) => c.node === ordinal)) out.push(s);
  });
  return out;
}

/**
 * The role and in-sync state of each hosted shard (`GET /_internal/v1/indices` `copies`). Without a
 * copy list (an index from before replicas) every hosted shard is an in-sync primary, as it was then.
 */
export function hostedCopies(metadata: IndexMetadata, ordinal: number | null, shards: readonly number[]): HostedCopy[] {
  return shards.map((s) => {
    const copy = ordinal === null ? undefined : metadata.shardCopies?.[s]?.find((c) => c.node === ordinal);
    return copy ? { shard: s, primary: copy.primary, inSync: copy.inSync } : { shard: s, primary: metadata.shardCopies === undefined, inSync: metadata.shardCopies === undefined };
  });
}

/**
 * Merges a new copy list (after a `number_of_replicas` change) into the node's own: the allocation
 * is the new one, but a copy that is out of sync in `local` stays out of sync (only a recovery puts
 * a copy back in sync, never a settings change computed from an older view).
 */
export function mergeCopies(local: readonly ShardCopy[][] | undefined, incoming: readonly ShardCopy[][]): ShardCopy[][] {
  return incoming.map((copies, s) =>
    copies.map((c) => {
      const mine = local?.[s]?.find((l) => l.node === c.node);
      return mine && !mine.inSync ? { ...c, inSync: false } : { ...c };
    }),
  );
}

/**
 * The copy list with the replicas of `shard` on `nodes` out of sync; the same array when nothing
 * changes (they were out of sync already, or not copies of that shard).
 * @throws EsError 400 when one of them is the primary (a primary leaves only by promotion).
 */
export function withoutInSync(copies: ShardCopy[][], shard: number, nodes: readonly number[]): ShardCopy[][] {
  const list = copies[shard];
  if (!list) throw illegalArgument(`no shard [${shard}]`);
  if (list.some((c) => c.primary && nodes.includes(c.node))) throw illegalArgument(`the primary of shard [${shard}] cannot be marked out of sync`);
  if (!list.some((c) => c.inSync && nodes.includes(c.node))) return copies;
  return copies.map((l, s) => (s !== shard ? l : l.map((c) => (nodes.includes(c.node) ? { ...c, inSync: false } : c))));
}
