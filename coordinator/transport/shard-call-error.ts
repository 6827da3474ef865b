/**
 * Failures of calls from the coordinator to shard nodes: one error type ({@link ShardCallError})
 * with a kind (no connection, the deadline, cancelled, an error reply), the node's address in its
 * message and, for an error reply, the reply's ES cause and status, as elastic-transport's errors.
 * @see https://github.com/elastic/elastic-transport-js/blob/main/src/errors.ts
 */
import { errors as undiciErrors } from 'undici';
import type { ErrorCause } from '../../protocol/errors.ts';

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

/** A call's deadline passed (504 `timeout_exception`). */
export function timeoutError(url: string): ShardCallError {
  return new ShardCallError(url, 'timeout', 504, { type: 'timeout_exception', reason: `shard node [${url}] did not answer in time` });
}

/** A call's signal aborted: client gone or search cancelled (499 `task_cancelled_exception`). */
export function abortedError(url: string): ShardCallError {
  return new ShardCallError(url, 'aborted', 499, { type: 'task_cancelled_exception', reason: 'request cancelled' });
}

/** No connection: refused, reset, or a malformed reply (503 `node_not_connected_exception`). */
function connectionError(url: string, err: unknown): ShardCallError {
  const message = err instanceof Error ? err.message : String(err);
  return new ShardCallError(url, 'connection', 503, { type: 'node_not_connected_exception', reason: `[${url}] ${message}` });
}

/**
 * What a failed HTTP exchange means: the deadline (its timer fired, `deadline.aborted`, or undici's
 * header or body timeout), a cancellation (`signal` aborted), else no connection.
 */
export function exchangeError(url: string, err: unknown, deadline: { aborted: boolean }, signal?: AbortSignal): ShardCallError {
  if (deadline.aborted || err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) return timeoutError(url);
  if (signal?.aborted) return abortedError(url);
  return connectionError(url, err);
}

/** A failed batch request: a timeout when undici says so, else a connection failure (refused, reset, malformed reply). */
export function batchFailure(url: string, err: unknown): ShardCallError {
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) return timeoutError(url);
  return connectionError(url, err);
}

/** A non-2xx shard reply as a ShardCallError whose cause is the reply's ES error (a generic one when the body is not one). */
export function responseError(url: string, status: number, text: string): ShardCallError {
  let cause: ErrorCause = { type: 'exception', reason: `shard node replied ${status}` };
  try {
    const parsed = JSON.parse(text) as { error?: ErrorCause };
    if (parsed.error && typeof parsed.error === 'object') {
      const { root_cause: _rc, ...rest } = parsed.error as ErrorCause & { root_cause?: unknown };
      cause = rest;
    }
  } catch {
    // Not JSON: keep the generic cause.
  }
  return new ShardCallError(url, 'response', status, cause);
}
