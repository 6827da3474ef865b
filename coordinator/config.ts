/**
 * Coordinator configuration, read once from the environment. Table in the README.
 */
import { parsePathRepo } from '../shared/snapshots/repository-location.ts';
import { parseBytesPerSec } from '../shared/snapshots/rate-limiter.ts';
import { FILE_CHUNK_BYTES, FILE_RECOVERY_MIN_OPS } from './cluster/file-recovery.ts';
import { defaultInFlightRequestsLimitBytes } from '../shared/circuit-breaker.ts';
import { envBool, envInt, envStr } from '../shared/env.ts';
import { loadHttpServerLimits, type HttpServerLimits } from '../shared/http-server-limits.ts';
import { etcdEndpointsOf } from '../shared/state-store/open-store.ts';
import { resolveNodeList } from '../shared/node-list.ts';
import { DEEP_PAGE_FROM, SELECTION_SAMPLES } from './search/select-phase.ts';

/** Typed coordinator settings. Units are in the names. */
export interface CoordinatorConfig extends HttpServerLimits {
  /** FOLIO_HOST: bind address (default 127.0.0.1; the compose file sets 0.0.0.0). */
  host: string;
  /** FOLIO_PORT: the public HTTP port (default 9200, as ES). */
  port: number;
  /**
   * Ordered shard-node base URLs; shard placement depends on this order. From FOLIO_NODES, or
   * FOLIO_NODE_COUNT + FOLIO_NODE_URL_TEMPLATE (+ FOLIO_NAMESPACE), see {@link resolveNodeList}.
   */
  nodes: string[];
  /** FOLIO_NODE_NAME: `name` in `GET /`. */
  nodeName: string;
  /**
   * FOLIO_ETCD: comma-separated etcd client URLs holding the cluster state (docs/cluster-state.md).
   * Undefined when unset: the coordinator then keeps the cluster state itself, in an embedded store
   * in {@link CoordinatorConfig.stateDir} (one coordinator only).
   */
  etcdEndpoints?: string[];
  /** FOLIO_STATE_DIR: the embedded cluster-state store's directory when FOLIO_ETCD is unset (default `data/cluster-state`). */
  stateDir: string;
  /**
   * FOLIO_PATH_REPO (ES `path.repo`): comma-separated roots under which `fs` snapshot repositories
   * may live (shared/snapshots/repository-location.ts). Unset or empty: no repository can be registered.
   */
  pathRepo?: string[];
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
  /** Bytes of encoded ops per peer-recovery chunk (FOLIO_RECOVERY_CHUNK_BYTES, default 4 MiB; coordinator/cluster/recovery.ts). */
  recoveryChunkBytes: number;
  /** The file-based recovery rule's threshold in ops (FOLIO_RECOVERY_FILE_MIN_OPS, default 10,000; negative: never; docs/recovery.md). */
  recoveryFileMinOps: number;
  /** Bytes per file chunk of a file-based recovery (FOLIO_RECOVERY_FILE_CHUNK_BYTES, default 1 MiB). */
  recoveryFileChunkBytes: number;
  /** Recovery throttle on the primary, bytes/s (FOLIO_RECOVERY_MAX_BYTES_PER_SEC, ES `indices.recovery.max_bytes_per_sec`, default 40mb; 0: none). */
  recoveryMaxBytesPerSec: number;
  /**
   * FOLIO_BATCH_SHARD_CALLS (default true): search rounds that concurrent searches send to the same
   * node in one event-loop turn travel as one batch request (coordinator/transport/shard-batcher.ts).
   */
  batchShardCalls: boolean;
  /** FOLIO_DEEP_PAGE_FROM: `from` at which paging switches to distributed selection (default 500, measured). */
  deepPageFrom: number;
  /** FOLIO_SELECTION_SAMPLES: keys per shard in the selection's sample round (default 256, measured). */
  selectionSamples: number;
  /**
   * FOLIO_SHUTDOWN_DELAY_MS: after SIGTERM, how long the coordinator keeps serving while `/readyz`
   * answers 503, so that load balancers stop routing to it (default 0; the Kubernetes manifests set 5000).
   */
  shutdownDelayMs: number;
  /** FOLIO_DRAIN_TIMEOUT_MS: then, how long in-flight requests may run before the process exits anyway (default 8000). */
  drainTimeoutMs: number;
  /**
   * FOLIO_CLUSTER_SECRET: sent in `x-folio-cluster-secret` on every shard-node call (the same value
   * as the shard nodes'). Undefined when unset: then only shard nodes with FOLIO_INSECURE=true answer.
   */
  clusterSecret?: string;
  /**
   * FOLIO_IN_FLIGHT_REQUESTS_LIMIT_BYTES: ES `network.breaker.inflight_requests.limit`, the budget of
   * request-body bytes buffered at once (× the overhead 2), past which requests answer 429
   * `circuit_breaking_exception` (default an eighth of V8's heap limit, at least 256 MiB; -1 = no limit).
   */
  inFlightRequestsLimitBytes: number;
  /**
   * FOLIO_USERS_FILE: `username:$scrypt$…` lines (ES file realm shape, `folio users add`). Setting it
   * or FOLIO_API_KEYS_FILE turns authentication on for every path but the probes (coordinator/auth/).
   */
  usersFile?: string;
  /** FOLIO_API_KEYS_FILE: API keys, one JSON line each, secrets hashed (`folio api-key create`, `POST /_security/api_key`). */
  apiKeysFile?: string;
  /** FOLIO_AUTH_CACHE_TTL_MS: how long a successful verification is reused without scrypt (default 300000; 0 = no cache). */
  authCacheTtlMs: number;
  /** FOLIO_METRICS_PUBLIC: `true` serves `GET /metrics` without credentials when authentication is on (default false). */
  metricsPublic: boolean;
  /** FOLIO_TLS_CERT: PEM certificate chain; with FOLIO_TLS_KEY the coordinator serves HTTPS only. */
  tlsCertFile?: string;
  /** FOLIO_TLS_KEY: PEM private key of FOLIO_TLS_CERT. */
  tlsKeyFile?: string;
}

/** Builds the config from `env` (defaults to `process.env`). Throws on malformed values. */
export function loadCoordinatorConfig(env: NodeJS.ProcessEnv = process.env): CoordinatorConfig {
  const nodes = resolveNodeList(env);
  const shutdownDelayMs = envInt(env, 'FOLIO_SHUTDOWN_DELAY_MS', 0);
  const drainTimeoutMs = envInt(env, 'FOLIO_DRAIN_TIMEOUT_MS', 8_000);
  if (shutdownDelayMs < 0 || drainTimeoutMs < 0) throw new Error('FOLIO_SHUTDOWN_DELAY_MS and FOLIO_DRAIN_TIMEOUT_MS must not be negative');
  const inFlightRequestsLimitBytes = envInt(env, 'FOLIO_IN_FLIGHT_REQUESTS_LIMIT_BYTES', defaultInFlightRequestsLimitBytes());
  if (inFlightRequestsLimitBytes < -1)
    throw new Error(`FOLIO_IN_FLIGHT_REQUESTS_LIMIT_BYTES must be -1 (no limit) or at least 0, got [${inFlightRequestsLimitBytes}]`);
  const authCacheTtlMs = envInt(env, 'FOLIO_AUTH_CACHE_TTL_MS', 300_000);
  if (authCacheTtlMs < 0) throw new Error('FOLIO_AUTH_CACHE_TTL_MS must not be negative');
  const metricsPublic = envStr(env, 'FOLIO_METRICS_PUBLIC', 'false');
  if (metricsPublic !== 'true' && metricsPublic !== 'false') throw new Error(`FOLIO_METRICS_PUBLIC must be true or false, got [${metricsPublic}]`);
  const tlsCertFile = envStr(env, 'FOLIO_TLS_CERT', '') || undefined;
  const tlsKeyFile = envStr(env, 'FOLIO_TLS_KEY', '') || undefined;
  if ((tlsCertFile === undefined) !== (tlsKeyFile === undefined)) throw new Error('set both FOLIO_TLS_CERT and FOLIO_TLS_KEY (PEM files), or neither');
  return {
    host: envStr(env, 'FOLIO_HOST', '127.0.0.1'),
    port: envInt(env, 'FOLIO_PORT', 9200),
    nodes,
    nodeName: envStr(env, 'FOLIO_NODE_NAME', 'coordinator'),
    etcdEndpoints: etcdEndpointsOf(env),
    stateDir: envStr(env, 'FOLIO_STATE_DIR', 'data/cluster-state'),
    pathRepo: parsePathRepo(env.FOLIO_PATH_REPO),
    clusterName: envStr(env, 'FOLIO_CLUSTER_NAME', 'folio'),
    logLevel: envStr(env, 'FOLIO_LOG_LEVEL', 'info'),
    searchTimeoutMs: envInt(env, 'FOLIO_SEARCH_TIMEOUT_MS', 30_000),
    internalTimeoutMs: envInt(env, 'FOLIO_INTERNAL_TIMEOUT_MS', 60_000),
    maxContentLengthBytes: envInt(env, 'FOLIO_MAX_CONTENT_LENGTH_BYTES', 100 * 1024 * 1024),
    connectionsPerNode: envInt(env, 'FOLIO_CONNECTIONS_PER_NODE', 32),
    maxShardResponseBytes: envInt(env, 'FOLIO_MAX_SHARD_RESPONSE_BYTES', 256 * 1024 * 1024),
    recoveryChunkBytes: envInt(env, 'FOLIO_RECOVERY_CHUNK_BYTES', 4 * 1024 * 1024),
    recoveryFileMinOps: envInt(env, 'FOLIO_RECOVERY_FILE_MIN_OPS', FILE_RECOVERY_MIN_OPS),
    recoveryFileChunkBytes: envInt(env, 'FOLIO_RECOVERY_FILE_CHUNK_BYTES', FILE_CHUNK_BYTES),
    recoveryMaxBytesPerSec: parseBytesPerSec('FOLIO_RECOVERY_MAX_BYTES_PER_SEC', env.FOLIO_RECOVERY_MAX_BYTES_PER_SEC, 40 * 1024 * 1024),
    batchShardCalls: envBool(env, 'FOLIO_BATCH_SHARD_CALLS', true),
    deepPageFrom: envInt(env, 'FOLIO_DEEP_PAGE_FROM', DEEP_PAGE_FROM),
    selectionSamples: envInt(env, 'FOLIO_SELECTION_SAMPLES', SELECTION_SAMPLES),
    shutdownDelayMs,
    drainTimeoutMs,
    clusterSecret: envStr(env, 'FOLIO_CLUSTER_SECRET', '') || undefined,
    ...loadHttpServerLimits(env),
    inFlightRequestsLimitBytes,
    usersFile: envStr(env, 'FOLIO_USERS_FILE', '') || undefined,
    apiKeysFile: envStr(env, 'FOLIO_API_KEYS_FILE', '') || undefined,
    authCacheTtlMs,
    metricsPublic: metricsPublic === 'true',
    tlsCertFile,
    tlsKeyFile,
  };
}
