/**
 * What the shard nodes answered the cluster view's last load (`GET /_internal/v1/indices` on each):
 * which indices and copies each node holds, which copies it reports failed, the replica failures a
 * primary has pending, the node's id (its FOLIO_NODE_ID, the name of its membership key in the
 * store), and how many loads in a row each node has missed. ES's master learns the same from its
 * follower checks and the shard-started/shard-failed messages. Kept apart from the stored metadata
 * (coordinator/cluster/cluster-view.ts), which it only annotates.
 * @see docs/cluster-state.md
 */
import type { IndexMetadata, NodeIndexEntry, NodeIndicesResponse } from '../../protocol/metadata.ts';
import { viewOf, type IndexView } from './index-view.ts';

/** A node's membership by the store (`ClusterStateCache.membership`). */
export type Membership = (nodeId: string) => 'member' | 'departed' | 'unknown';

/** See the module comment. */
export class NodeReports {
  private readonly nodeCount: number;
  /** `reports[node]`: the node's entries by index name at the last load; null: it did not answer; undefined: never loaded. */
  private reports: (Map<string, NodeIndexEntry> | null | undefined)[] = [];
  /** `replied[node]`: the node answered the last load (a node never loaded counts as answering). */
  private repliedTo: boolean[] = [];
  /** `missedLoads[node]`: consecutive loads the node did not answer. */
  private missedLoads: number[] = [];
  /** `nodeIds[node]`: the id the node last answered a load with. */
  private readonly nodeIds: (string | undefined)[] = [];
  /** Loads that some node answered (a view built before one is rebuilt after it). */
  epoch = 0;

  /** `nodeCount`: the nodes of FOLIO_NODES, by ordinal. */
  constructor(nodeCount: number) {
    this.nodeCount = nodeCount;
  }

  /**
   * Records one load's answers, by node ordinal. Returns false when no node answered: the reports
   * of the last answered load are kept then (searches report shard failures, not missing indices),
   * while each node's missed loads still count up.
   */
  record(replies: readonly PromiseSettledResult<NodeIndicesResponse>[]): boolean {
    this.repliedTo = replies.map((r) => r.status === 'fulfilled');
    this.missedLoads = this.repliedTo.map((ok, node) => (ok ? 0 : (this.missedLoads[node] ?? 0) + 1));
    replies.forEach((r, node) => {
      if (r.status === 'fulfilled' && typeof r.value.node === 'string') this.nodeIds[node] = r.value.node;
    });
    if (replies.every((r) => r.status === 'rejected')) return false;
    this.reports = replies.map((r) => (r.status === 'fulfilled' ? new Map(r.value.indices.map((e) => [e.metadata.name, e])) : null));
    this.epoch++;
    return true;
  }

  /** Whether node `node` answered the last load (true before the first one). */
  replied(node: number): boolean {
    return this.repliedTo[node] ?? true;
  }

  /** The id (FOLIO_NODE_ID) node `node` last answered a load with; undefined before it answered one. */
  nodeId(node: number): string | undefined {
    return this.nodeIds[node];
  }

  /** Nodes that answered the last load. */
  answered(): number {
    return this.repliedTo.filter(Boolean).length;
  }

  /** Each node's consecutive missed loads (0: it answered the last one, or none has run). */
  missedLoadCounts(): number[] {
    return Array.from({ length: this.nodeCount }, (_, node) => this.missedLoads[node] ?? 0);
  }

  /**
   * `departed[node]`: the node has left the cluster by the store, its membership key (its lease:
   * shard-node/node-membership.ts) gone after `membership`'s process saw it. A node whose id no
   * load has told yet, or that keeps no lease, is not departed (missed loads decide about it).
   */
  departed(membership: Membership): boolean[] {
    return Array.from({ length: this.nodeCount }, (_, node) => {
      const id = this.nodeIds[node];
      return id !== undefined && membership(id) === 'departed';
    });
  }

  /**
   * Node `node`'s entry for index `name` in its incarnation `uuid`: undefined before any load, null
   * when the node did not answer the last load or holds no such index.
   */
  entry(node: number, name: string, uuid: string): NodeIndexEntry | null | undefined {
    const report = this.reports[node];
    if (report === undefined || report === null) return report;
    const entry = report.get(name);
    return entry && entry.metadata.uuid === uuid ? entry : null;
  }

  /**
   * The view of stored `metadata` with what the nodes reported about its copies at the last load:
   * which node hosts each copy, which copies a node reports failed, and the failures a shard's
   * primary has pending for its replicas.
   */
  view(metadata: IndexMetadata): IndexView {
    const name = metadata.name;
    const uuid = metadata.uuid;
    const entryOf = (node: number): NodeIndexEntry | null | undefined => this.entry(node, name, uuid);
    const hosted = (s: number, node: number) => {
      const entry = entryOf(node);
      return entry === undefined ? true : entry !== null && entry.shards.includes(s);
    };
    const reportedHost = (s: number) => {
      for (let node = 0; node < this.nodeCount; node++) if (entryOf(node)?.shards.includes(s)) return node;
      return -1;
    };
    const failed = (s: number, node: number) => entryOf(node)?.failed?.includes(s) === true;
    // A primary reports the replicas its forwarded writes failed on until the cluster state has them
    // out of sync; a report from before the copy's last stored failure (a node reload that started
    // before the copy failed and was recovered) is about an in-sync period that has ended.
    // Only the shard's primary by the stored state reports them (a restarted node that was demoted
    // meanwhile may report from its older metadata until it adopts the stored value).
    const storedFailures = (s: number, node: number) => metadata.shardCopies?.[s]?.find((c) => c.node === node)?.failures ?? 0;
    const storedPrimary = (s: number) => metadata.shardCopies?.[s]?.find((c) => c.primary)?.node;
    const pendingFailure = (s: number, node: number) => {
      const primary = storedPrimary(s);
      if (primary === undefined) return false;
      return (
        entryOf(primary)?.pendingFailures?.some(
          (p) => p.shard === s && p.node === node && (p.failures === undefined || p.failures >= storedFailures(s, node)),
        ) === true
      );
    };
    return viewOf(
      metadata,
      this.nodeCount,
      hosted,
      (s) => {
        const host = reportedHost(s);
        return host >= 0 ? host : undefined;
      },
      failed,
      pendingFailure,
    );
  }

  /** Every answering node's entries of the last answered load, by ordinal. */
  answeredReports(): [node: number, entries: ReadonlyMap<string, NodeIndexEntry>][] {
    const out: [number, ReadonlyMap<string, NodeIndexEntry>][] = [];
    this.reports.forEach((report, node) => {
      if (report) out.push([node, report]);
    });
    return out;
  }
}
