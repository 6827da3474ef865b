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

/** Its metadata: one shard, no periodic refresh (the child refreshes). */
export const crashMetadata: IndexMetadata = {
  name: CRASH_INDEX,
  uuid: 'uuid-crash',
  numberOfShards: 1,
  numberOfReplicas: 0,
  routingNumShards: 1,
  maxResultWindow: 10_000,
  refreshIntervalMs: -1,
  mappings: citiesIndex.mappings as Mapping,
  creationDate: 1,
  version: 1,
};

let base: { json: string }[] | undefined;

/** The `_source` JSON text of document `c<i>`. */
export function crashDoc(i: number): string {
  base ??= cityDocs(5000);
  return base[i % base.length].json;
}
