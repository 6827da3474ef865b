/**
 * Routes of the multi search API: `GET|POST /_msearch` and `/{index}/_msearch` (NDJSON header and
 * body lines). The body counts against the in-flight requests breaker as every body does
 * (http.ts `readBodyText`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-multi-search.html
 */
import type { Context, Hono } from 'hono';
import { EsError } from '../../../protocol/errors.ts';
import { isBlankSliced } from '../../rest/json-body.ts';
import { checkParams, queryParams, readBodyText, sendJson } from '../http.ts';
import { parseMsearchBody } from '../../rest/msearch-parse.ts';
import { defaultMaxConcurrentSearches, parseMaxConcurrentSearches } from '../../search/max-concurrent-searches.ts';
import { runMultiSearch, validateItems } from '../../search/msearch.ts';
import type { SearchDeps } from '../../search/search.ts';

/** `RestMultiSearchAction` parameters (and the indices options it reads). */
const MSEARCH_PARAMS = [
  'max_concurrent_searches',
  'max_concurrent_shard_requests',
  'pre_filter_shard_size',
  'search_type',
  'routing',
  'ccs_minimize_roundtrips',
  'rest_total_hits_as_int',
  'typed_keys',
  'include_named_queries_score',
  'expand_wildcards',
  'ignore_unavailable',
  'allow_no_indices',
  'ignore_throttled',
];

/** Registers `_msearch` (before the index routes, whose `/:index` would match it). */
export function registerMsearchRoutes(app: Hono, deps: SearchDeps, maxBodyBytes: number): void {
  const handler = (withIndex: boolean) => async (c: Context) => {
    checkParams(c, MSEARCH_PARAMS);
    const params = queryParams(c);
    const maxConcurrent = parseMaxConcurrentSearches(params.get('max_concurrent_searches')) ?? defaultMaxConcurrentSearches(deps.client.nodes.length);
    const text = await readBodyText(c, maxBodyBytes);
    if (text === undefined || (await isBlankSliced(text))) throw new EsError(400, 'parse_exception', 'request body or source parameter is required');
    const items = await parseMsearchBody(text, withIndex ? c.req.param('index') : undefined, params);
    const refused = await validateItems(items, c.req.path);
    const res = await runMultiSearch(items, { maxConcurrent, path: c.req.path, signal: c.req.raw.signal, refused }, deps);
    return sendJson(c, 200, res);
  };
  app.on(['GET', 'POST'], '/_msearch', handler(false));
  app.on(['GET', 'POST'], '/:index/_msearch', handler(true));
}
