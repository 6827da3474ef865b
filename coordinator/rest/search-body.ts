/**
 * The JSON body of a search, key by key in the body's order (ES `SearchSourceBuilder.parseXContent`:
 * each key's accepted token types, the first error wins), into the {@link Draft} that
 * search-request.ts completes with the URL parameters and validates.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/builder/SearchSourceBuilder.java
 */
import { parseCollapse, type CollapseSpec } from './collapse.ts';
import type { AggNode } from '../../protocol/agg-request.ts';
import { parseAggregations } from './aggs/agg-parse.ts';
import { illegalArgument, parsingException } from '../../protocol/errors.ts';
import { parseFieldAndFormats, parseStoredFields, type StoredFields } from './field-and-format.ts';
import type { FieldAndFormat } from '../../protocol/search.ts';
import { isObject, parseTimeValue, scalarText, tokenName, xContentBoolean, xContentFloat, xContentInt } from './params.ts';
import { type HighlightSpec } from '../../protocol/highlight.ts';
import { parseHighlight } from './highlight-parse.ts';
import type { SourceFilter } from '../../protocol/search.ts';
import type { Query } from '../../protocol/query-ast.ts';
import { parseIndicesBoost, type IndexBoost } from './indices-boost.ts';
import { parseQuery } from './query-dsl.ts';
import { type Rescore } from '../../protocol/rescore.ts';
import { parseRescore } from './rescore-parse.ts';
import type { SortField, SortValue } from '../../protocol/sort.ts';
import { type SliceSpec } from '../../protocol/slice.ts';
import { parseSlice } from './slice-parse.ts';
import { parseSortBody } from './sort-parse.ts';
import { parseSourceFilter } from './source-filter-parse.ts';
import type { SearchRequest } from './search-request.ts';
import { TRACK_TOTAL_HITS_ACCURATE, TRACK_TOTAL_HITS_DISABLED } from './track-total-hits.ts';

/** Body keys ES knows, with the JSON token types `SearchSourceBuilder` accepts for each (V value, O object, A array). */
const BODY_KEYS: Record<string, string> = {
  query: 'O',
  post_filter: 'O',
  from: 'V',
  size: 'V',
  timeout: 'V',
  terminate_after: 'V',
  min_score: 'V',
  version: 'V',
  seq_no_primary_term: 'V',
  explain: 'V',
  track_scores: 'V',
  track_total_hits: 'V',
  profile: 'V',
  _source: 'VOA',
  stored_fields: 'VA',
  sort: 'VOA',
  script_fields: 'O',
  indices_boost: 'OA',
  aggregations: 'O',
  aggs: 'O',
  highlight: 'O',
  suggest: 'O',
  rescore: 'OA',
  ext: 'O',
  slice: 'O',
  collapse: 'O',
  pit: 'O',
  runtime_mappings: 'O',
  docvalue_fields: 'A',
  fields: 'A',
  stats: 'A',
  search_after: 'A',
  knn: 'OA',
  retriever: 'O',
  rank: 'O',
  sub_searches: 'A',
};

/** Folio's refusal of a search feature it does not implement (400 `illegal_argument_exception`). */
export const notYet = (what: string) => illegalArgument(`${what} is not supported by Folio yet`);

/** Accumulates the request while the body, then the URL, are applied (the builder state of ES). */
export interface Draft {
  from: number;
  size: number;
  query: Query | null;
  sort: SortField[] | null;
  source: SourceFilter | null;
  trackTotalHits: number | null;
  trackScores: boolean;
  timeoutMs: number | null;
  searchAfter: SortValue[] | null;
  version: boolean;
  seqNoPrimaryTerm: boolean;
  explain: boolean;
  minScore: number | null;
  pit: SearchRequest['pit'];
  profile: boolean;
  aggs: AggNode[] | null;
  postFilter: Query | null;
  fields: FieldAndFormat[] | null;
  docvalueFields: FieldAndFormat[] | null;
  storedFields: StoredFields | null;
  rescore: Rescore[];
  scriptFields: number;
  slice: SliceSpec | null;
  indicesBoost?: IndexBoost[];
  collapse: CollapseSpec | null;
  highlight: HighlightSpec | null;
}

/** `PointInTimeBuilder.fromXContent`: `{"id": "…", "keep_alive": "1m"}`. */
function pitOf(v: Record<string, unknown>): NonNullable<SearchRequest['pit']> {
  let id: string | null = null;
  let keepAliveMs: number | null = null;
  for (const [k, x] of Object.entries(v)) {
    if (k === 'id') {
      if (typeof x !== 'string') throw parsingException(`[point_in_time] id doesn't support values of type: ${tokenName(x)}`);
      id = x;
    } else if (k === 'keep_alive') keepAliveMs = parseTimeValue(scalarText(x), 'keep_alive');
    else throw parsingException(`[point_in_time] unknown field [${k}]`);
  }
  if (id === null) throw illegalArgument('[point_in_time] id is required');
  return { id, keepAliveMs };
}

/** Sets `from`. @throws EsError 400 when negative (ES's text) */
export function setFrom(d: Draft, n: number): void {
  if (n < 0) throw illegalArgument(`[from] parameter cannot be negative but was [${n}]`);
  d.from = n;
}

/** Sets `size`. @throws EsError 400 when negative (ES's text) */
export function setSize(d: Draft, n: number): void {
  if (n < 0) throw illegalArgument(`[size] parameter cannot be negative, found [${n}]`);
  d.size = n;
}

/** Sets an int `track_total_hits` (Integer.MAX_VALUE is accurate). @throws EsError 400 below -1 (ES's text) */
export function setTrackTotalHitsUpTo(d: Draft, n: number): void {
  if (n < -1) throw illegalArgument(`[track_total_hits] parameter must be positive or equals to -1, got ${n}`);
  d.trackTotalHits = n === 2147483647 ? TRACK_TOTAL_HITS_ACCURATE : n;
}

/** A parsed `timeout` in ms: a negative one means none. */
export const timeoutOf = (ms: number): number | null => (ms < 0 ? null : ms);

/** `SearchAfterBuilder.fromXContent`: scalars and nulls only; booleans become 1/0 (their sort values). */
function searchAfterOf(v: unknown[]): SortValue[] {
  if (v.length === 0) throw illegalArgument('Values must contains at least one value.');
  return v.map((x) => {
    if (x === null || typeof x === 'number' || typeof x === 'string') return x;
    if (typeof x === 'boolean') return x ? 1 : 0;
    throw parsingException(`Expected [VALUE_STRING] or [VALUE_NUMBER] or [VALUE_BOOLEAN] or [VALUE_NULL] but found [${tokenName(x)}] inside search_after.`);
  });
}

/** Applies one body key, exactly in the body's order (the first failing key is the error). */
export function applyBodyKey(d: Draft, k: string, v: unknown): void {
  const allowed = Object.hasOwn(BODY_KEYS, k) ? BODY_KEYS[k] : '';
  const t = Array.isArray(v) ? 'A' : isObject(v) ? 'O' : v === null ? '' : 'V';
  if (t === '' || !allowed.includes(t)) throw parsingException(`Unknown key for a ${tokenName(v)} in [${k}].`);
  switch (k) {
    case 'query':
      return void (d.query = parseQuery(v));
    case 'from':
      return setFrom(d, xContentInt(v));
    case 'size': {
      const n = xContentInt(v);
      return n === -1 ? undefined : setSize(d, n); // -1 = unset (deprecated), as SearchSourceBuilder
    }
    case 'timeout':
      return void (d.timeoutMs = timeoutOf(parseTimeValue(scalarText(v), 'timeout')));
    case 'track_scores':
      return void (d.trackScores = xContentBoolean(v));
    case 'track_total_hits':
      if (typeof v === 'boolean' || v === 'true' || v === 'false') {
        d.trackTotalHits = xContentBoolean(v) ? TRACK_TOTAL_HITS_ACCURATE : TRACK_TOTAL_HITS_DISABLED;
      } else setTrackTotalHitsUpTo(d, xContentInt(v));
      return;
    case 'version':
      return void (d.version = xContentBoolean(v));
    case 'seq_no_primary_term':
      return void (d.seqNoPrimaryTerm = xContentBoolean(v));
    case 'explain':
      return void (d.explain = xContentBoolean(v));
    case 'min_score':
      return void (d.minScore = xContentFloat(v));
    case 'profile':
      return void (d.profile = xContentBoolean(v));
    case 'sort':
      return void (d.sort = parseSortBody(v));
    case '_source':
      return void (d.source = parseSourceFilter(v));
    case 'search_after':
      return void (d.searchAfter = searchAfterOf(v as unknown[]));
    case 'pit':
      return void (d.pit = pitOf(v as Record<string, unknown>));
    case 'indices_boost':
      return void (d.indicesBoost = parseIndicesBoost(v));
    case 'slice':
      return void (d.slice = parseSlice(v as Record<string, unknown>));
    case 'collapse':
      return void (d.collapse = parseCollapse(v));
    case 'highlight':
      return void (d.highlight = parseHighlight(v));
    case 'stored_fields':
      return void (d.storedFields = parseStoredFields(v));
    case 'docvalue_fields':
      return void (d.docvalueFields = parseFieldAndFormats(v as unknown[]));
    case 'fields':
      return void (d.fields = parseFieldAndFormats(v as unknown[]));
    case 'rescore':
      return void (d.rescore = parseRescore(v));
    case 'script_fields':
      return void (d.scriptFields = Object.keys(v as object).length);
    case 'stats':
      for (const s of v as unknown[]) {
        if (typeof s !== 'string') throw parsingException(`Expected [VALUE_STRING] in [stats] but found [${tokenName(s)}]`);
      }
      return;
    case 'aggs':
    case 'aggregations': {
      const nodes = parseAggregations(v as Record<string, unknown>);
      return void (d.aggs = nodes.length > 0 ? nodes : null);
    }
    case 'post_filter':
      return void (d.postFilter = parseQuery(v));
    default:
      throw notYet(`[${k}]`);
  }
}
