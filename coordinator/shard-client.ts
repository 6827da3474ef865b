/**
 * Calls from the coordinator to shard nodes: one undici `Pool` per node with keep-alive
 * connections, deadlines from the search timeout, a cap on reply size, and cancellation.
 * Failures are typed ({@link ShardCallError}) and name the node, like elastic-transport's errors.
 * @see https://github.com/elastic/elastic-transport-js/blob/main/src/connection/UndiciConnection.ts
 */
import { Pool, errors as undiciErrors } from 'undici';
import type { ErrorCause } from '../shared/errors.ts';
import { CLUSTER_SECRET_HEADER } from '../shared/cluster-secret.ts';
import { decodeHits, isHitsContentType } from '../shared/wire.ts';

/** Why a shard call failed: no connection, the deadline passed, cancelled, or an error reply. */
export type ShardCallFailure = 'connection' | 'timeout' | 'aborted' | 'response';

/** A failed call to a shard node, with the node address and, for error replies, the ES cause and status. */
export class ShardCallError extends Error {
  readonly node: string;
  readonly kind: ShardCallFailure;
  readonly status: number;
  readonly cause_: ErrorCause;

  constructor(node: string, kind: ShardCallFailure, status: number, cause: ErrorCause) {
    super(`[${node}] ${cause.type}: ${cause.reason}`);
    this.name = 'ShardCallError';
    this.node = node;
    this.kind = kind;
    this.status = status;
    this.cause_ = cause;
  }
}

/** Options of one call. */
export interface CallOptions {
  /** Hard deadline for the whole call, in ms. */
  timeoutMs: number;
  /** Cancels the call (client disconnect, search deadline). */
  signal?: AbortSignal;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /**
   * `accept` header of the call. With `application/x-folio-hits` (query, sample and range rounds),
   * a shard node may answer in the binary hits format, which {@link ShardClient.call} decodes into
   * the same object as the JSON reply (shared/wire.ts). Absent: the node answers JSON.
   */
  accept?: string;
}

/**
 * Observes every shard call (coordinator/metrics.ts): node URL, internal path, wall time in
 * seconds, and the failure kind (null on success).
 */
export type ShardCallObserver = (node: string, path: string, seconds: number, failure: ShardCallFailure | null) => void;

/** Counters of shard calls since the coordinator started (read by `GET /_folio/stats` and the bench). */
export interface ShardCallStats {
  /** Calls that received a reply (any status). */
  shard_calls: number;
  /** Bytes of reply bodies received from shard nodes (`content-length`, else the decoded body's UTF-8 length). */
  shard_response_bytes: number;
}

/** The pools to every shard node, addressed by their index in `FOLIO_NODES`. */
export class ShardClient {
  readonly nodes: readonly string[];
  private readonly pools: Pool[];
  private readonly counters: ShardCallStats = { shard_calls: 0, shard_response_bytes: 0 };
  /** Set by the app to feed the fan-out metrics; null: calls are not timed. */
  observer: ShardCallObserver | null = null;

  private readonly clusterSecret: string | undefined;

  /** `opts.clusterSecret` (FOLIO_CLUSTER_SECRET) goes into `x-folio-cluster-secret` on every call. */
  constructor(nodes: readonly string[], opts: { connectionsPerNode: number; maxResponseBytes: number; clusterSecret?: string }) {
    this.nodes = nodes;
    this.clusterSecret = opts.clusterSecret;
    this.pools = nodes.map(
      (url) =>
        new Pool(url, {
          connections: opts.connectionsPerNode,
          keepAliveTimeout: 30_000,
          keepAliveMaxTimeout: 60_000,
          maxResponseSize: opts.maxResponseBytes,
          connectTimeout: 5_000,
        }),
    );
  }

  /**
   * Sends `body` as JSON to `path` on node `node` and returns the parsed reply: JSON, or a binary
   * `application/x-folio-hits` body (asked for with `opts.accept`) decoded by shared/wire.ts.
   * @throws ShardCallError: `connection` (refused/reset), `timeout` (deadline), `aborted`
   *   (signal), or `response` (non-2xx reply; its ES error body becomes the cause).
   */
  async call<T>(node: number, path: string, body: unknown, opts: CallOptions): Promise<T> {
    const observe = this.observer;
    if (observe === null) return this.send<T>(node, path, body, opts);
    const started = performance.now();
    try {
      const reply = await this.send<T>(node, path, body, opts);
      observe(this.nodes[node], path, (performance.now() - started) / 1000, null);
      return reply;
    } catch (err) {
      observe(this.nodes[node], path, (performance.now() - started) / 1000, err instanceof ShardCallError ? err.kind : 'response');
      throw err;
    }
  }

  /** {@link ShardClient.call} without the observer. */
  private async send<T>(node: number, path: string, body: unknown, opts: CallOptions): Promise<T> {
    const url = this.nodes[node];
    const deadline = AbortSignal.timeout(opts.timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
    const headers: Record<string, string> = {};
    if (this.clusterSecret !== undefined) headers[CLUSTER_SECRET_HEADER] = this.clusterSecret;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (opts.accept !== undefined) headers.accept = opts.accept;
    let res;
    try {
      res = await this.pools[node].request({
        path,
        method: opts.method ?? 'POST',
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
      });
    } catch (err) {
      throw this.translate(url, err, deadline, opts.signal);
    }
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    if (ok && isHitsContentType(res.headers['content-type'])) {
      let bytes: ArrayBuffer;
      try {
        bytes = await res.body.arrayBuffer();
      } catch (err) {
        throw this.translate(url, err, deadline, opts.signal);
      }
      this.counters.shard_calls++;
      this.counters.shard_response_bytes += bytes.byteLength;
      return decodeHits<T>(new Uint8Array(bytes));
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      throw this.translate(url, err, deadline, opts.signal);
    }
    this.counters.shard_calls++;
    this.counters.shard_response_bytes += Number(res.headers['content-length']) || Buffer.byteLength(text);
    if (ok) return JSON.parse(text) as T;
    let cause: ErrorCause = { type: 'exception', reason: `shard node replied ${res.statusCode}` };
    try {
      const parsed = JSON.parse(text) as { error?: ErrorCause };
      if (parsed.error && typeof parsed.error === 'object') {
        const { root_cause: _rc, ...rest } = parsed.error as ErrorCause & { root_cause?: unknown };
        cause = rest as ErrorCause;
      }
    } catch {
      // Not JSON: keep the generic cause.
    }
    throw new ShardCallError(url, 'response', res.statusCode, cause);
  }

  /** undici `Pool.stats` of every node's pool, in node order (read by the metrics at scrape time). */
  poolStats(): { node: string; connected: number; free: number; pending: number; running: number; size: number }[] {
    return this.pools.map((p, i) => {
      const s = p.stats;
      return { node: this.nodes[i], connected: s.connected, free: s.free, pending: s.pending, running: s.running, size: s.size };
    });
  }

  /** A copy of the call counters (cumulative; callers diff two readings). */
  stats(): ShardCallStats {
    return { ...this.counters };
  }

  /** Closes every pool (graceful shutdown). */
  async close(): Promise<void> {
    await Promise.all(this.pools.map((p) => p.close()));
  }

  private translate(url: string, err: unknown, deadline: AbortSignal, signal?: AbortSignal): ShardCallError {
    if (deadline.aborted || err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
      return new ShardCallError(url, 'timeout', 504, { type: 'timeout_exception', reason: `shard node [${url}] did not answer in time` });
    }
    if (signal?.aborted) {
      return new ShardCallError(url, 'aborted', 499, { type: 'task_cancelled_exception', reason: 'request cancelled' });
    }
    const message = err instanceof Error ? err.message : String(err);
    return new ShardCallError(url, 'connection', 503, {
      type: 'node_not_connected_exception',
      reason: `[${url}] ${message}`,
    });
  }
}
