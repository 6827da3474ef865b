/**
 * Configuration of the served embedded state store (`node state-store/main.ts`), read once from
 * the environment. Described in docs/cluster-state.md ("The served embedded store").
 */
import { resolve } from 'node:path';
import { envInt, envStr } from '../shared/env.ts';

/** Typed settings of the state store service. */
export interface StateStoreConfig {
  /** FOLIO_HOST: bind address (default 127.0.0.1). */
  host: string;
  /** FOLIO_PORT: listen port (default 2379, etcd's client port). */
  port: number;
  /** FOLIO_DATA: directory of the embedded store's snapshot and log (default `./state-data`), as an absolute path. */
  dataDir: string;
  /** FOLIO_LOG_LEVEL: pino level (default info). */
  logLevel: string;
}

/** Reads the config. Throws on a port outside 0–65535 or a non-integer one. */
export function loadStateStoreConfig(env: NodeJS.ProcessEnv = process.env): StateStoreConfig {
  const port = envInt(env, 'FOLIO_PORT', 2379);
  if (port < 0 || port > 65_535) throw new Error(`FOLIO_PORT must be a port number, got [${env.FOLIO_PORT}]`);
  return {
    host: envStr(env, 'FOLIO_HOST', '127.0.0.1'),
    port,
    dataDir: resolve(envStr(env, 'FOLIO_DATA', './state-data')),
    logLevel: envStr(env, 'FOLIO_LOG_LEVEL', 'info'),
  };
}
