/**
 * The operations in progress on the shard copies of one index on this node, and the lowest primary
 * term an op may carry (ES `IndexShardOperationPermits` and the operation primary term of
 * `IndexShard`):
 * - a write on a primary copy holds a permit from its first op to its reply, replication included;
 *   the count is reported (`activeWrites` of the node's index list), so that a checker can wait until
 *   no write is in flight before it compares copies, as ES's test clusters do
 *   (`InternalTestCluster.assertNoPendingIndexOperations`);
 * - a replica write holds one from its term check to its reply, so that a recovery from a new
 *   primary can wait for the ones admitted under an older term;
 * - a recovery from a newer primary raises the copy's operation term before this node's metadata
 *   has the new term: from then on ops of older terms are refused (ES `IndexShard.bumpPrimaryTerm`).
 * One instance per index a node hosts; shards are keyed by number.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/shard/IndexShardOperationPermits.java
 */

/** See the module comment. */
export class OperationPermits {
  /** Shard → primary writes in progress; no entry: none. */
  private readonly primaryWrites = new Map<number, number>();
  /** Shard → replica writes in progress; no entry: none. */
  private readonly replicaWrites = new Map<number, number>();
  /** Shard → the lowest primary term an op may carry, raised by {@link raiseTerm}. */
  private readonly terms = new Map<number, number>();

  /** Takes a primary write permit on `shard`. @returns the release function (idempotent) */
  beginPrimaryWrite(shard: number): () => void {
    return countIn(this.primaryWrites, shard);
  }

  /** Takes a replica write permit on `shard`. @returns the release function (idempotent) */
  beginReplicaWrite(shard: number): () => void {
    return countIn(this.replicaWrites, shard);
  }

  /** Replica writes in progress on `shard`. */
  replicaWritesOf(shard: number): number {
    return this.replicaWrites.get(shard) ?? 0;
  }

  /** The shards with primary writes in progress, by shard number, with their counts. */
  activePrimaryWrites(): { shard: number; writes: number }[] {
    return [...this.primaryWrites].sort(([a], [b]) => a - b).map(([shard, writes]) => ({ shard, writes }));
  }

  /** From now on ops of `shard` must carry `term` or a newer one (a lower `term` changes nothing). */
  raiseTerm(shard: number, term: number): void {
    if (term > (this.terms.get(shard) ?? 0)) this.terms.set(shard, term);
  }

  /** The lowest primary term an op of `shard` may carry by {@link raiseTerm} (0: none raised). */
  termFloor(shard: number): number {
    return this.terms.get(shard) ?? 0;
  }
}

/** Adds one to `counts[key]` and returns the idempotent function that takes it off again (the entry goes at 0). */
function countIn(counts: Map<number, number>, key: number): () => void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (counts.get(key) ?? 1) - 1;
    if (left > 0) counts.set(key, left);
    else counts.delete(key);
  };
}
