/**
 * `GET /_recovery`, `GET /{index}/_recovery` (ES `RestRecoveryAction`) and
 * `GET /_cat/recovery[/{index}]` (ES `RestCatRecoveryAction`): every copy's latest recovery, as
 * its node reports it in its stats (coordinator/cluster/recovery-responses.ts), with
 * `active_only` and `detailed`, and the cat options (`v`, `h`, `format`, `bytes`, ...).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-recovery.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cat-recovery.html
 */
import type { Context, Hono } from 'hono';
import { resolveIndices } from '../../cluster/index-expression.ts';
import { INDICES_OPTIONS, indicesOptionsFrom } from '../../cluster/indices-options.ts';
import { fetchClusterStats } from '../../cluster/node-probe.ts';
import { catRecoveryTable, copyRecoveries, recoveryResponse } from '../../cluster/recovery-responses.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';
import { checkParams, queryParams, sendJson } from '../http.ts';
import { sendCat, type CatRouteDeps } from './cat-routes.ts';

/** ES boolean flag: present without a value, or `true`. */
const flag = (c: Context, name: string) => {
  const v = c.req.query(name);
  return v !== undefined && v !== 'false';
};

/** Registers the recovery routes on `app`. */
export function registerRecoveryRoutes(app: Hono, deps: CatRouteDeps): void {
  const load = async (c: Context) => {
    await deps.view.reload();
    const params = queryParams(c);
    const names = await resolveIndices(c.req.param('index'), deps.view, indicesOptionsFrom(params, INDICES_OPTIONS.catIndices));
    const stats = await fetchClusterStats(deps.client);
    return { stats, copies: copyRecoveries(stats, names, flag(c, 'active_only')) };
  };
  const json = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.recovery);
    const { stats, copies } = await load(c);
    return sendJson(c, 200, recoveryResponse(copies, stats.nodes, flag(c, 'detailed')));
  };
  app.get('/_recovery', json);
  app.get('/:index/_recovery', json);
  const cat = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.catRecovery);
    const { stats, copies } = await load(c);
    return sendCat(c, catRecoveryTable(copies, stats.nodes));
  };
  app.get('/_cat/recovery', cat);
  app.get('/_cat/recovery/:index', cat);
}
