/**
 * The documents and index of the segment-file crash test (shard-node/storage/segment-crash.test.ts
 * and its child, segment-crash-child.ts): document i is city i of the cities sample (cycling).
 */
import type { Mapping } from '../../protocol/mapping.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { citiesIndex } from '../../scripts/samples/cities.ts';
import { cityDocs } from './segment-equality.ts';

/** The crash test's index name. */
export const CRASH_INDEX = 'crash';

/** The metadata of a one-shard cities index without replicas or periodic refresh (the tests refresh). */
export function oneShardCitiesMetadata(name: string, uuid: string): IndexMetadata {
  return {
    name,
    uuid,
    numberOfShards: 1,
    numberOfReplicas: 0,
    routingNumShards: 1,
    maxResultWindow: 10_000,
    refreshIntervalMs: -1,
    mappings: citiesIndex.mappings as Mapping,
    creationDate: 1,
    version: 1,
  };
}

/** The crash test's metadata (the child refreshes). */
export const crashMetadata: IndexMetadata = oneShardCitiesMetadata(CRASH_INDEX, 'uuid-crash');

let base: { json: string }[] | undefined;

/** The `_source` JSON text of document `c<i>`. */
export function crashDoc(i: number): string {
  base ??= cityDocs(5000);
  return base[i % base.length].json;
}
