/**
 * An index as the coordinator sees it, an immutable value, and the pure routing over it: the
 * stored metadata with every copy of every shard and what the shard nodes reported about each
 * (hosted, failed, a pending failure), the primary of each shard, and the copies a search reads
 * (ES `IndexShardRoutingTable` and `OperationRouting.searchShards`). The cluster view
 * (cluster-view.ts) builds one per stored value and node reload; nothing here changes one.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/routing/OperationRouting.java
 */
import type { IndexMetadata, ShardCopy } from '../../protocol/metadata.ts';
import { nodeForShard } from './routing.ts';

/** One copy of a shard as the coordinator sees it: the metadata's copy, and whether its node reports hosting it. */
export interface CopyView extends ShardCopy {
  /** The node reported this copy at the last reload (true for copies this coordinator just placed). */
  hosted: boolean;
  /** The node reported this copy failed (its translog commit failed): it serves nothing until reset. */
  failed?: boolean;
  /** The shard's primary reported that a write it forwarded failed on this in-sync copy (not yet out of sync). */
  pendingFailure?: boolean;
}

/** An index as the coordinator sees it: metadata plus where each shard's copies are. */
export interface IndexView {
  metadata: IndexMetadata;
  /** `placement[s]` = node (index into FOLIO_NODES) of shard s's primary. */
  placement: number[];
  /** `copies[s]`: every allocated copy of shard s, primary first. */
  copies: CopyView[][];
}

/** A shard to search: which index, which shard, which copy, and the copies to fail over to. */
export interface ShardTarget {
  index: string;
  shard: number;
  /** The copy this search reads (node ordinal). The fan-out re-points it when it fails over. */
  node: number;
  /** Other in-sync copies, best first, that a failed call retries on (absent or empty: none). */
  alternates?: number[];
  /**
   * The copy order comes from a `preference` that fixes it (a custom string, `_prefer_nodes`):
   * the search caches may not move the search to another copy (copy-affinity.ts).
   */
  fixedOrder?: boolean;
}

/**
 * The view of `metadata`; `hosted(shard, node)` says whether a node reports the copy. An index
 * from before replicas (no `shardCopies`) has one in-sync primary per shard, on the node that
 * reports it (else where the placement formula put it).
 */
export function viewOf(
  metadata: IndexMetadata,
  nodeCount: number,
  hosted: (shard: number, node: number) => boolean,
  reportedHost?: (shard: number) => number | undefined,
  failed: (shard: number, node: number) => boolean = () => false,
  pendingFailure: (shard: number, node: number) => boolean = () => false,
): IndexView {
  const copies: CopyView[][] = Array.from({ length: metadata.numberOfShards }, (_, s) => {
    const listed = metadata.shardCopies?.[s];
    if (listed) {
      return listed.map((c) => ({
        ...c,
        hosted: hosted(s, c.node),
        ...(failed(s, c.node) ? { failed: true } : {}),
        ...(pendingFailure(s, c.node) ? { pendingFailure: true } : {}),
      }));
    }
    const node = reportedHost?.(s) ?? nodeForShard(metadata.name, s, nodeCount);
    return [{ node, primary: true, inSync: true, hosted: hosted(s, node) }];
  });
  const placement = copies.map((list) => (list.find((c) => c.primary) ?? list[0]).node);
  return { metadata, placement, copies };
}

/**
 * Every shard of `view` with the in-sync copy to read first and the others, best first, as
 * alternates: `rank` orders the ready copies (in sync, not reported failed; none: the primary's
 * node) by preference (adaptive replica selection, coordinator/transport/replica-selection.ts).
 */
export function shardTargets(view: IndexView, rank: (ready: number[]) => number[]): ShardTarget[] {
  return view.copies.map((_, shard) => {
    const ranked = rank(readyCopies(view, shard));
    return { index: view.metadata.name, shard, node: ranked[0], alternates: ranked.slice(1) };
  });
}

/**
 * The copies of shard `shard` a read may use, in the table's order (primary first): the in-sync
 * copies not reported failed (a failed translog commit, lost files: such a copy serves nothing until
 * recovered); none: the primary's node, so the read fails there with the node's own error.
 */
export function readyCopies(view: IndexView, shard: number): number[] {
  const ready = view.copies[shard].filter((c) => c.inSync && !c.failed).map((c) => c.node);
  return ready.length > 0 ? ready : [view.placement[shard]];
}

/** The in-sync copies of every shard of `view` grouped by node ordinal: what `_refresh` and `_flush` address. */
export function inSyncCopiesByNode(view: IndexView): Map<number, number[]> {
  const byNode = new Map<number, number[]>();
  view.copies.forEach((copies, shard) => {
    for (const c of copies) if (c.inSync) byNode.set(c.node, [...(byNode.get(c.node) ?? []), shard]);
  });
  return byNode;
}
