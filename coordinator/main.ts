/**
 * Coordinator entry point: reads the config, rebuilds the cluster view from the shard nodes,
 * listens, and shuts down gracefully on SIGTERM/SIGINT within a bounded delay.
 */
import { serve } from '@hono/node-server';
import { createHash } from 'node:crypto';
import { createLogger } from '../shared/logger.ts';
import { createCoordinatorApp } from './app.ts';
import { ClusterView } from './cluster-view.ts';
import { loadCoordinatorConfig } from './config.ts';
import { ShardClient } from './shard-client.ts';

const config = loadCoordinatorConfig();
const log = createLogger('coordinator', config.logLevel, { node: config.nodeName });
const client = new ShardClient(config.nodes, { connectionsPerNode: config.connectionsPerNode, maxResponseBytes: config.maxShardResponseBytes });
const view = new ClusterView(client, config.internalTimeoutMs);
// The cluster is its ordered node list: the same list gives the same uuid on every coordinator.
const clusterUuid = createHash('sha256').update(config.nodes.join(',')).digest('base64url').slice(0, 22);
const app = createCoordinatorApp({ config, view, client, log, clusterUuid });

await view.reload().catch((err) => log.warn({ err }, 'cluster view not loaded at start; retried on demand'));
log.info({ indices: view.names(), nodes: config.nodes }, 'cluster view loaded');

const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port, serverOptions: { keepAliveTimeout: 65_000, headersTimeout: 66_000, requestTimeout: 300_000 } }, (info) => {
  log.info({ host: config.host, port: info.port }, 'coordinator listening');
});

let stopping = false;
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  server.close(() => {
    void client.close().finally(() => process.exit(0));
  });
  setTimeout(() => process.exit(0), 3_000).unref();
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
