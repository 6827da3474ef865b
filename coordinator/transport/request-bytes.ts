/**
 * One HTTP exchange through an undici dispatcher whose reply body is read whole into bytes, with
 * `Dispatcher.dispatch` and a handler of its own instead of `request()`: `request()` wraps every
 * reply body in a Node `Readable` that the caller then drains with `arrayBuffer()`, and that stream
 * (construction, `push`, `endReadableNT`, the consumer) was a visible share of a page-1 search's
 * coordinator CPU (docs/performance.md, issue 17). A shard call's reply is small and always read
 * whole, so the chunks are kept as they arrive and joined once.
 * Errors are undici's own, as `request()` raises them (`HeadersTimeoutError`, `BodyTimeoutError`,
 * `ResponseExceededMaxSizeError`, socket errors), so callers classify them the same way.
 * @see https://undici.nodejs.org/#/docs/api/Dispatcher.md?id=dispatcherdispatchoptions-handler
 */
import type { IncomingHttpHeaders } from 'node:http';
import { errors, type Dispatcher } from 'undici';

/** A reply read whole. */
export interface BytesReply {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The body (one chunk's bytes as they came, or the chunks joined). */
  bytes: Uint8Array;
}

/** What {@link requestBytes} sends: dispatch options, and a signal that aborts the exchange. */
export type BytesRequest = Omit<Dispatcher.DispatchOptions, 'body'> & { body?: string | Buffer; signal?: AbortSignal };

/**
 * Sends `req` through `dispatcher` and resolves with the status, headers and whole body; rejects
 * with undici's error, or with the signal's reason (`RequestAbortedError` when it has none) once
 * `req.signal` aborts before the reply ends.
 */
export function requestBytes(dispatcher: Dispatcher, req: BytesRequest): Promise<BytesReply> {
  const { signal, ...opts } = req;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let statusCode = 0;
    let headers: IncomingHttpHeaders = {};
    let controller: Dispatcher.DispatchController | null = null;
    let settled = false;
    const reasonOf = (): Error => (signal?.reason instanceof Error ? signal.reason : new errors.RequestAbortedError());
    const onAbort = (): void => {
      if (controller) controller.abort(reasonOf());
      else finish(reasonOf());
    };
    const finish = (err: Error | null): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve({ statusCode, headers, bytes: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length) });
    };
    if (signal?.aborted) return finish(reasonOf());
    signal?.addEventListener('abort', onAbort, { once: true });
    dispatcher.dispatch(opts, {
      onRequestStart(c) {
        controller = c;
        if (signal?.aborted) c.abort(reasonOf());
      },
      onResponseStart(_c, status, h) {
        statusCode = status;
        headers = h;
      },
      onResponseData(_c, chunk) {
        chunks.push(chunk);
        length += chunk.length;
      },
      onResponseEnd() {
        finish(null);
      },
      onResponseError(_c, err) {
        finish(err);
      },
    });
  });
}
