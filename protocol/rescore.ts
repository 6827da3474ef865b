/**
 * A `query` rescorer as the shards receive it ({@link Rescore}, parsed from the search body by
 * coordinator/rest/rescore-parse.ts), and {@link combineRescore}, the score a `query` rescorer gives one hit
 * (`QueryRescorer.combine` with `QueryRescoreMode`). Only the `query` rescorer exists (Folio has no
 * scripting, so a `script` rescorer is refused).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/filter-search-results.html#rescore
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/rescore/RescorerBuilder.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/rescore/QueryRescorerBuilder.java
 */
import type { Query } from './query-ast.ts';

/** ES `QueryRescoreMode`: how the original and the rescore query's scores combine. */
export type RescoreScoreMode = 'total' | 'multiply' | 'avg' | 'max' | 'min';

/** One `query` rescorer: the top `windowSize` hits of each shard are scored again by `query`. */
export interface Rescore {
  /** Hits per shard rescored (ES `window_size`, default 10). */
  windowSize: number;
  query: Query;
  /** Weight of the original score (default 1). */
  queryWeight: number;
  /** Weight of the rescore query's score (default 1). */
  rescoreQueryWeight: number;
  scoreMode: RescoreScoreMode;
}

/** ES `RescorerBuilder.DEFAULT_WINDOW_SIZE`. */
export const DEFAULT_RESCORE_WINDOW_SIZE = 10;

/**
 * The new score of a hit (ES `QueryRescorer.combine`, in float): with a rescore-query match,
 * `mode(score × query_weight, rescoreScore × rescore_query_weight)`; without one (no match, or past
 * the window), `score × query_weight`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/rescore/QueryRescorer.java
 */
export function combineRescore(r: Pick<Rescore, 'queryWeight' | 'rescoreQueryWeight' | 'scoreMode'>, score: number, rescoreScore: number | null): number {
  const f = Math.fround;
  const primary = f(score * r.queryWeight);
  if (rescoreScore === null) return primary;
  const secondary = f(rescoreScore * r.rescoreQueryWeight);
  switch (r.scoreMode) {
    case 'total':
      return f(primary + secondary);
    case 'multiply':
      return f(primary * secondary);
    case 'avg':
      return f((primary + secondary) / 2);
    case 'max':
      return Math.max(primary, secondary);
    case 'min':
      return Math.min(primary, secondary);
  }
}
