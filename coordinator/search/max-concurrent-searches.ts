/**
 * ES's `max_concurrent_searches`: how many searches one multi-search request runs at once (its
 * default, and the URL parameter), also the default of a collapse's `max_concurrent_group_searches`
 * (ES `InnerHitBuilder`/`ExpandSearchPhase` run the group searches as one multi-search).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-multi-search.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/TransportMultiSearchAction.java
 */
import { availableParallelism } from 'node:os';
import { illegalArgument } from '../../protocol/errors.ts';
import { parseIntParam } from '../rest/params.ts';

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

/**
 * `max_concurrent_searches` of the URL (`MultiSearchRequest.maxConcurrentSearchRequests`).
 * @returns the value, or undefined when absent (the default applies).
 * @throws EsError 400 `Failed to parse int parameter […]`, or `maxConcurrentSearchRequests must be positive` below 1
 */
export function parseMaxConcurrentSearches(raw: string | null): number | undefined {
  if (raw === null) return undefined;
  const n = parseIntParam('max_concurrent_searches', raw);
  if (n < 1) throw illegalArgument('maxConcurrentSearchRequests must be positive');
  return n;
}
