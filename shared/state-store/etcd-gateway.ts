/**
 * HTTP transport to etcd's gRPC-gateway: the JSON form of etcd's v3 API that every etcd member
 * serves on its client URL (`POST /v3/kv/range`, `/v3/kv/txn`, `/v3/lease/grant`, `/v3/watch`, …),
 * over undici with one pool per endpoint. Bytes fields (keys, values) are base64 and int64 fields
 * are decimal strings; fields at their zero value are left out of replies (proto3 JSON).
 *
 * Failover: a call tries the endpoint that answered last, then the others in turn, until one
 * answers or `requestTimeoutMs` has passed. A call that may not be repeated (a transaction) moves
 * on only when the request surely did not reach etcd (connection refused, "no leader");
 * otherwise its failure is `unavailable` with `ambiguous: true`.
 *
 * etcd 3.4 serves the gateway under both `/v3beta` and `/v3`; 3.5 and later only `/v3`, which is
 * what this uses.
 * @see https://etcd.io/docs/v3.4/dev-guide/api_grpc_gateway/
 * @see https://github.com/etcd-io/etcd/blob/release-3.4/Documentation/dev-guide/apispec/swagger/rpc.swagger.json
 */
import { Pool } from 'undici';
import { StateStoreError } from './errors.ts';

/** Default time one call may take, every endpoint and retry included. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 6_000;
/** Default time one attempt on one endpoint may take before the call moves on. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 2_000;
/** Pause between rounds over all endpoints, doubled each round up to {@link MAX_RETRY_PAUSE_MS}. */
const FIRST_RETRY_PAUSE_MS = 50;
const MAX_RETRY_PAUSE_MS = 500;
/** Largest reply accepted from etcd (a range over the whole cluster state included). */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
/** Connections per endpoint for calls; streams (watches) use their own unlimited pool. */
const CALL_CONNECTIONS_PER_ENDPOINT = 4;

/**
 * gRPC request metadata, sent as a gateway header, that makes etcd refuse or cancel a request on
 * a member that has lost its leader (what the Go client's `WithRequireLeader` sets), so a watch on a
 * partitioned member ends instead of going quiet.
 * @see https://github.com/etcd-io/etcd/blob/release-3.4/etcdserver/api/v3rpc/rpctypes/metadatafields.go
 */
const REQUIRE_LEADER_HEADERS = { 'content-type': 'application/json', 'grpc-metadata-hasleader': 'true' };

/** gRPC status codes etcd answers with. @see https://grpc.github.io/grpc/core/md_doc_statuscodes.html */
const GRPC_INVALID_ARGUMENT = 3;
const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;
const GRPC_OUT_OF_RANGE = 11;
const GRPC_UNAVAILABLE = 14;

/** Options of {@link EtcdGateway}. */
export interface EtcdGatewayOptions {
  /** Client URLs of the etcd members, e.g. `['http://127.0.0.1:2379']`. */
  endpoints: string[];
  /** Default {@link DEFAULT_REQUEST_TIMEOUT_MS}. */
  requestTimeoutMs?: number;
  /** Default {@link DEFAULT_ATTEMPT_TIMEOUT_MS}. */
  attemptTimeoutMs?: number;
}

/** Whether a call may be sent again after an attempt whose outcome is unknown. */
export type Retry = 'idempotent' | 'once';

/** An error reply of the gateway: `{"error": "...", "message": "...", "code": N}`. */
interface GatewayError {
  error?: string;
  message?: string;
  code?: number;
}

/** An open stream: the endpoint it runs on and its messages, one parsed JSON object per line. */
export interface GatewayStream {
  endpoint: string;
  messages: AsyncIterable<Record<string, unknown>>;
}

/** A failed attempt: whether the request surely did not take effect, and the error to report. */
interface AttemptFailure {
  unsent: boolean;
  error: StateStoreError;
}

/** The transport; see the module comment. */
export class EtcdGateway {
  readonly endpoints: readonly string[];
  private readonly requestTimeoutMs: number;
  private readonly attemptTimeoutMs: number;
  private readonly callPools: Pool[];
  private readonly streamPools: Pool[];
  /** Index of the endpoint that answered last; calls start there. */
  private preferred = 0;
  private closed = false;

  constructor(options: EtcdGatewayOptions) {
    if (!Array.isArray(options.endpoints) || options.endpoints.length === 0) {
      throw new StateStoreError('invalid_argument', 'etcd needs at least one endpoint URL');
    }
    this.endpoints = options.endpoints.map((e) => new URL(e).origin);
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
    this.callPools = this.endpoints.map((e) => new Pool(e, { connections: CALL_CONNECTIONS_PER_ENDPOINT, maxResponseSize: MAX_RESPONSE_BYTES }));
    this.streamPools = this.endpoints.map((e) => new Pool(e, { maxResponseSize: -1 }));
  }

  /**
   * POSTs `body` to `path` and returns the parsed reply, failing over between endpoints (see the
   * module comment). Throws {@link StateStoreError}: the code mapped from etcd's gRPC status, or
   * `unavailable` when no endpoint answered in time.
   */
  async call<T>(path: string, body: unknown, retry: Retry): Promise<T> {
    const deadline = performance.now() + this.requestTimeoutMs;
    const json = JSON.stringify(body);
    const failures: string[] = [];
    let pause = FIRST_RETRY_PAUSE_MS;
    for (;;) {
      for (let i = 0; i < this.endpoints.length; i++) {
        this.checkOpen();
        const index = (this.preferred + i) % this.endpoints.length;
        const remaining = deadline - performance.now();
        if (remaining <= 0) break;
        // Whole milliseconds: AbortSignal.timeout refuses a fractional delay (it would fail the attempt, not time it).
        const outcome = await this.attempt<T>(index, path, json, Math.ceil(Math.min(remaining, this.attemptTimeoutMs)));
        if (outcome.ok) {
          this.preferred = index;
          return outcome.value;
        }
        this.checkOpen(); // closed while the attempt ran: report that, not an outage
        const { unsent, error } = outcome.failure;
        if (error.code !== 'unavailable') throw error;
        this.avoid(this.endpoints[index]); // the next call starts elsewhere
        if (!unsent && retry === 'once')
          throw new StateStoreError('unavailable', `${error.message} (the write may have been applied)`, { ambiguous: true, cause: error });
        failures.push(error.message);
      }
      if (performance.now() + pause >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, MAX_RETRY_PAUSE_MS);
    }
    throw new StateStoreError('unavailable', `no etcd endpoint answered within ${this.requestTimeoutMs} ms: ${[...new Set(failures)].join('; ')}`);
  }

  /** One attempt of {@link call} on one endpoint, also used to probe an endpoint a stream runs on. */
  async attempt<T>(index: number, path: string, json: string, timeoutMs: number): Promise<{ ok: true; value: T } | { ok: false; failure: AttemptFailure }> {
    const endpoint = this.endpoints[index];
    let text: string;
    try {
      const res = await this.callPools[index].request({
        path,
        method: 'POST',
        body: json,
        headers: REQUIRE_LEADER_HEADERS,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.body.text();
    } catch (err) {
      return { ok: false, failure: connectionFailure(endpoint, err) };
    }
    let parsed: unknown;
    try {
      // Unary replies are one compact JSON line; a streaming RPC used as a call (lease keep-alive)
      // answers `{"result": …}` lines, of which the first is the answer.
      parsed = JSON.parse(text.trimStart().split('\n', 1)[0]);
    } catch {
      return { ok: false, failure: { unsent: false, error: new StateStoreError('unavailable', `[${endpoint}] reply is not JSON: ${text.slice(0, 200)}`) } };
    }
    const failure = gatewayFailure(endpoint, parsed as GatewayError);
    if (failure) return { ok: false, failure };
    return { ok: true, value: parsed as T };
  }

  /**
   * Opens a server stream (`/v3/watch`) on one endpoint, starting at the preferred one and moving
   * on when it refuses the connection. The stream stays open until `signal` aborts it, the server
   * ends it, or the connection fails (the iterator then throws).
   */
  async stream(path: string, body: unknown, signal: AbortSignal): Promise<GatewayStream> {
    const json = JSON.stringify(body);
    const failures: string[] = [];
    for (let i = 0; i < this.endpoints.length; i++) {
      this.checkOpen();
      const index = (this.preferred + i) % this.endpoints.length;
      const endpoint = this.endpoints[index];
      try {
        const res = await this.streamPools[index].request({
          path,
          method: 'POST',
          body: json,
          headers: REQUIRE_LEADER_HEADERS,
          headersTimeout: this.attemptTimeoutMs,
          bodyTimeout: 0, // a quiet watch is normal; liveness is probed separately
          signal,
        });
        if (res.statusCode !== 200) {
          const text = await res.body.text();
          failures.push(`[${endpoint}] HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
          continue;
        }
        return { endpoint, messages: jsonLines(res.body) };
      } catch (err) {
        if (signal.aborted) throw err;
        failures.push(connectionFailure(endpoint, err).error.message);
      }
    }
    throw new StateStoreError('unavailable', `no etcd endpoint accepted the stream: ${failures.join('; ')}`);
  }

  /** Index of an endpoint URL given by {@link stream}. */
  indexOf(endpoint: string): number {
    return this.endpoints.indexOf(endpoint);
  }

  /** Makes calls start at the endpoint after `endpoint` (after a stream on it failed). */
  avoid(endpoint: string): void {
    const index = this.endpoints.indexOf(endpoint);
    if (index === this.preferred) this.preferred = (index + 1) % this.endpoints.length;
  }

  /** Closes every connection; open streams fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.callPools, ...this.streamPools].map((p) => p.destroy()));
  }

  private checkOpen(): void {
    if (this.closed) throw new StateStoreError('closed', 'the etcd state store is closed');
  }
}

/** Maps a gateway error reply to a {@link StateStoreError}; undefined for a success reply. */
export function gatewayFailure(endpoint: string, reply: GatewayError | { result?: unknown; error?: unknown }): AttemptFailure | undefined {
  // A stream's error line is `{"error": {"grpc_code": N, "message": "..."}}`.
  const streamError = (reply as { error?: { grpc_code?: number; message?: string } }).error;
  const code = typeof streamError === 'object' && streamError !== null ? streamError.grpc_code : (reply as GatewayError).code;
  const message =
    typeof streamError === 'object' && streamError !== null ? streamError.message : ((reply as GatewayError).message ?? (reply as GatewayError).error);
  if (code === undefined || code === 0) return undefined;
  const text = `[${endpoint}] ${message ?? `gRPC code ${code}`}`;
  switch (code) {
    case GRPC_NOT_FOUND:
      return { unsent: true, error: new StateStoreError('lease_not_found', 'requested lease not found') };
    case GRPC_OUT_OF_RANGE:
      return message?.includes('compacted')
        ? { unsent: true, error: new StateStoreError('compacted', text) }
        : { unsent: true, error: new StateStoreError('invalid_argument', text) };
    case GRPC_INVALID_ARGUMENT:
    case GRPC_FAILED_PRECONDITION:
      return { unsent: true, error: new StateStoreError('invalid_argument', text) };
    case GRPC_UNAVAILABLE:
    case GRPC_DEADLINE_EXCEEDED:
      // "no leader" is refused before the request is proposed; a timeout or a leader change may follow a proposal.
      return { unsent: /no leader|not capable|stopped/.test(message ?? ''), error: new StateStoreError('unavailable', text) };
    default:
      return { unsent: false, error: new StateStoreError('unavailable', text) };
  }
}

/** A failed connection or a timeout: unsent only when the connection was never made. */
function connectionFailure(endpoint: string, err: unknown): AttemptFailure {
  const e = err as { code?: string; message?: string; name?: string };
  const unsent = e.code === 'ECONNREFUSED' || e.code === 'UND_ERR_CONNECT_TIMEOUT' || e.code === 'ENOTFOUND' || e.code === 'EHOSTUNREACH';
  const what =
    e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' ? 'timed out' : (e.code ?? e.message ?? String(err));
  return { unsent, error: new StateStoreError('unavailable', `[${endpoint}] ${what}`, { cause: err }) };
}

/** Parses a body of newline-separated JSON objects. */
async function* jsonLines(body: AsyncIterable<Buffer | string>): AsyncGenerator<Record<string, unknown>> {
  let buffered = '';
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    buffered += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line) yield JSON.parse(line) as Record<string, unknown>;
    }
  }
  if (buffered.trim()) yield JSON.parse(buffered) as Record<string, unknown>;
}
