/**
 * `sort` of a search request, URL and body forms, into normalized {@link SortField}s. Mirrors
 * `RestSearchAction` (URL: comma list, split on the last `:`, an order other than `asc`/`desc`
 * silently drops the clause) and `SortBuilder.fromXContent` / `FieldSortBuilder` /
 * `ScoreSortBuilder` (body). Defaults: `_score` desc, everything else asc; `missing: _last`;
 * `mode` min for asc, max for desc. Mapping checks (unmapped fields) are the coordinator's.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/sort/SortBuilder.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/sort/FieldSortBuilder.java
 */
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import { didYouMean, isObject, scalarText, tokenName, xContentError } from './params.ts';
import type { NumericSortType, SortField, SortMode } from '../../protocol/sort.ts';

type Order = 'asc' | 'desc';

/** A clause with ES's defaults for `name` (`_score` → score desc, `_doc` → doc, else a field). */
function clause(name: string, order?: Order): SortField {
  const kind = name === '_score' ? 'score' : name === '_doc' || name === '_shard_doc' ? 'doc' : 'field';
  const o: Order = order ?? (kind === 'score' ? 'desc' : 'asc');
  return { kind, field: name, order: o, missing: '_last', mode: o === 'asc' ? 'min' : 'max' };
}

/** `SortOrder.fromString`: `valueOf(s.toUpperCase())`, so Java's enum error for anything else. */
function orderOf(s: string): Order {
  const up = s.toUpperCase();
  if (up === 'ASC' || up === 'DESC') return up === 'ASC' ? 'asc' : 'desc';
  throw illegalArgument(`No enum constant org.elasticsearch.search.sort.SortOrder.${up}`);
}

/**
 * The URL `sort` parameter: `field`, `field:asc`, `field:desc`, `_score`, comma separated.
 * @returns the clauses in order (ES appends them after any body sort).
 * @example parseSortParam('date:desc,_score') // [date desc, _score desc]
 */
export function parseSortParam(s: string): SortField[] {
  const out: SortField[] = [];
  for (const part of s.split(',')) {
    if (part === '') continue;
    const i = part.lastIndexOf(':');
    if (i < 0) out.push(clause(part));
    else {
      const dir = part.slice(i + 1);
      // RestSearchAction only recognizes exactly "asc"/"desc"; any other suffix adds nothing.
      if (dir === 'asc' || dir === 'desc') out.push(clause(part.slice(0, i), dir));
    }
  }
  return out;
}

/** Runs `fn` as ES's `ObjectParser` does for field `k` of `[name]`, wrapping failures. */
function inField<T>(name: string, k: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof EsError) throw xContentError(`[${name}] failed to parse field [${k}]`, e.toCause());
    throw e;
  }
}

const stringOnly = (name: string, k: string, v: unknown): string => {
  if (typeof v !== 'string') throw xContentError(`[${name}] ${k} doesn't support values of type: ${tokenName(v)}`);
  return v;
};

const FIELD_SORT_FIELDS = ['missing', 'unmapped_type', 'order', 'mode', 'numeric_type', 'format', 'nested'];

/** `FieldSortBuilder` options object (`{"order":…, "missing":…, "mode":…, "unmapped_type":…}`). */
function fieldSort(name: string, opts: unknown): SortField {
  if (!isObject(opts)) throw xContentError(`[field_sort] Expected START_OBJECT but was: ${tokenName(opts)}`);
  let order: Order | undefined;
  let mode: SortMode | undefined;
  let numericType: NumericSortType | undefined;
  let missing: string | number | undefined;
  let unmappedType: string | undefined;
  for (const [k, v] of Object.entries(opts)) {
    if (k === 'order') {
      const s = stringOnly('field_sort', k, v);
      order = inField('field_sort', k, () => orderOf(s));
    } else if (k === 'unmapped_type') unmappedType = stringOnly('field_sort', k, v);
    else if (k === 'format') stringOnly('field_sort', k, v);
    else if (k === 'missing') {
      if (v === null || isObject(v) || Array.isArray(v)) throw xContentError(`[field_sort] missing doesn't support values of type: ${tokenName(v)}`);
      missing = typeof v === 'number' ? v : scalarText(v);
    } else if (k === 'mode') {
      const raw = stringOnly('field_sort', k, v);
      mode = inField('field_sort', k, () => sortModeOf(raw));
    } else if (k === 'numeric_type') {
      const raw = stringOnly('field_sort', k, v);
      numericType = inField('field_sort', k, () => numericTypeOf(raw));
    } else if (k === 'nested') throw illegalArgument('[nested] sort is not supported by Folio yet');
    else throw xContentError(`[field_sort] unknown field [${k}]${didYouMean(k, FIELD_SORT_FIELDS)}`);
  }
  const c = clause(name, order);
  if (mode) c.mode = mode;
  if (numericType) c.numericType = numericType;
  if (missing !== undefined) c.missing = missing;
  if (unmappedType !== undefined) c.unmappedType = unmappedType;
  return c;
}

const SORT_MODES: readonly SortMode[] = ['min', 'max', 'sum', 'avg', 'median'];

/** `SortMode.fromString`: case-insensitive, else `Unknown SortMode [x]`. */
function sortModeOf(raw: string): SortMode {
  const s = raw.toLowerCase();
  const mode = SORT_MODES.find((m) => m === s);
  if (!mode) throw illegalArgument(`Unknown SortMode [${raw}]`);
  return mode;
}

/** `FieldSortBuilder.setNumericType`: `long`, `double`, `date` or `date_nanos` (case-insensitive). */
function numericTypeOf(raw: string): NumericSortType {
  const s = raw.toLowerCase();
  if (s === 'long' || s === 'double' || s === 'date' || s === 'date_nanos') return s;
  throw illegalArgument(`invalid value for [numeric_type], must be [long, double, date, date_nanos], got ${s}`);
}

/** `ScoreSortBuilder` options object: only `order`. */
function scoreSort(opts: unknown): SortField {
  if (!isObject(opts)) throw xContentError(`[_score] Expected START_OBJECT but was: ${tokenName(opts)}`);
  let order: Order | undefined;
  for (const [k, v] of Object.entries(opts)) {
    if (k === 'order') {
      const s = stringOnly('_score', k, v);
      order = inField('_score', k, () => orderOf(s));
    } else throw xContentError(`[_score] unknown field [${k}]${didYouMean(k, ['order'])}`);
  }
  return clause('_score', order);
}

/** `parseCompoundSortField`: every key of `{"f": "desc", "g": {...}}` is one clause. */
function compound(obj: Record<string, unknown>, out: SortField[]): void {
  for (const [name, v] of Object.entries(obj)) {
    if (typeof v === 'string') out.push(clause(name, orderOf(v)));
    else if (name === '_score') out.push(scoreSort(v));
    else if (name === '_geo_distance' || name === '_geoDistance' || name === '_script') {
      throw illegalArgument(`[${name}] sort is not supported by Folio yet`);
    } else out.push(fieldSort(name, v));
  }
}

/**
 * The body `sort`: a string, an object, or an array mixing both (`["a", {"b": "desc"},
 * {"c": {"order": "desc", "missing": "_first", "mode": "max", "unmapped_type": "long"}}, "_score", "_doc"]`).
 * Numbers and booleans are taken as field names, as `SearchSourceBuilder` does (`sort(parser.text())`).
 * @throws EsError 400: `illegal_argument_exception` `No enum constant org.elasticsearch.search.sort.SortOrder.X`
 *   (short form), `x_content_parse_exception` `[1:1] [field_sort] failed to parse field [order]` (long form),
 *   `[field_sort] unknown field [x]`, `[field_sort] order doesn't support values of type: VALUE_NUMBER`,
 *   `illegal_argument_exception` `malformed sort format, within the sort array, an object, or an actual string are allowed`.
 */
export function parseSortBody(json: unknown): SortField[] {
  const out: SortField[] = [];
  if (Array.isArray(json)) {
    for (const el of json) {
      if (isObject(el)) compound(el, out);
      else if (typeof el === 'string') out.push(clause(el));
      else throw illegalArgument('malformed sort format, within the sort array, an object, or an actual string are allowed');
    }
  } else if (isObject(json)) compound(json, out);
  else if (typeof json === 'string' || typeof json === 'number' || typeof json === 'boolean') out.push(clause(scalarText(json)));
  else throw illegalArgument('malformed sort format, either start with array, object, or an actual string');
  return out;
}
