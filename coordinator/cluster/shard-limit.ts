/**
 * ES's cluster-wide shard limit (`cluster.max_shards_per_node`, default 1000): creating an index,
 * or raising `number_of_replicas`, may not take the shard copies of the cluster's indices
 * (primaries × (1 + replicas), assigned or not) above `max_shards_per_node` × the data nodes.
 * Folio's data nodes are the shard nodes of FOLIO_NODES, reachable or not.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/ShardLimitValidator.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/misc-cluster-settings.html#cluster-shard-limit
 */
import { EsError } from '../../protocol/errors.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';

/** ES's default `cluster.max_shards_per_node`. */
export const DEFAULT_MAX_SHARDS_PER_NODE = 1000;

/** The shard copies an index configures: primaries × (1 + replicas) (ES `getTotalNumberOfShards`). */
export function configuredShards(m: Pick<IndexMetadata, 'numberOfShards' | 'numberOfReplicas'>): number {
  return m.numberOfShards * (1 + m.numberOfReplicas);
}

/** What the check needs to know. */
export interface ShardLimitInput {
  /** Shard copies the operation adds (may be ≤ 0: nothing to check). */
  newShards: number;
  /** Shard copies of every index now. */
  currentShards: number;
  maxShardsPerNode: number;
  dataNodes: number;
}

/**
 * @throws EsError 400 `validation_exception` `Validation Failed: 1: this action would add [X] shards,
 *   but this cluster currently has [Y]/[Z] maximum normal shards open;` when current + new > Z =
 *   max_shards_per_node × data nodes (ES `ShardLimitValidator.checkShardLimit`; no data node or
 *   nothing added: no check).
 */
export function checkShardLimit(input: ShardLimitInput): void {
  const { newShards, currentShards, maxShardsPerNode, dataNodes } = input;
  if (dataNodes === 0 || newShards <= 0) return;
  const max = maxShardsPerNode * dataNodes;
  if (currentShards + newShards > max) {
    throw new EsError(
      400,
      'validation_exception',
      `Validation Failed: 1: this action would add [${newShards}] shards, but this cluster currently has [${currentShards}]/[${max}] maximum normal shards open;`,
    );
  }
}

/** The shard copies of all `indices` together. */
export function totalShards(indices: Iterable<Pick<IndexMetadata, 'numberOfShards' | 'numberOfReplicas'>>): number {
  let n = 0;
  for (const m of indices) n += configuredShards(m);
  return n;
}

/** The shard copies a `number_of_replicas` change adds across `indices` (negative when it removes them). */
export function replicaIncrease(indices: readonly Pick<IndexMetadata, 'numberOfShards' | 'numberOfReplicas'>[], replicas: number): number {
  return indices.reduce((n, m) => n + (replicas - m.numberOfReplicas) * m.numberOfShards, 0);
}
