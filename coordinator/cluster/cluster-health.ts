/**
 * Cluster and index health by ES's rules (`ClusterShardHealth`, `ClusterIndexHealth`,
 * `ClusterStateHealth`), from the shard copies of the index metadata and which shard nodes answer:
 * - a copy is active when its node answers, reports hosting it, and it is in sync; a copy out of
 *   sync whose node answers and hosts it is initializing (it is recovering from its primary,
 *   coordinator/cluster/recovery.ts), else unassigned;
 * - a shard is **red** when its primary is not active, **yellow** when its primary is but some of
 *   its `1 + number_of_replicas` copies are not (a replica its node cannot hold: more replicas than
 *   N − 1 nodes, a node down, a copy out of sync), **green** when all are;
 * - an index takes its worst shard, the cluster its worst index (green with no index).
 * Pure: no I/O. The route gathers the inputs.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/health/ClusterStateHealth.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-health.html
 */
import { illegalArgument } from '../../protocol/errors.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import type { CopyView } from './index-view.ts';

/** ES `ClusterHealthStatus`, ordered green < yellow < red. */
export type HealthStatus = 'green' | 'yellow' | 'red';

const RANK: Record<HealthStatus, number> = { green: 0, yellow: 1, red: 2 };

/** The worse of two statuses. */
export function worst(a: HealthStatus, b: HealthStatus): HealthStatus {
  return RANK[a] >= RANK[b] ? a : b;
}

/** True when `status` is at least as good as `wanted` (`wait_for_status` semantics). */
export function satisfies(status: HealthStatus, wanted: HealthStatus): boolean {
  return RANK[status] <= RANK[wanted];
}

/**
 * ES `ClusterHealthStatus.valueOf(s.toUpperCase())` for `wait_for_status`.
 * @throws EsError 400 `illegal_argument_exception` `No enum constant org.elasticsearch.cluster.health.ClusterHealthStatus.PURPLE`
 */
export function parseHealthStatus(s: string): HealthStatus {
  const v = s.toLowerCase();
  if (v === 'green' || v === 'yellow' || v === 'red') return v;
  throw illegalArgument(`No enum constant org.elasticsearch.cluster.health.ClusterHealthStatus.${s.toUpperCase()}`);
}

/** Health of one shard (`level=shards`). */
export interface ShardHealth {
  status: HealthStatus;
  primary_active: boolean;
  active_shards: number;
  relocating_shards: 0;
  initializing_shards: number;
  unassigned_shards: number;
}

/** Health of one index, with the counts ES reports for `level=indices`. */
export interface IndexHealth {
  index: string;
  status: HealthStatus;
  numberOfShards: number;
  numberOfReplicas: number;
  activePrimaryShards: number;
  activeShards: number;
  initializingShards: number;
  unassignedShards: number;
  shards: ShardHealth[];
}

/** The state of a copy that health reads: its node, role, in-sync state, and whether its node reports it. */
export type CopyState = Pick<CopyView, 'node' | 'primary' | 'inSync' | 'hosted'>;

/**
 * True when a copy serves: its node answered the probe, reports hosting the copy, and the copy is in sync.
 * @param reachable `reachable[node]`: the node answered the probe.
 */
export function copyActive(copy: CopyState, reachable: readonly boolean[]): boolean {
  return reachable[copy.node] === true && copy.hosted && copy.inSync;
}

/**
 * True when a copy is recovering (ES `INITIALIZING`): a replica out of sync whose node answered the
 * probe and reports hosting it, while its shard's primary is active (the coordinators recover such
 * copies from the primary: coordinator/cluster/copy-maintenance.ts).
 * @param reachable `reachable[node]`: the node answered the probe.
 */
export function copyInitializing(copy: CopyState, primaryActive: boolean, reachable: readonly boolean[]): boolean {
  return primaryActive && !copy.primary && !copy.inSync && copy.hosted && reachable[copy.node] === true;
}

/**
 * Health of an index whose shard `s` has the copies `copies[s]` (ES `ClusterShardHealth`: green
 * when every configured copy is active, yellow when the primary is, red otherwise).
 * @param reachable `reachable[node]`: the node answered the probe.
 */
export function indexHealth(m: IndexMetadata, copies: readonly (readonly CopyState[])[], reachable: readonly boolean[]): IndexHealth {
  const configured = 1 + m.numberOfReplicas;
  const shards: ShardHealth[] = copies.map((list) => {
    const primaryActive = list.some((c) => c.primary && copyActive(c, reachable));
    const active = list.filter((c) => copyActive(c, reachable)).length;
    const initializing = list.filter((c) => copyInitializing(c, primaryActive, reachable)).length;
    const status: HealthStatus = !primaryActive ? 'red' : active >= configured ? 'green' : 'yellow';
    return {
      status,
      primary_active: primaryActive,
      active_shards: active,
      relocating_shards: 0,
      initializing_shards: initializing,
      unassigned_shards: Math.max(0, configured - active - initializing),
    };
  });
  return {
    index: m.name,
    status: shards.reduce<HealthStatus>((acc, s) => worst(acc, s.status), 'green'),
    numberOfShards: m.numberOfShards,
    numberOfReplicas: m.numberOfReplicas,
    activePrimaryShards: shards.filter((s) => s.primary_active).length,
    activeShards: shards.reduce((n, s) => n + s.active_shards, 0),
    initializingShards: shards.reduce((n, s) => n + s.initializing_shards, 0),
    unassignedShards: shards.reduce((n, s) => n + s.unassigned_shards, 0),
    shards,
  };
}

/** Inputs of {@link clusterHealthBody}. */
export interface ClusterHealthInput {
  clusterName: string;
  /** The indices asked about (all when the path names none). */
  indices: IndexHealth[];
  /** Every index of the cluster: `active_shards_percent_as_number` is over all shards, as ES. */
  allIndices: IndexHealth[];
  reachableDataNodes: number;
  /** Set when a named index does not exist: ES reports red. */
  missingIndex: boolean;
  timedOut: boolean;
  /** `level`: `cluster` (default), `indices`, `shards`. */
  level: string;
}

/**
 * The `GET /_cluster/health` body, fields in ES's order. `number_of_nodes` counts the answering
 * shard nodes plus this coordinator; `number_of_data_nodes` only the shard nodes. Pending tasks,
 * in-flight fetches, relocating and delayed shards are always 0 in Folio.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/admin/cluster/health/ClusterHealthResponse.java
 */
export function clusterHealthBody(input: ClusterHealthInput): Record<string, unknown> {
  const { indices } = input;
  let status = indices.reduce<HealthStatus>((acc, i) => worst(acc, i.status), 'green');
  if (input.missingIndex) status = 'red';
  const sum = (f: (i: IndexHealth) => number) => indices.reduce((n, i) => n + f(i), 0);
  const allActive = input.allIndices.reduce((n, i) => n + i.activeShards, 0);
  const allTotal = input.allIndices.reduce((n, i) => n + i.numberOfShards * (1 + i.numberOfReplicas), 0);
  const body: Record<string, unknown> = {
    cluster_name: input.clusterName,
    status,
    timed_out: input.timedOut,
    number_of_nodes: input.reachableDataNodes + 1,
    number_of_data_nodes: input.reachableDataNodes,
    active_primary_shards: sum((i) => i.activePrimaryShards),
    active_shards: sum((i) => i.activeShards),
    relocating_shards: 0,
    initializing_shards: sum((i) => i.initializingShards),
    unassigned_shards: sum((i) => i.unassignedShards),
    delayed_unassigned_shards: 0,
    number_of_pending_tasks: 0,
    number_of_in_flight_fetch: 0,
    task_max_waiting_in_queue_millis: 0,
    active_shards_percent_as_number: status === 'green' || allTotal === 0 ? 100 : (allActive / allTotal) * 100,
  };
  if (input.level === 'indices' || input.level === 'shards') {
    const out: Record<string, unknown> = {};
    for (const i of indices) {
      const entry: Record<string, unknown> = {
        status: i.status,
        number_of_shards: i.numberOfShards,
        number_of_replicas: i.numberOfReplicas,
        active_primary_shards: i.activePrimaryShards,
        active_shards: i.activeShards,
        relocating_shards: 0,
        initializing_shards: i.initializingShards,
        unassigned_shards: i.unassignedShards,
      };
      if (input.level === 'shards') entry.shards = Object.fromEntries(i.shards.map((s, n) => [String(n), s]));
      out[i.index] = entry;
    }
    body.indices = out;
  }
  return body;
}
