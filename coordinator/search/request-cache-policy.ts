/**
 * Which shard requests of a search may be answered from the shard request cache
 * (shard-node/request-cache.ts), as ES's `IndicesService.canCache` decides: never a scroll, a
 * `dfs_query_then_fetch` asked for, `profile: true`, or a request that reads `now` (its result
 * changes with the clock: ES's `SearchExecutionContext.isCacheable`); then `request_cache=true|false`
 * decides, and without it the index setting `index.requests.cache.enable` (default true) and
 * `size: 0`. Folio also leaves out searches pinned by a PIT or a `Folio-Snapshot` token: they read a
 * retained generation, usually once, whose entries would only crowd out those of current ones.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/shard-request-cache.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/IndicesService.java
 */
import type { IndexMetadata } from '../../protocol/metadata.ts';
import type { ClusterView } from '../cluster/cluster-view.ts';
import { parseJavaBoolean } from '../rest/params.ts';
import type { SearchRequest } from '../rest/search-request.ts';

/** ES's index setting that turns the request cache on for `size: 0` searches without `request_cache`. */
export const REQUEST_CACHE_SETTING = 'index.requests.cache.enable';

/** How a search uses the cache: never, on every index (`request_cache=true`), or where the index setting allows. */
export type RequestCacheUse = 'never' | 'always' | 'setting';

/** A word `now` in a string: date math's anchor (`now`, `now-1d/d`), also inside a query string (`date:[now-1d TO now]`). */
const NOW = /(?:^|[^A-Za-z0-9_])now(?![A-Za-z0-9_])/;

/**
 * True when some string in `value` (a request body, any depth) holds the word `now`. Conservative:
 * a `match` on the text "now" is also not cached (ES would cache it); a cached reply never depends on the clock.
 */
export function readsNow(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('now') && NOW.test(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(readsNow);
  for (const v of Object.values(value)) if (readsNow(v)) return true;
  return false;
}

/**
 * How the search `req` (from `body` and the URL `q`) uses the shard request cache, pinned
 * (`pinned`: a PIT, scroll or snapshot token) or not. The body is walked for `now` only when
 * the request could otherwise be cached.
 */
export function requestCacheUse(req: SearchRequest, body: unknown, q: string | null, pinned: boolean): RequestCacheUse {
  if (req.requestCache === false || req.scroll !== null || pinned || req.profile || req.searchType === 'dfs_query_then_fetch') return 'never';
  if (req.requestCache !== true && req.size !== 0) return 'never';
  if (readsNow(body) || (q !== null && readsNow(q))) return 'never';
  return req.requestCache === true ? 'always' : 'setting';
}

/** Whether an index's setting `index.requests.cache.enable` allows the cache (default true; a bad value reads as ES's default). */
export function requestCacheEnabled(m: Pick<IndexMetadata, 'settings'>): boolean {
  const v = m.settings?.[REQUEST_CACHE_SETTING];
  if (typeof v !== 'string') return true;
  try {
    return parseJavaBoolean(v);
  } catch {
    return true;
  }
}

/** The indices of `targets` whose query rounds may use the shard request cache (`use` not `never`): all, or those whose setting allows it. */
export async function cachedIndices(targets: readonly { index: string }[], use: RequestCacheUse, view: Pick<ClusterView, 'get'>): Promise<ReadonlySet<string>> {
  const names = new Set(targets.map((t) => t.index));
  if (use === 'always') return names;
  const out = new Set<string>();
  for (const name of names) if (requestCacheEnabled((await view.get(name)).metadata)) out.add(name);
  return out;
}
