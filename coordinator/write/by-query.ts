/**
 * `POST /{index}/_delete_by_query` and `POST /{index}/_update_by_query`: the request (URL and body,
 * as ES's `AbstractBulkByQueryRestHandler` reads them) and what each matching document becomes,
 * run by the bulk-by-scroll engine (bulk-by-scroll.ts) over one consistent snapshot of the index.
 * - delete_by_query deletes each document the snapshot matched;
 * - update_by_query (without a script, which Folio refuses) writes each document again with its
 *   exact `_source` text, so that the index's current mapping applies to it (ES's "pick up a
 *   mapping change" use).
 * Each write is conditional on the `_seq_no` and primary term the snapshot read (`if_seq_no`,
 * `if_primary_term`, as ES's `AbstractAsyncBulkByScrollAction` sets them), so that a document
 * changed or deleted since counts as a version conflict (`version_conflicts`, or a failure unless
 * `conflicts=proceed`) instead of being deleted or overwritten (docs/sliced-walks-and-by-query.md).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-delete-by-query.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-update-by-query.html
 */
import { illegalArgument, parsingException, validationFailed } from '../../protocol/errors.ts';
import { isObject, parseIntParam, tokenName } from '../rest/params.ts';
import { parseSearchRequest } from '../rest/search-request.ts';
import { type SliceSpec } from '../../protocol/slice.ts';
import { parseSlice } from '../rest/slice-parse.ts';
import type { BulkItem } from '../rest/bulk-parse.ts';
import { DEFAULT_SCROLL_SIZE, hitRouting, type BulkByScrollSpec, type HitToItem } from './bulk-by-scroll.ts';
import type { StatusFields } from './bulk-by-scroll-status.ts';
import type { SearchHitBody } from '../search/respond.ts';
import { parseConflicts, parseMaxDocs, parseRefresh, parseRequestsPerSecond, parseSlicesParam } from '../rest/bulk-by-scroll-params.ts';

/** The two by-query actions. */
export type ByQueryKind = 'delete' | 'update';

/** ES's task action names. */
export const BY_QUERY_ACTIONS: Record<ByQueryKind, string> = {
  delete: 'indices:data/write/delete/byquery',
  update: 'indices:data/write/update/byquery',
};

/** The status fields each action's response shows (`created` never; `updated` for update_by_query). */
export const BY_QUERY_FIELDS: Record<ByQueryKind, StatusFields> = {
  delete: { created: false, updated: false },
  update: { created: false, updated: true },
};

/** The URL parameters both by-query actions read. */
const SHARED_BY_QUERY_PARAMS: readonly string[] = [
  'q',
  'df',
  'default_operator',
  'analyzer',
  'analyze_wildcard',
  'lenient',
  'from',
  'sort',
  'routing',
  'preference',
  'terminate_after',
  'search_type',
  'search_timeout',
  'request_cache',
  'stats',
  'version',
  '_source',
  '_source_includes',
  '_source_excludes',
  'expand_wildcards',
  'ignore_unavailable',
  'allow_no_indices',
  'ignore_throttled',
  'conflicts',
  'max_docs',
  'refresh',
  'timeout',
  'wait_for_active_shards',
  'wait_for_completion',
  'requests_per_second',
  'scroll',
  'scroll_size',
  'slices',
];

/**
 * URL parameters of `RestDeleteByQueryAction` / `RestUpdateByQueryAction`: the search ones they read
 * (`q`, `df`, `sort`, …), the bulk-by-scroll ones, and (update) `pipeline`.
 */
export const BY_QUERY_PARAMS: Record<ByQueryKind, readonly string[]> = {
  delete: SHARED_BY_QUERY_PARAMS,
  update: [...SHARED_BY_QUERY_PARAMS, 'version_type', 'pipeline'],
};

/** A validated by-query request. */
export interface ByQuerySpec {
  kind: ByQueryKind;
  /** The index expression of the path. */
  index: string;
  /** The body's query in the ES query DSL (undefined with `q=`, sent as a search parameter). */
  query: unknown;
  run: BulkByScrollSpec;
}

/** Body keys the by-query handlers consume themselves; the others are the search body's. */
const OWN_BODY_KEYS = new Set(['conflicts', 'max_docs', 'size', 'script']);
/** Search body keys a by-query search honours. */
const SEARCH_BODY_KEYS = new Set(['query', 'slice']);

/**
 * Parses a by-query request: the body's `conflicts`, `max_docs` (or the deprecated `size`),
 * `script` (refused) and its search part (`query`, `slice`), then the URL (`q`, `conflicts`,
 * `max_docs`, `scroll_size`, `slices`, `requests_per_second`, `refresh`).
 * @throws EsError 400 with ES's texts for bad values; `[script] in update_by_query is not supported
 *   by Folio yet` for a script; a search body key Folio does not honour here (`sort`, `_source`, …)
 *   as not supported.
 */
export function parseByQueryRequest(kind: ByQueryKind, index: string, params: URLSearchParams, body: unknown, path: string): ByQuerySpec {
  if (body !== undefined && !isObject(body)) throw parsingException(`Expected [START_OBJECT] but found [${tokenName(body)}]`);
  const b = body ?? {};
  if (b.script !== undefined) {
    throw illegalArgument(kind === 'update' ? '[script] in update_by_query is not supported by Folio yet' : `request does not support [script]`);
  }
  const search: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) {
    if (OWN_BODY_KEYS.has(k)) continue;
    if (!SEARCH_BODY_KEYS.has(k)) throw illegalArgument(`[${k}] in ${kind}_by_query is not supported by Folio yet`);
    search[k] = v;
  }
  // The search part is parsed and validated as a search's (ES builds a SearchRequest of it).
  const searchParams = new URLSearchParams();
  for (const k of ['q', 'df', 'default_operator', 'analyzer', 'analyze_wildcard', 'lenient']) {
    const v = params.get(k);
    if (v !== null) searchParams.set(k, v);
  }
  if (search.slice !== undefined) searchParams.set('scroll', '5m'); // ES's by-query search is a scroll: a `slice` is valid there
  parseSearchRequest(searchParams, search, path);
  searchParams.delete('scroll');
  const slice: SliceSpec | undefined = isObject(search.slice) ? parseSlice(search.slice) : undefined;
  const errors: string[] = [];
  const proceedOnConflicts = parseConflicts(b.conflicts ?? params.get('conflicts') ?? undefined);
  const slices = parseSlicesParam(params.get('slices'));
  const maxDocs = parseMaxDocs(params.get('max_docs'), b.max_docs ?? b.size, slices);
  if (slice && slices !== 1) errors.push("can't specify both manual and automatic slicing at the same time");
  const scrollSize = params.has('scroll_size') ? parseIntParam('scroll_size', params.get('scroll_size') as string) : DEFAULT_SCROLL_SIZE;
  if (scrollSize < 0) throw illegalArgument(`[size] parameter cannot be negative, found [${scrollSize}]`);
  if (scrollSize === 0) errors.push('[size] cannot be [0] in a scroll context');
  if (errors.length > 0) throw validationFailed(errors);
  const query = search.query ?? (params.has('q') ? undefined : { match_all: {} });
  return {
    kind,
    index,
    query,
    run: {
      source: {
        index,
        query,
        batchSize: scrollSize,
        withSource: kind === 'update',
        searchParams: Object.fromEntries(searchParams),
        seqNoPrimaryTerm: true,
        ...(slice ? { slice } : {}),
      },
      maxDocs,
      proceedOnConflicts,
      slices,
      requestsPerSecond: parseRequestsPerSecond(params.get('requests_per_second')),
      refresh: parseRefresh(params.get('refresh')),
    },
  };
}

/**
 * The write condition of a hit's write: the `_seq_no` and `_primary_term` the walk read (its
 * search asks for them, `seqNoPrimaryTerm`); none when a hit lacks them.
 */
function readSeqNo(h: SearchHitBody): Pick<BulkItem, 'params'> {
  return h._seq_no !== undefined && h._primary_term !== undefined ? { params: { ifSeqNo: h._seq_no, ifPrimaryTerm: h._primary_term } } : {};
}

/** delete_by_query: each hit becomes a `delete` of its `_index`/`_id`, if it is still the version read. */
export const deleteHit: HitToItem = (h) => ({ action: 'delete', index: h._index, id: h._id, routing: hitRouting(h), source: undefined, ...readSeqNo(h) });

/**
 * update_by_query without a script: each hit becomes an `index` of its exact `_source` text at its
 * `_index`/`_id`, which the shard parses again with the current mapping; only if it is still the
 * version read.
 */
export const updateHit: HitToItem = (h): BulkItem => ({
  action: 'index',
  index: h._index,
  id: h._id,
  routing: hitRouting(h),
  source: (h._source?.parse() ?? {}) as Record<string, unknown>,
  sourceText: h._source?.text ?? '{}',
  ...readSeqNo(h),
});
