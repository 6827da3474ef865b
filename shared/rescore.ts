/**
 * The search body's `rescore` (one rescorer object or an array of them) → {@link Rescore}s, as
 * `RescorerBuilder.parseFromXContent` and `QueryRescorerBuilder.fromXContent` read it, with their
 * errors; and {@link combineRescore}, the score a `query` rescorer gives one hit
 * (`QueryRescorer.combine` with `QueryRescoreMode`). Only the `query` rescorer exists (Folio has no
 * scripting, so a `script` rescorer is refused).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/filter-search-results.html#rescore
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/rescore/RescorerBuilder.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/rescore/QueryRescorerBuilder.java
 */
import { EsError, illegalArgument, parsingException } from './errors.ts';
import { didYouMean, isObject, tokenName, xContentError, xContentFloat, xContentInt } from './params.ts';
import type { Query } from './query-ast.ts';
import { parseQuery } from './query-dsl.ts';

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

const QUERY_RESCORER_FIELDS = ['rescore_query', 'query_weight', 'rescore_query_weight', 'score_mode'];
const SCORE_MODES: readonly RescoreScoreMode[] = ['total', 'multiply', 'avg', 'max', 'min'];

/** ObjectParser's wrapping of a failure in field `k` of `[query]`. */
function inField<T>(k: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof EsError) throw xContentError(`[query] failed to parse field [${k}]`, e.toCause());
    throw e;
  }
}

/** `QueryRescorerBuilder.fromXContent`: the body of `{"query": {...}}`. */
function queryRescorer(body: Record<string, unknown>, windowSize: number): Rescore {
  let query: Query | undefined;
  let queryWeight = 1;
  let rescoreQueryWeight = 1;
  let scoreMode: RescoreScoreMode = 'total';
  for (const [k, v] of Object.entries(body)) {
    if (!QUERY_RESCORER_FIELDS.includes(k)) throw xContentError(`[query] unknown field [${k}]${didYouMean(k, QUERY_RESCORER_FIELDS)}`);
    inField(k, () => {
      if (k === 'rescore_query') {
        if (!isObject(v)) throw xContentError(`[query] rescore_query doesn't support values of type: ${tokenName(v)}`);
        query = parseQuery(v);
      } else if (k === 'score_mode') {
        if (typeof v !== 'string') throw xContentError(`[query] score_mode doesn't support values of type: ${tokenName(v)}`);
        const mode = SCORE_MODES.find((m) => m === v.toLowerCase());
        if (!mode) throw illegalArgument(`illegal score_mode [${v}]`);
        scoreMode = mode;
      } else {
        if (typeof v !== 'number' && typeof v !== 'string') throw xContentError(`[query] ${k} doesn't support values of type: ${tokenName(v)}`);
        if (k === 'query_weight') queryWeight = Math.fround(xContentFloat(v));
        else rescoreQueryWeight = Math.fround(xContentFloat(v));
      }
    });
  }
  if (!query) throw illegalArgument('rescore_query cannot be null');
  return { windowSize, query, queryWeight, rescoreQueryWeight, scoreMode };
}

/** `RescorerBuilder.parseFromXContent`: `{"window_size": n, "query": {...}}`. */
function rescorer(json: unknown): Rescore {
  if (!isObject(json)) throw parsingException(`unexpected token [${tokenName(json)}] in [rescore]`);
  let windowSize = DEFAULT_RESCORE_WINDOW_SIZE;
  let body: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(json)) {
    if (isObject(v)) {
      if (body) throw parsingException('you can either define [query] or [script], not both.');
      if (k === 'script') throw illegalArgument('[script] rescorer is not supported by Folio: it has no scripting');
      if (k !== 'query') throw new EsError(400, 'named_object_not_found_exception', `[1:1] unknown field [${k}]`);
      body = v;
    } else if (Array.isArray(v) || v === null) {
      throw parsingException(`unexpected token [${tokenName(v)}] after [${k}]`);
    } else if (k === 'window_size') {
      windowSize = xContentInt(v);
      if (windowSize < 0) throw illegalArgument(`[window_size] must be greater than or equal to 0 but was [${windowSize}]`);
    } else throw parsingException(`rescore doesn't support [${k}]`);
  }
  if (!body) throw parsingException('missing rescore type');
  return queryRescorer(body, windowSize);
}

/**
 * The body `rescore`: one rescorer object or an array of them, applied in order.
 * @throws EsError 400 with ES's texts (`missing rescore type`, `rescore doesn't support [x]`,
 *   `[1:1] [query] unknown field [x]`, `illegal score_mode [x]`, `rescore_query cannot be null`).
 */
export function parseRescore(json: unknown): Rescore[] {
  return Array.isArray(json) ? json.map(rescorer) : [rescorer(json)];
}

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
