/**
 * Bounds of both services' HTTP servers against slow and numerous clients: a connection cap
 * (`server.maxConnections`: past it Node closes new sockets at once), the time a client may take to
 * send its headers (`headersTimeout`, slowloris) and its whole request (`requestTimeout`), and how
 * long an idle keep-alive connection stays open (`keepAliveTimeout`). Read from the environment
 * with the same names on the coordinator and the shard nodes; table in the README.
 * @see https://nodejs.org/api/http.html#servermaxconnections
 * @see https://nodejs.org/api/http.html#serverheaderstimeout
 */
import type { Server } from 'node:net';
import { envInt } from './env.ts';

/** FOLIO_MAX_CONNECTIONS default: open client connections per process. */
export const DEFAULT_MAX_CONNECTIONS = 4096;
/** FOLIO_HEADERS_TIMEOUT_MS default: 15 s for the request line and headers. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 15_000;
/** FOLIO_REQUEST_TIMEOUT_MS default: 120 s to receive a whole request (a 100 MiB body at ~1 MiB/s). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
/** FOLIO_KEEP_ALIVE_TIMEOUT_MS default: 65 s, above the 60 s idle timeout of common load balancers. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** The limits, units in the names. */
export interface HttpServerLimits {
  /** FOLIO_MAX_CONNECTIONS: Node `server.maxConnections` (default 4096). */
  maxConnections: number;
  /** FOLIO_HEADERS_TIMEOUT_MS: Node `server.headersTimeout` (default 15000). */
  headersTimeoutMs: number;
  /** FOLIO_REQUEST_TIMEOUT_MS: Node `server.requestTimeout`, receiving the whole request (default 120000). */
  requestTimeoutMs: number;
  /** FOLIO_KEEP_ALIVE_TIMEOUT_MS: Node `server.keepAliveTimeout`, an idle connection's life (default 65000). */
  keepAliveTimeoutMs: number;
}

/**
 * Reads the limits from `env`.
 * @throws Error for a non-positive value, or a headers timeout above the request timeout
 */
export function loadHttpServerLimits(env: NodeJS.ProcessEnv): HttpServerLimits {
  const limits: HttpServerLimits = {
    maxConnections: envInt(env, 'FOLIO_MAX_CONNECTIONS', DEFAULT_MAX_CONNECTIONS),
    headersTimeoutMs: envInt(env, 'FOLIO_HEADERS_TIMEOUT_MS', DEFAULT_HEADERS_TIMEOUT_MS),
    requestTimeoutMs: envInt(env, 'FOLIO_REQUEST_TIMEOUT_MS', DEFAULT_REQUEST_TIMEOUT_MS),
    keepAliveTimeoutMs: envInt(env, 'FOLIO_KEEP_ALIVE_TIMEOUT_MS', DEFAULT_KEEP_ALIVE_TIMEOUT_MS),
  };
  if (limits.maxConnections < 1) throw new Error(`FOLIO_MAX_CONNECTIONS must be at least 1, got [${limits.maxConnections}]`);
  if (limits.keepAliveTimeoutMs < 1) throw new Error(`FOLIO_KEEP_ALIVE_TIMEOUT_MS must be positive, got [${limits.keepAliveTimeoutMs}]`);
  if (limits.headersTimeoutMs < 1 || limits.requestTimeoutMs < limits.headersTimeoutMs) {
    throw new Error('FOLIO_HEADERS_TIMEOUT_MS must be positive and at most FOLIO_REQUEST_TIMEOUT_MS');
  }
  return limits;
}

/**
 * The `http.createServer` options for the limits. Node checks the two request timeouts every
 * `connectionsCheckingInterval` (default 30 s, which would let a small bound run far over), so the
 * check runs four times per headers timeout (at least every 100 ms, at most every 30 s).
 */
export function serverOptions(limits: HttpServerLimits): {
  keepAliveTimeout: number;
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

/** Caps the server's open connections (`maxConnections` is a property, not a `createServer` option). */
export function capConnections(server: Server, limits: HttpServerLimits): void {
  server.maxConnections = limits.maxConnections;
}
