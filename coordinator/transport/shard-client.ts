/**
 * Calls from the coordinator to shard nodes: one undici `Pool` per node with keep-alive
 * connections, deadlines from the search timeout, a cap on reply size, and cancellation. Every
 * call names its action by its descriptor in the RPC table (protocol/rpc.ts), which gives its
 * method, path, request and reply types, and whether it may be batched. Failures are typed
 * ({@link ShardCallError}, shard-call-error.ts) and name the node, like elastic-transport's errors.
 * @see https://github.com/elastic/elastic-transport-js/blob/main/src/connection/UndiciConnection.ts
 */
import { clampTimerDelayMs } from '../../shared/long-timer.ts';
import { Pool } from 'undici';
import { CLUSTER_SECRET_HEADER } from '../../shared/cluster-secret.ts';
import { decodeHits, isHitsContentType } from '../../protocol/wire.ts';
import { ReplicaSelection } from './replica-selection.ts';
import { BATCH_CONTENT_TYPE, decodeBatch, type BatchCall, type BatchFrame } from '../../protocol/wire-batch.ts';
import { JsonText, requestPath, rpc as rpcs, type AnyRpc, type Rpc } from '../../protocol/rpc.ts';
import { ShardCallBatcher, type QueuedCall } from './shard-batcher.ts';
import { requestBytes } from './request-bytes.ts';
import { batchBodyBytes, callBodyBytes } from './call-body.ts';
import { isNdjsonContentType, parseNdjsonSliced } from '../../shared/sliced-json.ts';
import { abortedError, batchFailure, exchangeError, responseError, ShardCallError, timeoutError, type ShardCallFailure } from './shard-call-error.ts';

/** Options of one call. */
export interface CallOptions {
  /** Hard deadline for the whole call, in ms. */
  timeoutMs: number;
  /** Cancels the call (client disconnect, search deadline). */
  signal?: AbortSignal;
  /**
   * `accept` header of the call. With `application/x-folio-hits` (query, sample and range rounds),
   * a shard node may answer in the binary hits format, which {@link ShardClient.rpc} decodes into
   * the same object as the JSON reply (protocol/wire.ts). Absent: the node answers JSON.
   */
  accept?: string;
  /**
   * With an `application/x-ndjson` reply: each parsed line is handed to it as it arrives instead of
   * being gathered, and the call resolves an empty array (a bulk reply read into columns:
   * protocol/shard-bulk-reply.ts `ShardBulkReplyReader`).
   */
  onNdjsonLine?: (value: unknown) => void;
  /** Leaves the call out of {@link ShardCallStats} (the cluster view's background reloads: no request's work). */
  uncounted?: boolean;
}

/**
 * Observes every shard call (coordinator/metrics.ts): node URL, the action's route
 * (`/_internal/v1/indices/:index`: {@link Rpc.path}), wall time in seconds, and the failure kind
 * (null on success).
 */
export type ShardCallObserver = (node: string, path: string, seconds: number, failure: ShardCallFailure | null) => void;

/** Counters of shard calls since the coordinator started (read by `GET /_folio/stats` and the bench). */
export interface ShardCallStats {
  /** Calls that received a reply (any status). */
  shard_calls: number;
  /** Bytes of reply bodies received from shard nodes (`content-length`, else the decoded body's UTF-8 length; a batched call: its frame). */
  shard_response_bytes: number;
  /** Batch requests sent, and the calls they carried (coordinator/transport/shard-batcher.ts); included in `shard_calls`. */
  shard_batches: number;
  shard_batched_calls: number;
}

/** The pools to every shard node, addressed by their index in `FOLIO_NODES`. */
export class ShardClient {
  readonly nodes: readonly string[];
  /**
   * Per-node response statistics of search calls, which rank the copies a search reads (adaptive
   * replica selection: replica-selection.ts). Fed by the search fan-out.
   */
  readonly selection: ReplicaSelection;
  private readonly pools: Pool[];
  private readonly counters = { shard_calls: 0, shard_response_bytes: 0 };
  /** Coalesces concurrent search rounds per node (null: every call is sent on its own). */
  private readonly batcher: ShardCallBatcher | null;
  /** Set by the app to feed the fan-out metrics; null: calls are not timed. */
  observer: ShardCallObserver | null = null;

  private readonly clusterSecret: string | undefined;

  /**
   * `opts.clusterSecret` (FOLIO_CLUSTER_SECRET) goes into `x-folio-cluster-secret` on every call;
   * `opts.batchCalls` (default true, FOLIO_BATCH_SHARD_CALLS) coalesces concurrent search rounds.
   */
  constructor(nodes: readonly string[], opts: { connectionsPerNode: number; maxResponseBytes: number; clusterSecret?: string; batchCalls?: boolean }) {
    this.nodes = nodes;
    this.selection = new ReplicaSelection(nodes.length);
    this.batcher =
      opts.batchCalls === false
        ? null
        : new ShardCallBatcher(
            nodes.length,
            (n, d, b, o) => this.send(n, d, b, o),
            (n, calls) => this.sendBatch(n, calls),
          );
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
   * Calls action `d` on node `node` with `req` (JSON; a {@link JsonText} as its text; for a GET or
   * DELETE, in the path) and returns the parsed reply: JSON, a binary `application/x-folio-hits`
   * body (asked for with `opts.accept`) decoded by protocol/wire.ts, or for an
   * `application/x-ndjson` reply (asked for the same way) the array of its parsed lines, parsed in
   * slices as the reply arrives. A batchable action may travel in a batch (shard-batcher.ts).
   * @throws ShardCallError: `connection` (refused/reset), `timeout` (deadline), `aborted`
   *   (signal), or `response` (non-2xx reply; its ES error body becomes the cause).
   */
  async rpc<Req, Res>(node: number, d: Rpc<Req, Res>, req: NoInfer<Req> | JsonText<NoInfer<Req>>, opts: CallOptions): Promise<Res> {
    const observe = this.observer;
    const batched = this.batcher !== null && d.batchable;
    if (observe === null) return batched ? (this.batcher.submit(node, d, req, opts) as Promise<Res>) : this.send<Res>(node, d, req, opts);
    const started = performance.now();
    try {
      const reply = batched ? ((await this.batcher.submit(node, d, req, opts)) as Res) : await this.send<Res>(node, d, req, opts);
      observe(this.nodes[node], d.path, (performance.now() - started) / 1000, null);
      return reply;
    } catch (err) {
      observe(this.nodes[node], d.path, (performance.now() - started) / 1000, err instanceof ShardCallError ? err.kind : 'response');
      throw err;
    }
  }

  /**
   * Calls action `d` on node `node` and answers the reply's bytes and headers unparsed: a peer
   * recovery reads a chunk from the primary (`recoveryChunk`, its request as JSON) and relays it to
   * the target (`recoveryApply`, `opts.body` the chunk's bytes with `opts.contentType`, the request
   * in the path) without decoding it (coordinator/cluster/recovery.ts). Not batched, not observed;
   * counted unless `opts.uncounted`.
   * @throws ShardCallError as {@link ShardClient.rpc}
   */
  async rpcBytes<Req>(
    node: number,
    d: Rpc<Req, unknown>,
    req: NoInfer<Req>,
    opts: CallOptions & { body?: Uint8Array; contentType?: string },
  ): Promise<{ bytes: Uint8Array; headers: Record<string, string | string[] | undefined> }> {
    const url = this.nodes[node];
    const controller = new AbortController();
    const deadline = { aborted: false };
    const timer = setTimeout(() => {
      deadline.aborted = true;
      controller.abort();
    }, clampTimerDelayMs(opts.timeoutMs));
    const onAbort = (): void => controller.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) controller.abort();
    try {
      const raw = d.input === 'bytes';
      const headers: Record<string, string> = { 'content-type': raw ? (opts.contentType ?? 'application/octet-stream') : 'application/json' };
      if (this.clusterSecret !== undefined) headers[CLUSTER_SECRET_HEADER] = this.clusterSecret;
      let res;
      let bytes: Uint8Array;
      try {
        res = await this.pools[node].request({
          path: requestPath(d, req),
          method: d.method,
          headers,
          body: raw ? opts.body : JSON.stringify(req),
          signal: controller.signal,
          headersTimeout: clampTimerDelayMs(opts.timeoutMs),
          bodyTimeout: clampTimerDelayMs(opts.timeoutMs),
        });
        bytes = new Uint8Array(await res.body.arrayBuffer());
      } catch (err) {
        throw exchangeError(url, err, deadline, opts.signal);
      }
      if (opts.uncounted !== true) {
        this.counters.shard_calls++;
        this.counters.shard_response_bytes += bytes.byteLength;
      }
      if (res.statusCode < 200 || res.statusCode >= 300) throw responseError(url, res.statusCode, Buffer.from(bytes).toString('utf8'));
      return { bytes, headers: res.headers };
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** {@link ShardClient.rpc} without the observer and the batch. */
  private async send<T>(node: number, d: AnyRpc, req: unknown, opts: CallOptions): Promise<T> {
    const url = this.nodes[node];
    // One controller aborted by the deadline or the caller's signal (cheaper than AbortSignal.timeout + any per call).
    const controller = new AbortController();
    const deadline = { aborted: false };
    const timer = setTimeout(() => {
      deadline.aborted = true;
      controller.abort();
    }, clampTimerDelayMs(opts.timeoutMs));
    const onAbort = (): void => controller.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) controller.abort();
    try {
      const body = d.input === 'params' ? undefined : req;
      return await this.exchange<T>(node, url, d.method, requestPath(d as Rpc<unknown, unknown>, req), body, opts, controller.signal, deadline);
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** One HTTP exchange of {@link ShardClient.send}: `signal` aborts it, `deadline.aborted` says the deadline did. */
  private async exchange<T>(
    node: number,
    url: string,
    method: Rpc<unknown, unknown>['method'],
    path: string,
    body: unknown,
    opts: CallOptions,
    signal: AbortSignal,
    deadline: { aborted: boolean },
  ): Promise<T> {
    const headers: Record<string, string> = {};
    if (this.clusterSecret !== undefined) headers[CLUSTER_SECRET_HEADER] = this.clusterSecret;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (opts.accept !== undefined) headers.accept = opts.accept;
    const request = {
      path,
      method,
      headers,
      body: body === undefined ? undefined : body instanceof JsonText ? body.text : callBodyBytes(body),
      signal,
      headersTimeout: clampTimerDelayMs(opts.timeoutMs),
      bodyTimeout: clampTimerDelayMs(opts.timeoutMs),
    };
    if (opts.accept === undefined || !opts.accept.includes('ndjson')) {
      // A reply read whole (request-bytes.ts: no Readable per reply).
      let reply;
      try {
        reply = await requestBytes(this.pools[node], request);
      } catch (err) {
        throw exchangeError(url, err, deadline, opts.signal);
      }
      return this.interpret<T>(url, reply.statusCode, isHitsContentType(reply.headers['content-type']), reply.bytes, opts.uncounted !== true);
    }
    let res;
    try {
      res = await this.pools[node].request(request);
    } catch (err) {
      throw exchangeError(url, err, deadline, opts.signal);
    }
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    if (ok && isNdjsonContentType(res.headers['content-type'])) {
      // Parsed line by line as it arrives, in slices (shared/sliced-json.ts): the parsed lines.
      let parsed;
      try {
        parsed = await parseNdjsonSliced(res.body, opts.onNdjsonLine);
      } catch (err) {
        throw err instanceof SyntaxError ? err : exchangeError(url, err, deadline, opts.signal); // a bad line: as JSON.parse of a JSON reply
      }
      if (opts.uncounted !== true) {
        this.counters.shard_calls++;
        this.counters.shard_response_bytes += parsed.bytes;
      }
      return parsed.values as T;
    }
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await res.body.arrayBuffer());
    } catch (err) {
      throw exchangeError(url, err, deadline, opts.signal);
    }
    return this.interpret<T>(url, res.statusCode, isHitsContentType(res.headers['content-type']), bytes, opts.uncounted !== true);
  }

  /**
   * One reply body as the caller's result: a decoded hits body, parsed JSON, or, for a non-2xx
   * status, a ShardCallError whose cause is the reply's ES error. Counts the call and its bytes.
   * @throws ShardCallError `response` for a non-2xx status
   */
  private interpret<T>(url: string, status: number, hits: boolean, bytes: Uint8Array, counted = true): T {
    if (counted) {
      this.counters.shard_calls++;
      this.counters.shard_response_bytes += bytes.byteLength;
    }
    const ok = status >= 200 && status < 300;
    if (ok && hits) return decodeHits<T>(bytes);
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    if (ok) return JSON.parse(text) as T;
    throw responseError(url, status, text);
  }

  /**
   * Sends queued calls to one node as one `POST /_internal/v1/batch` and settles each: with its
   * frame (as {@link ShardClient.interpret} reads a single reply), or with the batch's failure,
   * or earlier with its own timeout (`timeout_exception`) or abort (`task_cancelled_exception`).
   * Never rejects.
   */
  private async sendBatch(node: number, calls: QueuedCall[]): Promise<void> {
    const url = this.nodes[node];
    const open = new Set(calls);
    const cleanups: (() => void)[] = [];
    let answered = false;
    const settle = (c: QueuedCall, fn: () => void): void => {
      if (!open.delete(c)) return;
      fn();
      // Every caller gave up (deadline or cancel) before the reply: drop the request. After the
      // reply there is nothing to abort (and an abort builds a DOMException per batch).
      if (open.size === 0 && !answered) batchAbort.abort();
    };
    const batchAbort = new AbortController();
    let timeoutMs = 1;
    for (const c of calls) {
      timeoutMs = Math.max(timeoutMs, c.opts.timeoutMs);
      const timer = setTimeout(() => settle(c, () => c.reject(timeoutError(url))), clampTimerDelayMs(c.opts.timeoutMs));
      cleanups.push(() => clearTimeout(timer));
      const signal = c.opts.signal;
      if (signal) {
        const onAbort = (): void => settle(c, () => c.reject(abortedError(url)));
        if (signal.aborted) onAbort();
        else {
          signal.addEventListener('abort', onAbort, { once: true });
          cleanups.push(() => signal.removeEventListener('abort', onAbort));
        }
      }
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: BATCH_CONTENT_TYPE };
    if (this.clusterSecret !== undefined) headers[CLUSTER_SECRET_HEADER] = this.clusterSecret;
    const batch: BatchCall[] = calls.map((c) => ({
      path: c.rpc.endpoint,
      body: c.body,
      hits: c.opts.accept !== undefined && c.opts.accept.includes('x-folio-hits'),
    }));
    try {
      if (open.size === 0) return;
      const res = await requestBytes(this.pools[node], {
        path: rpcs.batch.path,
        method: rpcs.batch.method,
        headers,
        body: batchBodyBytes(batch),
        signal: batchAbort.signal,
        headersTimeout: clampTimerDelayMs(timeoutMs),
        bodyTimeout: clampTimerDelayMs(timeoutMs),
      });
      const bytes = res.bytes;
      answered = true;
      if (res.statusCode !== 200 || !String(res.headers['content-type'] ?? '').startsWith(BATCH_CONTENT_TYPE)) {
        // The whole batch was refused (e.g. a node without the batch endpoint): every call fails as that reply.
        const refused = responseError(url, res.statusCode >= 300 ? res.statusCode : 502, Buffer.from(bytes).toString('utf8'));
        for (const c of calls) settle(c, () => c.reject(refused));
        return;
      }
      const frames: BatchFrame[] = decodeBatch(bytes);
      calls.forEach((c, i) => {
        const f = frames[i];
        settle(c, () => {
          if (!f) c.reject(new ShardCallError(url, 'response', 502, { type: 'exception', reason: `batch reply has no frame ${i}` }));
          else {
            try {
              c.resolve(this.interpret(url, f.status, f.hits, f.body));
            } catch (err) {
              c.reject(err);
            }
          }
        });
      });
    } catch (err) {
      // Calls still open share the batch's failure (the ones that timed out or aborted already settled).
      const failure = batchFailure(url, err);
      for (const c of calls) settle(c, () => c.reject(failure));
    } finally {
      for (const done of cleanups) done();
    }
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
    const b = this.batcher?.counters;
    return { ...this.counters, shard_batches: b?.batches ?? 0, shard_batched_calls: b?.batched_calls ?? 0 };
  }

  /** Closes every pool (graceful shutdown). */
  async close(): Promise<void> {
    await Promise.all(this.pools.map((p) => p.close()));
  }
}
