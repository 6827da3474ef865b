/**
 * What a primary knows about its replicas' in-sync state before the cluster state does (ES
 * `ReplicationTracker` on the primary, the part that runs ahead of the master):
 * - **pending failures**: in-sync replicas a forwarded write failed on, reported on every node
 *   reload until a stored value has them out of sync (shard-node/replication-operation.ts). Each
 *   carries the copy's failure count (`ShardCopy.failures`) when the write was forwarded: once the
 *   cluster state has counted a later failure, this one is about an in-sync period that has ended
 *   (the copy has been recovered since) and is dropped;
 * - **finalized copies**: recovered copies the primary put in sync itself (recovery finalize) that
 *   the cluster state does not show in sync yet. A pushed value that predates the stored in-sync
 *   change keeps them in sync here, as ES's `ReplicationTracker.updateFromMaster` keeps an
 *   allocation id the primary marked in sync: else the primary would stop waiting for the copy (and
 *   stop reporting its failures) in the window before the coordinator stores the change, and the
 *   copy could then be stored in sync without a write that was acknowledged without it.
 * One instance per index a node hosts; it holds no metadata of its own.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/seqno/ReplicationTracker.java
 */
import { primaryTermOf, type IndexMetadata, type ShardCopy } from '../protocol/metadata.ts';
import { withInSync } from '../shared/cluster-state/shard-copies.ts';

/** A finalized copy: its failure count and the shard's primary term when the primary put it in sync. */
interface FinalizedMark {
  failures: number;
  term: number;
}

/** See the module comment. */
export class PrimaryInSyncState {
  /** shard → node ordinal → the copy's failure count when the failed write was forwarded. */
  private readonly pending = new Map<number, Map<number, number>>();
  /** shard → node ordinal → {@link FinalizedMark}. */
  private readonly finalized = new Map<number, Map<number, FinalizedMark>>();

  /**
   * Records in-sync replicas of `shard` a forwarded write failed on, each tagged with its failure
   * count in `copies` (the shard's copies as the primary held them when it read the write's
   * replication group; a copy not listed: 0).
   */
  notePending(shard: number, nodes: readonly number[], copies: readonly ShardCopy[]): void {
    if (nodes.length === 0) return;
    const map = this.pending.get(shard) ?? new Map<number, number>();
    for (const n of nodes) map.set(n, Math.max(map.get(n) ?? 0, copies.find((c) => c.node === n)?.failures ?? 0));
    this.pending.set(shard, map);
  }

  /** The pending failures as `GET /_internal/v1/indices` reports them. */
  pendingList(): { shard: number; node: number; failures: number }[] {
    return [...this.pending].flatMap(([shard, nodes]) => [...nodes].map(([node, failures]) => ({ shard, node, failures })));
  }

  /**
   * Records the copies of `shard` on `nodes` that `current` (the primary's metadata before its own
   * in-sync change) has out of sync as finalized here, with `failures` (the stored count when
   * their recovery started) when it is higher than the metadata's.
   */
  noteFinalized(current: IndexMetadata, shard: number, nodes: readonly number[], failures?: number): void {
    const term = primaryTermOf(current, shard);
    const marks = this.finalized.get(shard) ?? new Map<number, FinalizedMark>();
    for (const n of nodes) {
      const copy = current.shardCopies?.[shard]?.find((c) => c.node === n);
      if (copy && !copy.inSync) marks.set(n, { failures: Math.max(copy.failures ?? 0, failures ?? 0), term });
    }
    if (marks.size > 0) this.finalized.set(shard, marks);
  }

  /**
   * `next`, a pushed metadata value being adopted by the node with ordinal `ordinal`, as the
   * primary holds it: finalized copies kept in sync while the value does not show them in sync yet.
   * A mark ends when the value shows the copy in sync (stored), a failure stored since (a higher
   * failure count), the copy gone, or the shard's term changed (a promotion). Pending failures end
   * when this node is no longer the shard's primary, or the value has the copy out of sync or
   * counts a failure after the one noted.
   */
  adopt(next: IndexMetadata, ordinal: number | null): IndexMetadata {
    let copies = next.shardCopies;
    for (const [s, marks] of this.finalized) {
      for (const [node, mark] of marks) {
        const copy = copies?.[s]?.find((c) => c.node === node);
        if (!copies || !copy || copy.primary || copy.inSync || (copy.failures ?? 0) !== mark.failures || primaryTermOf(next, s) !== mark.term) {
          marks.delete(node);
          continue;
        }
        copies = withInSync(copies, s, [node]);
      }
      if (marks.size === 0) this.finalized.delete(s);
    }
    for (const [s, nodes] of this.pending) {
      const list = next.shardCopies?.[s] ?? [];
      const primaryHere = list.some((c) => c.primary && c.node === ordinal);
      for (const [n, failures] of nodes) {
        if (!primaryHere || !list.some((c) => c.node === n && c.inSync && !c.primary && (c.failures ?? 0) <= failures)) nodes.delete(n);
      }
      if (nodes.size === 0) this.pending.delete(s);
    }
    return copies === next.shardCopies ? next : { ...next, shardCopies: copies };
  }
}
