/**
 * The coordinator's public, Elasticsearch-shaped HTTP API. Wires the routes, adds
 * `X-Elastic-Product: Elasticsearch` to every response, and maps every error once: EsError →
 * the ES envelope, routing misses → ES's simple errors, anything else → a logged 500.
 * Testable in-process with `app.request()`.
 */
import { Hono } from 'hono';
import { installInFlightBudget } from '../shared/body-budget.ts';
import { toEsError } from '../protocol/errors.ts';
import type { Logger } from '../shared/logger.ts';
import { installAuth } from './auth/auth-middleware.ts';
import { registerSecurityRoutes } from './auth/security-routes.ts';
import type { ClusterView } from './cluster/cluster-view.ts';
import { ClusterSettings } from './cluster/cluster-settings/cluster-settings.ts';
import { DESTRUCTIVE_REQUIRES_NAME, MAX_BUCKETS, MAX_KEEP_ALIVE, MAX_SHARDS_PER_NODE } from './cluster/cluster-settings/setting-definitions.ts';
import { ShardNodeSettingsStore } from './cluster/cluster-settings/settings-store.ts';
import type { CoordinatorConfig } from './config.ts';
import { SimpleHttpError, checkCommonParams, sendJson } from './http/http.ts';
import { instrumentCoordinator } from './metrics.ts';
import { unroutedResponse } from './rest/method-not-allowed.ts';
import { registerAliasRoutes } from './http/routes/alias-routes.ts';
import { registerByQueryRoutes } from './http/routes/by-query-routes.ts';
import { registerRecoveryRoutes } from './http/routes/recovery-routes.ts';
import { registerCatRoutes } from './http/routes/cat-routes.ts';
import { registerStatsRoutes } from './http/routes/stats-routes.ts';
import { registerClusterRoutes } from './http/routes/cluster-routes.ts';
import { registerClusterSettingsRoutes } from './http/routes/cluster-settings-routes.ts';
import { registerConsoleRoutes } from './http/routes/console-routes.ts';
import { registerDocumentRoutes } from './http/routes/document-routes.ts';
import { registerHealthRoutes } from './http/routes/health-routes.ts';
import { registerFlushRoutes } from './http/routes/flush-routes.ts';
import { registerIndexRoutes } from './http/routes/index-routes.ts';
import { registerIndexStateRoutes } from './http/routes/index-state-routes.ts';
import { registerSettingsRoutes } from './http/routes/settings-routes.ts';
import { registerInfoRoutes } from './http/routes/info-routes.ts';
import { registerMgetRoutes } from './http/routes/mget-routes.ts';
import { registerMsearchRoutes } from './http/routes/msearch-routes.ts';
import { registerReindexRoutes } from './http/routes/reindex-routes.ts';
import { registerSearchRoutes } from './http/routes/search-routes.ts';
import { registerSnapshotRoutes } from './http/routes/snapshot-routes.ts';
import { DfsCache } from './search/dfs-cache.ts';
import { SampleCache } from './search/select-phase.ts';
import type { ShardClient } from './transport/shard-client.ts';
import { Tasks } from './write/tasks.ts';

/** What the app needs from the process: config, the cluster view, the shard pools, a logger. */
export interface CoordinatorDeps {
  config: CoordinatorConfig;
  view: ClusterView;
  client: ShardClient;
  log: Logger;
  clusterUuid: string;
  /** The cluster settings (default: kept on the shard nodes of `client`). */
  settings?: ClusterSettings;
}

/** Builds the coordinator app. */
export function createCoordinatorApp(deps: CoordinatorDeps): Hono {
  const { config, view, client, log } = deps;
  const app = new Hono();
  const maxBody = config.maxContentLengthBytes;
  const settings = deps.settings ?? new ClusterSettings(new ShardNodeSettingsStore(client, config.internalTimeoutMs));
  const maxShardsPerNode = (): number => settings.get(MAX_SHARDS_PER_NODE);
  const auth = installAuth(app, { config, log }); // first: authentication covers every route (`/metrics`, `/_console`) but the probes
  const metrics = instrumentCoordinator(app, client); // HTTP middleware and `GET /metrics` (before `/:index`)
  auth.instrument(metrics.registry);
  app.use('*', checkCommonParams); // a query string ES cannot decode, an over-long filter_path: 400 before any handler
  installInFlightBudget(app, config.inFlightRequestsLimitBytes, metrics.registry); // request bodies reserve here (shared/body-budget.ts)

  app.use('*', async (c, next) => {
    await next();
    c.res.headers.set('X-Elastic-Product', 'Elasticsearch');
  });

  app.onError((err, c) => {
    if (err instanceof SimpleHttpError) {
      const res = sendJson(c, err.status, err.body);
      for (const [k, v] of Object.entries(err.headers)) res.headers.set(k, v);
      res.headers.set('X-Elastic-Product', 'Elasticsearch');
      return res;
    }
    const es = toEsError(err);
    if (es.status >= 500) log.error({ err, method: c.req.method, path: c.req.path }, 'request failed');
    else log.debug({ type: es.type, reason: es.message, path: c.req.path }, 'request rejected');
    const res = c.req.method === 'HEAD' ? c.body(null, es.status as 400) : sendJson(c, es.status, es.toBody());
    res.headers.set('X-Elastic-Product', 'Elasticsearch');
    return res;
  });

  app.notFound((c) => {
    const unrouted = unroutedResponse(app.routes, c.req.method, c.req.path);
    const res = sendJson(c, unrouted.status, unrouted.body);
    for (const [k, v] of Object.entries(unrouted.headers)) res.headers.set(k, v);
    res.headers.set('X-Elastic-Product', 'Elasticsearch');
    return res;
  });

  app.get('/_folio/stats', (c) => c.json(client.stats())); // shard call counters for `npm run bench`
  registerInfoRoutes(app, { nodeName: config.nodeName, clusterName: config.clusterName, clusterUuid: deps.clusterUuid });
  registerHealthRoutes(app, { nodeCount: client.nodes.length }); // GET /livez, /readyz (before `/:index`)
  registerConsoleRoutes(app); // GET /_console and its assets (before `/:index`)
  const searchDeps = {
    view,
    client,
    dfsCache: new DfsCache(),
    sampleCache: new SampleCache(),
    defaultTimeoutMs: config.searchTimeoutMs,
    deepPageFrom: config.deepPageFrom,
    selectionSamples: config.selectionSamples,
    observePhase: metrics.observePhase,
    maxKeepAliveMs: () => settings.get(MAX_KEEP_ALIVE),
    maxBuckets: () => settings.get(MAX_BUCKETS),
  };
  registerSearchRoutes(app, searchDeps, maxBody);
  registerMsearchRoutes(app, searchDeps, maxBody); // `_msearch` (before `/:index`)
  const writeDeps = { view, client, timeoutMs: config.internalTimeoutMs, maxShardsPerNode };
  const tasks = new Tasks(config.nodeName); // background tasks of `wait_for_completion=false`
  registerReindexRoutes(app, { search: searchDeps, write: writeDeps, tasks }, maxBody);
  registerByQueryRoutes(app, { search: searchDeps, write: writeDeps, tasks }, maxBody); // before `/:index`
  // `/_cluster`, `/_cat` and `/_mget` go before the index routes, whose `/:index` would match them.
  registerSecurityRoutes(app, auth, maxBody); // `/_security/_authenticate`, `/_security/api_key`
  registerClusterRoutes(app, { view, client, clusterName: config.clusterName });
  registerClusterSettingsRoutes(app, settings, maxBody); // GET|PUT /_cluster/settings
  registerSnapshotRoutes(app, { ...writeDeps, pathRepo: config.pathRepo ?? [], log }, maxBody); // `/_snapshot`, `/_cat/snapshots` before `/:index`
  registerCatRoutes(app, { view, client });
  registerRecoveryRoutes(app, { view, client });
  registerStatsRoutes(app, { view, client }); // `/_stats`, `/{index}/_stats` before `/:index`
  registerAliasRoutes(app, { view }, maxBody); // `/_alias`, `/_aliases` before `/:index`
  registerMgetRoutes(app, { view, client, timeoutMs: config.internalTimeoutMs }, maxBody);
  registerFlushRoutes(app, { view, client, timeoutMs: config.internalTimeoutMs });
  registerDocumentRoutes(app, writeDeps, maxBody);
  const destructiveRequiresName = () => settings.getFresh(DESTRUCTIVE_REQUIRES_NAME);
  registerSettingsRoutes(app, writeDeps, maxBody); // `/_settings` before `/:index`
  registerIndexStateRoutes(app, { ...writeDeps, destructiveRequiresName });
  registerIndexRoutes(app, { ...writeDeps, destructiveRequiresName }, maxBody);
  return app;
}
