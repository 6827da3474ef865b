/**
 * Parsers of ES's term-level queries that match exact values (`term`, `prefix`, `regexp`, `terms`
 * with its lookup, `range`, `exists`), each as its builder's `fromXContent` with ES's texts;
 * `ids` stays with the `ObjectParser`-based queries (query-dsl.ts), `fuzzy` and `wildcard` with the
 * multi-term ones (query-dsl-text.ts).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/term-level-queries.html
 */
import { illegalArgument, parsingException } from '../../protocol/errors.ts';
import type { Query, TermValue } from '../../protocol/query-ast.ts';
import { DEFAULT_MAX_DETERMINIZED_STATES, resolveRegexpFlags } from '../../protocol/regexp-flags.ts';
import { boostOf, didYouMean, isObject, scalarText, tokenName, xContentBoolean, xContentError, xContentInt } from './params.ts';
import { eachParam, isValue, multipleFields, singleField, unknownToken, unsupportedParam, type Obj } from './query-dsl-params.ts';

/** `term` and `prefix`: value, boost, case_insensitive; short form `{"f": v}`. */
export function parseTermLike(name: 'term' | 'prefix', body: Obj): Query {
  let value: TermValue | undefined;
  let boost = 1;
  let caseInsensitive = false;
  let rewrite: string | undefined;
  const valueKeys = name === 'term' ? ['value', 'term'] : ['value', 'prefix'];
  const field = singleField(
    name,
    body,
    (_f, params) =>
      eachParam(name, params, (k, v) => {
        if (valueKeys.includes(k)) value = v;
        else if (k === 'boost') boost = boostOf(v);
        else if (k === 'case_insensitive') caseInsensitive = xContentBoolean(v);
        else if (name === 'prefix' && k === 'rewrite') rewrite = scalarText(v);
        else return k === '_name';
        return true;
      }),
    (f, v) => {
      if (Array.isArray(v) && name === 'term') throw parsingException('[term] query does not support array of values');
      if (!isValue(v)) throw unknownToken(name, v, f);
      value = v;
    },
  );
  if (!field) throw illegalArgument('field name is null or empty');
  if (value === undefined) throw illegalArgument('value cannot be null');
  if (name === 'prefix') {
    const q: Query = { kind: 'prefix', field, value: scalarText(value), caseInsensitive, boost };
    if (rewrite !== undefined) q.rewrite = rewrite;
    return q;
  }
  return { kind: 'term', field, value, caseInsensitive, boost };
}

/** ES `RegexpFlag.resolveValue`; an unknown name is a 400 `Unknown regexp flag [x]`. */
function regexpFlagsOf(flags: string): number {
  try {
    return resolveRegexpFlags(flags);
  } catch (e) {
    throw illegalArgument((e as Error).message);
  }
}

/**
 * `regexp` (`RegexpQueryBuilder.fromXContent`): `{"f": "a.*"}` or `{"f": {"value": …, "flags": "ALL",
 * "case_insensitive": …, "max_determinized_states": …, "flags_value": …, "rewrite": …}}`. The
 * pattern is compiled on the shards (bounded by `index.max_regex_length`, checked by the coordinator).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-regexp-query.html
 */
export function parseRegexpQuery(body: Obj): Query {
  let value: string | undefined;
  let flags = 0xffff;
  let caseInsensitive = false;
  let maxDeterminizedStates = DEFAULT_MAX_DETERMINIZED_STATES;
  let boost = 1;
  const field = singleField(
    'regexp',
    body,
    (_f, params) =>
      eachParam('regexp', params, (k, v) => {
        if (k === 'value') value = scalarText(v);
        else if (k === 'boost') boost = boostOf(v);
        else if (k === 'flags') flags = regexpFlagsOf(scalarText(v));
        else if (k === 'flags_value') flags = xContentInt(v);
        else if (k === 'max_determinized_states') maxDeterminizedStates = xContentInt(v);
        else if (k === 'case_insensitive') caseInsensitive = xContentBoolean(v);
        else return k === 'rewrite' || k === '_name';
        return true;
      }),
    (f, v) => {
      if (!isValue(v)) throw unknownToken('regexp', v, f);
      value = scalarText(v);
    },
  );
  if (!field) throw illegalArgument('field name is null or empty');
  if (value === undefined) throw illegalArgument('value cannot be null');
  return { kind: 'regexp', field, value, flags, caseInsensitive, maxDeterminizedStates, boost };
}

/**
 * `terms` (`TermsQueryBuilder.fromXContent`): `{"f": [v, …]}`, or a terms lookup `{"f": {"index", "id", "path"}}`, with `boost`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-terms-query.html
 */
export function parseTerms(body: Obj): Query {
  let field: string | undefined;
  let values: TermValue[] = [];
  let lookup: TermsLookup | undefined;
  let boost = 1;
  for (const [k, v] of Object.entries(body)) {
    if (Array.isArray(v)) {
      if (field !== undefined) throw parsingException('[terms] query does not support multiple fields');
      field = k;
      values = v.map((x) => {
        if (x === null) throw parsingException('No value specified for terms query');
        if (!isValue(x)) throw illegalArgument(`[terms] query does not support values of type [${tokenName(x)}]`);
        return x;
      });
    } else if (isObject(v)) {
      if (field !== undefined) throw parsingException(`[terms] query does not support more than one field. Already got: [${field}] but also found [${k}]`);
      field = k;
      lookup = parseTermsLookup(v);
    } else if (isValue(v)) {
      if (k === 'boost') boost = boostOf(v);
      else if (k !== '_name') throw unsupportedParam('terms', k);
    } else throw unknownToken('terms', v, k);
  }
  if (field === undefined) {
    throw parsingException('[terms] query requires a field name, followed by array of terms or a document lookup specification');
  }
  if (lookup) return { kind: 'terms_lookup', field, ...lookup, boost };
  return { kind: 'terms', field, values, boost };
}

/** The document a terms lookup reads its values from. */
type TermsLookup = { index: string; id: string; path: string; routing?: string };

/**
 * ES `TermsLookup` (a `ConstructingObjectParser` named `terms_lookup`): string `index`, `id`, `path`
 * (required) and `routing`.
 * @throws EsError 400 `x_content_parse_exception` `[1:1] [terms_lookup] unknown field [x]` or
 *   `[1:1] [terms_lookup] id doesn't support values of type: VALUE_NUMBER`; `illegal_argument_exception`
 *   `Required [index, path]` for missing ones.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-terms-query.html#query-dsl-terms-lookup
 */
function parseTermsLookup(spec: Obj): TermsLookup {
  const known = ['index', 'id', 'path', 'routing'];
  const got: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec)) {
    if (!known.includes(k)) throw xContentError(`[terms_lookup] unknown field [${k}]${didYouMean(k, known)}`);
    if (typeof v !== 'string') throw xContentError(`[terms_lookup] ${k} doesn't support values of type: ${tokenName(v)}`);
    got[k] = v;
  }
  const missing = ['index', 'id', 'path'].filter((k) => got[k] === undefined);
  if (missing.length > 0) throw illegalArgument(`Required [${missing.join(', ')}]`);
  const out: TermsLookup = { index: got.index, id: got.id, path: got.path };
  if (got.routing !== undefined) out.routing = got.routing;
  return out;
}

/**
 * `range` (`RangeQueryBuilder.fromXContent`): `gt`/`gte`/`lt`/`lte` (and the older `from`/`to`/`include_*`),
 * `format`, `time_zone`, `boost`; the bounds are read against the field's type on the shards.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-range-query.html
 */
export function parseRange(body: Obj): Query {
  let field: string | undefined;
  let from: TermValue | null = null;
  let to: TermValue | null = null;
  let includeLower = true;
  let includeUpper = true;
  let boost = 1;
  let format: string | undefined;
  let timeZone: string | undefined;
  const bound = (v: unknown): TermValue | null => (v === null ? null : (v as TermValue));
  for (const [k, v] of Object.entries(body)) {
    if (isObject(v)) {
      if (field !== undefined) throw multipleFields('range', field, k);
      field = k;
      for (const [p, pv] of Object.entries(v)) {
        if (pv !== null && !isValue(pv)) throw unknownToken('range', pv, p);
        if (p === 'from') from = bound(pv);
        else if (p === 'to') to = bound(pv);
        else if (p === 'gt') [from, includeLower] = [bound(pv), false];
        else if (p === 'gte') [from, includeLower] = [bound(pv), true];
        else if (p === 'lt') [to, includeUpper] = [bound(pv), false];
        else if (p === 'lte') [to, includeUpper] = [bound(pv), true];
        else if (p === 'include_lower') includeLower = xContentBoolean(pv);
        else if (p === 'include_upper') includeUpper = xContentBoolean(pv);
        else if (p === 'boost') boost = boostOf(pv);
        else if (p === 'format') format = pv === null ? undefined : String(pv);
        else if (p === 'time_zone') timeZone = pv === null ? undefined : String(pv);
        else if (!['relation', '_name'].includes(p)) throw unsupportedParam('range', p);
      }
    } else if (isValue(v)) {
      if (k !== '_name') throw unsupportedParam('range', k);
    } else throw unknownToken('range', v, k);
  }
  if (!field) throw illegalArgument('field name is null or empty');
  const q: Query = { kind: 'range', field, boost };
  if (format !== undefined) q.format = format;
  if (timeZone !== undefined) q.timeZone = timeZone;
  if (from !== null) q[includeLower ? 'gte' : 'gt'] = from;
  if (to !== null) q[includeUpper ? 'lte' : 'lt'] = to;
  return q;
}

/**
 * `exists` (`ExistsQueryBuilder.fromXContent`): `{"field": "f"}` with `boost`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-exists-query.html
 */
export function parseExists(body: Obj): Query {
  let field: string | undefined;
  let boost = 1;
  eachParam('exists', body, (k, v) => {
    if (k === 'field') field = scalarText(v);
    else if (k === 'boost') boost = boostOf(v);
    else return k === '_name';
    return true;
  });
  if (field === undefined) throw parsingException('[exists] must be provided with a [field]');
  return { kind: 'exists', field, boost };
}
