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
  let query: string | undefined;
  let defaultField: string | undefined;
  let fields: { field: string; boost: number }[] | undefined;
  let defaultOperator: Operator = 'or';
  let fuzziness: Fuzziness = AUTO;
  let fuzzyPrefixLength = 0;
  let fuzzyMaxExpansions = DEFAULT_MAX_EXPANSIONS;
  let fuzzyTranspositions = true;
  let fuzzyRewrite: string | undefined;
  let tieBreaker: number | undefined;
  let typeTie = 0;
  let msm: string | number | undefined;
  let escape = false;
  let boost = 1;
  const opts: Partial<QueryStringOptions> = {};
  for (const [k, v] of Object.entries(body)) {
    if (Array.isArray(v)) {
      if (k !== 'fields') throw parsingException(`[${NAME}] query does not support [${k}]`);
      fields = v.map((f) => fieldAndBoost(scalarText(f)));
      continue;
    }
    if (!isValue(v)) throw parsingException(`[${NAME}] unknown token [${v === null ? 'VALUE_NULL' : 'START_OBJECT'}] after [${k}]`);
    switch (k) {
      case 'query':
        query = scalarText(v);
        break;
      case 'default_field':
        defaultField = scalarText(v);
        break;
      case 'default_operator':
        defaultOperator = operatorOf(v);
        break;
      case 'analyzer':
        opts.analyzer = scalarText(v);
        break;
      case 'allow_leading_wildcard':
        opts.allowLeadingWildcard = xContentBoolean(v);
        break;
      case 'analyze_wildcard':
        opts.analyzeWildcard = xContentBoolean(v);
        break;
      case 'lenient':
        opts.lenient = xContentBoolean(v);
        break;
      case 'max_determinized_states':
        opts.maxDeterminizedStates = xContentInt(v);
        break;
      case 'escape':
        escape = xContentBoolean(v);
        break;
      case 'fuzziness':
        fuzziness = parseFuzziness(v);
        break;
      case 'fuzzy_prefix_length':
        fuzzyPrefixLength = xContentInt(v);
        break;
      case 'fuzzy_max_expansions':
        fuzzyMaxExpansions = xContentInt(v);
        break;
      case 'fuzzy_transpositions':
        fuzzyTranspositions = xContentBoolean(v);
        break;
      case 'fuzzy_rewrite':
        fuzzyRewrite = scalarText(v);
        break;
      case 'phrase_slop':
        opts.phraseSlop = xContentInt(v);
        break;
      case 'rewrite':
        opts.rewrite = scalarText(v);
        break;
      case 'type':
        typeTie = typeTieBreaker(v);
        break;
      case 'tie_breaker':
        tieBreaker = xContentFloat(v);
        break;
      case 'minimum_should_match':
        msm = msmOf(v);
        break;
      case 'boost':
        boost = boostOf(v);
        break;
      case 'time_zone':
      case 'quote_analyzer':
      case 'quote_field_suffix':
        throw notYet(NAME, k);
      default:
        if (!ACCEPTED.includes(k)) throw parsingException(`[${NAME}] query does not support [${k}]`);
    }
  }
  if (query === undefined) throw parsingException(`[${NAME}] must be provided with a [query]`);
  if (fields !== undefined && fields.length > 0 && defaultField !== undefined) {
    const reason = `Validation Failed: 1: [${NAME}] cannot use [fields] parameter in conjunction with [default_field];`;
    throw new EsError(400, 'query_shard_exception', `failed to create query: ${reason}`, { causedBy: { type: 'query_validation_exception', reason } });
  }
  const fuzzy = { fuzziness, prefixLength: fuzzyPrefixLength, maxExpansions: fuzzyMaxExpansions, transpositions: fuzzyTranspositions };
  const parsed = parseQueryString(escape ? escapeQueryString(query) : query, {
    ...opts,
    defaultOperator,
    ...(defaultField !== undefined ? { df: defaultField } : {}),
    ...(fields !== undefined && fields.length > 0 ? { fields } : {}),
    fuzzy: fuzzyRewrite === undefined ? fuzzy : { ...fuzzy, rewrite: fuzzyRewrite },
    tieBreaker: tieBreaker ?? typeTie,
  });
  const withMsm = msm !== undefined && parsed.kind === 'bool' ? { ...parsed, minimumShouldMatch: msm } : parsed;
  return boost === 1 ? withMsm : { ...withMsm, boost: Math.fround(withMsm.boost * boost) };
}
