/**
 * Parses an ES `_msearch` NDJSON body into its searches: a header line (the item's index and
 * request options, `{}` or an empty line for none), then a body line (the search body), pair after
 * pair, as `MultiSearchRequest.readMultiLineFormat` does. Each item becomes the inputs of one
 * ordinary `_search` (coordinator/search/search.ts): its index expression and URL parameters (the
 * request's own, overridden by the header's), and its body. Lines are cut and parsed in slices that
 * yield to the event loop, as `_bulk`'s are (coordinator/rest/bulk-parse.ts), so a large msearch cannot
 * hold the coordinator.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-multi-search.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/MultiSearchRequest.java
 */
import { EsError, illegalArgument, parsingException } from '../../protocol/errors.ts';
import { EventLoopSlices } from '../../shared/event-loop-slices.ts';
import { parseJsonBody } from './json-body.ts';
import { tokenName } from './params.ts';

/**
 * Most searches one `_msearch` may carry (Folio's bound; ES has none but `http.max_content_length`,
 * and `{}\n{}\n` is 6 bytes a search: 17 million searches in 100 MB). Past it, 400
 * `illegal_argument_exception` (docs/compatibility.md).
 */
export const MAX_MSEARCH_ITEMS = 10_000;

/** Header keys and their camelCase aliases, as ES reads them, mapped to the search's URL parameter. */
const HEADER_KEYS: Record<string, string> = {
  search_type: 'search_type',
  searchType: 'search_type',
  ccs_minimize_roundtrips: 'ccs_minimize_roundtrips',
  ccsMinimizeRoundtrips: 'ccs_minimize_roundtrips',
  request_cache: 'request_cache',
  requestCache: 'request_cache',
  preference: 'preference',
  routing: 'routing',
  allow_partial_search_results: 'allow_partial_search_results',
  expand_wildcards: 'expand_wildcards',
  expandWildcards: 'expand_wildcards',
  ignore_unavailable: 'ignore_unavailable',
  ignoreUnavailable: 'ignore_unavailable',
  allow_no_indices: 'allow_no_indices',
  allowNoIndices: 'allow_no_indices',
  ignore_throttled: 'ignore_throttled',
  ignoreThrottled: 'ignore_throttled',
};

/**
 * URL parameters of `_msearch` that every item inherits (`RestMultiSearchAction.parseMultiLineRequest`
 * and `IndicesOptions.fromRequest`), before its header overrides them.
 */
const INHERITED_PARAMS = [
  'search_type',
  'routing',
  'ccs_minimize_roundtrips',
  'rest_total_hits_as_int',
  'typed_keys',
  'max_concurrent_shard_requests',
  'pre_filter_shard_size',
  'expand_wildcards',
  'ignore_unavailable',
  'allow_no_indices',
  'ignore_throttled',
];

/** One search of an `_msearch`: the inputs of a `_search` call. */
export interface MsearchItem {
  /** The header's `index` (comma-joined), else the path's `{index}`; undefined = all indices. */
  indexExpression: string | undefined;
  /** The item's URL parameters: the request's inherited ones, overridden by the header's keys. */
  params: URLSearchParams;
  /** The parsed body line. */
  body: Record<string, unknown>;
}

/** Header keys ES reads with `nodeStringValue` (any value, as its text); the others are booleans or option lists. */
const STRING_KEYS = new Set(['search_type', 'preference', 'routing']);

/**
 * A header value as the URL parameter text the search parser validates: scalars as their text,
 * an `expand_wildcards` list comma-joined, another value of a string key as its JSON text.
 * @throws EsError 400 `Could not convert [x] to boolean` for an object or array under a boolean key
 */
function scalarOf(key: string, param: string, v: unknown): string {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && param === 'expand_wildcards') return v.map(String).join(',');
  if (STRING_KEYS.has(param)) return JSON.stringify(v);
  throw illegalArgument(`Could not convert [${key}] to boolean`);
}

/** `nodeStringArrayValue` of the header's `index`: a comma list or an array of names. */
function indexOf(v: unknown): string {
  if (Array.isArray(v)) return v.map((x) => String(x)).join(',');
  if (v !== null && typeof v === 'object') throw illegalArgument('Could not convert [index] to string array');
  return String(v);
}

/** Parses one line as JSON with ES's errors; an empty line is undefined. */
function parseLine(text: string): Record<string, unknown> | undefined {
  return parseJsonBody(text);
}

/**
 * A body line: a search body object. An empty line is ES's `SearchSourceBuilder.parseXContent`
 * error on a parser without a token (the whole request fails).
 */
function bodyObject(line: string): Record<string, unknown> {
  const body = parseLine(line);
  if (body === undefined) throw parsingException('Expected [START_OBJECT] but found [null]');
  return body;
}

/**
 * Applies one header line (`{}`-like; undefined = the defaults) onto the item's parameters.
 * @throws EsError 400 `illegal_argument_exception` `key [x] is not supported in the metadata section`
 */
function applyHeader(item: MsearchItem, header: Record<string, unknown> | undefined): void {
  for (const [k, v] of Object.entries(header ?? {})) {
    if (k === 'index' || k === 'indices') {
      item.indexExpression = indexOf(v);
      continue;
    }
    const param = Object.hasOwn(HEADER_KEYS, k) ? HEADER_KEYS[k] : undefined;
    if (param === undefined) throw illegalArgument(`key [${k}] is not supported in the metadata section`);
    if (v === null) continue; // nodeStringValue(null) / nodeBooleanValue(null, default): unset
    item.params.set(param, scalarOf(k, param, v));
  }
}

/**
 * Parses an `_msearch` body, in event-loop slices.
 * @param text the decoded body.
 * @param pathIndex the `{index}` of `/{index}/_msearch`.
 * @param params the request's URL parameters (the inherited ones are copied into each item).
 * @throws EsError 400, failing the whole request as ES does: `The msearch request must be terminated
 *   by a newline [\n]`; a line that is not a JSON object (`x_content_parse_exception` /
 *   `parsing_exception`); `key [x] is not supported in the metadata section`; more than
 *   {@link MAX_MSEARCH_ITEMS} searches; `Validation Failed: 1: no requests added;` for none.
 */
export async function parseMsearchBody(text: string, pathIndex: string | undefined, params: URLSearchParams): Promise<MsearchItem[]> {
  if (text.length > 0 && !text.endsWith('\n')) throw illegalArgument('The msearch request must be terminated by a newline [\\n]');
  const inherited = new URLSearchParams();
  for (const k of INHERITED_PARAMS) {
    const v = params.get(k);
    if (v !== null) inherited.set(k, v);
  }
  const items: MsearchItem[] = [];
  const slices = new EventLoopSlices();
  let pos = 0;
  const nextLine = (): string | null => {
    if (pos >= text.length) return null;
    const end = text.indexOf('\n', pos);
    const line = text.slice(pos, end);
    pos = end + 1;
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  };
  for (let headerLine = nextLine(); headerLine !== null; headerLine = nextLine()) {
    const item: MsearchItem = { indexExpression: pathIndex, params: new URLSearchParams(inherited), body: {} };
    applyHeader(item, headerObject(headerLine));
    const bodyLine = nextLine();
    if (bodyLine === null) break; // a header without a body line is dropped, as ES
    item.body = bodyObject(bodyLine);
    if (items.length >= MAX_MSEARCH_ITEMS) {
      throw illegalArgument(`The msearch request has more than [${MAX_MSEARCH_ITEMS}] searches; send them in several requests`);
    }
    items.push(item);
    const pause = slices.tick();
    if (pause) await pause;
  }
  if (items.length === 0) throw new EsError(400, 'action_request_validation_exception', 'Validation Failed: 1: no requests added;');
  return items;
}

/** A header line as an object (blank = none). @throws EsError 400 for JSON that is not an object */
function headerObject(line: string): Record<string, unknown> | undefined {
  if (line.trim() === '') return undefined;
  const trimmed = line.trimStart();
  if (!trimmed.startsWith('{')) {
    // `parser.map()` on a non-object: ES's `XContentParser.map` refuses the first token.
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      return parseLine(line); // ES's syntax error, with its position
    }
    throw parsingException(`Failed to parse object: expecting token of type [START_OBJECT] but found [${tokenName(v)}]`);
  }
  return parseLine(line);
}
