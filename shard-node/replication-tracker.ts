/**
 * The primary's record of the copies it is recovering (ES `ReplicationTracker`'s tracked but not
 * yet in-sync allocation ids): from the moment a recovery starts, every write the primary applies
 * names these copies in its replication group, so the coordinator sends them the live writes the
 * recovery's copy does not contain. An entry ends when the copy joins the in-sync set, or expires
 * after {@link RECOVERY_TRACK_MS} without a renewal (an abandoned recovery).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/seqno/ReplicationTracker.java
 */

/** How long (ms) a recovering copy stays tracked after its recovery started. */
export const RECOVERY_TRACK_MS = 120_000;

/** Recovering copies per shard, keyed `index/shard`, each node ordinal with its expiry (epoch ms). */
export class RecoveryTracker {
  private readonly tracked = new Map<string, Map<number, number>>();
  private readonly now: () => number;

  /** `now`: clock in epoch ms (tests pass their own). */
  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Starts (or renews) tracking the copy of `index`/`shard` on node `node`. */
  track(index: string, shard: number, node: number): void {
    const key = `${index}/${shard}`;
    const byNode = this.tracked.get(key) ?? new Map<number, number>();
    byNode.set(node, this.now() + RECOVERY_TRACK_MS);
    this.tracked.set(key, byNode);
  }

  /** Stops tracking (the copy is in sync now, or was dropped). */
  untrack(index: string, shard: number, node: number): void {
    const key = `${index}/${shard}`;
    this.tracked.get(key)?.delete(node);
    if (this.tracked.get(key)?.size === 0) this.tracked.delete(key);
  }

  /** True when the copy is tracked and not expired. */
  has(index: string, shard: number, node: number): boolean {
    return this.nodes(index, shard).includes(node);
  }

  /** The tracked copies of a shard, expired ones dropped. */
  nodes(index: string, shard: number): number[] {
    const byNode = this.tracked.get(`${index}/${shard}`);
    if (!byNode) return [];
    const t = this.now();
    for (const [node, expiresAt] of byNode) if (expiresAt <= t) byNode.delete(node);
    return [...byNode.keys()];
  }

  /** Forgets every copy of an index (deleted). */
  dropIndex(index: string): void {
    for (const key of [...this.tracked.keys()]) if (key.startsWith(`${index}/`) && !key.slice(index.length + 1).includes('/')) this.tracked.delete(key);
  }
}
