/**
 * Adaptive replica selection, simplified: which copy of a shard a search reads. ES ranks the nodes
 * holding a copy with the C3 formula over statistics each coordinator collects
 * (`ResponseCollectorService`): rank = q̂³ · s, with q̂ = 1 + outstanding requests × clients + queue
 * size and s the EWMA of the service time (α = 0.3). Folio's shard nodes report no queue size nor
 * service time, so the coordinator uses what it sees itself: rank = (1 + outstanding)³ · EWMA of
 * the response time, per node. Like ES, nodes without a sample rank first, a search's picks count as
 * outstanding for its later shards, and each pick pulls the losers' EWMA halfway towards the winner's
 * (`adjustStats`), so a node that was slow once is tried again later. Beyond ES, a node whose call
 * failed ranks after every other copy for a backoff (0.5 s, doubling per consecutive failure, at most
 * 30 s): ES drops a dead node from the cluster instead, which Folio's coordinators cannot do.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/node/ResponseCollectorService.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/routing/IndexShardRoutingTable.java (rankShardsAndUpdateStats)
 * @see https://www.usenix.org/system/files/conference/nsdi15/nsdi15-paper-suresh.pdf
 */

/** Weight of a new sample in the response-time EWMA (ES `ResponseCollectorService.ALPHA`). */
export const ARS_ALPHA = 0.3;
/** Backoff after a node's first failed call, in ms; doubles per consecutive failure. */
export const FAILURE_BACKOFF_MS = 500;
/** Longest backoff, in ms. */
export const MAX_FAILURE_BACKOFF_MS = 30_000;

/** What the coordinator knows about one node's responses. */
export interface NodeResponseStats {
  /** EWMA of successful calls' response times in ms; null before the first. */
  ewmaMs: number | null;
  /** Calls sent and not yet answered. */
  outstanding: number;
  /** Consecutive failed calls. */
  failures: number;
  /** Epoch ms until which the node ranks after healthy copies (0: not backed off). */
  avoidUntil: number;
}

/** Per-node response statistics and the copy ranking built on them. One per coordinator (on its ShardClient). */
export class ReplicaSelection {
  private readonly stats: NodeResponseStats[];
  private readonly now: () => number;

  /** `nodeCount` nodes, addressed by their ordinal in FOLIO_NODES; `now` is the clock in epoch ms. */
  constructor(nodeCount: number, now: () => number = Date.now) {
    this.stats = Array.from({ length: nodeCount }, () => ({ ewmaMs: null, outstanding: 0, failures: 0, avoidUntil: 0 }));
    this.now = now;
  }

  /** A call to `node` starts. Pair it with exactly one of {@link succeeded}, {@link failed}, {@link cancelled}. */
  begin(node: number): void {
    const s = this.stats[node];
    if (s) s.outstanding++;
  }

  /** The call answered after `ms` milliseconds: a sample of the EWMA; the node is healthy again. */
  succeeded(node: number, ms: number): void {
    const s = this.stats[node];
    if (!s) return;
    s.outstanding = Math.max(0, s.outstanding - 1);
    s.ewmaMs = s.ewmaMs === null ? ms : ARS_ALPHA * ms + (1 - ARS_ALPHA) * s.ewmaMs;
    s.failures = 0;
    s.avoidUntil = 0;
  }

  /** The call failed (no connection, timed out, 5xx): the node is backed off, doubling per consecutive failure. */
  failed(node: number): void {
    const s = this.stats[node];
    if (!s) return;
    s.outstanding = Math.max(0, s.outstanding - 1);
    s.failures++;
    s.avoidUntil = this.now() + Math.min(MAX_FAILURE_BACKOFF_MS, FAILURE_BACKOFF_MS * 2 ** (s.failures - 1));
  }

  /** The call was given up by the client (or answered with a request error): no sample. */
  cancelled(node: number): void {
    const s = this.stats[node];
    if (!s) return;
    s.outstanding = Math.max(0, s.outstanding - 1);
  }

  /**
   * The node's rank (lower is better): (1 + outstanding + `extra`)³ · EWMA ms; −(1 + …)⁻¹ for a
   * node without a sample, so unsampled nodes come first, the least loaded of them first; +∞ for
   * an ordinal outside the node list (a copy recorded on a node the list no longer has).
   */
  rank(node: number, extra = 0): number {
    const s = this.stats[node];
    if (!s) return Infinity;
    const q = 1 + s.outstanding + extra;
    return s.ewmaMs === null ? -1 / q : q ** 3 * s.ewmaMs;
  }

  /**
   * The copies (node ordinals) best first: nodes not backed off before backed-off ones, then by
   * {@link rank}; ties keep the given order. Counts the winner in `picks` (a search's picks so far,
   * ranked as outstanding requests) and pulls the losers' EWMA towards the winner's, as ES does.
   */
  order(copies: readonly number[], picks: Map<number, number> = new Map()): number[] {
    if (copies.length === 0) return [];
    const t = this.now();
    const keyed = copies.map((node, i) => ({ node, i, avoided: (this.stats[node]?.avoidUntil ?? Infinity) > t, rank: this.rank(node, picks.get(node) ?? 0) }));
    keyed.sort((a, b) => Number(a.avoided) - Number(b.avoided) || a.rank - b.rank || a.i - b.i);
    const winner = keyed[0].node;
    const w = this.stats[winner]?.ewmaMs ?? null;
    if (w !== null) {
      for (const { node } of keyed.slice(1)) {
        const s = this.stats[node];
        if (s && s.ewmaMs !== null) s.ewmaMs = ARS_ALPHA * ((w + s.ewmaMs) / 2) + (1 - ARS_ALPHA) * s.ewmaMs;
      }
    }
    picks.set(winner, (picks.get(winner) ?? 0) + 1);
    return keyed.map((k) => k.node);
  }

  /** Whether `node`'s last call failed within its backoff (copies on it are read last); true for an unknown ordinal. */
  avoided(node: number): boolean {
    return (this.stats[node]?.avoidUntil ?? Infinity) > this.now();
  }

  /** A copy of one node's statistics (tests, diagnostics). */
  statsOf(node: number): NodeResponseStats {
    return { ...this.stats[node] };
  }
}
