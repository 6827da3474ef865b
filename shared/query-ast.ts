/**
 * The normalized query tree that both services share: the coordinator parses the ES query DSL
 * (and `q=`) into it once, validates it, and sends it to every shard, which executes it.
 *
 * Mirrors the ES query DSL leaf and compound queries.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl.html
 */

/** A term value as ES accepts it in `term`, `terms` and `range`. */
export type TermValue = string | number | boolean;

/** The `multi_match` types Folio runs (ES's `phrase_prefix` is refused as not supported yet). */
export type MultiMatchType = 'best_fields' | 'most_fields' | 'phrase' | 'cross_fields' | 'bool_prefix';

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
  | { kind: 'prefix'; field: string; value: string; caseInsensitive: boolean; boost: number }
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
   * Sub-slice `id` of `max` of one shard's documents (sliced scroll and PIT, shared/slice.ts): those
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
