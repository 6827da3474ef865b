/**
 * Shard-node entry point: reads the config, locks FOLIO_DATA (`node.lock`, storage/node-lock.ts:
 * a second node on the same directory refuses to start), recovers its durable state (index
 * metadata, then each shard's flush snapshot and translog, refreshed) before it listens — so the
 * health check passes only once every acknowledged write is searchable — and shuts down gracefully
 * on SIGTERM/SIGINT: leaves the cluster, stops accepting, flushes and closes every shard, within a
 * bounded delay. With FOLIO_ETCD it registers in the cluster state once it listens, with a lease
 * of its own (node-membership.ts), follows the stored index metadata itself
 * (cluster-state-follower.ts), and revokes its lease first when it shuts down.
 */
import { serve } from '@hono/node-server';
import { createServer as createHttpServer, type ServerOptions } from 'node:http';
import type { NodeListener } from './rpc-fast-path.ts';
import { flushCompileCache } from 'node:module';
import { capConnections, serverOptions } from '../shared/http-server-limits.ts';
import { createLogger } from '../shared/logger.ts';
import { createShardNode } from './app.ts';
import { loadShardNodeConfig } from './config.ts';
import { configureBlockCache } from './engine/columns/block-cache.ts';
import { IndexRegistry } from './index-registry.ts';
import { NodeClusterSettings } from './cluster-settings.ts';
import { SqlitePersistentSettingsStore } from './storage/cluster-settings-store.ts';
import { shardReadiness } from './probes.ts';
import { mkdirDurable } from './storage/durable-dir.ts';
import { NodeLock, NodeLockedError } from './storage/node-lock.ts';
import { NodeMembership } from './node-membership.ts';
import { ClusterStateFollower } from './cluster-state-follower.ts';
import { ClusterStateCache } from '../shared/cluster-state/cluster-state-cache.ts';
import { etcdEndpointsOf } from '../shared/state-store/open-store.ts';
import { EtcdStore } from '../shared/state-store/etcd-store.ts';

/** Longest graceful shutdown (flush included) before the process exits anyway; compose allows 10 s. */
const SHUTDOWN_DEADLINE_MS = 8_000;
/** Longest wait (ms) for the store to delete this node's membership key at shutdown (its lease expires anyway). */
const LEAVE_DEADLINE_MS = 1_000;

const config = loadShardNodeConfig();
const log = createLogger('shard-node', config.logLevel, { node: config.nodeId });
configureBlockCache(config.blockCacheBytes); // before any segment is read
if (config.clusterSecret === undefined) log.warn('FOLIO_INSECURE=true: the internal API (/_internal/v1) answers requests without the cluster secret');
mkdirDurable(config.dataDir);
let lock: NodeLock;
try {
  lock = NodeLock.acquire(config.dataDir, (previous, reason) =>
    log.warn({ dataDir: config.dataDir, previous, reason }, 'taking over a stale data directory lock'),
  );
} catch (err) {
  if (!(err instanceof NodeLockedError)) throw err;
  log.fatal({ dataDir: config.dataDir, holder: err.owner }, err.message);
  process.exit(1);
}
// However the process ends after this (shutdown below, an uncaught error), the lock goes with it;
// only a kill -9 or a crash of the machine leaves it, and the next start sees it is stale.
process.on('exit', () => lock.release());
const registry = new IndexRegistry(
  config.nodeId,
  {
    dataDir: config.dataDir,
    durability: config.translogDurability,
    syncIntervalMs: config.translogSyncIntervalMs,
    flushThresholdBytes: config.flushThresholdBytes,
    flushIntervalMs: config.flushIntervalMs,
  },
  log,
);
// Readiness (shard-node/probes.ts, GET /readyz): 503 while `recovering` or `draining`, or while a
// copy here has failed. Recovery runs before listen today; if it moves after listen (async), keep
// these two flips around it.
shardReadiness.failedCopies = () => registry.failedCopies();
shardReadiness.recovering = true;
const recovered = registry.recover();
shardReadiness.recovering = false;
log.info({ dataDir: config.dataDir, durability: config.translogDurability, ...recovered }, 'recovered');
const clusterSettings = new NodeClusterSettings(new SqlitePersistentSettingsStore(config.dataDir));
const http = createShardNode(config, registry, log, clusterSettings);
const app = http.app;

// Membership (liveness) in the cluster state, when the node is given the store's endpoints.
const etcdEndpoints = etcdEndpointsOf(process.env);
const stateStore = etcdEndpoints ? new EtcdStore({ endpoints: etcdEndpoints }) : null;
const membership = stateStore ? new NodeMembership(stateStore, config.nodeId, log) : null;
// The node follows the stored cluster state itself too (cluster-state-follower.ts), besides the coordinators' pushes.
let following: Promise<{ cache: ClusterStateCache; follower: ClusterStateFollower } | null> = Promise.resolve(null);
async function follow(store: EtcdStore): Promise<{ cache: ClusterStateCache; follower: ClusterStateFollower }> {
  const cache = await ClusterStateCache.open(store, log);
  const follower = new ClusterStateFollower(registry, cache, log);
  if (!stopping) follower.start();
  return { cache, follower };
}
// Slow and numerous clients: the same bounds as the coordinator's (shared/http-server-limits.ts).
// The search rounds are answered on node:http before hono (shard-node/rpc-fast-path.ts).
const createServer = ((options: ServerOptions, honoListener: NodeListener) =>
  createHttpServer(options, http.listener(honoListener))) as typeof createHttpServer;
const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port, serverOptions: serverOptions(config), createServer }, (info) => {
  log.info({ host: config.host, port: info.port }, 'shard node listening');
  // Every module is loaded: write their compiled code now (NODE_COMPILE_CACHE, set by the image), not at
  // an exit a SIGKILL would skip, so that a restart skips parsing and compiling (docs/performance.md).
  flushCompileCache();
  if (stopping) return;
  membership?.start();
  if (stateStore) following = follow(stateStore).catch((err: Error) => (log.warn({ err: err.message }, 'not following the cluster state'), null));
});
capConnections(server, config);

let stopping = false;
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  shardReadiness.draining = true; // GET /readyz → 503 from here on
  log.info({ signal }, 'shutting down');
  setTimeout(() => process.exit(0), SHUTDOWN_DEADLINE_MS).unref();
  server.close();
  // Leave the cluster first (ES: a stopping node leaves, and its primaries fail over at once), but
  // never wait on an unreachable store past LEAVE_DEADLINE_MS: the flush comes first.
  const unfollowed = following.then(async (f) => {
    f?.follower.stop();
    await f?.cache.close();
  });
  const leaving = Promise.all([membership?.stop(), unfollowed]).catch((err: Error) => log.warn({ err: err.message }, 'leaving the cluster state failed'));
  const left = Promise.race([leaving, new Promise<void>((resolve) => setTimeout(resolve, LEAVE_DEADLINE_MS).unref())]);
  left
    .then(() => registry.close())
    .then(() => log.info('flushed and closed'))
    .catch((err: Error) => log.error({ err }, 'close failed'))
    .finally(() => {
      clusterSettings.close();
      void stateStore?.close();
      process.exit(0);
    });
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
