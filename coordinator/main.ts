/**
 * Coordinator entry point: reads the config, rebuilds the cluster view from the shard nodes,
 * listens, and shuts down gracefully on SIGTERM/SIGINT within a bounded delay: `/readyz` turns 503,
 * the coordinator keeps serving for FOLIO_SHUTDOWN_DELAY_MS (so load balancers notice), then stops
 * accepting connections, lets in-flight requests finish for up to FOLIO_DRAIN_TIMEOUT_MS, and exits.
 */
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import { flushCompileCache } from 'node:module';
import { capConnections, serverOptions as httpServerOptions } from '../shared/http-server-limits.ts';
import { createLogger } from '../shared/logger.ts';
import { loadTlsOptions, watchTlsFiles } from './auth/tls.ts';
import { createCoordinatorApp } from './app.ts';
import { ClusterStateCache } from '../shared/cluster-state/cluster-state-cache.ts';
import { openStateStore } from '../shared/state-store/open-store.ts';
import type { StateStore } from '../shared/state-store/types.ts';
import { ClusterManagerRole } from './cluster/cluster-manager.ts';
import { ClusterView, VIEW_MAX_AGE_MS, clusterStateAccess } from './cluster/cluster-view.ts';
import { ClusterSettings } from './cluster/cluster-settings/cluster-settings.ts';
import { StateStoreSettingsStore } from './cluster/cluster-settings/state-store-settings.ts';
import { CopyMaintainer } from './cluster/copy-maintenance.ts';
import { loadCoordinatorConfig } from './config.ts';
import { drainServer, shutdownBoundMs } from './cluster/drain.ts';
import { coordinatorReadiness } from './http/routes/health-routes.ts';
import { ShardClient } from './transport/shard-client.ts';

const config = loadCoordinatorConfig();
const log = createLogger('coordinator', config.logLevel, { node: config.nodeName });
if (config.clusterSecret === undefined)
  log.warn('FOLIO_CLUSTER_SECRET is unset: shard nodes answer 401 to this coordinator unless they run with FOLIO_INSECURE=true');
const client = new ShardClient(config.nodes, {
  connectionsPerNode: config.connectionsPerNode,
  maxResponseBytes: config.maxShardResponseBytes,
  clusterSecret: config.clusterSecret,
  batchCalls: config.batchShardCalls,
});
// The cluster state: etcd when FOLIO_ETCD names it, else an embedded store of this coordinator's own.
const store: StateStore = await openStateStore(config.etcdEndpoints ? { FOLIO_ETCD: config.etcdEndpoints.join(',') } : {}, { embeddedDir: config.stateDir });
if (!config.etcdEndpoints)
  log.warn({ dir: config.stateDir }, "FOLIO_ETCD is unset: the cluster state lives in this coordinator's embedded store; run one coordinator only");
const cache = await ClusterStateCache.open(store, log);
const view = new ClusterView(client, config.internalTimeoutMs, clusterStateAccess(cache, log), log);
// The cluster is its ordered node list: the same list gives the same uuid on every coordinator.
const clusterUuid = createHash('sha256').update(config.nodes.join(',')).digest('base64url').slice(0, 22);
const settings = new ClusterSettings(new StateStoreSettingsStore(cache, client, config.internalTimeoutMs, log));
const app = createCoordinatorApp({ config, view, client, log, clusterUuid, settings });

// Promotions and recoveries run from the view's reloads, which also run on a timer so that an
// idle coordinator still notices a dead primary or a returning copy (coordinator/cluster/copy-maintenance.ts), and only
// on the coordinator elected cluster manager (coordinator/cluster/cluster-manager.ts).
const maintainer = new CopyMaintainer(
  {
    view,
    client,
    timeoutMs: config.internalTimeoutMs,
    chunkBytes: config.recoveryChunkBytes,
    fileRecoveryMinOps: config.recoveryFileMinOps,
    fileChunkBytes: config.recoveryFileChunkBytes,
    maxBytesPerSec: config.recoveryMaxBytesPerSec,
  },
  log,
);
maintainer.attach(view, cache);
const managerRole = new ClusterManagerRole(store, maintainer, `${config.nodeName}@${config.host}:${config.port}`, log);
managerRole.start();
await Promise.all([
  view.reload().catch((err) => log.warn({ err }, 'cluster view not loaded at start; retried on demand')),
  settings.refresh().catch((err) => log.warn({ err }, 'cluster settings not loaded at start; retried on demand')),
]);
log.info({ indices: view.names(), nodes: config.nodes }, 'cluster view loaded');
setInterval(() => void view.reload().catch(() => undefined), VIEW_MAX_AGE_MS).unref();

// Slow and numerous clients (slowloris, connection floods): shared/http-server-limits.ts.
const serverOptions = httpServerOptions(config);
// Optional TLS (FOLIO_TLS_CERT + FOLIO_TLS_KEY): the same app and bounds over node:https.
const tls = loadTlsOptions(config);
const listening = (info: { port: number }): void => {
  log.info(
    { host: config.host, port: info.port, scheme: tls ? 'https' : 'http', authentication: config.usersFile !== undefined || config.apiKeysFile !== undefined },
    'coordinator listening',
  );
  // Every module is loaded: write their compiled code now (NODE_COMPILE_CACHE, set by the image), not at
  // an exit a SIGKILL would skip, so the next start skips parsing and compiling (docs/performance.md).
  flushCompileCache();
};
const server = tls
  ? serve(
      { fetch: app.fetch, hostname: config.host, port: config.port, createServer: createHttpsServer, serverOptions: { ...serverOptions, ...tls } },
      listening,
    )
  : serve({ fetch: app.fetch, hostname: config.host, port: config.port, serverOptions }, listening);
capConnections(server, config);
if (tls) watchTlsFiles(server as HttpsServer, config, log);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  coordinatorReadiness.draining = true;
  // Hand the cluster manager role over at once rather than after the lease's TTL.
  const resigned = managerRole.stop().catch((err: Error) => log.warn({ err }, 'resigning the cluster manager role failed'));
  // Ctrl-C from a terminal has no load balancer to wait for.
  const delayMs = signal === 'SIGINT' ? 0 : config.shutdownDelayMs;
  log.info({ signal, delayMs, drainTimeoutMs: config.drainTimeoutMs }, 'shutting down: not ready, draining');
  setTimeout(() => process.exit(0), shutdownBoundMs(delayMs, config.drainTimeoutMs)).unref();
  if (delayMs > 0) await sleep(delayMs);
  const outcome = await drainServer(server as Server, config.drainTimeoutMs);
  if (outcome === 'timeout') log.warn({ drainTimeoutMs: config.drainTimeoutMs }, 'in-flight requests cut at the drain deadline');
  await resigned;
  await cache.close();
  await store.close().catch((err: Error) => log.warn({ err }, 'closing the state store failed'));
  await client.close().catch((err: Error) => log.warn({ err }, 'closing the shard pools failed'));
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
