/**
 * `GET /_stats`, `/_stats/{metric}`, `/{index}/_stats`, `/{index}/_stats/{metric}` (ES
 * `RestIndicesStatsAction`): the indices stats of coordinator/cluster/indices-stats.ts, over the indices
 * the expression names under ES's options (`strictExpandOpenAndForbidClosed`; with
 * `forbid_closed_indices=false`, `strictExpandOpen`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-stats.html
 */
import type { Context, Hono } from 'hono';
import { parseJavaBoolean } from '../../rest/params.ts';
import type { ClusterView } from '../../cluster/cluster-view.ts';
import { checkParams, queryParams, sendJson } from '../http.ts';
import { resolveIndices } from '../../cluster/index-expression.ts';
import { INDICES_OPTIONS, indicesOptionsFrom } from '../../cluster/indices-options.ts';
import { indicesStatsBody, parseStatsLevel, parseStatsMetrics } from '../../cluster/indices-stats.ts';
import { fetchClusterStats, NODE_STATS_TIMEOUT_MS } from '../../cluster/node-probe.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';
import type { ShardClient } from '../../transport/shard-client.ts';
import { registerCacheRoutes } from './cache-routes.ts';

/** What the stats routes read: the cluster view and the shard nodes. */
export interface StatsRouteDeps {
  view: ClusterView;
  client: ShardClient;
}

/** Registers the indices stats routes, and the clearing of the request cache they report (cache-routes.ts), before `/:index` routes. */
export function registerStatsRoutes(app: Hono, deps: StatsRouteDeps): void {
  const stats = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.indicesStats);
    const metrics = parseStatsMetrics(c.req.path, c.req.param('metric'));
    const level = parseStatsLevel(c.req.query('level'));
    const params = queryParams(c);
    const forbid = params.get('forbid_closed_indices');
    const defaults = forbid !== null && !parseJavaBoolean(forbid === '' ? 'true' : forbid) ? INDICES_OPTIONS.strictOpen : INDICES_OPTIONS.search;
    await deps.view.reload();
    const names = await resolveIndices(c.req.param('index'), deps.view, indicesOptionsFrom(params, defaults));
    const [views, nodeStats] = await Promise.all([Promise.all(names.map((n) => deps.view.get(n))), fetchClusterStats(deps.client)]);
    return sendJson(c, 200, indicesStatsBody(views, nodeStats, metrics, level));
  };
  app.get('/_stats', stats);
  app.get('/_stats/:metric', stats);
  app.get('/:index/_stats', stats);
  app.get('/:index/_stats/:metric', stats);
  registerCacheRoutes(app, { ...deps, timeoutMs: NODE_STATS_TIMEOUT_MS });
}
