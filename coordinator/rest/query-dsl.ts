/**
 * The ES query DSL (`"query": {...}`) → the shared {@link Query} AST, with Elasticsearch's parse
 * errors. Mirrors `AbstractQueryBuilder.parseInnerQueryBuilder` and each builder's `fromXContent`:
 * manual parsers answer `parsing_exception` (`[match] query does not support [foo]`), the
 * `ObjectParser`-based ones (`bool`, `ids`, `match_all`) `x_content_parse_exception`
 * (`[1:1] [bool] unknown field [foo]`, and `[bool] failed to parse field [must]` around inner errors).
 * Token positions are not kept, so `line`/`col` are always 1/1.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/query/AbstractQueryBuilder.java
 */
import { EsError, illegalArgument, parsingException } from '../../protocol/errors.ts';
import { MAX_CLAUSE_COUNT, type MultiMatchType, type Operator, type Query } from '../../protocol/query-ast.ts';
import { boostOf, didYouMean, isObject, operatorOf, scalarText, tokenName, xContentBoolean, xContentError, xContentFloat, xContentInt } from './params.ts';
import { eachParam, fieldAndBoost, isValue, msmOf, singleField, unknownToken, unsupportedParam, type Obj } from './query-dsl-params.ts';
import { parseQueryStringQuery } from './query-string-query.ts';
import { parseSimpleQueryStringQuery } from './simple-query-string-query.ts';
import { parseExists, parseRange, parseRegexpQuery, parseTermLike, parseTerms } from './query-dsl-term-level.ts';
import { FuzzyParams, parseFuzzy, parseMatchBoolPrefix, parseMatchPhrasePrefix, parseWildcard, zeroTermsQuery } from './query-dsl-text.ts';

/** ES `indices.query.bool.max_nested_depth` (default 30): query objects allowed along one path. */
export const MAX_NESTED_DEPTH = 30;

/** Every query name ES 8 registers, for `did you mean` and to tell "unknown" from "not supported yet". */
const ES_QUERIES = (
  'bool boosting combined_fields constant_score dis_max distance_feature exists function_score fuzzy ' +
  'geo_bounding_box geo_distance geo_grid geo_polygon geo_shape has_child has_parent ids intervals knn ' +
  'match match_all match_bool_prefix match_none match_phrase match_phrase_prefix more_like_this ' +
  'multi_match nested parent_id percolate pinned prefix query_string range rank_feature regexp script ' +
  'script_score semantic shape simple_query_string span_containing span_field_masking span_first ' +
  'span_multi span_near span_not span_or span_term span_within sparse_vector term terms terms_set ' +
  'text_expansion weighted_tokens wildcard wrapper'
).split(' ');

/** Parses a whole query tree, then enforces Lucene's clause limits. */
export function parseQuery(json: unknown): Query {
  const q = parseInner(json, 1);
  const leaves = countLeaves(q);
  if (leaves > MAX_CLAUSE_COUNT) {
    throw new EsError(400, 'too_many_nested_clauses', `Query contains too many nested clauses; maxClauseCount is set to ${MAX_CLAUSE_COUNT}`);
  }
  return q;
}

/** Counts leaf queries (Lucene `getNumClausesCheckVisitor`); throws `too_many_clauses` for a single over-long bool. */
function countLeaves(q: Query): number {
  const sum = (qs: Query[]) => qs.reduce((n, c) => n + countLeaves(c), 0);
  if (q.kind === 'bool') {
    const clauses = [...q.must, ...q.should, ...q.filter, ...q.mustNot];
    if (clauses.length > MAX_CLAUSE_COUNT) throw new EsError(400, 'too_many_clauses', `maxClauseCount is set to ${MAX_CLAUSE_COUNT}`);
    return sum(clauses);
  }
  if (q.kind === 'dis_max') return sum(q.queries);
  if (q.kind === 'constant_score') return countLeaves(q.filter);
  if (q.kind === 'multi_field') return q.fields.length * countLeaves(q.query);
  return q.kind === 'multi_match' ? q.fields.length : 1;
}

/**
 * One query object `{"<name>": {...}}` at nesting `depth` (1 = top level).
 * @throws EsError with ES's texts: `unknown query [x]`, `[x] malformed query, expected [END_OBJECT] but found [FIELD_NAME]`,
 *   `[x] query malformed, no start_object after query name`, `query malformed, empty clause found at [1:1]`,
 *   `The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.bool.max_nested_depth]`.
 */
function parseInner(json: unknown, depth: number): Query {
  if (!isObject(json)) throw parsingException('[_na] query malformed, must start with start_object');
  const keys = Object.keys(json);
  if (keys.length === 0) throw illegalArgument('query malformed, empty clause found at [1:1]');
  if (depth > MAX_NESTED_DEPTH) {
    throw illegalArgument('The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.bool.max_nested_depth]');
  }
  const name = keys[0];
  const body = json[name];
  if (!isObject(body)) throw parsingException(`[${name}] query malformed, no start_object after query name`);
  const parser = Object.hasOwn(PARSERS, name) ? PARSERS[name] : undefined;
  if (!parser) {
    if (ES_QUERIES.includes(name)) throw illegalArgument(`query [${name}] is not supported by Folio yet`);
    throw parsingException(`unknown query [${name}]${didYouMean(name, ES_QUERIES)}`);
  }
  const q = parser(body, depth);
  if (keys.length > 1) throw parsingException(`[${name}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]`);
  return q;
}

/** Parameters ES accepts on `match`/`multi_match` that Folio accepts and does not apply. */
const MATCH_IGNORED = ['lenient', 'auto_generate_synonyms_phrase_query', '_name'];

/** `match` and `match_phrase`: short `{"f": "text"}` or long `{"f": {"query": …, …}}`. */
function parseText(name: 'match' | 'match_phrase', body: Obj): Query {
  let query: string | undefined;
  let operator: Operator = 'or';
  let msm: string | number | undefined;
  let analyzer: string | undefined;
  let slop = 0;
  let boost = 1;
  const phrase = name === 'match_phrase';
  const fuzzy = new FuzzyParams();
  const field = singleField(
    name,
    body,
    (_f, params) =>
      eachParam(name, params, (k, v) => {
        if (k === 'query') query = scalarText(v);
        else if (k === 'boost') boost = boostOf(v);
        else if (k === 'zero_terms_query') zeroTermsQuery(v);
        else if (phrase && k === 'slop') slop = xContentInt(v);
        else if (!phrase && k === 'operator') operator = operatorOf(v);
        else if (!phrase && k === 'minimum_should_match') msm = msmOf(v);
        else if (!phrase && k === 'analyzer') analyzer = scalarText(v);
        else if (!phrase && fuzzy.take(k, v)) return true;
        else return (phrase ? ['analyzer', '_name'] : MATCH_IGNORED).includes(k);
        return true;
      }),
    (f, v) => {
      if (Array.isArray(v)) throw unknownToken(name, v, f);
      query = v === null ? undefined : scalarText(v);
    },
  );
  if (query === undefined || field === undefined) throw parsingException('No text specified for text query');
  if (phrase) {
    if (slop < 0) throw illegalArgument('No negative slop allowed.');
    return { kind: 'match_phrase', field, query, slop, boost };
  }
  const q: Query = { kind: 'match', field, query, operator, boost };
  if (msm !== undefined) q.minimumShouldMatch = msm;
  if (analyzer !== undefined) q.analyzer = analyzer;
  const fo = fuzzy.options();
  if (fo) q.fuzzy = fo;
  return q;
}

const MULTI_MATCH_TYPES: readonly MultiMatchType[] = ['best_fields', 'most_fields', 'phrase', 'cross_fields', 'bool_prefix'];

function parseMultiMatch(body: Obj): Query {
  let query: string | undefined;
  const fields: { field: string; boost: number }[] = [];
  let type: MultiMatchType = 'best_fields';
  let slop = 0;
  let tieBreaker = 0;
  let operator: Operator = 'or';
  let msm: string | number | undefined;
  let analyzer: string | undefined;
  let boost = 1;
  const fuzzy = new FuzzyParams();
  for (const [k, v] of Object.entries(body)) {
    if (k === 'fields' && Array.isArray(v)) {
      for (const f of v) {
        if (typeof f !== 'string') throw parsingException(`[multi_match] query does not support [${k}]`);
        fields.push(fieldAndBoost(f));
      }
      continue;
    }
    if (!isValue(v)) throw unknownToken('multi_match', v, k);
    if (k === 'query') query = scalarText(v);
    else if (k === 'fields') fields.push(fieldAndBoost(scalarText(v)));
    else if (k === 'type') {
      const t = scalarText(v).toLowerCase();
      const known = MULTI_MATCH_TYPES.find((x) => x === t);
      if (known) type = known;
      else if (t === 'phrase_prefix') throw illegalArgument(`[multi_match] query type [${t}] is not supported by Folio yet`);
      else throw new EsError(400, 'parse_exception', `failed to parse [multi_match] query type [${scalarText(v)}]. unknown type.`);
    } else if (k === 'tie_breaker') tieBreaker = xContentFloat(v);
    else if (k === 'operator') operator = operatorOf(v);
    else if (k === 'minimum_should_match') msm = msmOf(v);
    else if (k === 'boost') boost = boostOf(v);
    else if (k === 'slop') slop = xContentInt(v);
    else if (k === 'analyzer') analyzer = scalarText(v);
    else if (k === 'zero_terms_query') zeroTermsQuery(v);
    else if (!fuzzy.take(k, v) && !MATCH_IGNORED.includes(k)) throw unsupportedParam('multi_match', k);
  }
  if (query === undefined) throw parsingException('No text specified for multi_match query');
  const fo = fuzzy.options();
  if (fo && (type === 'cross_fields' || type === 'phrase')) throw parsingException(`Fuzziness not allowed for type [${type}]`);
  if (slop !== 0 && type === 'bool_prefix') throw parsingException(`[slop] not allowed for type [${type}]`);
  if (fields.length === 0) fields.push({ field: '*', boost: 1 });
  const q: Query = { kind: 'multi_match', fields, query, operator, type, tieBreaker, boost };
  if (msm !== undefined) q.minimumShouldMatch = msm;
  if (analyzer !== undefined) q.analyzer = analyzer;
  if (fo) q.fuzzy = fo;
  return q;
}

/** `ObjectParser` unknown-field error: `[1:1] [name] unknown field [k]` plus ES's suggestion. */
const unknownField = (q: string, k: string, known: string[]) => xContentError(`[${q}] unknown field [${k}]${didYouMean(k, known)}`);
/** `ObjectParser` wrapping of a failure while parsing field `k`. */
function inField<T>(q: string, k: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof EsError) throw xContentError(`[${q}] failed to parse field [${k}]`, e.toCause());
    throw e;
  }
}

function parseIds(body: Obj): Query {
  let values: string[] = [];
  let boost = 1;
  for (const [k, v] of Object.entries(body)) {
    if (!['values', 'boost', '_name'].includes(k)) throw unknownField('ids', k, ['values', 'boost', '_name']);
    inField('ids', k, () => {
      if (k === 'values') {
        const arr = Array.isArray(v) ? v : [v];
        values = arr.map((x) => {
          if (!isValue(x)) throw xContentError(`[ids] values doesn't support values of type: ${tokenName(x)}`);
          return scalarText(x);
        });
      } else if (k === 'boost') boost = boostOf(v);
      else scalarText(v);
    });
  }
  return { kind: 'ids', values, boost };
}

function parseMatchAllNone(kind: 'match_all' | 'match_none', body: Obj): Query {
  let boost = 1;
  for (const [k, v] of Object.entries(body)) {
    if (k === 'boost') boost = kind === 'match_all' ? inField(kind, k, () => boostOf(v)) : boostOf(v);
    else if (k === '_name') continue;
    else if (kind === 'match_all') throw unknownField(kind, k, ['boost', '_name']);
    else if (isValue(v)) throw unsupportedParam(kind, k);
    else throw unknownToken(kind, v, k);
  }
  return { kind, boost };
}

const BOOL_FIELDS = ['must', 'should', 'must_not', 'filter', 'minimum_should_match', 'boost', '_name', 'adjust_pure_negative'];

function parseBool(body: Obj, depth: number): Query {
  const q = { kind: 'bool' as const, must: [] as Query[], should: [] as Query[], filter: [] as Query[], mustNot: [] as Query[], boost: 1 };
  let msm: string | number | undefined;
  for (const [k, v] of Object.entries(body)) {
    if (!BOOL_FIELDS.includes(k)) throw unknownField('bool', k, BOOL_FIELDS);
    inField('bool', k, () => {
      const list = k === 'must' ? q.must : k === 'should' ? q.should : k === 'filter' ? q.filter : k === 'must_not' ? q.mustNot : null;
      if (list) {
        if (v === null) return;
        if (!isObject(v) && !Array.isArray(v)) throw xContentError(`[bool] ${k} doesn't support values of type: ${tokenName(v)}`);
        for (const c of Array.isArray(v) ? v : [v]) list.push(parseInner(c, depth + 1));
      } else if (k === 'minimum_should_match') {
        if (v !== null && !isValue(v)) throw xContentError(`[bool] ${k} doesn't support values of type: ${tokenName(v)}`);
        if (v !== null) msm = msmOf(v);
      } else if (k === 'boost') q.boost = boostOf(v);
      else if (k === 'adjust_pure_negative') xContentBoolean(v);
      else scalarText(v);
    });
  }
  return msm === undefined ? q : { ...q, minimumShouldMatch: msm };
}

function parseConstantScore(body: Obj, depth: number): Query {
  let filter: Query | undefined;
  let boost = 1;
  for (const [k, v] of Object.entries(body)) {
    if (isObject(v)) {
      if (k !== 'filter') throw unsupportedParam('constant_score', k);
      filter = parseInner(v, depth + 1);
    } else if (isValue(v)) {
      if (k === 'boost') boost = boostOf(v);
      else if (k !== '_name') throw unsupportedParam('constant_score', k);
    } else throw parsingException(`unexpected token [${tokenName(v)}]`);
  }
  if (!filter) throw parsingException("[constant_score] requires a 'filter' element");
  return { kind: 'constant_score', filter, boost };
}

function parseDisMax(body: Obj, depth: number): Query {
  const queries: Query[] = [];
  let tieBreaker = 0;
  let boost = 1;
  for (const [k, v] of Object.entries(body)) {
    if (isObject(v) || Array.isArray(v)) {
      if (k !== 'queries') throw unsupportedParam('dis_max', k);
      for (const c of Array.isArray(v) ? v : [v]) queries.push(parseInner(c, depth + 1));
    } else if (isValue(v)) {
      if (k === 'boost') boost = boostOf(v);
      else if (k === 'tie_breaker') tieBreaker = xContentFloat(v);
      else if (k !== '_name') throw unsupportedParam('dis_max', k);
    } else throw unknownToken('dis_max', v, k);
  }
  if (queries.length === 0) throw parsingException("[dis_max] requires 'queries' field with at least one clause");
  return { kind: 'dis_max', queries, tieBreaker, boost };
}

const PARSERS: Record<string, (body: Obj, depth: number) => Query> = {
  match_all: (b) => parseMatchAllNone('match_all', b),
  match_none: (b) => parseMatchAllNone('match_none', b),
  match: (b) => parseText('match', b),
  match_phrase: (b) => parseText('match_phrase', b),
  multi_match: parseMultiMatch,
  term: (b) => parseTermLike('term', b),
  prefix: (b) => parseTermLike('prefix', b),
  terms: parseTerms,
  range: parseRange,
  exists: parseExists,
  ids: parseIds,
  regexp: parseRegexpQuery,
  bool: parseBool,
  constant_score: parseConstantScore,
  dis_max: parseDisMax,
  match_bool_prefix: parseMatchBoolPrefix,
  match_phrase_prefix: parseMatchPhrasePrefix,
  fuzzy: parseFuzzy,
  wildcard: parseWildcard,
  query_string: parseQueryStringQuery,
  simple_query_string: parseSimpleQueryStringQuery,
};
