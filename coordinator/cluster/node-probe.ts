/**
 * What the coordinator asks the shard nodes for the cluster APIs (`_cluster/health`, `_cat`):
 * whether each node answers (`GET /_internal/v1/health`) and its per-shard document counts
 * (`GET /_internal/v1/stats`). A node that does not answer within the deadline counts as down; the
 * calls never throw.
 */
import { rpc } from '../../protocol/rpc.ts';
import { type NodeShardStats } from '../../protocol/metadata.ts';
import type { ShardClient } from '../transport/shard-client.ts';
import { hostOfUrl } from './node-specs.ts';

/** Deadline of one health probe: short, so a dead node makes health red quickly. */
export const HEALTH_PROBE_TIMEOUT_MS = 2_000;
/** Deadline of one stats call. */
export const NODE_STATS_TIMEOUT_MS = 10_000;

/** One shard node as the probe saw it. */
export interface NodeInfo {
  /** Index of the node in FOLIO_NODES (what placements refer to). */
  node: number;
  /** Its base URL from FOLIO_NODES. */
  url: string;
  /** Host part of the URL (`_cat/shards` `ip`; a host name when FOLIO_NODES uses names). */
  host: string;
  /** The node's own name (from its reply), null when it did not answer. */
  name: string | null;
  reachable: boolean;
}

/** Counts of one shard, from its node's stats. */
export interface ShardStatsEntry {
  docs: number;
  deleted: number;
  segments: number;
  /** Operation counters and open contexts (`GET /_stats`), when the node reports them. */
  ops?: NodeShardStats['ops'];
  /** Sequence numbers and checkpoints of the copy (`GET /_stats?level=shards`). */
  seqNo?: NodeShardStats['seqNo'];
  /** The copy's latest recovery (`GET /_recovery`, `GET /_cat/recovery`). */
  recovery?: NodeShardStats['recovery'];
  /** The copy's shard request cache counters (`GET /_stats/request_cache`). */
  requestCache?: NodeShardStats['requestCache'];
}

/** Key of a shard in {@link ClusterStats.shards}. */
export function shardKey(index: string, shard: number): string {
  return `${index}\u0000${shard}`;
}

/** Stats of every reachable node: the nodes, and each reported shard's counts keyed by {@link shardKey} and node. */
export interface ClusterStats {
  nodes: NodeInfo[];
  /** `shards.get(shardKey(index, shard))?.get(node)`: the counts that `node` reports for the shard. */
  shards: Map<string, Map<number, ShardStatsEntry>>;
}

/** Probes every node's `GET /_internal/v1/health` in parallel. */
export async function probeNodes(client: ShardClient, timeoutMs = HEALTH_PROBE_TIMEOUT_MS): Promise<NodeInfo[]> {
  return Promise.all(
    client.nodes.map(async (url, node) => {
      try {
        const res = await client.rpc(node, rpc.health, undefined, { timeoutMs });
        return { node, url, host: hostOfUrl(url), name: res.node ?? null, reachable: true };
      } catch {
        return { node, url, host: hostOfUrl(url), name: null, reachable: false };
      }
    }),
  );
}

/** Reads every node's `GET /_internal/v1/stats` in parallel; a node whose call fails is unreachable. */
export async function fetchClusterStats(client: ShardClient, timeoutMs = NODE_STATS_TIMEOUT_MS): Promise<ClusterStats> {
  const shards = new Map<string, Map<number, ShardStatsEntry>>();
  const nodes = await Promise.all(
    client.nodes.map(async (url, node): Promise<NodeInfo> => {
      try {
        const res = await client.rpc(node, rpc.stats, undefined, { timeoutMs });
        for (const s of res.shards) {
          const key = shardKey(s.index, s.shard);
          const byNode = shards.get(key) ?? new Map<number, ShardStatsEntry>();
          byNode.set(node, {
            docs: s.docs,
            deleted: s.deleted,
            segments: s.segments,
            ...(s.ops ? { ops: s.ops } : {}),
            ...(s.seqNo ? { seqNo: s.seqNo } : {}),
            ...(s.recovery ? { recovery: s.recovery } : {}),
            ...(s.requestCache ? { requestCache: s.requestCache } : {}),
          });
          shards.set(key, byNode);
        }
        return { node, url, host: hostOfUrl(url), name: res.node, reachable: true };
      } catch {
        return { node, url, host: hostOfUrl(url), name: null, reachable: false };
      }
    }),
  );
  return { nodes, shards };
}
