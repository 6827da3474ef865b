/**
 * Parsers of the ES full-text and multi-term queries beyond `match`/`term` (`match_bool_prefix`,
 * `match_phrase_prefix`, `fuzzy`, `wildcard`), and the fuzziness parameters `match`,
 * `multi_match` and these share, each as its builder's `fromXContent` with ES's texts. Analysis,
 * term expansion and the rewrite method run on the shard (shard-node/engine/multi-term.ts).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/full-text-queries.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/term-level-queries.html
 */
import { illegalArgument, parsingException } from '../../protocol/errors.ts';
import { DEFAULT_MAX_EXPANSIONS, type Fuzziness, type FuzzyOptions } from '../../protocol/fuzziness.ts';
import { parseFuzziness } from './fuzziness-parse.ts';
import type { Operator, Query } from '../../protocol/query-ast.ts';
import { boostOf, operatorOf, scalarText, tokenName, xContentBoolean, xContentInt } from './params.ts';
import { eachParam, isValue, msmOf, singleField, unknownToken, type Obj } from './query-dsl-params.ts';

/**
 * Collects the fuzzy parameters of one query body (`fuzziness`, `prefix_length`, `max_expansions`,
 * the transpositions flag and the rewrite), under the names that query uses.
 */
export class FuzzyParams {
  fuzziness: Fuzziness | undefined;
  prefixLength = 0;
  maxExpansions = DEFAULT_MAX_EXPANSIONS;
  transpositions = true;
  rewrite: string | undefined;
  private readonly names: { transpositions: string; rewrite: string };

  /** `transpositions`/`rewrite`: the parameter names (`fuzzy_transpositions`/`fuzzy_rewrite` in full-text queries). */
  constructor(names = { transpositions: 'fuzzy_transpositions', rewrite: 'fuzzy_rewrite' }) {
    this.names = names;
  }

  /** Takes `key` when it is a fuzzy parameter; false otherwise. */
  take(key: string, v: string | number | boolean): boolean {
    if (key === 'fuzziness') this.fuzziness = parseFuzziness(v);
    else if (key === 'prefix_length') this.prefixLength = xContentInt(v);
    else if (key === 'max_expansions') this.maxExpansions = xContentInt(v);
    else if (key === this.names.transpositions) this.transpositions = xContentBoolean(v);
    else if (key === this.names.rewrite) this.rewrite = scalarText(v);
    else return false;
    return true;
  }

  /** The options, or undefined when no `fuzziness` was given (the query is not fuzzy). */
  options(): FuzzyOptions | undefined {
    if (this.fuzziness === undefined) return undefined;
    return this.with(this.fuzziness);
  }

  /** The options with `fuzziness` (the `fuzzy` query's default is AUTO). */
  with(fuzziness: Fuzziness): FuzzyOptions {
    const o: FuzzyOptions = { fuzziness, prefixLength: this.prefixLength, maxExpansions: this.maxExpansions, transpositions: this.transpositions };
    if (this.rewrite !== undefined) o.rewrite = this.rewrite;
    return o;
  }
}

/** The short form's value (`parser.objectText()`); arrays and objects are refused as ES's manual parsers do. */
function shortValue(q: string, field: string, v: unknown): string | undefined {
  if (v === null) return undefined;
  if (!isValue(v)) throw unknownToken(q, v, field);
  return scalarText(v);
}

/**
 * `match_bool_prefix` (`MatchBoolPrefixQueryBuilder.fromXContent`): `{"f": "text"}` or `{"f": {"query",
 * "analyzer", "operator", "minimum_should_match", "fuzziness", "prefix_length", "max_expansions",
 * "fuzzy_transpositions", "fuzzy_rewrite", "boost", "_name"}}`.
 * @throws EsError 400 `parsing_exception` `[match_bool_prefix] query does not support [x]`,
 *   `illegal_argument_exception` `[match_bool_prefix] requires fieldName` / `requires query value`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-match-bool-prefix-query.html
 */
export function parseMatchBoolPrefix(body: Obj): Query {
  const name = 'match_bool_prefix';
  let query: string | undefined;
  let analyzer: string | undefined;
  let operator: Operator = 'or';
  let msm: string | number | undefined;
  let boost = 1;
  const fuzzy = new FuzzyParams();
  const field = singleField(
    name,
    body,
    (_f, params) =>
      eachParam(name, params, (k, v) => {
        if (k === 'query') query = scalarText(v);
        else if (k === 'analyzer') analyzer = scalarText(v);
        else if (k === 'operator') operator = operatorOf(v);
        else if (k === 'minimum_should_match') msm = msmOf(v);
        else if (k === 'boost') boost = boostOf(v);
        else return fuzzy.take(k, v) || k === '_name';
        return true;
      }),
    (f, v) => (query = shortValue(name, f, v)),
  );
  if (!field) throw illegalArgument(`[${name}] requires fieldName`);
  if (query === undefined) throw illegalArgument(`[${name}] requires query value`);
  const q: Query = { kind: 'match_bool_prefix', field, query, operator, boost };
  if (msm !== undefined) q.minimumShouldMatch = msm;
  if (analyzer !== undefined) q.analyzer = analyzer;
  const fo = fuzzy.options();
  if (fo) q.fuzzy = fo;
  return q;
}

/**
 * `match_phrase_prefix` (`MatchPhrasePrefixQueryBuilder.fromXContent`): `query`, `analyzer`, `slop`,
 * `max_expansions` (default 50), `zero_terms_query`, `boost`, `_name`.
 * @throws EsError 400 `illegal_argument_exception` `No negative slop allowed.`, `[match_phrase_prefix] requires fieldName`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-match-query-phrase-prefix.html
 */
export function parseMatchPhrasePrefix(body: Obj): Query {
  const name = 'match_phrase_prefix';
  let query: string | undefined;
  let analyzer: string | undefined;
  let slop = 0;
  let maxExpansions = DEFAULT_MAX_EXPANSIONS;
  let boost = 1;
  const field = singleField(
    name,
    body,
    (_f, params) =>
      eachParam(name, params, (k, v) => {
        if (k === 'query') query = scalarText(v);
        else if (k === 'analyzer') analyzer = scalarText(v);
        else if (k === 'slop') slop = xContentInt(v);
        else if (k === 'max_expansions') maxExpansions = xContentInt(v);
        else if (k === 'boost') boost = boostOf(v);
        else if (k === 'zero_terms_query') zeroTermsQuery(v);
        else return k === '_name';
        return true;
      }),
    (f, v) => (query = shortValue(name, f, v)),
  );
  if (field === undefined) throw illegalArgument(`[${name}] requires fieldName`);
  if (query === undefined) throw illegalArgument(`[${name}] requires query value`);
  if (slop < 0) throw illegalArgument('No negative slop allowed.');
  const q: Query = { kind: 'match_phrase_prefix', field, query, slop, maxExpansions, boost };
  if (analyzer !== undefined) q.analyzer = analyzer;
  return q;
}

/**
 * Checks `zero_terms_query` of the match family: `none` or `all` in any case. Like `match`'s, the
 * value is accepted and not applied: a query that analyzes to no terms matches nothing
 * (docs/compatibility.md).
 * @throws EsError 400 `parsing_exception` `Unsupported zero_terms_query value [x]`.
 */
export function zeroTermsQuery(v: string | number | boolean): void {
  const s = scalarText(v).toLowerCase();
  if (s !== 'none' && s !== 'all') throw parsingException(`Unsupported zero_terms_query value [${scalarText(v)}]`);
}

/**
 * `fuzzy` (`FuzzyQueryBuilder.fromXContent`): `{"f": "text"}` or `{"f": {"value" | "term", "fuzziness"
 * (default AUTO), "prefix_length", "max_expansions", "transpositions", "rewrite", "boost", "_name"}}`.
 * @throws EsError 400 `parsing_exception` `[fuzzy] query does not support [x]`, `[fuzzy] unexpected token [T] after [x]`;
 *   `illegal_argument_exception` `field name cannot be null or empty`, `query value cannot be null`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-fuzzy-query.html
 */
export function parseFuzzy(body: Obj): Query {
  let value: string | undefined;
  let boost = 1;
  const fuzzy = new FuzzyParams({ transpositions: 'transpositions', rewrite: 'rewrite' });
  const field = singleField(
    'fuzzy',
    body,
    (_f, params) => {
      for (const [k, v] of Object.entries(params)) {
        if (!isValue(v)) throw parsingException(`[fuzzy] unexpected token [${tokenName(v)}] after [${k}]`);
        if (k === 'value' || k === 'term') value = scalarText(v);
        else if (k === 'boost') boost = boostOf(v);
        else if (!fuzzy.take(k, v) && k !== '_name') throw parsingException(`[fuzzy] query does not support [${k}]`);
      }
    },
    (f, v) => (value = shortValue('fuzzy', f, v)),
  );
  if (!field) throw illegalArgument('field name cannot be null or empty');
  if (value === undefined) throw illegalArgument('query value cannot be null');
  return { kind: 'fuzzy', field, value, fuzzy: fuzzy.with(fuzzy.fuzziness ?? { auto: true, low: 3, high: 6 }), boost };
}

/**
 * `wildcard` (`WildcardQueryBuilder.fromXContent`): `{"f": "pat*"}` or `{"f": {"value" | "wildcard",
 * "case_insensitive", "rewrite", "boost", "_name"}}`.
 * @throws EsError 400 `parsing_exception` `[wildcard] query does not support [x]`;
 *   `illegal_argument_exception` `field name is null or empty`, `value cannot be null`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-wildcard-query.html
 */
export function parseWildcard(body: Obj): Query {
  let value: string | undefined;
  let boost = 1;
  let caseInsensitive = false;
  let rewrite: string | undefined;
  const field = singleField(
    'wildcard',
    body,
    (_f, params) =>
      eachParam('wildcard', params, (k, v) => {
        if (k === 'value' || k === 'wildcard') value = scalarText(v);
        else if (k === 'boost') boost = boostOf(v);
        else if (k === 'case_insensitive') caseInsensitive = xContentBoolean(v);
        else if (k === 'rewrite') rewrite = scalarText(v);
        else return k === '_name';
        return true;
      }),
    (f, v) => (value = shortValue('wildcard', f, v)),
  );
  if (!field) throw illegalArgument('field name is null or empty');
  if (value === undefined) throw illegalArgument('value cannot be null');
  const q: Query = { kind: 'wildcard', field, value, caseInsensitive, boost };
  if (rewrite !== undefined) q.rewrite = rewrite;
  return q;
}
