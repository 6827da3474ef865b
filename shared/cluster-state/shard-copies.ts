/**
 * What the index metadata says about the shard copies of one node (pure functions): which shards it
 * hosts and in which role, how copies leave and rejoin the in-sync set, and how a replica is promoted. A node is named in `shardCopies` by its ordinal in the
 * coordinator's FOLIO_NODES, which the coordinator passes along with the metadata.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/IndexMetadata.java (inSyncAllocationIds)
 */
import { illegalArgument } from '../../protocol/errors.ts';
import type { HostedCopy, IndexMetadata, ShardCopy } from '../../protocol/metadata.ts';

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
    return copy
      ? { shard: s, primary: copy.primary, inSync: copy.inSync }
      : { shard: s, primary: metadata.shardCopies === undefined, inSync: metadata.shardCopies === undefined };
  });
}

/**
 * The copy list with the copies of `shard` on `nodes` back in sync (a finished peer recovery, ES
 * `ReplicationTracker.markAllocationIdAsInSync`), their `resync` flag cleared; the same array when
 * nothing changes.
 * @throws EsError 400 when a node holds no copy of the shard (the copy was dropped meanwhile).
 */
export function withInSync(copies: ShardCopy[][], shard: number, nodes: readonly number[]): ShardCopy[][] {
  const list = copies[shard];
  if (!list) throw illegalArgument(`no shard [${shard}]`);
  for (const n of nodes) if (!list.some((c) => c.node === n)) throw illegalArgument(`shard [${shard}] has no copy on node [${n}]`);
  if (list.every((c) => !nodes.includes(c.node) || (c.inSync && !c.resync))) return copies;
  return copies.map((l, s) =>
    s !== shard
      ? l
      : l.map((c) => (nodes.includes(c.node) ? { node: c.node, primary: c.primary, inSync: true, ...(c.failures ? { failures: c.failures } : {}) } : c)),
  );
}

/**
 * The copy list after the in-sync replica of `shard` on `node` is promoted (ES: the master makes an
 * in-sync replica primary when the primary fails): it becomes the primary; every other copy, the
 * old primary included, is a replica out of sync with `resync` (each may hold ops of the old term
 * that the new primary lacks, so it recovers by a full copy).
 * @throws EsError 400 when `node` holds no in-sync copy of the shard.
 */
export function promoted(copies: ShardCopy[][], shard: number, node: number): ShardCopy[][] {
  const list = copies[shard];
  const chosen = list?.find((c) => c.node === node);
  if (!chosen || !chosen.inSync) throw illegalArgument(`shard [${shard}] has no in-sync copy on node [${node}] to promote`);
  const next: ShardCopy[] = [{ node, primary: true, inSync: true }];
  for (const c of list) if (c.node !== node) next.push({ node: c.node, primary: false, inSync: false, resync: true, failures: (c.failures ?? 0) + 1 });
  return copies.map((l, s) => (s === shard ? next : l));
}

/**
 * The copy list with the replicas of `shard` on `nodes` out of sync, each one's
 * {@link ShardCopy.failures} raised by one (also for a copy out of sync already: a recovery that
 * started before this failure must not finish); the same array when `nodes` names no replica of
 * the shard.
 * @throws EsError 400 when one of them is the primary (a primary leaves only by promotion).
 */
export function withoutInSync(copies: ShardCopy[][], shard: number, nodes: readonly number[]): ShardCopy[][] {
  const list = copies[shard];
  if (!list) throw illegalArgument(`no shard [${shard}]`);
  if (list.some((c) => c.primary && nodes.includes(c.node))) throw illegalArgument(`the primary of shard [${shard}] cannot be marked out of sync`);
  if (!list.some((c) => nodes.includes(c.node))) return copies;
  return copies.map((l, s) => (s !== shard ? l : l.map((c) => (nodes.includes(c.node) ? { ...c, inSync: false, failures: (c.failures ?? 0) + 1 } : c))));
}
