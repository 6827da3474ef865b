/**
 * Optional TLS on the coordinator's public port (ES's `xpack.security.http.ssl`): with
 * FOLIO_TLS_CERT and FOLIO_TLS_KEY (PEM files) the coordinator serves HTTPS only, through
 * node:https (via @hono/node-server's `createServer` option). The files are polled every 5 s and a
 * renewed pair is loaded into the running server with `setSecureContext`, so a certificate that
 * cert-manager or a cron job rotates takes effect without a restart; a pair that does not load is
 * logged and the previous one kept.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/current/security-settings.html#http-tls-ssl-settings
 */
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { Server as HttpsServer } from 'node:https';
import type { Logger } from '../../shared/logger.ts';
import { RELOAD_INTERVAL_MS } from './authenticator.ts';

/** The certificate and key paths of the config. */
export interface TlsFiles {
  tlsCertFile?: string;
  tlsKeyFile?: string;
}

/**
 * The `{cert, key}` options for `https.createServer`, or undefined when TLS is off.
 * @throws Error naming the variable when a file cannot be read or the pair does not form a valid context
 */
export function loadTlsOptions(files: TlsFiles): { cert: Buffer; key: Buffer } | undefined {
  if (!files.tlsCertFile || !files.tlsKeyFile) return undefined;
  const read = (path: string, name: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`${name} [${path}] cannot be read: ${(err as Error).message}`, { cause: err });
    }
  };
  const pair = { cert: read(files.tlsCertFile, 'FOLIO_TLS_CERT'), key: read(files.tlsKeyFile, 'FOLIO_TLS_KEY') };
  try {
    createSecureContext(pair);
  } catch (err) {
    throw new Error(`FOLIO_TLS_CERT / FOLIO_TLS_KEY do not form a usable certificate and key: ${(err as Error).message}`, { cause: err });
  }
  return pair;
}

/**
 * Polls both files and loads a changed pair into `server`. Returns a function that stops polling.
 */
export function watchTlsFiles(server: HttpsServer, files: TlsFiles, log: Logger, intervalMs = RELOAD_INTERVAL_MS): () => void {
  const paths = [files.tlsCertFile, files.tlsKeyFile].filter((p): p is string => p !== undefined);
  const onChange = (curr: { mtimeMs: number; ino: number }, prev: { mtimeMs: number; ino: number }): void => {
    if (curr.mtimeMs === prev.mtimeMs && curr.ino === prev.ino) return;
    try {
      const pair = loadTlsOptions(files);
      if (pair) server.setSecureContext(pair);
      log.info('TLS certificate reloaded');
    } catch (err) {
      log.error({ err }, 'TLS certificate reload failed; the previous certificate stays in use');
    }
  };
  for (const p of paths) watchFile(p, { interval: intervalMs, persistent: false }, onChange);
  return () => {
    for (const p of paths) unwatchFile(p, onChange);
  };
}
