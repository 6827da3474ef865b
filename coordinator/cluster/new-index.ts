/**
 * The metadata of a new index as the cluster view stores it: a fresh uuid, the settings the create
 * request resolved, the routing shards, and the copies placed on the nodes, at version 1 (ES's
 * `MetadataCreateIndexService` building the `IndexMetadata` it publishes).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/MetadataCreateIndexService.java
 */
import { randomBytes } from 'node:crypto';
import type { Mapping } from '../../protocol/mapping.ts';
import type { AliasMetadata, IndexMetadata } from '../../protocol/metadata.ts';
import { checkAlias } from './aliases/alias-actions.ts';
import { defaultRoutingNumShards } from './routing.ts';
import { allocateCopies } from './shard-allocation.ts';

/** Metadata of a new index, before it is written to the nodes (coordinator/cluster/index-settings.ts builds it). */
export interface NewIndexSpec {
  numberOfShards: number;
  numberOfReplicas: number;
  /** ES `index.number_of_routing_shards`; absent = ES's default for the shard count. */
  routingNumShards?: number;
  maxResultWindow: number;
  refreshIntervalMs: number;
  /** ES `index.translog.durability`; absent = the shard nodes' default. */
  translogDurability?: 'request' | 'async';
  /** ES `index.gc_deletes` in ms; absent = the shard nodes' default (60 s). */
  gcDeletesMs?: number;
  /** The explicit settings as ES stores them (`IndexMetadata.settings`). */
  settings?: IndexMetadata['settings'];
  mappings: Mapping;
  /** The `aliases` of the create body (`IndexMetadata.aliases`). */
  aliases?: Record<string, AliasMetadata>;
}

/**
 * The metadata of a new index `name` from `spec`, with its copies placed over `nodeCount` nodes
 * ({@link allocateCopies}) and a fresh 22-character uuid.
 */
export function newIndexMetadata(name: string, spec: NewIndexSpec, nodeCount: number): IndexMetadata {
  return {
    name,
    uuid: randomBytes(16).toString('base64url').slice(0, 22),
    numberOfShards: spec.numberOfShards,
    numberOfReplicas: spec.numberOfReplicas,
    routingNumShards: spec.routingNumShards ?? defaultRoutingNumShards(spec.numberOfShards),
    maxResultWindow: spec.maxResultWindow,
    refreshIntervalMs: spec.refreshIntervalMs,
    ...(spec.translogDurability ? { translogDurability: spec.translogDurability } : {}),
    ...(spec.gcDeletesMs !== undefined ? { gcDeletesMs: spec.gcDeletesMs } : {}),
    ...(spec.settings ? { settings: spec.settings } : {}),
    mappings: spec.mappings,
    ...(spec.aliases && Object.keys(spec.aliases).length > 0 ? { aliases: spec.aliases } : {}),
    creationDate: Date.now(),
    version: 1,
    shardCopies: allocateCopies(name, spec.numberOfShards, spec.numberOfReplicas, nodeCount),
  };
}

/** ES's checks of each alias of a new index with the indices it already names ({@link checkAlias}). */
export function checkAliasesOfNewIndex(metadata: IndexMetadata, others: readonly IndexMetadata[]): void {
  for (const alias of Object.keys(metadata.aliases ?? {})) checkAlias(alias, [...others, metadata]);
}
