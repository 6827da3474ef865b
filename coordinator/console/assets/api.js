/**
 * The console's calls to the coordinator it is served by (same origin, so no CORS and no
 * credentials to configure): `_cat/indices` for the index picker, `_mapping` for the sortable
 * and collapsible fields, and `_search`. Failures become {@link ApiError}s that carry ES's `error.reason`.
 * @see www.elastic.co/guide/en/elasticsearch/reference/8.15/cat-indices.html
 * @see www.elastic.co/guide/en/elasticsearch/reference/8.15/common-options.html (error bodies)
 */

/** Field types that ES can sort on (doc values), as they appear in `_mapping`. */
const SORTABLE_TYPES = new Set([
  'keyword',
  'constant_keyword',
  'long',
  'integer',
  'short',
  'byte',
  'double',
  'float',
  'half_float',
  'scaled_float',
  'unsigned_long',
  'date',
  'date_nanos',
  'boolean',
  'ip',
  'version',
]);

/** Field types ES collapses on (single-valued keyword and numeric fields with doc values). */
const COLLAPSIBLE_TYPES = new Set(['keyword', 'long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float', 'unsigned_long']);

/** A failed call: HTTP status, ES error `type` (when the body has one) and the reason to show. */
export class ApiError extends Error {
  name = 'ApiError';

  /**
   * @param {number} status HTTP status, 0 when no response arrived
   * @param {string | undefined} type ES's `error.type`, e.g. `index_not_found_exception`
   * @param {string} reason ES's `error.reason`, or the simple error string
   */
  constructor(status, type, reason) {
    super(reason);
    this.status = status;
    this.type = type;
  }
}

/**
 * The {@link ApiError} of an error reply. ES answers `{"error": {"type", "reason", …}, "status"}`,
 * or a simple `{"error": "…"}` for routing errors (400 no handler, 405).
 * @param {number} status
 * @param {string} text the reply body
 * @returns {ApiError}
 */
export function apiErrorOf(status, text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return new ApiError(status, undefined, text.trim() || `HTTP ${status}`);
  }
  const error = body?.error;
  if (typeof error === 'string') return new ApiError(status, undefined, error);
  if (error && typeof error.reason === 'string') return new ApiError(status, error.type, error.reason);
  if (error && typeof error.type === 'string') return new ApiError(status, error.type, error.type);
  return new ApiError(status, undefined, `HTTP ${status}`);
}

/**
 * Sends one JSON request to this origin and returns the parsed reply.
 * @param {string} method
 * @param {string} path absolute path on this origin, with its query string
 * @param {unknown} [body] sent as JSON when given
 * @param {AbortSignal} [signal]
 * @returns {Promise<any>}
 * @throws {ApiError} non-2xx replies (status and ES reason) and network failures (status 0);
 *   an abort rejects with the signal's AbortError
 */
export async function callApi(method, path, body, signal) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError(0, undefined, `no answer from the coordinator: ${/** @type {Error} */ (err).message}`);
  }
  const text = await res.text();
  if (!res.ok) throw apiErrorOf(res.status, text);
  return JSON.parse(text);
}

/**
 * The indices for the picker, by name: `GET /_cat/indices?format=json&h=index,docs.count&s=index`.
 * @returns {Promise<{ index: string, docs: number }[]>}
 */
export async function listIndices() {
  const rows = await callApi('GET', '/_cat/indices?format=json&h=index,docs.count&s=index');
  return rows.map((/** @type {Record<string, string>} */ r) => ({ index: r.index, docs: Number(r['docs.count']) }));
}

/**
 * The sortable and collapsible fields of `index` from `GET /{index}/_mapping`, in mapping order:
 * sortable are fields with doc values (keyword, numbers, dates, booleans, …), multi-fields
 * (`name.keyword`) and object sub-fields by their dotted path (`text` and `geo_point` are left out,
 * as ES cannot sort them); collapsible are the keyword and numeric ones among them.
 * @param {string} index
 * @returns {Promise<{ sortable: string[], collapsible: string[] }>}
 */
export async function indexFields(index) {
  const mappings = await callApi('GET', `/${encodeURIComponent(index)}/_mapping`);
  /** @type {Map<string, string>} */
  const types = new Map();
  for (const entry of Object.values(mappings)) collectSortable(entry?.mappings?.properties ?? {}, '', types);
  return { sortable: [...types.keys()], collapsible: [...types].filter(([, t]) => COLLAPSIBLE_TYPES.has(t)).map(([f]) => f) };
}

/**
 * @param {Record<string, any>} properties
 * @param {string} prefix
 * @param {Map<string, string>} out sortable field path → type
 */
function collectSortable(properties, prefix, out) {
  for (const [name, field] of Object.entries(properties)) {
    const path = prefix + name;
    if (SORTABLE_TYPES.has(field.type) && !out.has(path)) out.set(path, field.type);
    if (field.fields) collectSortable(field.fields, `${path}.`, out);
    if (field.properties) collectSortable(field.properties, `${path}.`, out);
  }
}

/**
 * Runs one search.
 * @param {{ method: string, path: string, body: Record<string, unknown> }} request
 * @param {AbortSignal} [signal]
 * @returns {Promise<any>} the `_search` response
 * @throws {ApiError}
 */
export function runSearch(request, signal) {
  return callApi(request.method, request.path, request.body, signal);
}
