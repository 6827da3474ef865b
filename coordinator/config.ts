/**
 * Coordinator configuration, read once from the environment. Table in the README.
 */
import { envInt, envStr } from '../shared/env.ts';
import { DEEP_PAGE_FROM, SELECTION_SAMPLES } from './search/select-phase.ts';

/** Typed coordinator settings. Units are in the names. */
export interface CoordinatorConfig {
  /** FOLIO_HOST: bind address (default 127.0.0.1; the compose file sets 0.0.0.0). */
  host: string;
  /** FOLIO_PORT: the public HTTP port (default 9200, as ES). */
  port: number;
  /** FOLIO_NODES: ordered shard-node base URLs; shard placement depends on this order. */
  nodes: string[];
  /** FOLIO_NODE_NAME: `name` in `GET /`. */
  nodeName: string;
  /** FOLIO_CLUSTER_NAME: `cluster_name` in `GET /` (default `folio`). */
  clusterName: string;
  /** FOLIO_LOG_LEVEL: pino level (default info). */
  logLevel: string;
  /** Default search deadline when the request has no `timeout` (default 30 s). */
  searchTimeoutMs: number;
  /** Deadline of internal non-search calls (bulk, metadata), default 60 s. */
  internalTimeoutMs: number;
  /** ES `http.max_content_length` (default 100 MiB). */
  maxContentLengthBytes: number;
  /** Keep-alive connections per shard node in the undici Pool (default 32). */
  connectionsPerNode: number;
  /** Largest shard reply accepted (default 256 MiB): a runaway shard cannot exhaust memory. */
  maxShardResponseBytes: number;
  /** FOLIO_DEEP_PAGE_FROM: `from` at which paging switches to distributed selection (default 500, measured). */
  deepPageFrom: number;
  /** FOLIO_SELECTION_SAMPLES: keys per shard in the selection's sample round (default 256, measured). */
  selectionSamples: number;
}

/** Builds the config from `env` (defaults to `process.env`). Throws on malformed values. */
export function loadCoordinatorConfig(env: NodeJS.ProcessEnv = process.env): CoordinatorConfig {
  const nodes = envStr(env, 'FOLIO_NODES', 'http://127.0.0.1:9300')
    .split(',')
    .map((s) => s.trim().replace(/\/+$/, ''))
    .filter((s) => s !== '');
  if (nodes.length === 0) throw new Error('FOLIO_NODES must name at least one shard node');
  return {
    host: envStr(env, 'FOLIO_HOST', '127.0.0.1'),
    port: envInt(env, 'FOLIO_PORT', 9200),
    nodes,
    nodeName: envStr(env, 'FOLIO_NODE_NAME', 'coordinator'),
    clusterName: envStr(env, 'FOLIO_CLUSTER_NAME', 'folio'),
    logLevel: envStr(env, 'FOLIO_LOG_LEVEL', 'info'),
    searchTimeoutMs: envInt(env, 'FOLIO_SEARCH_TIMEOUT_MS', 30_000),
    internalTimeoutMs: envInt(env, 'FOLIO_INTERNAL_TIMEOUT_MS', 60_000),
    maxContentLengthBytes: envInt(env, 'FOLIO_MAX_CONTENT_LENGTH_BYTES', 100 * 1024 * 1024),
    connectionsPerNode: envInt(env, 'FOLIO_CONNECTIONS_PER_NODE', 32),
    maxShardResponseBytes: envInt(env, 'FOLIO_MAX_SHARD_RESPONSE_BYTES', 256 * 1024 * 1024),
    deepPageFrom: envInt(env, 'FOLIO_DEEP_PAGE_FROM', DEEP_PAGE_FROM),
    selectionSamples: envInt(env, 'FOLIO_SELECTION_SAMPLES', SELECTION_SAMPLES),
  };
}
