/**
 * HTTP helpers of the public API: reading bodies under `http.max_content_length`, ES's
 * content-type rules, `?pretty` and `?filter_path` on every JSON reply, the unrecognized-parameter
 * check, and the simple routing errors.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/rest/RestController.java
 */
import type { Context, Next } from 'hono';
import { EsError } from '../../protocol/errors.ts';
import { applyFilterPath, parseFilterPath, type FilterPath } from '../rest/filter-path.ts';
import { queryStringError, rawQueryString } from '../rest/query-string-check.ts';
import { reservationOf } from '../../shared/body-budget.ts';
import { stringifyItemsPieces } from '../../shared/sliced-json.ts';
import { readRequestBody } from '../../shared/request-body.ts';
import { DECODE_PIECE_BYTES, decodeUtf8StrictSliced } from '../../shared/utf8.ts';
import { yieldToEventLoop } from '../../shared/event-loop-slices.ts';
import { isBlankSliced, parseJsonBodySliced } from '../rest/json-body.ts';
import { lazyRawForFilter, writeJson } from './json-writer.ts';
import { ALWAYS_ACCEPTED_PARAMS, checkUnrecognizedParams } from '../rest/params.ts';

/** Media types ES accepts for JSON bodies (incl. the official clients' versioned ones). */
const JSON_TYPES = /^(application\/json|application\/x-ndjson|application\/vnd\.elasticsearch\+(json|x-ndjson))\b/i;

/** ES's 406 for a refused body media type, a simple error (the `error` is a string). */
export class SimpleHttpError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, string>;
  constructor(status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    super(String(body.error));
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/**
 * Reads the raw body text, or undefined when there is none. The bytes are reserved on the
 * in-flight requests breaker (shared/body-budget.ts) before they are buffered.
 * @throws EsError 413 over `maxBytes`; EsError 429 `circuit_breaking_exception` past the in-flight
 *   budget; SimpleHttpError 406 for a body without a `Content-Type` header, or with `text/plain`,
 *   `application/x-www-form-urlencoded`, `multipart/form-data` or another non-JSON type (as ES's
 *   `RestController.dispatchRequest`, which checks before reading the body); EsError 400
 *   `x_content_parse_exception` `[1:12] Invalid UTF-8 start byte 0xff` for invalid UTF-8 (never replaced).
 */
export async function readBodyText(c: Context, maxBytes: number): Promise<string | undefined> {
  const bytes = await readBodyBytes(c, maxBytes);
  if (bytes === undefined) return undefined;
  // Decoded in pieces that yield to the event loop, and not in the task that gathered the bytes:
  // several 4 MiB bodies finishing together must not hold the coordinator (docs/reliability.md).
  if (bytes.byteLength > DECODE_PIECE_BYTES) await yieldToEventLoop();
  return decodeUtf8StrictSliced(bytes);
}

/**
 * Reads the raw body bytes (for a caller that decodes them itself, e.g. `_bulk` line by line), or
 * undefined when there is none. @throws as {@link readBodyText}, except for UTF-8.
 */
export async function readBodyBytes(c: Context, maxBytes: number): Promise<Uint8Array | undefined> {
  const declared = Number(c.req.header('content-length') ?? NaN);
  const type = c.req.header('content-type');
  if (declared > maxBytes) throw tooLarge(maxBytes, declared); // Netty's aggregator answers before the controller
  if (declared > 0) checkContentType(type);
  const buf = await readRequestBody(c, maxBytes, (got) => tooLarge(maxBytes, got), reservationOf(c));
  if (buf.byteLength === 0) return undefined;
  if (buf.byteLength > maxBytes) throw tooLarge(maxBytes, buf.byteLength);
  checkContentType(type);
  return buf;
}

/**
 * ES's media-type check of a request with content: a missing header gives
 * `Content-Type header is missing`, a refused one `Content-Type header [x] is not supported` (406).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/rest/RestController.java (sendContentTypeErrorMessage)
 */
function checkContentType(type: string | undefined): void {
  if (type === undefined || type.trim() === '') throw new SimpleHttpError(406, { error: 'Content-Type header is missing', status: 406 });
  if (JSON_TYPES.test(type.trim())) return;
  const mediaType = type.split(';')[0].trim();
  if (/^(text\/plain|application\/x-www-form-urlencoded|multipart\/form-data)$/i.test(mediaType) || !/json/i.test(mediaType)) {
    throw new SimpleHttpError(406, { error: `Content-Type header [${type}] is not supported`, status: 406 });
  }
}

function tooLarge(maxBytes: number, got: number): EsError {
  return new EsError(413, 'content_too_long_exception', `entity content is too long [${got}] for the configured buffer limit [${maxBytes}]`);
}

/** Reads and parses a JSON body; undefined when empty. @throws EsError 400 on malformed JSON */
export async function readJsonBody(c: Context, maxBytes: number): Promise<unknown> {
  const text = await readBodyText(c, maxBytes);
  if (text === undefined || (await isBlankSliced(text))) return undefined;
  return parseJsonBodySliced(text); // large bodies scanned and parsed in event-loop slices (docs/reliability.md)
}

/**
 * Middleware that refuses, before any handler runs, the URL parameters no handler may see: a query
 * string ES cannot URL-decode (400 `bad_parameter_exception`, see coordinator/rest/query-string-check.ts) and a
 * `filter_path` over its length limit (400 `illegal_argument_exception`).
 */
export async function checkCommonParams(c: Context, next: Next): Promise<void> {
  const err = queryStringError(rawQueryString(c.req.url));
  if (err) throw err;
  const filterPath = c.req.query('filter_path');
  if (filterPath) parseFilterPath(filterPath);
  await next();
}

/**
 * `?pretty` and `?filter_path` of a reply. None of them when the query string cannot be decoded (ES
 * then answers from a request without parameters), and no filter when `filter_path` is refused (the
 * refusal itself goes out whole).
 */
function replyOptions(c: Context): { pretty: boolean; filter: FilterPath | undefined } {
  if (queryStringError(rawQueryString(c.req.url))) return { pretty: false, filter: undefined };
  const pretty = c.req.query('pretty');
  const filterPath = c.req.query('filter_path');
  let filter: FilterPath | undefined;
  try {
    filter = filterPath ? parseFilterPath(filterPath) : undefined;
  } catch {
    filter = undefined;
  }
  return { pretty: pretty !== undefined && pretty !== 'false', filter };
}

/**
 * Sends a JSON reply: trimmed by `?filter_path` (see coordinator/rest/filter-path.ts), indented when `?pretty`
 * is set, as ES does for every XContent response, error bodies included. Each `_source` held as a
 * `RawJson` (shared/raw-json.ts) is written verbatim (coordinator/http/json-writer.ts).
 */
export function sendJson(c: Context, status: number, body: unknown): Response {
  const { pretty, filter } = replyOptions(c);
  const out = filter ? applyFilterPath(lazyRawForFilter(body), filter) : body;
  const text = pretty ? writeJson(out, true) + '\n' : writeJson(out);
  return c.body(text, status as 200, { 'content-type': 'application/json; charset=UTF-8' });
}

/**
 * {@link sendJson} of `{ ...head, [key]: items }` (a `_bulk` reply), whose `count` items are built one at a time
 * by `item(i)` as they are serialized (shared/sliced-json.ts `stringifyItemsPieces`), and each
 * piece UTF-8 encoded when the socket takes it: a `_bulk` reply of 100,000 items (18 MB) is never
 * held whole, as objects or as bytes, which would outlive the scavenger and wait for a major GC
 * (docs/reliability.md, issue 11). A first pass over the same pieces counts the `content-length`.
 * Same bytes as {@link sendJson} of the built body; with `?pretty` or `?filter_path` the body
 * is built and goes through {@link sendJson}. `item(i)` must give the same value on each call.
 */
export async function sendJsonItemsSliced(
  c: Context,
  status: number,
  head: Record<string, unknown>,
  key: string,
  count: number,
  item: (i: number) => unknown,
): Promise<Response> {
  const { pretty, filter } = replyOptions(c);
  if (pretty || filter) return sendJson(c, status, { ...head, [key]: Array.from({ length: count }, (_, i) => item(i)) });
  let length = 0;
  for await (const piece of stringifyItemsPieces(head, key, count, item)) length += Buffer.byteLength(piece);
  const pieces = stringifyItemsPieces(head, key, count, item);
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await pieces.next();
      if (next.done === true) controller.close();
      else controller.enqueue(Buffer.from(next.value));
    },
    async cancel() {
      await pieces.return(undefined);
    },
  });
  return c.body(stream, status as 200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(length) });
}

/** The path's query parameters as URLSearchParams (repeated keys keep the last value, as ES). */
export function queryParams(c: Context): URLSearchParams {
  return new URL(c.req.url).searchParams;
}

/**
 * Rejects URL parameters the endpoint does not take, as ES's `BaseRestHandler` does after the
 * handler has read its own: `accepted` plus the always-accepted `pretty`, `human`, `error_trace`,
 * `filter_path`, `format`.
 * @throws EsError 400 `illegal_argument_exception` `request [{path}] contains unrecognized parameter: [x]`
 */
export function checkParams(c: Context, accepted: readonly string[]): void {
  const given = queryParams(c).keys();
  checkUnrecognizedParams(c.req.path, given, [...accepted, ...ALWAYS_ACCEPTED_PARAMS]);
}

/** ES `?refresh` parsing for write APIs: '' and 'true' → true, 'wait_for', 'false' (default). */
export function refreshParam(c: Context): 'true' | 'wait_for' | 'false' {
  const v = c.req.query('refresh');
  if (v === undefined || v === 'false') return 'false';
  if (v === '' || v === 'true') return 'true';
  if (v === 'wait_for') return 'wait_for';
  throw new EsError(400, 'illegal_argument_exception', `Unknown value for refresh: [${v}].`);
}
