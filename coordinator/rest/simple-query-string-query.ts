/**
 * The `simple_query_string` query in a search body (`SimpleQueryStringBuilder.fromXContent`), parsed
 * with Lucene's `SimpleQueryParser` grammar (simple-query-string.ts), its options mapped onto that
 * parser's.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-simple-query-string-query.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/query/SimpleQueryStringBuilder.java
 */
import { parsingException } from '../../protocol/errors.ts';
import { DEFAULT_MAX_EXPANSIONS } from '../../protocol/fuzziness.ts';
import type { Operator, Query } from '../../protocol/query-ast.ts';
import { boostOf, operatorOf, scalarText, tokenName, xContentBoolean, xContentInt } from './params.ts';
import { fieldAndBoost, isValue, msmOf, notYet, type Obj } from './query-dsl-params.ts';
import { ALL_SIMPLE_FLAGS, parseSimpleQueryString, resolveSimpleFlags, type SimpleQueryOptions } from './simple-query-string.ts';

const NAME = 'simple_query_string';

const ACCEPTED = ['auto_generate_synonyms_phrase_query', '_name'];

/**
 * `simple_query_string` (`SimpleQueryStringBuilder.fromXContent`): `query`, `fields` (boosts, `*`
 * patterns; default every field, leniently), `default_operator`, `analyzer`, `flags` (names or an
 * int), `lenient`, `analyze_wildcard`, `minimum_should_match` (on the top-level bool), the
 * `fuzzy_*` options, `boost`.
 * @throws EsError 400 `parsing_exception` `[simple_query_string] unsupported field [x]`,
 *   `[simple_query_string] unknown token [T] after [x]`, `[simple_query_string] query text missing`;
 *   `illegal_argument_exception` `Unknown simple_query_string flag [x]`.
 */
export function parseSimpleQueryStringQuery(body: Obj): Query {
  let query: string | undefined;
  let fields: { field: string; boost: number }[] = [];
  let defaultOperator: Operator = 'or';
  let flags = ALL_SIMPLE_FLAGS;
  let msm: string | number | undefined;
  let boost = 1;
  const fuzzy = { prefixLength: 0, maxExpansions: DEFAULT_MAX_EXPANSIONS, transpositions: true };
  const opts: Partial<SimpleQueryOptions> = {};
  for (const [k, v] of Object.entries(body)) {
    if (Array.isArray(v) && k === 'fields') {
      fields = v.map((f) => fieldAndBoost(scalarText(f)));
      continue;
    }
    if (!isValue(v)) throw parsingException(`[${NAME}] unknown token [${tokenName(v)}] after [${k}]`);
    switch (k) {
      case 'query':
        query = scalarText(v);
        break;
      case 'analyzer':
        opts.analyzer = scalarText(v);
        break;
      case 'default_operator':
        defaultOperator = operatorOf(v);
        break;
      case 'flags':
        flags = typeof v === 'number' ? xContentInt(v) : resolveSimpleFlags(scalarText(v));
        if (flags < 0) flags = ALL_SIMPLE_FLAGS;
        break;
      case 'lenient':
        opts.lenient = xContentBoolean(v);
        break;
      case 'analyze_wildcard':
        opts.analyzeWildcard = xContentBoolean(v);
        break;
      case 'minimum_should_match':
        msm = msmOf(v);
        break;
      case 'fuzzy_prefix_length':
        fuzzy.prefixLength = xContentInt(v);
        break;
      case 'fuzzy_max_expansions':
        fuzzy.maxExpansions = xContentInt(v);
        break;
      case 'fuzzy_transpositions':
        fuzzy.transpositions = xContentBoolean(v);
        break;
      case 'boost':
        boost = boostOf(v);
        break;
      case 'quote_field_suffix':
        throw notYet(NAME, k);
      default:
        if (!ACCEPTED.includes(k)) throw parsingException(`[${NAME}] unsupported field [${k}]`);
    }
  }
  if (query === undefined) throw parsingException(`[${NAME}] query text missing`);
  const parsed = parseSimpleQueryString(query, {
    ...opts,
    fields: fields.length > 0 ? fields : [{ field: '*', boost: 1 }],
    defaultOperator,
    flags,
    fuzzy,
  });
  const withMsm = msm !== undefined && parsed.kind === 'bool' ? { ...parsed, minimumShouldMatch: msm } : parsed;
  return boost === 1 ? withMsm : { ...withMsm, boost: Math.fround(withMsm.boost * boost) };
}
