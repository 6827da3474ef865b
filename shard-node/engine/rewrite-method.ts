/**
 * The `rewrite` (and `fuzzy_rewrite`) parameter of multi-term queries: how the terms a `prefix`,
 * `wildcard` or `fuzzy` query expands to are scored (ES `QueryParsers.parseRewriteMethod`, Lucene's
 * `MultiTermQuery.RewriteMethod`s).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-multi-term-rewrite.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/query/support/QueryParsers.java
 */
import { EsError } from '../../protocol/errors.ts';
import { javaParseInt } from '../../shared/java-number.ts';

/**
 * - `constant`: every matching term, one constant score (`constant_score`, `constant_score_boolean`,
 *   `constant_score_blended`; ES's default for prefix and wildcard);
 * - `scoring`: every term scored (`scoring_boolean`), or the `size` best terms (`top_terms_N`);
 * - `boost`: the `size` best terms, each scoring its boost only (`top_terms_boost_N`);
 * - `blended`: the `size` best terms scored with one blended document frequency
 *   (`top_terms_blended_freqs_N`, ES's default for fuzzy queries with `max_expansions` terms).
 */
export type RewriteMethod = { kind: 'constant' } | { kind: 'scoring'; size: number } | { kind: 'boost'; size: number } | { kind: 'blended'; size: number };

/** ES 8's `indices.query.bool.max_clause_count` default, the most terms a scoring rewrite keeps. */
const MAX_CLAUSES = 4096;

/** `failed to create query: …` (ES's `SearchExecutionContext.toQuery` around an exception of the query build). */
function failed(type: string, reason: string): EsError {
  return new EsError(400, 'query_shard_exception', `failed to create query: ${reason}`, { causedBy: { type, reason } });
}

/**
 * `QueryParsers.parseRewriteMethod(raw, dflt)`: `dflt` when `raw` is undefined.
 * @throws EsError 400 `query_shard_exception` `failed to create query: Failed to parse rewrite_method [x]`
 *   (or Java's `For input string: "x"` for a bad size), as ES throws it while building the query.
 * @example parseRewriteMethod('top_terms_10', { kind: 'constant' }) // { kind: 'scoring', size: 10 }
 */
export function parseRewriteMethod(raw: string | undefined, dflt: RewriteMethod): RewriteMethod {
  if (raw === undefined) return dflt;
  if (raw === 'constant_score' || raw === 'constant_score_boolean' || raw === 'constant_score_blended') return { kind: 'constant' };
  if (raw === 'scoring_boolean') return { kind: 'scoring', size: Number.POSITIVE_INFINITY };
  const digit = raw.search(/[0-9]/);
  if (digit >= 0) {
    const text = raw.slice(digit);
    const size = javaParseInt(text);
    if (size === null) throw failed('number_format_exception', `For input string: "${text}"`);
    const name = raw.slice(0, digit);
    if (name === 'top_terms_') return { kind: 'scoring', size };
    if (name === 'top_terms_boost_') return { kind: 'boost', size };
    if (name === 'top_terms_blended_freqs_') return { kind: 'blended', size };
  }
  throw failed('illegal_argument_exception', `Failed to parse rewrite_method [${raw}]`);
}

/**
 * How many terms a scoring rewrite keeps: its size, capped at the clause limit as Lucene's
 * `TopTermsRewrite` caps it (`scoring_boolean` keeps all, up to the limit).
 */
export function termLimit(m: RewriteMethod): number {
  return m.kind === 'constant' ? Number.POSITIVE_INFINITY : Math.min(m.size, MAX_CLAUSES);
}
