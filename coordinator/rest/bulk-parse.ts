/**
 * Parses an ES `_bulk` NDJSON body into actions: an action/metadata line, then (except for
 * `delete`) a source line. Malformed lines reject the whole request with ES's texts, as
 * `BulkRequestParser` does.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/bulk/BulkRequestParser.java
 */
import { EventLoopSlices } from '../../shared/event-loop-slices.ts';
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import { xContentBoolean } from './params.ts';
import { parseSourceFilter } from './source-filter-parse.ts';
import { decodeUtf8StrictSliced, findInvalidUtf8, invalidUtf8Error, isUtf8Sliced, type Utf8Problem } from '../../shared/utf8.ts';
import { parseUpdateBody, writeParamsFromActionLine, type UpdateBody, type WriteParams } from '../write/write-request.ts';
import { BulkItems } from './bulk-items.ts';

/** The four bulk actions. */
export type BulkAction = 'index' | 'create' | 'update' | 'delete';

/** One parsed bulk item, before routing. */
export interface BulkItem {
  action: BulkAction;
  index: string | undefined;
  /** Absent for `index`/`create` means an auto-generated id. */
  id: string | undefined;
  routing: string | undefined;
  /** `index`/`create`: the document; `update`: the update body (`doc`, `doc_as_upsert`, `upsert`). */
  source: Record<string, unknown> | undefined;
  /**
   * `index`/`create`: the document's JSON text exactly as the request carried it (its line without
   * the surrounding JSON whitespace), what the shard stores and returns as `_source`. Absent when
   * the item was built from a parsed value; the write then serializes `source`.
   */
  sourceText?: string;
  /** The action line's write parameters: concurrency (`if_seq_no`, `version`, …), `pipeline`, `retry_on_conflict`, `_source`. */
  params?: WriteParams;
  /** `update`: its body as ES's `UpdateRequest` parser reads it (`source` keeps the raw body). */
  update?: UpdateBody;
  /** ES `require_alias`: the item's `_index` must be an alias (else 404, and no index is auto-created). */
  requireAlias?: boolean;
  /**
   * Set when the item's document line is not valid UTF-8: the item fails with this error (ES parses
   * an `index`/`create` source on the shard, so the rest of the request goes on).
   */
  failure?: EsError;
}

/** A `_bulk` body decoded line by line: the text, and the lines (1-based) that are not valid UTF-8. */
export interface DecodedBulkBody {
  text: string;
  badLines: Map<number, Utf8Problem>;
}

/**
 * Decodes a `_bulk` body: in one go when it is valid UTF-8, else line by line, so that one bad
 * document fails alone (its line decoded with U+FFFD only to keep the line numbers; the item is
 * refused, never indexed). Either way in slices that yield to the event loop (a 100,000-line body
 * must not hold the coordinator: docs/reliability.md).
 */
export async function decodeBulkBody(bytes: Uint8Array): Promise<DecodedBulkBody> {
  try {
    return { text: await decodeUtf8StrictSliced(bytes), badLines: new Map() };
  } catch (err) {
    if (!(err instanceof EsError)) throw err;
    // some line is not valid UTF-8: find which, below
  }
  const badLines = new Map<number, Utf8Problem>();
  const lines: string[] = [];
  const lenient = new TextDecoder('utf-8', { ignoreBOM: false });
  const slices = new EventLoopSlices();
  let start = 0;
  for (let no = 1; start <= bytes.length; no++) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    const line = bytes.subarray(start, end);
    const bad = findInvalidUtf8(line);
    if (bad) badLines.set(no, bad);
    lines.push(lenient.decode(line));
    start = end + 1;
    const pause = slices.tick();
    if (pause) await pause;
  }
  return { text: lines.join('\n'), badLines };
}

const ACTIONS = new Set<string>(['index', 'create', 'update', 'delete']);
const META_KEYS = new Set([
  '_index',
  '_id',
  'routing',
  '_routing',
  'version',
  'version_type',
  'if_seq_no',
  'if_primary_term',
  'pipeline',
  'require_alias',
  'retry_on_conflict',
  'dynamic_templates',
  'op_type',
  '_source',
  'list_executed_pipelines',
  'require_data_stream',
]);

function jsonType(v: unknown): string {
  if (v === null) return 'VALUE_NULL';
  if (Array.isArray(v)) return 'START_ARRAY';
  switch (typeof v) {
    case 'string':
      return 'VALUE_STRING';
    case 'number':
      return 'VALUE_NUMBER';
    case 'boolean':
      return 'VALUE_BOOLEAN';
    case 'object':
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
      return 'START_OBJECT';
  }
  return 'START_OBJECT'; // unreachable: every typeof result is listed (tsc does not narrow `typeof v` itself)
}

function parseLine(text: string, lineNo: number): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new EsError(400, 'x_content_parse_exception', `[${lineNo}:1] ${(err as Error).message}`);
  }
}

/** `text` without leading and trailing JSON whitespace (space, tab, CR, LF: RFC 8259 §2). */
export function trimJsonWhitespace(text: string): string {
  let start = 0;
  let end = text.length;
  const ws = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;
  while (start < end && ws(text.charCodeAt(start))) start++;
  while (end > start && ws(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/**
 * Splits and parses the NDJSON body. Each `index`/`create` document keeps its exact text
 * ({@link BulkItem.sourceText}); ES stores the line's bytes as the `_source`. `defaultIndex` is the `{index}` of `/{index}/_bulk`.
 * @throws EsError 400 on an empty body, a malformed action line, an unknown action, or a missing source line.
 */
export function parseBulkBody(body: string, defaultIndex: string | undefined, badLines: ReadonlyMap<number, Utf8Problem> = new Map()): BulkItem[] {
  const items = [...bulkItems(textLines(body), defaultIndex, badLines)];
  if (items.length === 0) throw noRequests();
  return items;
}

/** Bulk items parsed per event-loop slice by {@link parseBulkBodySliced}, in ms. */
const PARSE_SLICE_MS = 10;

/**
 * {@link parseBulkBody} in slices of about {@link PARSE_SLICE_MS} that yield to the event loop
 * (`setImmediate`) between them: a 100,000-line body takes ~200 ms to parse, and one task that long
 * would hold every other request of the coordinator (docs/reliability.md). Same items, same errors.
 */
export async function parseBulkBodySliced(
  body: string,
  defaultIndex: string | undefined,
  badLines: ReadonlyMap<number, Utf8Problem> = new Map(),
): Promise<BulkItem[]> {
  return parseLinesSliced(textLines(body), defaultIndex, badLines);
}

/**
 * The items of a `_bulk` body's bytes: {@link parseBulkBodySliced} of {@link decodeBulkBody}'s
 * text, the same items and errors; a body of valid UTF-8 (checked in slices) is decoded line by
 * line as it is parsed, never held whole as a string (issue 11: a 6 MB body held as bytes, pieces
 * and text waits for a major GC; docs/reliability.md).
 */
export async function parseBulkBytesSliced(bytes: Uint8Array | undefined, defaultIndex: string | undefined): Promise<BulkItem[]> {
  const items: BulkItem[] = [];
  await parseBytesInto(bytes, defaultIndex, (item) => items.push(item));
  return items;
}

/**
 * {@link parseBulkBytesSliced} into columns ({@link BulkItems}): each parsed item is put in the
 * columns and dropped, so a 100,000-line body never holds an object per item (issue 11).
 * @throws EsError as {@link parseBulkBody}
 */
export async function parseBulkBytesToColumns(bytes: Uint8Array | undefined, defaultIndex: string | undefined): Promise<BulkItems> {
  const items = new BulkItems();
  await parseBytesInto(bytes, defaultIndex, (item) => items.push(item));
  return items;
}

async function parseBytesInto(bytes: Uint8Array | undefined, defaultIndex: string | undefined, add: (item: BulkItem) => void): Promise<void> {
  if (bytes === undefined) return parseLinesInto(textLines(''), defaultIndex, new Map(), add);
  if (await isUtf8Sliced(bytes)) return parseLinesInto(byteLines(bytes), defaultIndex, new Map(), add);
  const { text, badLines } = await decodeBulkBody(bytes);
  return parseLinesInto(textLines(text), defaultIndex, badLines, add);
}

async function parseLinesSliced(next: NextLine, defaultIndex: string | undefined, badLines: ReadonlyMap<number, Utf8Problem>): Promise<BulkItem[]> {
  const items: BulkItem[] = [];
  await parseLinesInto(next, defaultIndex, badLines, (item) => items.push(item));
  return items;
}

/** Hands each item of the lines to `add`, in slices of {@link PARSE_SLICE_MS}. @throws EsError as {@link parseBulkBody} */
async function parseLinesInto(
  next: NextLine,
  defaultIndex: string | undefined,
  badLines: ReadonlyMap<number, Utf8Problem>,
  add: (item: BulkItem) => void,
): Promise<void> {
  let count = 0;
  const slices = new EventLoopSlices(PARSE_SLICE_MS);
  for (const item of bulkItems(next, defaultIndex, badLines)) {
    add(item);
    count++;
    const pause = slices.tick();
    if (pause) await pause;
  }
  if (count === 0) throw noRequests();
}

function noRequests(): EsError {
  return new EsError(400, 'action_request_validation_exception', 'Validation Failed: 1: no requests added;');
}

/** A body's next non-blank line (its text without the `\r` of a CRLF) and its number (1-based), or null at the end. */
type NextLine = () => { text: string; no: number } | null;

/** The lines of a decoded body, cut one at a time (not with one `split` of the whole body, a task of its own on a 6 MB body). */
function textLines(body: string): NextLine {
  if (body.length > 0 && !body.endsWith('\n')) throw illegalArgument('The bulk request must be terminated by a newline [\\n]');
  let pos = 0;
  let no = 0;
  return () => {
    while (pos <= body.length) {
      let end = body.indexOf('\n', pos);
      if (end < 0) end = body.length;
      const raw = body.slice(pos, end);
      pos = end + 1;
      no++;
      const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (text.trim() !== '') return { text, no };
    }
    return null;
  };
}

/**
 * The lines of a body of valid UTF-8, each decoded on its own (a leading BOM dropped, as the
 * decoder of {@link decodeBulkBody} does): the body is never held as one 6 MB string beside its bytes.
 */
function byteLines(bytes: Uint8Array): NextLine {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  if (pos < buf.length && buf[buf.length - 1] !== 0x0a) throw illegalArgument('The bulk request must be terminated by a newline [\\n]');
  let no = 0;
  return () => {
    while (pos <= buf.length) {
      let end = buf.indexOf(0x0a, pos);
      if (end < 0) end = buf.length;
      const text = buf.toString('utf8', pos, end > pos && buf[end - 1] === 0x0d ? end - 1 : end);
      pos = end + 1;
      no++;
      if (text.trim() !== '') return { text, no };
    }
    return null;
  };
}

/** The items of an NDJSON bulk body, one per action (the parsing of {@link parseBulkBody}). */
function* bulkItems(next: NextLine, defaultIndex: string | undefined, badLines: ReadonlyMap<number, Utf8Problem>): Generator<BulkItem> {
  for (let line = next(); line !== null; line = next()) {
    // An action line is parsed by the REST layer in ES: a bad byte there fails the whole request.
    const badMeta = badLines.get(line.no);
    if (badMeta) throw invalidUtf8Error({ ...badMeta, line: line.no });
    const meta = parseLine(line.text, line.no);
    if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
      throw illegalArgument(`Malformed action/metadata line [${line.no}], expected START_OBJECT or END_OBJECT but found [${jsonType(meta)}]`);
    }
    const keys = Object.keys(meta);
    // `{}`: BulkRequestParser expects the action's FIELD_NAME first.
    if (keys.length === 0) throw illegalArgument(`Malformed action/metadata line [${line.no}], expected FIELD_NAME but found [END_OBJECT]`);
    if (keys.length !== 1 || !ACTIONS.has(keys[0])) {
      throw illegalArgument(`Malformed action/metadata line [${line.no}], expected field [create], [delete], [index] or [update] but found [${keys[0]}]`);
    }
    // An `index` action with `op_type: create` is a create (ES: `IndexRequest.create(true)`), answered as one.
    const opType = (meta as Record<string, Record<string, unknown> | null>)[keys[0]]?.op_type;
    const action = (keys[0] === 'index' && opType === 'create' ? 'create' : keys[0]) as BulkAction;
    const params = (meta as Record<string, unknown>)[keys[0]];
    if (params === null || typeof params !== 'object' || Array.isArray(params)) {
      throw illegalArgument(`Malformed action/metadata line [${line.no}], expected START_OBJECT but found [${jsonType(params)}]`);
    }
    const p = params as Record<string, unknown>;
    for (const k of Object.keys(p)) {
      if (!META_KEYS.has(k)) throw illegalArgument(`Action/metadata line [${line.no}] contains an unknown parameter [${k}]`);
    }
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a metadata value of any JSON type is taken as String() renders it (kept as it was)
    const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));
    const item: BulkItem = {
      action,
      index: str(p._index) ?? defaultIndex,
      id: str(p._id),
      routing: str(p.routing ?? p._routing),
      source: undefined,
    };
    const writeParams = writeParamsFromActionLine(p, line.no);
    if (p._source !== undefined && p._source !== null) writeParams.fetchSource = parseSourceFilter(p._source);
    if (Object.keys(writeParams).length > 0) item.params = writeParams;
    if (p.require_alias !== undefined && p.require_alias !== null) item.requireAlias = xContentBoolean(p.require_alias);
    if (action !== 'delete') {
      const src = next();
      if (src === null) throw illegalArgument('The bulk request must be terminated by a newline [\\n]');
      const bad = badLines.get(src.no);
      if (bad && action !== 'update') {
        // ES parses an index/create source on the shard: only this item fails (DocumentParser's error).
        item.failure = new EsError(400, 'document_parsing_exception', `[${bad.line}:${bad.column}] failed to parse: ${bad.message}`);
        yield item;
        continue;
      }
      if (bad) throw invalidUtf8Error({ ...bad, line: src.no }); // update bodies are parsed by the REST layer
      const doc = parseLine(src.text, src.no);
      if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
        throw new EsError(400, 'x_content_parse_exception', `[${src.no}:1] Malformed content, must start with an object`);
      }
      item.source = doc as Record<string, unknown>;
      if (action !== 'update') item.sourceText = trimJsonWhitespace(src.text);
      else item.update = parseUpdateBody(item.source); // the REST layer parses it in ES: a bad body fails the request
    }
    yield item;
  }
}
