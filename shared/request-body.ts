/**
 * Reading a request body under a size limit, for both services. Under @hono/node-server the bytes
 * come straight from the Node request stream (`c.env.incoming`): no Fetch `Request` body and no
 * web stream is built, which is a measurable part of a shard call's cost, and a GET body (which a
 * Fetch `Request` cannot carry, but ES accepts on `_search`) is read too. In-process
 * (`app.request()` in tests) the Fetch body stream is read instead. Either way reading stops, and
 * the stream is dropped, as soon as the body exceeds the limit, so a chunked body without
 * `content-length` never makes a service buffer more than the limit.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/**
 * The request body bytes (empty when there is none).
 * @param maxBytes the limit (e.g. ES `http.max_content_length`)
 * @param tooLarge builds the error thrown past the limit, from the bytes seen so far
 * @throws whatever `tooLarge` returns, once more than `maxBytes` bytes arrived
 */
export async function readRequestBody(c: Context, maxBytes: number, tooLarge: (got: number) => Error): Promise<Uint8Array> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && !incoming.readableEnded && !incoming.readableDidRead) return readIncoming(incoming, maxBytes, tooLarge);
  return readStream(c.req.raw.body, maxBytes, tooLarge);
}

/**
 * Collects the Node request stream. Past the limit it stops collecting and pauses the stream but
 * does not destroy it: the caller's 413 is then written on a live socket and Node discards the
 * rest of the body after the response (`IncomingMessage._dump`), never buffering it; the server's
 * `requestTimeout` bounds an endless one. Destroying the stream (or closing the connection)
 * instead resets the socket while the client is still sending, and under load the client then
 * sees the reset (EPIPE, ECONNRESET) rather than the 413.
 */
function readIncoming(incoming: IncomingMessage, maxBytes: number, tooLarge: (got: number) => Error): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        done();
        incoming.pause();
        reject(tooLarge(size));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      done();
      reject(err);
    };
    const onAborted = (): void => onError(new Error('request aborted'));
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('aborted', onAborted);
  });
}

async function readStream(stream: ReadableStream<Uint8Array> | null, maxBytes: number, tooLarge: (got: number) => Error): Promise<Uint8Array> {
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
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
