/**
 * The `query_string` query in a search body (`QueryStringQueryBuilder.fromXContent`), parsed with
 * the same Lucene classic grammar as the `q=` URI search (query-string.ts), its options mapped onto
 * that parser's: `default_field` or `fields` (boosts, `*` patterns), `default_operator`, `analyzer`,
 * `lenient`, `analyze_wildcard`, `allow_leading_wildcard`, the fuzzy options of `term~`,
 * `phrase_slop`, `type` (`best_fields`, `most_fields`) and `tie_breaker`, `rewrite`, `escape`,
 * `minimum_should_match` (on the top-level bool, as `Queries.maybeApplyMinimumShouldMatch`) and `boost`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-query-string-query.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/query/QueryStringQueryBuilder.java
 */
import { EsError, illegalArgument, parsingException } from '../../protocol/errors.ts';
import { AUTO, DEFAULT_MAX_EXPANSIONS, type Fuzziness } from '../../protocol/fuzziness.ts';
import { parseFuzziness } from './fuzziness-parse.ts';
import type { Operator, Query } from '../../protocol/query-ast.ts';
import { boostOf, operatorOf, scalarText, xContentBoolean, xContentFloat, xContentInt } from './params.ts';
import { fieldAndBoost, isValue, msmOf, notYet, type Obj } from './query-dsl-params.ts';
import { parseQueryString, type QueryStringOptions } from './query-string.ts';

const NAME = 'query_string';

/** Parameters ES accepts that change nothing in Folio (no synonyms, no position-increment filters). */
const ACCEPTED = ['auto_generate_synonyms_phrase_query', 'enable_position_increments', '_name'];

/** Characters Lucene's `QueryParser.escape` escapes. */
const SPECIAL = new Set('\\+-!():^[]"{}~*?|&/'.split(''));

/** Lucene `QueryParser.escape`: every special character gets a backslash (ES `escape: true`). */
export function escapeQueryString(s: string): string {
  let out = '';
  for (const c of s) out += SPECIAL.has(c) ? `\\${c}` : c;
  return out;
}

/** `MultiMatchQueryBuilder.Type.parse` for the types Folio runs in a query string, with their tie breakers. */
function typeTieBreaker(v: string | number | boolean): number {
  const t = scalarText(v).toLowerCase();
  if (t === 'best_fields') return 0;
  if (t === 'most_fields') return 1;
  if (['cross_fields', 'phrase', 'phrase_prefix', 'bool_prefix'].includes(t))
    throw illegalArgument(`[${NAME}] query type [${t}] is not supported by Folio yet`);
  throw new EsError(400, 'parse_exception', `failed to parse [multi_match] query type [${scalarText(v)}]. unknown type.`);
}

/** A `query_string` body's parameters as read (ES `QueryStringQueryBuilder`'s fields, with its defaults), before the checks across them. */
interface QueryStringParams {
  query: string | undefined;
  defaultField: string | undefined;
  fields: { field: string; boost: number }[] | undefined;
  defaultOperator: Operator;
  fuzziness: Fuzziness;
  fuzzyPrefixLength: number;
  fuzzyMaxExpansions: number;
  fuzzyTranspositions: boolean;
  fuzzyRewrite: string | undefined;
  tieBreaker: number | undefined;
  /** The tie breaker of `type` (`best_fields` 0, `most_fields` 1), used when `tie_breaker` is not given. */
  typeTie: number;
  msm: string | number | undefined;
  escape: boolean;
  boost: number;
  /** The options handed to the query-string parser as they are. */
  opts: Partial<QueryStringOptions>;
}

/** Reads one scalar parameter `k` of a `query_string` body into `p`, with ES's errors for unknown or unsupported ones. */
function readScalarParam(p: QueryStringParams, k: string, v: string | number | boolean): void {
  switch (k) {
    case 'query':
      p.query = scalarText(v);
      break;
    case 'default_field':
      p.defaultField = scalarText(v);
      break;
    case 'default_operator':
      p.defaultOperator = operatorOf(v);
      break;
    case 'analyzer':
      p.opts.analyzer = scalarText(v);
      break;
    case 'allow_leading_wildcard':
      p.opts.allowLeadingWildcard = xContentBoolean(v);
      break;
    case 'analyze_wildcard':
      p.opts.analyzeWildcard = xContentBoolean(v);
      break;
    case 'lenient':
      p.opts.lenient = xContentBoolean(v);
      break;
    case 'max_determinized_states':
      p.opts.maxDeterminizedStates = xContentInt(v);
      break;
    case 'escape':
      p.escape = xContentBoolean(v);
      break;
    case 'fuzziness':
      p.fuzziness = parseFuzziness(v);
      break;
    case 'fuzzy_prefix_length':
      p.fuzzyPrefixLength = xContentInt(v);
      break;
    case 'fuzzy_max_expansions':
      p.fuzzyMaxExpansions = xContentInt(v);
      break;
    case 'fuzzy_transpositions':
      p.fuzzyTranspositions = xContentBoolean(v);
      break;
    case 'fuzzy_rewrite':
      p.fuzzyRewrite = scalarText(v);
      break;
    case 'phrase_slop':
      p.opts.phraseSlop = xContentInt(v);
      break;
    case 'rewrite':
      p.opts.rewrite = scalarText(v);
      break;
    case 'type':
      p.typeTie = typeTieBreaker(v);
      break;
    case 'tie_breaker':
      p.tieBreaker = xContentFloat(v);
      break;
    case 'minimum_should_match':
      p.msm = msmOf(v);
      break;
    case 'boost':
      p.boost = boostOf(v);
      break;
    case 'time_zone':
    case 'quote_analyzer':
    case 'quote_field_suffix':
      throw notYet(NAME, k);
    default:
      if (!ACCEPTED.includes(k)) throw parsingException(`[${NAME}] query does not support [${k}]`);
  }
}

/** Step 1: reads a `query_string` body's parameters (`fields` is the only array; objects and nulls are refused). */
function readParams(body: Obj): QueryStringParams {
  const p: QueryStringParams = {
    query: undefined,
    defaultField: undefined,
    fields: undefined,
    defaultOperator: 'or',
    fuzziness: AUTO,
    fuzzyPrefixLength: 0,
    fuzzyMaxExpansions: DEFAULT_MAX_EXPANSIONS,
    fuzzyTranspositions: true,
    fuzzyRewrite: undefined,
    tieBreaker: undefined,
    typeTie: 0,
    msm: undefined,
    escape: false,
    boost: 1,
    opts: {},
  };
  for (const [k, v] of Object.entries(body)) {
    if (Array.isArray(v)) {
      if (k !== 'fields') throw parsingException(`[${NAME}] query does not support [${k}]`);
      p.fields = v.map((f) => fieldAndBoost(scalarText(f)));
      continue;
    }
    if (!isValue(v)) throw parsingException(`[${NAME}] unknown token [${v === null ? 'VALUE_NULL' : 'START_OBJECT'}] after [${k}]`);
    readScalarParam(p, k, v);
  }
  return p;
}

/**
 * Parses a `query_string` body into the query tree (query-string.ts does the grammar).
 * @throws EsError 400: `parsing_exception` `[query_string] query does not support [x]`,
 *   `[query_string] unknown token [T] after [x]`, `[query_string] must be provided with a [query]`;
 *   `query_shard_exception` `Failed to parse query [q]` for a syntax error and `failed to create
 *   query: Validation Failed: 1: [query_string] cannot use [fields] parameter in conjunction with
 *   [default_field];` (ES's texts); `illegal_argument_exception` for `time_zone`, `quote_analyzer`,
 *   `quote_field_suffix` and the multi_match types Folio does not run yet.
 */
export function parseQueryStringQuery(body: Obj): Query {
  const p = readParams(body);
  if (p.query === undefined) throw parsingException(`[${NAME}] must be provided with a [query]`);
  if (p.fields !== undefined && p.fields.length > 0 && p.defaultField !== undefined) {
    const reason = `Validation Failed: 1: [${NAME}] cannot use [fields] parameter in conjunction with [default_field];`;
    throw new EsError(400, 'query_shard_exception', `failed to create query: ${reason}`, { causedBy: { type: 'query_validation_exception', reason } });
  }
  const fuzzy = { fuzziness: p.fuzziness, prefixLength: p.fuzzyPrefixLength, maxExpansions: p.fuzzyMaxExpansions, transpositions: p.fuzzyTranspositions };
  const parsed = parseQueryString(p.escape ? escapeQueryString(p.query) : p.query, {
    ...p.opts,
    defaultOperator: p.defaultOperator,
    ...(p.defaultField !== undefined ? { df: p.defaultField } : {}),
    ...(p.fields !== undefined && p.fields.length > 0 ? { fields: p.fields } : {}),
    fuzzy: p.fuzzyRewrite === undefined ? fuzzy : { ...fuzzy, rewrite: p.fuzzyRewrite },
    tieBreaker: p.tieBreaker ?? p.typeTie,
  });
  const withMsm = p.msm !== undefined && parsed.kind === 'bool' ? { ...parsed, minimumShouldMatch: p.msm } : parsed;
  return p.boost === 1 ? withMsm : { ...withMsm, boost: Math.fround(withMsm.boost * p.boost) };
}
