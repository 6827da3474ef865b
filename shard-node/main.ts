/**
 * Shard-node entry point: reads the config, builds the app, listens, and shuts down gracefully
 * (stops accepting, closes the registry) on SIGTERM/SIGINT within a bounded delay.
 */
import { serve } from '@hono/node-server';
import { createLogger } from '../shared/logger.ts';
import { createShardNodeApp } from './app.ts';
import { loadShardNodeConfig } from './config.ts';
import { IndexRegistry } from './index-registry.ts';

const config = loadShardNodeConfig();
const log = createLogger('shard-node', config.logLevel, { node: config.nodeId });
const registry = new IndexRegistry(config.nodeId);
const app = createShardNodeApp(config, registry, log);

const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port, serverOptions: { keepAliveTimeout: 65_000, headersTimeout: 66_000, requestTimeout: 300_000 } }, (info) => {
  log.info({ host: config.host, port: info.port }, 'shard node listening');
});

let stopping = false;
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  registry.close();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 3_000).unref();
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
