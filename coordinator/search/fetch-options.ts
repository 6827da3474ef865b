/**
 * What a search asks the fetch phase for beyond `_source` (`version`, `seq_no_primary_term`,
 * `fields`, `docvalue_fields`, `stored_fields`, `highlight`), as the {@link HitFetchOptions} the shards apply,
 * and the per-index checks ES makes of it before fetching: `index.max_docvalue_fields_search`, and
 * each requested field's type against its `format` and its doc values (compiled against the
 * coordinator's mapping, so a bad request fails before any shard is asked).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-fields.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/fetch/subphase/FetchDocValuesContext.java
 */
import { EsError, type ErrorCause } from '../../protocol/errors.ts';
import { METADATA_FIELDS } from '../rest/field-and-format.ts';
import { compileFieldFetch, docvalueFieldCount, tooManyDocvalueFields } from '../../shared/field-fetcher.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import type { HitFetchOptions } from '../../protocol/search.ts';
import type { SearchRequest } from '../rest/search-request.ts';
import { INDEX_SETTINGS, intValue } from '../cluster/index-setting-definitions.ts';

/** The index setting bounding `docvalue_fields` (ES `IndexSettings.MAX_DOCVALUE_FIELDS_SEARCH_SETTING`, default 100). */
const MAX_DOCVALUE_FIELDS_KEY = 'index.max_docvalue_fields_search';

const memo = new WeakMap<SearchRequest, HitFetchOptions | undefined>();

/** The request's fetch options, or undefined when it asks for nothing beyond `_source` (memoized per request). */
export function hitFetchOptions(req: SearchRequest): HitFetchOptions | undefined {
  if (memo.has(req)) return memo.get(req);
  const o: HitFetchOptions = {};
  if (req.version) o.version = true;
  if (req.seqNoPrimaryTerm) o.seqNoPrimaryTerm = true;
  if (req.fields && req.fields.length > 0) o.fields = req.fields;
  if (req.docvalueFields && req.docvalueFields.length > 0) o.docvalueFields = req.docvalueFields;
  const stored = req.storedFields?.names.filter((n) => !METADATA_FIELDS.has(n)) ?? [];
  if (stored.length > 0) o.storedFields = stored;
  if (req.storedFields?.none) o.noMetadata = true;
  if (req.highlight) o.highlight = { spec: req.highlight, query: req.query };
  const out = Object.keys(o).length > 0 ? o : undefined;
  memo.set(req, out);
  return out;
}

/**
 * True when hits need the fetch round whatever the documents: `_source` or a fetch option is
 * asked for. Without it, only shards whose documents have a custom routing are fetched (for `_routing`).
 */
export function fetchesHits(req: SearchRequest): boolean {
  return req.source !== false || hitFetchOptions(req) !== undefined;
}

/** Index metadata as the checks read it (explicit settings: ES's flat `index.` keys). */
type CheckedIndex = Pick<IndexMetadata, 'name' | 'mappings' | 'settings'>;

/** The index's `index.max_docvalue_fields_search` (dynamic; its definition's default, 100, when not set). */
export function maxDocvalueFieldsSearch(metadata: CheckedIndex): number {
  return intValue(metadata.settings?.[MAX_DOCVALUE_FIELDS_KEY], Number(INDEX_SETTINGS.get(MAX_DOCVALUE_FIELDS_KEY)?.defaultValue ?? 100));
}

/**
 * ES's rejection of the request's fetch options for one index, or null: more `docvalue_fields`
 * than `index.max_docvalue_fields_search`, a `format` the field does not take, `docvalue_fields` on a
 * text field without fielddata or on a field without doc values.
 */
export function fetchOptionsCause(req: SearchRequest, metadata: CheckedIndex): ErrorCause | null {
  const o = hitFetchOptions(req);
  if (!o || (!o.fields && !o.docvalueFields && !o.storedFields)) return null;
  if (o.fields && (metadata.mappings as { _source?: { enabled?: unknown } })._source?.enabled === false) {
    // ES `FetchFieldsPhase`: the fields API reads `_source`.
    return {
      type: 'illegal_argument_exception',
      reason: `Unable to retrieve the requested [fields] since _source is disabled in the mappings for index [${metadata.name}]`,
    };
  }
  if (o.docvalueFields) {
    const limit = maxDocvalueFieldsSearch(metadata);
    const count = docvalueFieldCount(metadata.mappings, o.docvalueFields);
    if (count > limit) return { type: 'illegal_argument_exception', reason: tooManyDocvalueFields(limit, count) };
  }
  try {
    compileFieldFetch(metadata.mappings, { fields: o.fields, docvalueFields: o.docvalueFields, storedFields: o.storedFields }, metadata.name);
  } catch (err) {
    if (err instanceof EsError) return { type: err.type, reason: err.message };
    throw err;
  }
  return null;
}
