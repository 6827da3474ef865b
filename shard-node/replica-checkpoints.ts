/**
 * The local checkpoints a primary knows of its replicas, and the global checkpoint it derives from
 * them (ES `ReplicationTracker` on the primary: `updateLocalCheckpoint` and
 * `computeGlobalCheckpoint`). Each in-sync replica answers a forwarded write with its local
 * checkpoint; the global checkpoint is the lowest local checkpoint of the primary and its in-sync
 * replicas, a replica never heard from counting as -1. A copy that leaves the in-sync set stops
 * holding it back, so the global checkpoint moves on once the cluster state has a failed replica
 * out of sync. One instance per index a node hosts.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/seqno/ReplicationTracker.java
 */

/** See the module comment. */
export class ReplicaCheckpoints {
  /** shard → node ordinal → the highest local checkpoint that replica answered with. */
  private readonly known = new Map<number, Map<number, number>>();

  /** Records local checkpoints of replicas of `shard` (node ordinal → checkpoint); an older one changes nothing. */
  note(shard: number, checkpoints: ReadonlyMap<number, number>): void {
    let nodes = this.known.get(shard);
    if (!nodes) {
      nodes = new Map();
      this.known.set(shard, nodes);
    }
    for (const [node, cp] of checkpoints) if (cp > (nodes.get(node) ?? -1)) nodes.set(node, cp);
  }

  /** Forgets what is known of `shard`'s replicas (the copy here is emptied, or is no longer primary). */
  forget(shard: number): void {
    this.known.delete(shard);
  }

  /**
   * The global checkpoint of `shard`: the lowest of `own` (the primary's local checkpoint) and the
   * known local checkpoints of `inSync` (the in-sync replicas' ordinals; one never heard from: -1).
   */
  globalCheckpoint(shard: number, own: number, inSync: Iterable<number>): number {
    const nodes = this.known.get(shard);
    let low = own;
    for (const n of inSync) low = Math.min(low, nodes?.get(n) ?? -1);
    return low;
  }
}
