/**
 * The search body's `rescore` (one rescorer object or an array of them) → {@link Rescore}s, as
 * `RescorerBuilder.parseFromXContent` and `QueryRescorerBuilder.fromXContent` read it, with their
 * errors. Only the `query` rescorer exists (Folio has no scripting, so a `script` rescorer is refused).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/filter-search-results.html#rescore
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/rescore/RescorerBuilder.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/rescore/QueryRescorerBuilder.java
 */
import { EsError, illegalArgument, parsingException } from '../../protocol/errors.ts';
import { didYouMean, isObject, tokenName, xContentError, xContentFloat, xContentInt } from './params.ts';
import type { Query } from '../../protocol/query-ast.ts';
import { parseQuery } from './query-dsl.ts';
import { DEFAULT_RESCORE_WINDOW_SIZE, type Rescore, type RescoreScoreMode } from '../../protocol/rescore.ts';

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
