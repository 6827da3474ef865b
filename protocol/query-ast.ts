/**
 * The normalized query tree that both services share: the coordinator parses the ES query DSL
 * (and `q=`) into it once, validates it, and sends it to every shard, which executes it.
 *
 * Mirrors the ES query DSL leaf and compound queries.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl.html
 */

import type { FuzzyOptions } from './fuzziness.ts';

/**
 * ES `indices.query.bool.max_clause_count` (4096 in ES 8 unless derived from heap): the coordinator
 * refuses a larger query tree, and the shards cap multi-term expansions to it.
 */
export const MAX_CLAUSE_COUNT = 4096;

/** A term value as ES accepts it in `term`, `terms` and `range`. */
export type TermValue = string | number | boolean;

/** The `multi_match` types Folio runs (ES's `phrase_prefix` is refused as not supported yet). */
export type MultiMatchType = 'best_fields' | 'most_fields' | 'phrase' | 'cross_fields' | 'bool_prefix';

/**
 * How a `query_string` term that is not analyzed (a prefix, wildcard or fuzzy term) is normalized on
 * the shard, as ES's `QueryStringQueryParser` does: through the `normalize` form of `analyzer` when
 * given, else of the field's search analyzer (text fields lower-case, keyword fields keep the value).
 */
export interface QueryStringNormalize {
  analyzer?: string;
}

/** `operator` of `match`/`multi_match`/`query_string`. */
export type Operator = 'or' | 'and';

/**
 * One node of the query tree. Every node has a `boost` (default 1). `field` names are full dotted
 * paths (`name.keyword`). `field: '*'` (only in `match`/`match_phrase`, from `q=` without a field)
 * means every searchable field, as ES's `index.query.default_field: *`.
 */
export type Query =
  | { kind: 'match_all'; boost: number }
  | { kind: 'match_none'; boost: number }
  | {
      kind: 'match';
      field: string;
      query: string;
      operator: Operator;
      /** ES `minimum_should_match` in its raw form (`2`, `"75%"`, `"-1"`), applied to the analyzed terms. */
      minimumShouldMatch?: string | number;
      /** ES `analyzer`: a built-in analyzer name (absent: the field's, `standard`); checked on the shard. */
      analyzer?: string;
      /** ES `fuzziness` and its options: each analyzed term is a fuzzy query. */
      fuzzy?: FuzzyOptions;
      /** `lenient` is implied for `field: '*'`. */
      boost: number;
    }
  | { kind: 'match_phrase'; field: string; query: string; slop: number; boost: number }
  | {
      kind: 'multi_match';
      fields: { field: string; boost: number }[];
      query: string;
      operator: Operator;
      /**
       * `best_fields` = dis_max with `tieBreaker` (default 0); `most_fields` = sum; `phrase` = best of
       * match_phrase; `cross_fields` = per term, one blended term over the fields; `bool_prefix` = sum
       * of match_bool_prefix (the last term a prefix).
       */
      type: MultiMatchType;
      tieBreaker: number;
      minimumShouldMatch?: string | number;
      analyzer?: string;
      fuzzy?: FuzzyOptions;
      boost: number;
    }
  | { kind: 'term'; field: string; value: TermValue; caseInsensitive: boolean; boost: number }
  | { kind: 'terms'; field: string; values: TermValue[]; boost: number }
  | {
      kind: 'range';
      field: string;
      gt?: TermValue;
      gte?: TermValue;
      lt?: TermValue;
      lte?: TermValue;
      /** Date fields: the `format` of the bounds (default: the field's). */
      format?: string;
      /** Date fields: ES `time_zone` of bounds without an offset, and of date-math rounding. */
      timeZone?: string;
      boost: number;
    }
  | { kind: 'exists'; field: string; boost: number }
  | {
      kind: 'prefix';
      field: string;
      value: string;
      caseInsensitive: boolean;
      /** ES `rewrite` as given (absent: constant score); checked on the shard. */
      rewrite?: string;
      /** From a query string: the value goes through the analyzer's normalize form first (see `normalize`). */
      normalize?: QueryStringNormalize;
      boost: number;
    }
  | {
      kind: 'wildcard';
      field: string;
      /** A Lucene wildcard pattern: `*` any string, `?` one character, `\\` escapes the next one. */
      value: string;
      caseInsensitive: boolean;
      rewrite?: string;
      normalize?: QueryStringNormalize;
      boost: number;
    }
  | { kind: 'fuzzy'; field: string; value: string; fuzzy: FuzzyOptions; normalize?: QueryStringNormalize; boost: number }
  | {
      /** ES `match_bool_prefix`: the analyzed terms as a bool, the last one a prefix query. */
      kind: 'match_bool_prefix';
      field: string;
      query: string;
      operator: Operator;
      minimumShouldMatch?: string | number;
      analyzer?: string;
      /** Fuzziness of every term but the last. */
      fuzzy?: FuzzyOptions;
      boost: number;
    }
  | {
      /** ES `match_phrase_prefix`: a phrase whose last term is a prefix (at most `maxExpansions` terms). */
      kind: 'match_phrase_prefix';
      field: string;
      query: string;
      slop: number;
      maxExpansions: number;
      analyzer?: string;
      boost: number;
    }
  | {
      /**
       * One leaf query run on several fields, as `query_string` runs a term without a field
       * (`QueryStringQueryParser`'s multi-field queries): `query`'s own `field` is ignored; each field
       * (a name or a `*` pattern, resolved against the mapping on the shard) gets a copy boosted by its
       * weight, and the copies combine by dis_max with `tieBreaker`. With `lenient`, a field that
       * cannot run the query (a number for a text) matches nothing instead of failing.
       */
      kind: 'multi_field';
      fields: { field: string; boost: number }[];
      query: Query;
      tieBreaker: number;
      lenient: boolean;
      boost: number;
    }
  | {
      /**
       * A `terms` query whose values come from a document (ES terms lookup): the coordinator fetches
       * `index/id` and replaces this node with a `terms` node before any shard sees it.
       */
      kind: 'terms_lookup';
      field: string;
      index: string;
      id: string;
      path: string;
      routing?: string;
      boost: number;
    }
  | { kind: 'ids'; values: string[]; boost: number }
  | {
      kind: 'regexp';
      field: string;
      /** A Lucene regular expression, matched against whole terms. */
      value: string;
      /** Syntax flag bits (ES `flags`/`flags_value`, Lucene `RegExp` flags; default ALL = 0xffff). */
      flags: number;
      /** ES `case_insensitive`: ASCII letters match either case. */
      caseInsensitive: boolean;
      /** ES `max_determinized_states` (default 10,000). */
      maxDeterminizedStates: number;
      boost: number;
    }
  | {
      kind: 'bool';
      must: Query[];
      should: Query[];
      filter: Query[];
      mustNot: Query[];
      /** Raw ES form; default is 1 when there is no must/filter clause, else 0. */
      minimumShouldMatch?: string | number;
      boost: number;
    }
  | { kind: 'constant_score'; filter: Query; boost: number }
  | { kind: 'dis_max'; queries: Query[]; tieBreaker: number; boost: number }
  /**
   * Sub-slice `id` of `max` of one shard's documents (sliced scroll and PIT, protocol/slice.ts): those
   * whose hash of `field` (`_id`, or a numeric field's values) is `id` modulo `max`. Built by the
   * coordinator for each shard, never parsed from the query DSL.
   */
  | { kind: 'slice'; field: string; id: number; max: number; boost: number };

/** The `kind` of a {@link Query} node. */
export type QueryKind = Query['kind'];

/**
 * Resolves ES `minimum_should_match` against the number of optional clauses.
 * Integers are absolute, negatives subtract from the count, percentages round down (as ES).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-minimum-should-match.html
 * @returns the number of clauses that must match, clamped to [0, optionalCount].
 */
export function resolveMinimumShouldMatch(spec: string | number | undefined, optionalCount: number, dflt: number): number {
  if (spec === undefined) return Math.min(dflt, optionalCount);
  let n: number;
  const s = String(spec).trim();
  if (s.endsWith('%')) {
    const pct = Number(s.slice(0, -1));
    const calc = Math.trunc((Math.abs(pct) * optionalCount) / 100);
    n = pct < 0 ? optionalCount - calc : calc;
  } else {
    const v = Math.trunc(Number(s));
    n = v < 0 ? optionalCount + v : v;
  }
  if (!Number.isFinite(n)) n = dflt;
  return Math.max(0, Math.min(optionalCount, n));
}

/** The queries directly inside `q` (bool clauses, dis_max queries, a constant_score filter, a multi_field's leaf); none for a leaf. */
export function subQueries(q: Query): readonly Query[] {
  switch (q.kind) {
    case 'bool':
      return [...q.must, ...q.should, ...q.filter, ...q.mustNot];
    case 'dis_max':
      return q.queries;
    case 'constant_score':
      return [q.filter];
    case 'multi_field':
      return [q.query];
    case 'match_all':
    case 'match_none':
    case 'match':
    case 'match_phrase':
    case 'multi_match':
    case 'term':
    case 'terms':
    case 'range':
    case 'exists':
    case 'prefix':
    case 'wildcard':
    case 'fuzzy':
    case 'match_bool_prefix':
    case 'match_phrase_prefix':
    case 'terms_lookup':
    case 'ids':
    case 'regexp':
    case 'slice':
      return [];
    default: {
      // A new query kind must say here whether it holds queries.
      const unknownKind: never = q;
      return unknownKind;
    }
  }
}
