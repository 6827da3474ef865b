/**
 * The request side of the fetch sub-phases that add `fields` to hits: `fields` and
 * `docvalue_fields` entries (ES `FieldAndFormat`: a name or pattern, or
 * `{field, format, include_unmapped}`) and `stored_fields` (ES `StoredFieldsContext`: names, or
 * `_none_` to drop `_id`, `_routing` and `_source`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-fields.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/fetch/subphase/FieldAndFormat.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/fetch/StoredFieldsContext.java
 */
import { illegalArgument, parsingException } from '../../protocol/errors.ts';
import { isObject, tokenName, xContentBoolean, xContentError } from './params.ts';
import type { FieldAndFormat } from '../../protocol/search.ts';

/**
 * `stored_fields` as parsed: `none` for `_none_` (no stored field and no metadata field: hits lose
 * `_id`, `_routing` and `_source`), else the names asked for (`_source` among them keeps `_source`).
 */
export interface StoredFields {
  none: boolean;
  names: string[];
}

/** Metadata field names `stored_fields` may list that are not fields of the mapping (ES `_source`, `_routing`, …). */
export const METADATA_FIELDS: ReadonlySet<string> = new Set([
  '_source',
  '_id',
  '_routing',
  '_index',
  '_seq_no',
  '_version',
  '_primary_term',
  '_ignored',
  '_tier',
]);

/** ES `StoredFieldsContext._NONE_`. */
export const STORED_FIELDS_NONE = '_none_';

/** The pre-7.0 format name that now means "the mapping's format" (ES 7 deprecated it). */
const USE_FIELD_MAPPING = 'use_field_mapping';

/** A JSON scalar as `XContentParser.text()` reads it. */
function text(v: unknown): string {
  return typeof v === 'string' ? v : String(v);
}

/**
 * One `fields` / `docvalue_fields` element (`FieldAndFormat.fromXContent`): a value is a field name;
 * an object is read by the `fetch_field_and_format` parser.
 * @throws EsError 400 `x_content_parse_exception` for an unknown key or a value of the wrong type.
 */
export function parseFieldAndFormat(v: unknown): FieldAndFormat {
  if (v !== null && !isObject(v) && !Array.isArray(v)) return { field: text(v) };
  if (!isObject(v)) throw xContentError(`[fetch_field_and_format] field doesn't support values of type: ${tokenName(v)}`);
  let field: string | undefined;
  let format: string | undefined;
  let includeUnmapped: boolean | undefined;
  for (const [k, x] of Object.entries(v)) {
    if (k === 'field') {
      if (typeof x !== 'string') throw xContentError(`[fetch_field_and_format] field doesn't support values of type: ${tokenName(x)}`);
      field = x;
    } else if (k === 'format') {
      if (x !== null && (typeof x === 'object' || typeof x === 'boolean'))
        throw xContentError(`[fetch_field_and_format] format doesn't support values of type: ${tokenName(x)}`);
      format = x === null ? undefined : text(x);
    } else if (k === 'include_unmapped') {
      includeUnmapped = xContentBoolean(x);
    } else {
      throw xContentError(`[fetch_field_and_format] unknown field [${k}]`);
    }
  }
  if (field === undefined) throw xContentError('Required [field]');
  return {
    field,
    ...(format !== undefined && format !== USE_FIELD_MAPPING ? { format } : {}),
    ...(includeUnmapped !== undefined ? { includeUnmapped } : {}),
  };
}

/** A `fields` or `docvalue_fields` array (elements as {@link parseFieldAndFormat}). */
export function parseFieldAndFormats(v: readonly unknown[]): FieldAndFormat[] {
  return v.map(parseFieldAndFormat);
}

/**
 * Names as `StoredFieldsContext.fromList`: `_none_` alone disables stored and metadata fields;
 * `_none_` next to other names is refused.
 * @throws EsError 400 `illegal_argument_exception` `cannot combine _none_ with other fields`
 */
export function storedFieldsFromList(names: string[]): StoredFields {
  if (names.length === 1 && names[0] === STORED_FIELDS_NONE) return { none: true, names: [] };
  if (names.includes(STORED_FIELDS_NONE)) throw illegalArgument('cannot combine _none_ with other fields');
  return { none: false, names };
}

/**
 * The body `stored_fields` (`StoredFieldsContext.fromXContent`): a string or an array of values.
 * @throws EsError 400 `parsing_exception` for another token; as {@link storedFieldsFromList}.
 */
export function parseStoredFields(v: unknown, key = 'stored_fields'): StoredFields {
  if (typeof v === 'string') return storedFieldsFromList([v]);
  if (Array.isArray(v)) {
    return storedFieldsFromList(
      v.map((x) => {
        if (x !== null && typeof x === 'object') throw parsingException(`Expected [VALUE_STRING] or [START_ARRAY] in [${key}] but found [${tokenName(x)}]`);
        return text(x);
      }),
    );
  }
  throw parsingException(`Expected [VALUE_STRING] or [START_ARRAY] in [${key}] but found [${tokenName(v)}]`);
}

/** A comma-separated URL list (`Strings.splitStringByCommaToArray`: empty items dropped, no trimming). */
export function commaList(s: string): string[] {
  return s.split(',').filter((x) => x !== '');
}
