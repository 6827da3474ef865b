/**
 * Reading a request body under a size limit, for both services. Under @hono/node-server the bytes
 * come straight from the Node request stream (`c.env.incoming`): no Fetch `Request` body and no
 * web stream is built, which is a measurable part of a shard call's cost, and a GET body (which a
 * Fetch `Request` cannot carry, but ES accepts on `_search`) is read too. In-process
 * (`app.request()` in tests) the Fetch body stream is read instead. Either way reading stops, and
 * the stream is dropped, as soon as the body exceeds the limit, so a chunked body without
 * `content-length` never makes a service buffer more than the limit.
 *
 * With a {@link BodyBudget} (the in-flight requests breaker, shared/circuit-breaker.ts) the bytes
 * are reserved before they are buffered: a declared `content-length` at once, before any byte is
 * read, a chunked body as each chunk arrives. A refused reservation stops reading as the size
 * limit does. A client that goes away mid-body makes the read reject (`request aborted`), so the
 * caller's release runs.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { DEFAULT_SLICE_MS, yieldToEventLoop } from './event-loop-slices.ts';

/**
 * Bodies past this size are joined from their chunks in pieces that yield to the event loop. The
 * first write to freshly allocated memory costs a page fault per 4 KiB page: joining a 4 MiB body
 * in one task took 13 ms on an idle development machine and 40–54 ms under load, holding every
 * other request of the service (docs/reliability.md, the abuse suite).
 */
export const SLICED_JOIN_BYTES = 256 * 1024;
/** Bytes copied between two checks of the slice clock while a large body is joined. */
const JOIN_PIECE_BYTES = 256 * 1024;

/**
 * The chunks as one buffer of `size` bytes: the only chunk itself, a `Buffer.concat` below
 * {@link SLICED_JOIN_BYTES}, else copied piece by piece, yielding whenever about
 * {@link DEFAULT_SLICE_MS} of work has passed.
 */
export async function joinChunks(chunks: readonly Uint8Array[], size: number): Promise<Uint8Array> {
  if (chunks.length === 1) return chunks[0];
  if (size < SLICED_JOIN_BYTES) return Buffer.concat(chunks, size);
  const out = Buffer.allocUnsafe(size);
  let offset = 0;
  let started = performance.now();
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.byteLength;) {
      const n = Math.min(JOIN_PIECE_BYTES, chunk.byteLength - at);
      out.set(chunk.subarray(at, at + n), offset);
      offset += n;
      at += n;
      if (performance.now() - started >= DEFAULT_SLICE_MS) {
        await yieldToEventLoop();
        started = performance.now();
      }
    }
  }
  return out;
}

/** Where a body reserves its bytes before buffering them (a {@link BodyReservation}). */
export interface BodyBudget {
  /** @throws an Error (ES's 429 `circuit_breaking_exception`) when the bytes do not fit */
  reserve(bytes: number): void;
}

/** Reserves bytes as they are seen: the declared length once, then only what goes past it. */
class Reserver {
  private reserved = 0;
  private readonly budget: BodyBudget | undefined;

  constructor(budget: BodyBudget | undefined) {
    this.budget = budget;
  }

  /** Makes sure `total` bytes are reserved. @throws the budget's error */
  upTo(total: number): void {
    if (this.budget === undefined || total <= this.reserved) return;
    this.budget.reserve(total - this.reserved);
    this.reserved = total;
  }
}

/** A declared `content-length` header value as a byte count, or 0 when absent or malformed. */
function declaredLength(header: string | undefined): number {
  const n = Number(header ?? 0);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/**
 * The request body bytes (empty when there is none).
 * @param maxBytes the limit (e.g. ES `http.max_content_length`)
 * @param tooLarge builds the error thrown past the limit, from the bytes seen so far
 * @param budget where the bytes are reserved before they are buffered (optional)
 * @throws whatever `tooLarge` returns, once more than `maxBytes` bytes arrived; the budget's error
 *   when the bytes do not fit; `request aborted` when the client goes away mid-body
 */
export async function readRequestBody(c: Context, maxBytes: number, tooLarge: (got: number) => Error, budget?: BodyBudget): Promise<Uint8Array> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && !incoming.readableEnded && !incoming.readableDidRead) return readIncomingBody(incoming, maxBytes, tooLarge, budget);
  const reserver = new Reserver(budget);
  const declared = declaredLength(c.req.header('content-length'));
  if (declared > 0 && declared <= maxBytes) reserver.upTo(declared);
  return readStream(c.req.raw.body, maxBytes, tooLarge, reserver);
}

/**
 * {@link readRequestBody} straight from a Node request (a route served on node:http without hono:
 * shard-node/rpc-fast-path.ts): the same limit, reservation and abort rules.
 * @throws as {@link readRequestBody}
 */
export async function readIncomingBody(
  incoming: IncomingMessage,
  maxBytes: number,
  tooLarge: (got: number) => Error,
  budget?: BodyBudget,
): Promise<Uint8Array> {
  const reserver = new Reserver(budget);
  const declared = declaredLength(incoming.headers['content-length']);
  if (declared > 0 && declared <= maxBytes) reserver.upTo(declared);
  return readIncoming(incoming, maxBytes, tooLarge, reserver);
}

/**
 * Collects the Node request stream. Past the limit it stops collecting and pauses the stream but
 * does not destroy it: the caller's 413 is then written on a live socket and Node discards the
 * rest of the body after the response (`IncomingMessage._dump`), never buffering it; the server's
 * `requestTimeout` bounds an endless one. Destroying the stream (or closing the connection)
 * instead resets the socket while the client is still sending, and under load the client then
 * sees the reset (EPIPE, ECONNRESET) rather than the 413.
 */
function readIncoming(incoming: IncomingMessage, maxBytes: number, tooLarge: (got: number) => Error, reserver: Reserver): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('aborted', onAborted);
      incoming.off('close', onClose);
    };
    const stop = (err: Error): void => {
      done();
      incoming.pause();
      chunks.length = 0;
      reject(err);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) return stop(tooLarge(size));
      try {
        reserver.upTo(size);
      } catch (err) {
        return stop(err as Error);
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(joinChunks(chunks, size));
    };
    const onError = (err: Error): void => {
      done();
      reject(err);
    };
    const onAborted = (): void => onError(new Error('request aborted'));
    // 'close' before 'end' means the connection went away mid-body ('aborted' is deprecated).
    const onClose = (): void => {
      if (!incoming.complete) onAborted();
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('aborted', onAborted);
    incoming.on('close', onClose);
  });
}

async function readStream(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  tooLarge: (got: number) => Error,
  reserver: Reserver,
): Promise<Uint8Array> {
  if (stream === null) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Ends with the stream; each pass consumes one chunk, and the server's requestTimeout bounds a stalled body.
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(size);
    }
    try {
      reserver.upTo(size);
    } catch (err) {
      await reader.cancel().catch(() => undefined);
      throw err;
    }
    chunks.push(value);
  }
  return joinChunks(chunks, size);
}
