/**
 * `GET|POST /{index}/_search`: the URL parameters and JSON body → one normalized {@link SearchRequest}.
 * Follows `RestSearchAction.parseSearchRequest` step by step: the body first
 * (`SearchSourceBuilder.parseXContent`, key by key, first error wins: search-body.ts), then the URL parameters on top
 * (URL wins; a URL `sort` is appended), then the unrecognized-parameter check
 * (`BaseRestHandler.unrecognized`), then `SearchRequest.validate` (`action_request_validation_exception`).
 * The index-dependent `max_result_window` check is the coordinator's.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/rest/action/search/RestSearchAction.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/builder/SearchSourceBuilder.java
 */
import { type CollapseSpec } from './collapse.ts';
import type { AggNode } from '../../protocol/agg-request.ts';
import { EsError, illegalArgument, parsingException, validationFailed } from '../../protocol/errors.ts';
import { commaList, storedFieldsFromList, type StoredFields } from './field-and-format.ts';
import type { FieldAndFormat } from '../../protocol/search.ts';
import { checkUnrecognizedParams, isObject, operatorOf, parseBooleanParam, parseIntParam, parseJavaBoolean, parseTimeValue, tokenName } from './params.ts';
import { type HighlightSpec } from '../../protocol/highlight.ts';
import type { SourceFilter } from '../../protocol/search.ts';
import type { Query } from '../../protocol/query-ast.ts';
import { type IndexBoost } from './indices-boost.ts';
import { parseQueryString } from './query-string.ts';
import { type Rescore } from '../../protocol/rescore.ts';
import type { SortField, SortValue } from '../../protocol/sort.ts';
import { type SliceSpec } from '../../protocol/slice.ts';
import { parseSortParam } from './sort-parse.ts';
import { applyBodyKey, notYet, setFrom, setSize, setTrackTotalHitsUpTo, timeoutOf, type Draft } from './search-body.ts';
import { DEFAULT_TRACK_TOTAL_HITS, TRACK_TOTAL_HITS_ACCURATE, TRACK_TOTAL_HITS_DISABLED } from './track-total-hits.ts';

/** A parsed, validated search request. Units are in the names; `null` means "not given". */
export interface SearchRequest {
  from: number;
  size: number;
  /** The body `query`, or `q=`, or `match_all`. */
  query: Query;
  /** The explicit sort (body clauses then URL clauses); `[]` when none was given (ES default `_score` desc applies). */
  sort: SortField[];
  sortExplicit: boolean;
  /**
   * The `_source` each hit carries: the body or URL `_source`; without one, none when
   * `stored_fields` is given without `_source` among its names (ES `FetchContext`), or is `_none_`.
   */
  source: SourceFilter;
  /** ES `fields`: values read from `_source` and printed by the mapping (null: not asked). */
  fields: FieldAndFormat[] | null;
  /** ES `docvalue_fields` (body entries, then the URL's names). */
  docvalueFields: FieldAndFormat[] | null;
  /** ES `stored_fields` (the URL's replaces the body's). */
  storedFields: StoredFields | null;
  /** -1 disabled, `Number.MAX_SAFE_INTEGER` accurate, else count up to N (default 10000). */
  trackTotalHits: number;
  trackScores: boolean;
  /** Search timeout in ms; null when absent or negative (no timeout). */
  timeoutMs: number | null;
  searchAfter: SortValue[] | null;
  restTotalHitsAsInt: boolean;
  /** Raw `scroll` keep-alive (validated as a time value), null when not a scroll search. */
  scroll: string | null;
  allowPartialSearchResults: boolean;
  searchType: 'query_then_fetch' | 'dfs_query_then_fetch';
  /** Hits should carry `_version` / `_seq_no`+`_primary_term` / `_explanation` (Folio may ignore `explain`). */
  version: boolean;
  seqNoPrimaryTerm: boolean;
  explain: boolean;
  /** ES `min_score`: drop hits scoring below it; null when absent. */
  minScore: number | null;
  routing: string | null;
  preference: string | null;
  /** ES `pit`: the point in time to search, with the keep-alive to renew it to (ms; null = keep its own). */
  pit: { id: string; keepAliveMs: number | null } | null;
  /** ES `profile: true`: the response carries a `profile` section (coordinator/search/profile.ts). */
  profile: boolean;
  /** ES `request_cache` URL parameter (absent: the index setting decides; coordinator/search/request-cache-policy.ts). */
  requestCache?: boolean;
  /** The body `aggs`/`aggregations` (coordinator/rest/aggs/agg-parse.ts); null when absent or empty. */
  aggs: AggNode[] | null;
  /** ES `post_filter`: narrows the hits, not the aggregations; null when absent. */
  postFilter: Query | null;
  /** ES `typed_keys`: aggregation names in the response are prefixed with their type (`sterms#name`). */
  typedKeys: boolean;
  /** ES `rescore`: the `query` rescorers, applied in order on each shard's top hits (`[]` when none). */
  rescore: Rescore[];
  /** Number of ES `script_fields` asked for (Folio has no scripting: the plan refuses any, after ES's limit check). */
  scriptFields: number;
  /** ES `slice` of a scroll or PIT search (protocol/slice.ts), null when absent. */
  slice: SliceSpec | null;
  /** ES `indices_boost`, in the request's order (absent: none); coordinator/rest/indices-boost.ts. */
  indicesBoost?: IndexBoost[];
  /** ES `collapse` (coordinator/rest/collapse.ts, docs/collapse.md), null when absent. */
  collapse: CollapseSpec | null;
  /** ES `highlight` (protocol/highlight.ts, docs/highlight.md), null when absent. */
  highlight: HighlightSpec | null;
}

/** Parameters `RestSearchAction` consumes (values validated below) plus the response parameters. */
const URL_PARAMS = [
  'q',
  'df',
  'default_operator',
  'analyzer',
  'analyze_wildcard',
  'lenient',
  'from',
  'size',
  'sort',
  '_source',
  '_source_includes',
  '_source_excludes',
  'track_total_hits',
  'track_scores',
  'timeout',
  'rest_total_hits_as_int',
  'allow_partial_search_results',
  'scroll',
  'search_type',
  'request_cache',
  'routing',
  'preference',
  'ignore_unavailable',
  'expand_wildcards',
  'allow_no_indices',
  'ignore_throttled',
  'typed_keys',
  'batched_reduce_size',
  'pre_filter_shard_size',
  'ccs_minimize_roundtrips',
  'max_concurrent_shard_requests',
  'explain',
  'version',
  'seq_no_primary_term',
  'stored_fields',
  'docvalue_fields',
  'terminate_after',
  'format',
  'filter_path',
  'pretty',
  'human',
  'error_trace',
];

/** `IndicesOptions` booleans: empty = default, else strict, wrapped as `Could not convert [name] to boolean`. */
function indicesOptionBoolean(name: string, value: string): void {
  if (value === '') return;
  try {
    parseJavaBoolean(value);
  } catch (e) {
    throw illegalArgument(`Could not convert [${name}] to boolean`, (e as EsError).toCause());
  }
}

/**
 * The `_source` hits carry (ES `FetchContext.buildFetchSourceContext`): the one asked for; else
 * none when `stored_fields` is `_none_`, or names fields without `_source`; else all of it.
 */
function effectiveSource(source: SourceFilter | null, stored: StoredFields | null): SourceFilter {
  if (stored?.none) return false;
  if (source !== null) return source;
  if (stored !== null) return stored.names.includes('_source');
  return true;
}

/** Step 1: a Draft holding ES's defaults (`SearchSourceBuilder`'s: from 0, size 10, nothing else given). */
function emptyDraft(): Draft {
  return {
    from: 0,
    size: 10,
    query: null,
    sort: null,
    source: null,
    trackTotalHits: null,
    trackScores: false,
    timeoutMs: null,
    searchAfter: null,
    version: false,
    seqNoPrimaryTerm: false,
    explain: false,
    minScore: null,
    pit: null,
    profile: false,
    aggs: null,
    postFilter: null,
    fields: null,
    docvalueFields: null,
    storedFields: null,
    rescore: [],
    scriptFields: 0,
    slice: null,
    collapse: null,
    highlight: null,
  };
}

/** Step 2: the body, key by key in its order (`SearchSourceBuilder.parseXContent`; first error wins). */
function applyBody(d: Draft, body: unknown): void {
  if (body !== undefined) {
    if (!isObject(body)) throw parsingException(`Expected [START_OBJECT] but found [${tokenName(body)}]`);
    for (const [k, v] of Object.entries(body)) applyBodyKey(d, k, v);
  }
}

/** The URL options of a search that do not live in the Draft. */
interface UrlOptions {
  allowPartial: boolean;
  searchType: SearchRequest['searchType'];
  scroll: string | null;
  restTotalHitsAsInt: boolean;
  requestCache: boolean | null;
}

/** Step 3: the URL, `RestSearchAction` parameters in ES's order (URL wins over the body); returns the options that do not live in the Draft. */
function applyUrl(d: Draft, p: Map<string, string>, path: string): UrlOptions {
  const has = (k: string) => p.has(k);
  const get = (k: string) => p.get(k) as string;
  const minInt = (k: string, min: number, msg: string) => {
    if (has(k) && parseIntParam(k, get(k)) < min) throw illegalArgument(msg);
  };
  minInt('batched_reduce_size', 2, 'batchedReduceSize must be >= 2');
  minInt('pre_filter_shard_size', 1, 'preFilterShardSize must be >= 1');
  minInt('max_concurrent_shard_requests', 1, 'maxConcurrentShardRequests must be >= 1');
  const allowPartial = has('allow_partial_search_results') ? parseBooleanParam(get('allow_partial_search_results')) : true;
  const st = p.get('search_type') ?? 'query_then_fetch';
  if (st !== 'query_then_fetch' && st !== 'dfs_query_then_fetch') throw illegalArgument(`No search type for [${st}]`);
  // parseSearchSource
  if (has('q')) {
    const op = operatorOf(p.get('default_operator') ?? 'or');
    // RestActions.urlParamsToQueryBuilder: q becomes a query_string query with these options.
    d.query = parseQueryString(get('q'), {
      defaultOperator: op,
      df: p.get('df') ?? undefined,
      ...(has('lenient') ? { lenient: parseBooleanParam(get('lenient')) } : {}),
      ...(has('analyze_wildcard') ? { analyzeWildcard: parseBooleanParam(get('analyze_wildcard')) } : {}),
      ...(has('analyzer') ? { analyzer: get('analyzer') } : {}),
    });
  } else {
    const stray = ['df', 'analyzer', 'analyze_wildcard', 'lenient', 'default_operator'].filter(has);
    if (stray.length > 0) {
      throw illegalArgument(`request [${path}] contains parameters [${stray.join(', ')}] but query string parameter 'q' was not specified`);
    }
  }
  if (has('from')) setFrom(d, parseIntParam('from', get('from')));
  if (has('size')) setSize(d, parseIntParam('size', get('size')));
  if (has('explain')) d.explain = parseBooleanParam(get('explain'));
  if (has('version')) d.version = parseBooleanParam(get('version'));
  if (has('seq_no_primary_term')) d.seqNoPrimaryTerm = parseBooleanParam(get('seq_no_primary_term'));
  if (has('timeout')) d.timeoutMs = timeoutOf(parseTimeValue(get('timeout'), 'timeout'));
  if (has('terminate_after')) throw notYet('[terminate_after]');
  if (has('stored_fields')) d.storedFields = storedFieldsFromList(commaList(get('stored_fields')));
  if (has('docvalue_fields') && get('docvalue_fields').trim() !== '') {
    d.docvalueFields = [...(d.docvalueFields ?? []), ...commaList(get('docvalue_fields')).map((field) => ({ field }))];
  }
  if (has('_source') || has('_source_includes') || has('_source_excludes')) {
    const split = (s: string) => s.split(',').filter((x) => x !== '');
    const raw = p.get('_source');
    const fetch = raw === 'false' ? false : true;
    let includes = raw !== undefined && raw !== 'true' && raw !== 'false' ? split(raw) : [];
    if (has('_source_includes')) includes = split(get('_source_includes'));
    const excludes = has('_source_excludes') ? split(get('_source_excludes')) : [];
    d.source = !fetch ? false : includes.length + excludes.length === 0 ? true : { includes, excludes };
  }
  if (has('track_scores')) d.trackScores = parseBooleanParam(get('track_scores'));
  if (has('track_total_hits')) {
    const v = get('track_total_hits');
    if (v === 'true' || v === 'false') d.trackTotalHits = v === 'true' ? TRACK_TOTAL_HITS_ACCURATE : TRACK_TOTAL_HITS_DISABLED;
    else setTrackTotalHitsUpTo(d, parseIntParam('track_total_hits', v));
  }
  if (has('sort')) d.sort = [...(d.sort ?? []), ...parseSortParam(get('sort'))];
  // back in parseSearchRequest
  const requestCache = has('request_cache') ? parseBooleanParam(get('request_cache')) : null;
  const scroll = p.get('scroll') ?? null;
  if (scroll !== null) parseTimeValue(scroll, 'scroll');
  for (const b of ['ignore_unavailable', 'allow_no_indices', 'ignore_throttled']) if (has(b)) indicesOptionBoolean(b, get(b));
  if (has('expand_wildcards')) {
    for (const w of get('expand_wildcards').split(',')) {
      if (!['open', 'closed', 'hidden', 'none', 'all'].includes(w.trim().toLowerCase())) throw illegalArgument(`No valid expand wildcard value [${w}]`);
    }
  }
  if (has('ccs_minimize_roundtrips')) parseBooleanParam(get('ccs_minimize_roundtrips'));
  const restTotalHitsAsInt = has('rest_total_hits_as_int') ? parseBooleanParam(get('rest_total_hits_as_int')) : false;
  if (restTotalHitsAsInt) {
    const t = d.trackTotalHits;
    if (t === null) d.trackTotalHits = TRACK_TOTAL_HITS_ACCURATE;
    else if (t !== TRACK_TOTAL_HITS_ACCURATE && t !== TRACK_TOTAL_HITS_DISABLED) {
      throw illegalArgument(`[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got ${t}`);
    }
  }
  return { allowPartial, searchType: st, scroll, restTotalHitsAsInt, requestCache };
}

/** Step 4: `BaseRestHandler.unrecognized` over the search parameters (see {@link checkUnrecognizedParams}). */
function checkUnrecognized(p: Map<string, string>, path: string): void {
  checkUnrecognizedParams(path, p.keys(), URL_PARAMS);
}

/** Step 5: `SearchRequest.validate`: every problem of the combined request, in ES's order (none: `[]`). */
function validationErrors(d: Draft, url: UrlOptions, p: Map<string, string>): string[] {
  const errors: string[] = [];
  if (url.scroll !== null) {
    if (d.trackTotalHits !== null && d.trackTotalHits !== TRACK_TOTAL_HITS_ACCURATE)
      errors.push('disabling [track_total_hits] is not allowed in a scroll context');
    if (d.from > 0) errors.push('using [from] is not allowed in a scroll context');
    if (d.size === 0) errors.push('[size] cannot be [0] in a scroll context');
    if (d.rescore.length > 0) errors.push('using [rescore] is not allowed in a scroll context');
    if (d.searchAfter !== null) errors.push('[search_after] cannot be used in a scroll context');
    if (d.collapse !== null) errors.push('cannot use `collapse` in a scroll context');
    if (p.get('request_cache') === 'true' || p.get('request_cache') === '') errors.push('[request_cache] cannot be used in a scroll context');
  }
  if (d.searchAfter !== null && d.from > 0) errors.push('[from] parameter must be set to 0 when [search_after] is used');
  if (d.storedFields?.none) {
    if (d.source !== null && d.source !== false) errors.push('[stored_fields] cannot be disabled if [_source] is requested');
    if (d.fields !== null) errors.push('[stored_fields] cannot be disabled when using the [fields] option');
  }
  if (d.slice !== null && d.pit === null && url.scroll === null) errors.push('[slice] can only be used with [scroll] or [point-in-time] requests');
  if (d.pit !== null) {
    if (url.scroll !== null) errors.push('using [point in time] is not allowed in a scroll context');
    if (p.has('routing')) errors.push('[routing] cannot be used with point in time');
    if (p.has('preference')) errors.push('[preference] cannot be used with point in time');
  } else if ((d.sort ?? []).some((f) => f.field === '_shard_doc')) {
    errors.push('[_shard_doc] sort field cannot be used without [point in time]');
  }
  return errors;
}

/** Step 6: the normalized request, defaults filled in (`match_all`, the effective `_source`, the total-hits default). */
function toSearchRequest(d: Draft, url: UrlOptions, p: Map<string, string>): SearchRequest {
  return {
    from: d.from,
    size: d.size,
    query: d.query ?? { kind: 'match_all', boost: 1 },
    sort: d.sort ?? [],
    sortExplicit: d.sort !== null,
    source: effectiveSource(d.source, d.storedFields),
    fields: d.fields,
    docvalueFields: d.docvalueFields,
    storedFields: d.storedFields,
    // ES tracks the exact total in a scroll (clients such as elasticdump stop after `hits.total` documents).
    trackTotalHits: d.trackTotalHits ?? (url.scroll !== null ? TRACK_TOTAL_HITS_ACCURATE : DEFAULT_TRACK_TOTAL_HITS),
    trackScores: d.trackScores,
    timeoutMs: d.timeoutMs,
    searchAfter: d.searchAfter,
    restTotalHitsAsInt: url.restTotalHitsAsInt,
    scroll: url.scroll,
    allowPartialSearchResults: url.allowPartial,
    searchType: url.searchType,
    version: d.version,
    seqNoPrimaryTerm: d.seqNoPrimaryTerm,
    explain: d.explain,
    minScore: d.minScore,
    routing: p.get('routing') ?? null,
    preference: p.get('preference') ?? null,
    pit: d.pit,
    profile: d.profile,
    ...(url.requestCache !== null ? { requestCache: url.requestCache } : {}),
    aggs: d.aggs,
    postFilter: d.postFilter,
    typedKeys: p.has('typed_keys') ? parseBooleanParam(p.get('typed_keys') as string) : false,
    rescore: d.rescore,
    scriptFields: d.scriptFields,
    slice: d.slice,
    ...(d.indicesBoost ? { indicesBoost: d.indicesBoost } : {}),
    collapse: d.collapse,
    highlight: d.highlight,
  };
}

/**
 * Parses and validates a search request.
 * @param params the URL query parameters (a repeated name takes its last value, as ES).
 * @param body the parsed JSON body (see {@link parseJsonBody}), or undefined for none.
 * @param path the request path without query string, for error texts (`/idx/_search`).
 * @throws EsError 400 with ES's exact type and reason for every invalid value (body errors first, then
 *   URL values, then unrecognized parameters, then `Validation Failed: …` checks).
 * @example parseSearchRequest(new URLSearchParams('size=5&sort=date:desc'), { query: { match_all: {} } }, '/idx/_search')
 */
export function parseSearchRequest(params: URLSearchParams, body: unknown, path: string): SearchRequest {
  const d = emptyDraft();
  applyBody(d, body);
  const p = new Map<string, string>();
  for (const [k, v] of params) p.set(k, v);
  const url = applyUrl(d, p, path);
  checkUnrecognized(p, path);
  const errors = validationErrors(d, url, p);
  if (errors.length > 0) throw validationFailed(errors);
  return toSearchRequest(d, url, p);
}
