/**
 * Binds the RPC table's actions (protocol/rpc.ts) to the shard node's internal HTTP API:
 * `serve(app, rpc.query, handler)` registers the action's method and path, reads its request (a
 * JSON body within the node's body limit and in-flight budget, or the path's parameters), calls
 * the handler, and writes its reply: JSON, the binary hits format for an action with entries when
 * the caller accepts it (protocol/wire.ts), or a `Response` the handler built itself (a bulk's
 * NDJSON, a recovery chunk's bytes). A batchable action's handler is also kept for the batch route
 * (shard-node/search-routes.ts), which answers each of its frames exactly as the single call.
 * Mirrors ES's `TransportService.registerRequestHandler`, which binds a handler to the action name
 * the sender uses.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/transport/TransportService.java
 */
import type { Context, Hono } from 'hono';
import { EsError } from '../protocol/errors.ts';
import type { AnyRpc, Rpc } from '../protocol/rpc.ts';
import { acceptsHits, encodeHits, HITS_CONTENT_TYPE, type EntriesField } from '../protocol/wire.ts';
import { WireEncodeError } from '../protocol/wire-strings.ts';
import { reservationOf } from '../shared/body-budget.ts';
import { yieldToEventLoop } from '../shared/event-loop-slices.ts';
import { parseJsonSliced } from '../shared/json-parse-sliced.ts';
import { readRequestBody } from '../shared/request-body.ts';
import { CachedReply } from './request-cache.ts';

/** A handler of action `Req → Res`: its reply, or a `Response` it built itself. */
export type RpcHandler<Req, Res> = (req: Req, c: Context) => Res | Response | Promise<Res | Response>;

/** A batchable action's handler as the batch route calls it (request already parsed). */
export type BatchableHandler = (req: unknown) => object | Promise<object>;

/** The shard node's internal API as the action modules bind to it. */
export interface RpcApp {
  readonly hono: Hono;
  /** FOLIO_MAX_BODY_BYTES: an internal body over it answers 413. */
  readonly maxBodyBytes: number;
  /** The handlers of the batchable actions bound so far, by endpoint (a batch frame's `path`). */
  readonly batchable: Map<string, { rpc: AnyRpc; handler: BatchableHandler }>;
  /**
   * Sees every error a handler throws (single or batched call) before it is answered: the node
   * fails a copy whose segment file a read found corrupt (shard-node/corrupt-copies.ts).
   */
  readonly onHandlerError: ((err: unknown) => void) | undefined;
}

/**
 * The internal API over `hono`, whose bodies stop at `maxBodyBytes` (no body-limit middleware:
 * touching the Fetch body builds a web stream per call, ~7 % of a query). The node's in-flight
 * budget must be installed on `hono` first (shared/body-budget.ts `installInFlightBudget`).
 */
export function rpcApp(hono: Hono, maxBodyBytes: number, onHandlerError?: (err: unknown) => void): RpcApp {
  return { hono, maxBodyBytes, batchable: new Map(), onHandlerError };
}

/** `handler`, with every error it throws or rejects with shown to `report` first. */
function reportingErrors<Req, Res>(handler: RpcHandler<Req, Res>, report: ((err: unknown) => void) | undefined): RpcHandler<Req, Res> {
  if (!report) return handler;
  const seen = (err: unknown): never => {
    report(err);
    throw err;
  };
  return (req, c) => {
    try {
      const res = handler(req, c);
      return res instanceof Promise ? res.catch(seen) : res;
    } catch (err) {
      return seen(err);
    }
  };
}

/**
 * Binds `handler` to action `d`: its request from the body (JSON) or the path (GET, DELETE).
 * A `bytes` action is bound with {@link serveBytes} instead.
 * @throws Error when `d` takes a raw body (a programming error, at start-up)
 */
export function serve<Req, Res>(app: RpcApp, d: Rpc<Req, Res>, bound: RpcHandler<Req, Res>): void {
  if (d.input === 'bytes') throw new Error(`[${d.name}] takes a raw body: bind it with serveBytes`);
  const handler = reportingErrors(bound, app.onHandlerError);
  const entries = d.entries;
  const encoded = d.batchable;
  app.hono.on(d.method, d.path, async (c) => {
    const req = d.input === 'json' ? await readInternalJson<Req>(c, app.maxBodyBytes) : (c.req.param() as Req);
    const res = await handler(req, c);
    if (res instanceof Response) return res;
    if (!encoded) return c.json(res as object);
    const { contentType, body } = encodeCallReply(res as object, entries, c.req.header('accept'));
    return c.body(body as Uint8Array<ArrayBuffer>, 200, { 'content-type': contentType });
  });
  if (d.batchable) app.batchable.set(d.endpoint, { rpc: d, handler: handler as BatchableHandler });
}

/**
 * Binds `handler` to a `bytes` action (recovery/apply): it gets the `meta` query parameter parsed
 * (undefined when missing or not JSON: the handler checks it) and reads the raw body with `body()`
 * (within the node's body limit and in-flight budget).
 */
export function serveBytes<Req, Res>(
  app: RpcApp,
  d: Rpc<Req, Res>,
  handler: (meta: unknown, body: () => Promise<Uint8Array>, c: Context) => Promise<Res>,
): void {
  app.hono.on(d.method, d.path, async (c) => {
    const res = await handler(parseMeta(c.req.query('meta')), () => readInternalBytes(c, app.maxBodyBytes), c);
    return c.json(res as object);
  });
}

/** The `meta` query parameter as JSON, or undefined. */
function parseMeta(meta: string | undefined): unknown {
  if (meta === undefined) return undefined;
  try {
    return JSON.parse(meta) as unknown;
  } catch {
    return undefined;
  }
}

const utf8 = new TextEncoder();

/**
 * A search round's reply as the bytes its single call answers: binary hits when `acceptHits`, the
 * action has an entries field and the reply is encodable, else JSON. A reply from the shard request
 * cache (shard-node/request-cache.ts `CachedReply`) answers the bytes it keeps for that format.
 */
export function encodeReply(res: object, entries: EntriesField | undefined, acceptHits: boolean): { hits: boolean; body: Uint8Array } {
  if (res instanceof CachedReply) return res.encode(acceptHits, (r) => encodeReply(r, entries, acceptHits)); // the shard request cache
  if (acceptHits && entries) {
    try {
      return { hits: true, body: encodeHits(res, entries) };
    } catch (err) {
      if (!(err instanceof WireEncodeError)) throw err;
    }
  }
  return { hits: false, body: utf8.encode(JSON.stringify(res)) };
}

/**
 * {@link encodeReply} for a single call with the `accept` header `accept`: the bytes and the reply's
 * content type (binary hits or JSON). The hono route and the node:http fast path (rpc-fast-path.ts) both answer with it.
 */
export function encodeCallReply(res: object, entries: EntriesField | undefined, accept: string | undefined): { contentType: string; body: Uint8Array } {
  const { hits, body } = encodeReply(res, entries, acceptsHits(accept));
  return { contentType: hits ? HITS_CONTENT_TYPE : 'application/json', body };
}

/** Internal bodies from this size on are parsed in slices, in event-loop tasks of their own. */
const YIELD_AROUND_PARSE_BYTES = 256 * 1024;

/** The shard node's 413 for an internal body over FOLIO_MAX_BODY_BYTES. */
export function bodyTooLarge(maxBytes: number): EsError {
  return new EsError(413, 'content_too_long_exception', `internal request body exceeds [${maxBytes}] bytes`);
}

/**
 * Reads an internal body from the Node request stream (shared/request-body.ts), its bytes reserved
 * on the node's in-flight requests breaker first (shared/body-budget.ts).
 * @throws EsError 413 over `maxBytes`, 429 past the in-flight budget
 */
export function readInternalBytes(c: Context, maxBytes: number): Promise<Uint8Array> {
  return readRequestBody(c, maxBytes, () => bodyTooLarge(maxBytes), reservationOf(c));
}

/**
 * Parses an internal JSON body ({@link readInternalBytes}).
 * @throws EsError 413 over `maxBytes`, 429 past the in-flight budget, 400 on malformed JSON (never a 500)
 */
export async function readInternalJson<T>(c: Context, maxBytes: number): Promise<T> {
  return parseInternalJson<T>(await readInternalBytes(c, maxBytes));
}

/**
 * Parses an internal JSON body's bytes; a large one in slices, in event-loop tasks of its own.
 * @throws EsError 400 `x_content_parse_exception` on malformed JSON (never a 500)
 */
export async function parseInternalJson<T>(bytes: Uint8Array): Promise<T> {
  const large = bytes.byteLength >= YIELD_AROUND_PARSE_BYTES;
  if (large) await yieldToEventLoop();
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  let parsed: T;
  try {
    // A large body (a query with a 60,000-value `terms` list: 45-145 ms in one JSON.parse on a
    // loaded node) is parsed in pieces that yield to the event loop (shared/json-parse-sliced.ts).
    parsed = (large ? await parseJsonSliced(text) : JSON.parse(text)) as T;
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new EsError(400, 'x_content_parse_exception', `malformed internal request: ${err.message}`);
  }
  // The work on a large body starts in an event-loop task of its own (docs/reliability.md).
  if (large) await yieldToEventLoop();
  return parsed;
}
