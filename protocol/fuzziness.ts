/**
 * ES `fuzziness` (the `Fuzziness` unit) and the options every fuzzy term query carries (`fuzzy`,
 * and the `fuzziness` of `match`, `match_bool_prefix`, `multi_match` and `query_string`'s `term~`):
 * parsed on the coordinator with ES's errors (coordinator/rest/fuzziness-parse.ts), resolved per term on the shard.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/common-options.html#fuzziness
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/unit/Fuzziness.java
 */

/** A fixed number of edits (0, 1 or 2), or `AUTO:low,high` (edits by term length; ES's default 3,6). */
export type Fuzziness = { auto: false; edits: 0 | 1 | 2 } | { auto: true; low: number; high: number };

/** Options of one fuzzy term query (Lucene `FuzzyQuery`). */
export interface FuzzyOptions {
  fuzziness: Fuzziness;
  /** Leading code points that must match exactly (ES `prefix_length`, default 0). */
  prefixLength: number;
  /** Most terms the query expands to (ES `max_expansions`, default 50). */
  maxExpansions: number;
  /** An adjacent swap counts as one edit (ES `transpositions` / `fuzzy_transpositions`, default true). */
  transpositions: boolean;
  /** ES `rewrite` / `fuzzy_rewrite` as given; checked where ES checks it (the shard, rewrite-method.ts). */
  rewrite?: string;
}

/** ES `Fuzziness.AUTO`. */
export const AUTO: Fuzziness = { auto: true, low: 3, high: 6 };
/** Lucene `FuzzyQuery.defaultMaxExpansions`. */
export const DEFAULT_MAX_EXPANSIONS = 50;

/** The options ES builds when only `fuzziness` is given. */
export function fuzzyDefaults(fuzziness: Fuzziness): FuzzyOptions {
  return { fuzziness, prefixLength: 0, maxExpansions: DEFAULT_MAX_EXPANSIONS, transpositions: true };
}

/**
 * `Fuzziness.asDistance(term)`: the edits allowed for one term. AUTO counts the term's code points:
 * below `low` none, below `high` one, else two.
 * @example maxEdits(AUTO, 'fox') // 1
 */
export function maxEdits(f: Fuzziness, term: string): number {
  if (!f.auto) return f.edits;
  let len = 0;
  for (const _ of term) len++;
  return len < f.low ? 0 : len < f.high ? 1 : 2;
}
