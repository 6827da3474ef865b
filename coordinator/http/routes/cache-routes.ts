/**
 * `POST /_cache/clear` and `/{index}/_cache/clear` (ES `RestClearIndicesCacheAction`): empties the
 * shard request cache (shard-node/request-cache.ts) of the indices' copies. The one cache Folio has
 * of those ES names is the request cache: `query` (node query cache) and `fielddata` clear nothing.
 * As ES's `IndicesService.clearIndexShardCache`, the request cache is cleared with `request=true`,
 * or when no other cache is named (no `query`, `fielddata` or `fields`). Answers `_shards` like
 * `_flush`: every configured copy in `total`, a copy whose node fails counts as failed.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-clearcache.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/rest/action/admin/indices/RestClearIndicesCacheAction.java
 */
import type { Context, Hono } from 'hono';
import { rpc } from '../../../protocol/rpc.ts';
import type { ClusterView } from '../../cluster/cluster-view.ts';
import { resolveIndices } from '../../cluster/index-expression.ts';
import { broadcastToCopies } from '../../cluster/shard-broadcast.ts';
import { INDICES_OPTIONS, indicesOptionsFrom } from '../../cluster/indices-options.ts';
import { parseBooleanParam } from '../../rest/params.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';
import type { ShardClient } from '../../transport/shard-client.ts';
import { checkParams, queryParams, sendJson } from '../http.ts';

/** Services the clear-cache routes use. */
export interface CacheRouteDeps {
  view: ClusterView;
  client: ShardClient;
  timeoutMs: number;
}

/**
 * Whether a clear-cache request empties the request cache (ES `clearIndexShardCache`: `request`,
 * or no other cache named).
 * @throws EsError 400 for a boolean parameter other than `true`, `false` or empty
 */
export function clearsRequestCache(params: URLSearchParams): boolean {
  const flag = (name: string): boolean => {
    const v = params.get(name);
    return v !== null && parseBooleanParam(v);
  };
  const request = flag('request');
  const others = flag('query') || flag('fielddata');
  const fields = (params.get('fields') ?? '').split(',').some((f) => f.trim() !== '');
  return request || (!others && !fields);
}

/** Registers the clear-cache routes on `app` (before the index routes, whose `/:index` would match `/_cache`). */
export function registerCacheRoutes(app: Hono, deps: CacheRouteDeps): void {
  const clear = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.clearCache);
    const params = queryParams(c);
    const clearRequest = clearsRequestCache(params);
    const expression = c.req.param('index') ?? params.get('index') ?? '_all';
    const names = await resolveIndices(expression, deps.view, indicesOptionsFrom(params, INDICES_OPTIONS.search));
    const send = (node: number, index: string) => deps.client.rpc(node, rpc.clearCache, { indices: [index] }, { timeoutMs: deps.timeoutMs });
    const shards = await broadcastToCopies(deps.view, names, clearRequest ? send : null);
    return sendJson(c, 200, { _shards: shards });
  };
  app.post('/_cache/clear', clear);
  app.post('/:index/_cache/clear', clear);
}
