/**
 * JSON text of a large reply built in slices that yield to the event loop: a shard bulk of 33,000
 * ops answers 33,000 items (and as many replica ops), and one `JSON.stringify` of all of them held
 * the node's event loop for tens of milliseconds (docs/reliability.md). The text is the same as
 * `JSON.stringify` gives.
 * @see https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/JSON/stringify
 */
import { DEFAULT_SLICE_MS, yieldToEventLoop } from './event-loop-slices.ts';

/** Work per slice before yielding, in ms. */
const SLICE_MS = DEFAULT_SLICE_MS;
/** Array elements serialized by the first `JSON.stringify` call of an array. */
const FIRST_CHUNK_ITEMS = 64;
/**
 * Bounds of the elements per call as it adapts to their size ({@link CHUNK_TARGET_MS}). 1,024 small
 * ops (a delete: ~50 bytes) make ~50 KB, under V8's large-object size (128 KiB): the chunk texts die
 * young in the scavenger, where a large object waits for a major GC (docs/reliability.md, issue 11).
 */
const MIN_CHUNK_ITEMS = 1;
const MAX_CHUNK_ITEMS = 1024;
/**
 * Time (ms) one `JSON.stringify` call of an array's chunk should take: the chunk grows or shrinks
 * towards it, so 1,000 mails of 10 KB (a replica bulk of the `mails` sample: one call held a shard
 * node for 50-75 ms of CPU, 250-450 ms of wall time on a loaded machine, in a stall log matched
 * against a CPU profile) are cut as finely as 1,000 ids of 20 bytes are not.
 */
const CHUNK_TARGET_MS = 2;

/**
 * `JSON.stringify(obj)` for a flat object whose large values are arrays: each array longer than a
 * chunk is serialized chunk by chunk, yielding to the event loop (`setImmediate`) whenever about
 * {@link SLICE_MS} of work has passed. Keys with `undefined` values are left out, as
 * `JSON.stringify` does.
 * @example
 * const text = await stringifySliced({ items, took: 3 }); // same text as JSON.stringify
 */
export async function stringifySliced(obj: Record<string, unknown>): Promise<string> {
  const parts: string[] = [];
  await writeSliced(obj, (part) => parts.push(part));
  return parts.join('');
}

/**
 * Characters per piece of {@link stringifyItemsPieces}: under V8's large-object size (128 KiB), so
 * a piece, and the flat copy its UTF-8 encoding makes, die young in the scavenger; a large object
 * waits for a major GC (docs/reliability.md, issue 11).
 */
const PIECE_CHARS = 48 * 1024;

/**
 * The text of `JSON.stringify({ ...head, [key]: items })` in pieces of about {@link PIECE_CHARS}
 * characters, where the `count` items are made one at a time by `item(i)`, serialized and dropped:
 * a reply of 100,000 items never holds them all, as objects or as text (docs/reliability.md, issue
 * 11). Yields to the event loop whenever about {@link SLICE_MS} of work has passed. `head` must not
 * have `key`; `item` must give the same value for the same `i` when the pieces are made twice.
 * @example for await (const piece of stringifyItemsPieces({ took: 3 }, 'items', 2, (i) => ({ i }))) socket.write(piece) // '{"took":3,"items":[{"i":0},{"i":1}]}'
 */
export async function* stringifyItemsPieces(head: Record<string, unknown>, key: string, count: number, item: (i: number) => unknown): AsyncGenerator<string> {
  const headText = JSON.stringify(head);
  let pending = `${headText.length > 2 ? headText.slice(0, -1) + ',' : '{'}${JSON.stringify(key)}:[`;
  let started = performance.now();
  for (let i = 0; i < count; i++) {
    pending += (i > 0 ? ',' : '') + JSON.stringify(item(i));
    if (pending.length >= PIECE_CHARS) {
      yield pending;
      pending = '';
    }
    if ((i & 63) === 63 && performance.now() - started >= SLICE_MS) {
      await yieldToEventLoop();
      started = performance.now();
    }
  }
  yield pending + ']}';
}

/** The serialization of {@link stringifySliced}: hands each piece of the text to `out`, in order. */
async function writeSliced(obj: Record<string, unknown>, out: (part: string) => void): Promise<void> {
  out('{');
  let started = performance.now();
  let first = true;
  for (const [key, value] of Object.entries(obj)) {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    out(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (!Array.isArray(value) || value.length <= FIRST_CHUNK_ITEMS) {
      out(JSON.stringify(value));
      continue;
    }
    out('[');
    let items = FIRST_CHUNK_ITEMS;
    for (let i = 0; i < value.length;) {
      const t0 = performance.now();
      const chunk = JSON.stringify(value.slice(i, i + items));
      const took = performance.now() - t0;
      if (i > 0) out(',');
      out(chunk.slice(1, -1));
      i += items;
      // The next chunk aims at CHUNK_TARGET_MS: elements of any size keep each call short.
      if (took > CHUNK_TARGET_MS) items = Math.max(MIN_CHUNK_ITEMS, Math.floor((items * CHUNK_TARGET_MS) / took));
      else if (took < CHUNK_TARGET_MS / 4) items = Math.min(MAX_CHUNK_ITEMS, items * 2);
      if (performance.now() - started >= SLICE_MS) {
        await yieldToEventLoop();
        started = performance.now();
      }
    }
    out(']');
  }
  out('}');
}

/** The media type of newline-delimited JSON (one JSON text per line). @see https://github.com/ndjson/ndjson-spec */
export const NDJSON_CONTENT_TYPE = 'application/x-ndjson';

/** Whether a `content-type` header names {@link NDJSON_CONTENT_TYPE} (parameters allowed). */
export function isNdjsonContentType(type: string | string[] | undefined): boolean {
  const t = Array.isArray(type) ? type[0] : type;
  return t !== undefined && t.split(';')[0].trim().toLowerCase() === NDJSON_CONTENT_TYPE;
}

/**
 * NDJSON text of `values`, one `JSON.stringify` per line and every line ending with `\n`, built in
 * slices that yield to the event loop whenever about {@link SLICE_MS} of work has passed.
 * @example await ndjsonSliced([{ a: 1 }, 2]) // '{"a":1}\n2\n'
 */
export async function ndjsonSliced(values: Iterable<unknown>): Promise<string> {
  const parts: string[] = [];
  let started = performance.now();
  let n = 0;
  for (const value of values) {
    parts.push(JSON.stringify(value), '\n');
    if ((++n & 15) === 0 && performance.now() - started >= SLICE_MS) {
      await yieldToEventLoop();
      started = performance.now();
    }
  }
  return parts.join('');
}

/**
 * Parses an NDJSON stream (UTF-8) as it arrives: each complete line is parsed on its own
 * (`JSON.parse`), a line cut by a chunk boundary when its end arrives, and the work yields to the
 * event loop whenever about {@link SLICE_MS} of it has passed, so a reply of 50,000 lines is never
 * parsed in one task. Blank lines are skipped; a last line without `\n` counts.
 * With `onLine`, each parsed line is handed to it as it is parsed instead of gathered (a caller that
 * keeps less than the parsed values: protocol/shard-bulk-reply.ts `ShardBulkReplyReader`).
 * @returns the parsed lines in order (none with `onLine`), and the bytes read
 * @throws SyntaxError for a line that is not JSON; the stream's error
 */
export async function parseNdjsonSliced(chunks: AsyncIterable<Uint8Array>, onLine?: (value: unknown) => void): Promise<{ values: unknown[]; bytes: number }> {
  const values: unknown[] = [];
  let bytes = 0;
  let started = performance.now();
  /** The start of a line whose end has not arrived yet. */
  let carry: Buffer[] = [];
  const parseLine = (buf: Buffer, start: number, end: number): void => {
    if (end > start && buf[end - 1] === 0x0d) end--;
    const text = buf.toString('utf8', start, end);
    if (text.trim() === '') return;
    if (onLine) onLine(JSON.parse(text));
    else values.push(JSON.parse(text));
  };
  for await (const chunk of chunks) {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    bytes += buf.length;
    let start = 0;
    for (let nl = buf.indexOf(0x0a); nl >= 0; nl = buf.indexOf(0x0a, start)) {
      if (carry.length > 0) {
        const line = Buffer.concat([...carry, buf.subarray(0, nl)]);
        carry = [];
        parseLine(line, 0, line.length);
      } else parseLine(buf, start, nl);
      start = nl + 1;
      if (performance.now() - started >= SLICE_MS) {
        await yieldToEventLoop();
        started = performance.now();
      }
    }
    if (start < buf.length) carry.push(buf.subarray(start));
  }
  if (carry.length > 0) {
    const line = Buffer.concat(carry);
    parseLine(line, 0, line.length);
  }
  return { values, bytes };
}
