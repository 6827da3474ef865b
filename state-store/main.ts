/**
 * State store service entry point: opens the embedded store (shared/state-store/embedded-store.ts)
 * in FOLIO_DATA and serves it as one etcd v3 member on FOLIO_HOST:FOLIO_PORT (state-store/gateway-server.ts),
 * so the other local processes reach it with `EtcdStore`, as they would reach etcd. `npm start`
 * runs it for the compose file's `etcd` service when /usr/bin/etcd is absent (scripts/local-services.ts).
 *
 * SIGTERM/SIGINT: stops accepting, ends the watch streams (clients reopen them), lets the
 * requests in flight finish, closes the store (its log is fsynced per write, so nothing
 * acknowledged is lost even on SIGKILL), and exits within {@link SHUTDOWN_DEADLINE_MS}.
 */
import { createServer } from 'node:http';
import { EmbeddedStore } from '../shared/state-store/embedded-store.ts';
import { isStateStoreError } from '../shared/state-store/errors.ts';
import { createLogger } from '../shared/logger.ts';
import { loadStateStoreConfig } from './config.ts';
import { createGatewayHandler } from './gateway-server.ts';

/** Longest graceful shutdown before the process exits anyway (compose's default grace is 10 s). */
const SHUTDOWN_DEADLINE_MS = 5_000;

const config = loadStateStoreConfig();
const log = createLogger('state-store', config.logLevel);
let store: EmbeddedStore;
try {
  store = await EmbeddedStore.open({ dir: config.dataDir });
} catch (err) {
  if (!isStateStoreError(err, 'locked') && !isStateStoreError(err, 'corrupt')) throw err;
  log.fatal({ dataDir: config.dataDir, err }, err.message);
  process.exit(1);
}
log.info({ dataDir: config.dataDir, revision: store.currentRevision }, 'state store opened');

const gateway = createGatewayHandler({ store, identity: config.dataDir });
const server = createServer({ keepAlive: true }, gateway.handle);
server.listen(config.port, config.host, () => {
  const address = server.address();
  log.info({ host: config.host, port: typeof address === 'object' && address ? address.port : config.port }, 'state store listening (etcd v3 JSON gateway)');
});

let stopping = false;
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  setTimeout(() => process.exit(0), SHUTDOWN_DEADLINE_MS).unref();
  server.close(() => {
    store
      .close()
      .then(() => log.info('closed'))
      .catch((err: Error) => log.error({ err }, 'close failed'))
      .finally(() => process.exit(0));
  });
  gateway.endStreams();
  server.closeIdleConnections();
}
process.once('SIGTERM', () => shutdown('SIGTERM'));
process.once('SIGINT', () => shutdown('SIGINT'));
