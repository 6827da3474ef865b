/**
 * Shard-node configuration, read once from the environment. Table in the README.
 */
import { hostname } from 'node:os';
import { defaultInFlightRequestsLimitBytes } from '../shared/circuit-breaker.ts';
import { envInt, envStr } from '../shared/env.ts';
import { defaultBlockCacheBytes } from './engine/columns/block-cache.ts';
import { defaultRequestCacheBytes } from './request-cache.ts';
import { parsePathRepo } from '../shared/snapshots/repository-location.ts';
import { loadHttpServerLimits, type HttpServerLimits } from '../shared/http-server-limits.ts';
import { resolveNodeList } from '../shared/node-list.ts';
import { DEFAULT_FLUSH_INTERVAL_MS, DEFAULT_FLUSH_THRESHOLD_BYTES } from './storage/flush-policy.ts';
import type { TranslogDurability } from './storage/translog-writer.ts';

/** Typed shard-node settings. Units are in the names. */
export interface ShardNodeConfig extends HttpServerLimits {
  /** FOLIO_NODE_ID: the node identity echoed in every internal response (default: host name). */
  nodeId: string;
  /** FOLIO_HOST: bind address (default 127.0.0.1; the compose file sets 0.0.0.0). */
  host: string;
  /** FOLIO_PORT: listen port (default 9300). */
  port: number;
  /**
   * FOLIO_DATA: data directory of the durable state (`node-state.sqlite` with the index metadata,
   * `<index-uuid>/<shard>/shard.sqlite` with each shard's translog and flush snapshot). Default `./data`.
   */
  dataDir: string;
  /** FOLIO_TRANSLOG_DURABILITY: ES `index.translog.durability` of this node's shards, `request` (default) or `async`. */
  translogDurability: TranslogDurability;
  /** FOLIO_TRANSLOG_SYNC_INTERVAL_MS: ES `index.translog.sync_interval` for `async` (default 5000). */
  translogSyncIntervalMs: number;
  /** FOLIO_FLUSH_THRESHOLD_BYTES: flush a shard once its translog holds this much (default 64 MiB; ES 512mb). */
  flushThresholdBytes: number;
  /** FOLIO_FLUSH_INTERVAL_MS: flush a non-empty translog this long after the last flush (default 300000). */
  flushIntervalMs: number;
  /** FOLIO_LOG_LEVEL: pino level (default info). */
  logLevel: string;
  /** FOLIO_MAX_BODY_BYTES: largest internal request body (default 512 MiB). */
  maxBodyBytes: number;
  /**
   * FOLIO_IN_FLIGHT_REQUESTS_LIMIT_BYTES: ES `network.breaker.inflight_requests.limit` of the internal
   * API, internal bodies buffered at once (× the overhead 2); past it 429 `circuit_breaking_exception`
   * (default an eighth of V8's heap limit, at least 256 MiB; -1 = no limit).
   */
  inFlightRequestsLimitBytes: number;
  /**
   * FOLIO_BLOCK_CACHE_BYTES: size of the process-wide block cache of decompressed `_source` blocks
   * and postings pages (engine/columns/block-cache.ts), in bytes. Default a tenth of V8's heap limit, as ES sizes its
   * node query cache (`indices.queries.cache.size`: 10%), at most 64 MiB.
   */
  blockCacheBytes: number;
  /**
   * FOLIO_REQUEST_CACHE_BYTES: size of the shard request cache (shard-node/request-cache.ts), ES
   * `indices.requests.cache.size`; default 1% of V8's heap limit, as ES; 0 turns it off.
   */
  requestCacheBytes: number;
  /** How long a refresh generation read by a search stays open for its later phases (default 60 s). */
  searchContextKeepAliveMs: number;
  /** FOLIO_MAX_OPEN_SCROLL_CONTEXT: ES `search.max_open_scroll_context`, shard contexts per node (default 500). */
  maxOpenScrollContext?: number;
  /** FOLIO_MAX_OPEN_PIT_CONTEXT: OpenSearch `search.max_open_pit_context`, shard contexts per node (default 300). */
  maxOpenPitContext?: number;
  /**
   * FOLIO_MAX_OPEN_SNAPSHOT_CONTEXT: Folio `search.max_open_snapshot_context`, past refresh generations
   * retained per node beyond which a `Folio-Snapshot` pin answers 429 (default 1000).
   */
  maxOpenSnapshotContext?: number;
  /**
   * FOLIO_CLUSTER_SECRET: the secret every `/_internal/v1/*` call must carry (shard-node/cluster-auth.ts).
   * Undefined only with FOLIO_INSECURE=true, which turns the check off (local experiments only).
   */
  clusterSecret?: string;
  /**
   * FOLIO_NODES (or FOLIO_NODE_COUNT + FOLIO_NODE_URL_TEMPLATE), optional: the shard nodes' URLs by
   * ordinal, in the coordinators' FOLIO_NODES order, as this node reaches them. When set, a primary
   * forwards its writes to its replicas at these addresses (its own network path to each peer, as
   * ES nodes use the transport addresses they know); unset, at the addresses the write's
   * coordinator sent. A replica whose ordinal the list lacks fails the forward (503).
   */
  peerUrls?: string[];
  /**
   * FOLIO_PATH_REPO (ES `path.repo`): the comma-separated roots under which `fs` snapshot
   * repositories may live (shared/snapshots/repository-location.ts); empty: none allowed.
   */
  pathRepo?: string[];
}

/**
 * Reads FOLIO_CLUSTER_SECRET, or undefined when FOLIO_INSECURE=true and it is unset.
 * @throws Error when it is unset and FOLIO_INSECURE is not `true`: a shard node never serves its
 *   internal API unauthenticated by accident
 */
function clusterSecret(env: NodeJS.ProcessEnv): string | undefined {
  const secret = envStr(env, 'FOLIO_CLUSTER_SECRET', '');
  const insecure = envStr(env, 'FOLIO_INSECURE', 'false');
  if (insecure !== 'true' && insecure !== 'false') throw new Error(`FOLIO_INSECURE must be true or false, got [${insecure}]`);
  if (secret !== '') return secret;
  if (insecure === 'true') return undefined;
  throw new Error(
    'FOLIO_CLUSTER_SECRET is unset: set it (the same value on every shard node and coordinator) or FOLIO_INSECURE=true to run the internal API without authentication',
  );
}

/** Reads FOLIO_TRANSLOG_DURABILITY. @throws Error for a value other than request or async */
function durability(env: NodeJS.ProcessEnv): TranslogDurability {
  const v = envStr(env, 'FOLIO_TRANSLOG_DURABILITY', 'request');
  if (v !== 'request' && v !== 'async') throw new Error(`FOLIO_TRANSLOG_DURABILITY must be request or async, got [${v}]`);
  return v;
}

/** Builds the config from `env` (defaults to `process.env`). Throws on malformed values. */
export function loadShardNodeConfig(env: NodeJS.ProcessEnv = process.env): ShardNodeConfig {
  const inFlightRequestsLimitBytes = envInt(env, 'FOLIO_IN_FLIGHT_REQUESTS_LIMIT_BYTES', defaultInFlightRequestsLimitBytes());
  if (inFlightRequestsLimitBytes < -1)
    throw new Error(`FOLIO_IN_FLIGHT_REQUESTS_LIMIT_BYTES must be -1 (no limit) or at least 0, got [${inFlightRequestsLimitBytes}]`);
  const blockCacheBytes = envInt(env, 'FOLIO_BLOCK_CACHE_BYTES', defaultBlockCacheBytes());
  if (blockCacheBytes <= 0) throw new Error(`FOLIO_BLOCK_CACHE_BYTES must be a positive number of bytes, got [${blockCacheBytes}]`);
  const requestCacheBytes = envInt(env, 'FOLIO_REQUEST_CACHE_BYTES', defaultRequestCacheBytes());
  if (requestCacheBytes < 0) throw new Error(`FOLIO_REQUEST_CACHE_BYTES must be 0 (off) or a positive number of bytes, got [${requestCacheBytes}]`);
  return {
    ...loadHttpServerLimits(env),
    blockCacheBytes,
    requestCacheBytes,
    inFlightRequestsLimitBytes,
    nodeId: envStr(env, 'FOLIO_NODE_ID', hostname()),
    host: envStr(env, 'FOLIO_HOST', '127.0.0.1'),
    port: envInt(env, 'FOLIO_PORT', 9300),
    dataDir: envStr(env, 'FOLIO_DATA', './data'),
    translogDurability: durability(env),
    translogSyncIntervalMs: envInt(env, 'FOLIO_TRANSLOG_SYNC_INTERVAL_MS', 5000),
    flushThresholdBytes: envInt(env, 'FOLIO_FLUSH_THRESHOLD_BYTES', DEFAULT_FLUSH_THRESHOLD_BYTES),
    flushIntervalMs: envInt(env, 'FOLIO_FLUSH_INTERVAL_MS', DEFAULT_FLUSH_INTERVAL_MS),
    logLevel: envStr(env, 'FOLIO_LOG_LEVEL', 'info'),
    maxBodyBytes: envInt(env, 'FOLIO_MAX_BODY_BYTES', 512 * 1024 * 1024),
    searchContextKeepAliveMs: envInt(env, 'FOLIO_SEARCH_CONTEXT_KEEP_ALIVE_MS', 60_000),
    maxOpenScrollContext: envInt(env, 'FOLIO_MAX_OPEN_SCROLL_CONTEXT', 500),
    maxOpenPitContext: envInt(env, 'FOLIO_MAX_OPEN_PIT_CONTEXT', 300),
    maxOpenSnapshotContext: envInt(env, 'FOLIO_MAX_OPEN_SNAPSHOT_CONTEXT', 1000),
    clusterSecret: clusterSecret(env),
    pathRepo: parsePathRepo(env.FOLIO_PATH_REPO),
    ...(['FOLIO_NODES', 'FOLIO_NODE_COUNT', 'FOLIO_NODE_URL_TEMPLATE'].some((k) => envStr(env, k, '') !== '') ? { peerUrls: resolveNodeList(env) } : {}),
  };
}
