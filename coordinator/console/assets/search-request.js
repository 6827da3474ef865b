/**
 * Turns the console's form into one `_search` request, the way a user would write it by hand:
 * - an empty query box searches everything (no `query`: ES's implicit `match_all`);
 * - text starting with `{` is JSON Query DSL: a query clause (`{"match": {"name": "wien"}}`) or
 *   `{"query": {…}}`, sent as the body's `query`;
 * - anything else is Lucene query-string syntax, sent as the `q` URL parameter (ES's URI search).
 * The body always asks for `track_total_hits: true` (an exact `hits.total`) and `profile: true`
 * (the time picture); `from`/`size` come from the pager, `sort` from the sort controls, then
 * Folio's `_id` tiebreak makes every page a slice of one sorted list. A collapse field groups the
 * hits (`collapse`, with an inner hit of size 0 that counts each group, and `from`/`size` over
 * groups); a query asks for highlighted snippets (one fragment per field, HTML-encoded so that
 * the tags are the only markup). A facet field asks for its `terms` counts on the query
 * (`aggs`), and the facet values clicked narrow the hits only (`post_filter`, each a `term`), so
 * the counts keep showing every value: the faceted-navigation pattern of ES's post_filter page.
 * @see www.elastic.co/guide/en/elasticsearch/reference/8.15/filter-search-results.html#post-filter
 * @see www.elastic.co/guide/en/elasticsearch/reference/8.15/collapse-search-results.html
 * @see www.elastic.co/guide/en/elasticsearch/reference/8.15/highlighting.html
 * @see www.elastic.co/guide/en/elasticsearch/reference/8.15/search-search.html
 * @see www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-query-string-query.html
 */
import { fromOf } from './paging.js';

/**
 * The console's form state.
 * @typedef {object} SearchForm
 * @property {string} index target index (or pattern)
 * @property {string} query the query box: empty, JSON DSL, or `q` syntax
 * @property {string} sortField '' for relevance (`_score`), else a sortable field
 * @property {'asc' | 'desc'} order
 * @property {string} collapse '' for none, else the field the hits are grouped by
 * @property {string} facet '' for none, else the keyword or numeric field whose values are counted
 * @property {FacetFilter[]} filters facet values the hits are narrowed to (all must match)
 * @property {number} size hits per page
 * @property {number} page 1-based page
 */

/**
 * One request: `POST path` with a JSON `body`.
 * @typedef {{ method: 'POST', path: string, body: Record<string, unknown> }} SearchRequest
 */

/**
 * One facet value the hits are filtered by.
 * @typedef {{ field: string, value: string | number }} FacetFilter
 */

/** Name of the inner hits that count each group's documents. */
export const GROUP_INNER_HITS = 'group';

/** Name of the facet's `terms` aggregation in the request. */
export const FACET_AGG = 'facet';

/** Values a facet lists (its `terms` size). */
export const FACET_SIZE = 10;

/**
 * The `post_filter` of the facet filters: one `term`, or a `bool` filter of all; null without filters.
 * @param {FacetFilter[]} filters
 * @returns {Record<string, unknown> | null}
 */
export function postFilterOf(filters) {
  const terms = filters.map((f) => ({ term: { [f.field]: f.value } }));
  if (terms.length === 0) return null;
  return terms.length === 1 ? terms[0] : { bool: { filter: terms } };
}

/** A query box the console cannot turn into a request; shown in the page like an API error. */
export class QueryInputError extends Error {
  name = 'QueryInputError';
}

/**
 * What the query box asks for: `{}` (everything), `{ query }` (DSL) or `{ q }` (query string).
 * @param {string} text
 * @returns {{ query?: Record<string, unknown>, q?: string }}
 * @throws {QueryInputError} invalid JSON, a non-object, or a body with keys other than `query`
 *   (paging and sort belong to the controls)
 */
export function parseQueryInput(text) {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  if (!trimmed.startsWith('{')) return { q: trimmed };
  let parsed;
  try {
    parsed = JSON.parse(trimmed);
  } catch (err) {
    throw new QueryInputError(`the query is not valid JSON: ${/** @type {Error} */ (err).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new QueryInputError('a JSON query must be an object');
  if (!('query' in parsed)) return { query: parsed };
  const others = Object.keys(parsed).filter((k) => k !== 'query');
  if (others.length > 0) throw new QueryInputError(`give a query clause or {"query": …}; paging and sort come from the controls, not [${others.join(', ')}]`);
  return { query: parsed.query };
}

/**
 * The `_search` request of `form`.
 * @param {SearchForm} form
 * @returns {SearchRequest}
 * @throws {QueryInputError} see {@link parseQueryInput}
 */
export function buildSearchRequest(form) {
  const { query, q } = parseQueryInput(form.query);
  /** @type {Record<string, unknown>} */
  const body = { from: fromOf(form.page, form.size), size: form.size };
  if (query !== undefined) body.query = query;
  if (form.sortField !== '') body.sort = [{ [form.sortField]: { order: form.order } }];
  if (form.collapse) body.collapse = { field: form.collapse, inner_hits: { name: GROUP_INNER_HITS, size: 0 } };
  if (form.facet) body.aggs = { [FACET_AGG]: { terms: { field: form.facet, size: FACET_SIZE } } };
  const postFilter = postFilterOf(form.filters);
  if (postFilter !== null) body.post_filter = postFilter;
  if (query !== undefined || q !== undefined) body.highlight = { encoder: 'html', number_of_fragments: 1, fragment_size: 150, fields: { '*': {} } };
  body.track_total_hits = true;
  body.profile = true;
  const path = `/${encodeURIComponent(form.index)}/_search${q === undefined ? '' : `?q=${encodeURIComponent(q)}`}`;
  return { method: 'POST', path, body };
}
