/**
 * How many searches run at once when one request holds several: `_msearch` items (msearch.ts) and
 * the group searches of a collapse's `inner_hits` (inner-hits.ts) both default to ES's
 * `max_concurrent_searches`, computed here from the data nodes and the processors.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/TransportMultiSearchAction.java
 */
import { availableParallelism } from 'node:os';

/** Most searches any one search-pool slot runs at once in ES's default (`TransportMultiSearchAction`). */
const SEARCH_POOL_CAP = 10;

/**
 * ES's default `max_concurrent_searches`: max(1, data nodes × min(search pool size, 10)), the search
 * pool being `processors × 3 / 2 + 1` (`ThreadPool.searchOrGetThreadPoolSize`); here the shard
 * nodes are the data nodes and the coordinator's processors stand for theirs.
 */
export function defaultMaxConcurrentSearches(dataNodes: number, processors = availableParallelism()): number {
  const searchPool = Math.floor((processors * 3) / 2) + 1;
  return Math.max(1, dataNodes * Math.min(searchPool, SEARCH_POOL_CAP));
}
