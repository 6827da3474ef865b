/**
 * Shard-node configuration, read once from the environment. Table in the README.
 */
import { hostname } from 'node:os';
import { envInt, envStr } from '../shared/env.ts';

/** Typed shard-node settings. Units are in the names. */
export interface ShardNodeConfig {
  /** FOLIO_NODE_ID: the node identity echoed in every internal response (default: host name). */
  nodeId: string;
  /** FOLIO_HOST: bind address (default 127.0.0.1; the compose file sets 0.0.0.0). */
  host: string;
  /** FOLIO_PORT: listen port (default 9300). */
  port: number;
  /** FOLIO_DATA: data directory (reserved for the translog; in-memory storage today). */
  dataDir: string;
  /** FOLIO_LOG_LEVEL: pino level (default info). */
  logLevel: string;
  /** FOLIO_MAX_BODY_BYTES: largest internal request body (default 512 MiB). */
  maxBodyBytes: number;
  /** How long a refresh generation read by a search stays open for its later phases (default 60 s). */
  searchContextKeepAliveMs: number;
  /** FOLIO_MAX_OPEN_SCROLL_CONTEXT: ES `search.max_open_scroll_context`, shard contexts per node (default 500). */
  maxOpenScrollContext?: number;
  /** FOLIO_MAX_OPEN_PIT_CONTEXT: OpenSearch `search.max_open_pit_context`, shard contexts per node (default 300). */
  maxOpenPitContext?: number;
}

/** Builds the config from `env` (defaults to `process.env`). Throws on malformed values. */
export function loadShardNodeConfig(env: NodeJS.ProcessEnv = process.env): ShardNodeConfig {
  return {
    nodeId: envStr(env, 'FOLIO_NODE_ID', hostname()),
    host: envStr(env, 'FOLIO_HOST', '127.0.0.1'),
    port: envInt(env, 'FOLIO_PORT', 9300),
    dataDir: envStr(env, 'FOLIO_DATA', './data'),
    logLevel: envStr(env, 'FOLIO_LOG_LEVEL', 'info'),
    maxBodyBytes: envInt(env, 'FOLIO_MAX_BODY_BYTES', 512 * 1024 * 1024),
    searchContextKeepAliveMs: envInt(env, 'FOLIO_SEARCH_CONTEXT_KEEP_ALIVE_MS', 60_000),
    maxOpenScrollContext: envInt(env, 'FOLIO_MAX_OPEN_SCROLL_CONTEXT', 500),
    maxOpenPitContext: envInt(env, 'FOLIO_MAX_OPEN_PIT_CONTEXT', 300),
  };
}
