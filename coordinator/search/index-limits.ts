/**
 * The index-level limits a search request is checked against in the plan phase, per index, before
 * any fan-out (plan.ts): `index.max_result_window` (and Folio's bound on `size` under its default
 * window), `index.max_regex_length`, `index.max_terms_count`, `index.max_script_fields` and
 * `index.max_rescore_window`. Each check returns ES's error cause, with ES's text, or null; the plan
 * fails the index's shards with it, where ES fails them on the shard (`DefaultSearchContext.preProcess`,
 * the query builders' `doToQuery`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules.html#dynamic-index-settings
 */
import type { ErrorCause } from '../../protocol/errors.ts';
import { subQueries, type Query } from '../../protocol/query-ast.ts';
import { SHARD_DOC, type SortField } from '../../protocol/sort.ts';
import { DEFAULT_MAX_RESULT_WINDOW } from '../cluster/index-settings.ts';
import type { SearchRequest } from '../rest/search-request.ts';

/**
 * Largest `size` of one response (a page or a scroll batch) while `index.max_result_window` keeps
 * Folio's default: ES's default window, 10,000. Folio's default window (10,000,000) keeps deep
 * `from` cheap (distributed selection), but a page of millions of hits would be materialised whole;
 * an index whose `max_result_window` is set (to anything but the default) gets ES's rule alone.
 */
export const MAX_SIZE_WITH_DEFAULT_WINDOW = 10_000;

/**
 * ES's result-window rejection for one index (`DefaultSearchContext.preProcess`): `from + size`
 * (a scroll: its batch `size`) over `index.max_result_window`, or, with Folio's default window,
 * a `size` over {@link MAX_SIZE_WITH_DEFAULT_WINDOW}, reported with ES's text as if the window
 * were 10,000 (docs/compatibility.md, deviations).
 */
export function resultWindowCause(req: SearchRequest, maxResultWindow: number): ErrorCause | null {
  const sizeBound = maxResultWindow === DEFAULT_MAX_RESULT_WINDOW ? MAX_SIZE_WITH_DEFAULT_WINDOW : maxResultWindow;
  if (req.scroll !== null) {
    const limit = Math.min(maxResultWindow, sizeBound);
    if (req.size <= limit) return null;
    return {
      type: 'illegal_argument_exception',
      reason:
        `Batch size is too large, size must be less than or equal to: [${limit}] but was [${req.size}]. ` +
        'Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.',
    };
  }
  const window = req.from + req.size;
  if (window <= maxResultWindow && req.size <= sizeBound) return null;
  const limit = window > maxResultWindow ? maxResultWindow : sizeBound;
  return {
    type: 'illegal_argument_exception',
    reason:
      `Result window is too large, from + size must be less than or equal to: [${limit}] but was [${window}]. ` +
      'See the scroll api for a more efficient way to request large data sets. ' +
      'This limit can be set by changing the [index.max_result_window] index level setting.',
  };
}

/** ES's default `index.max_regex_length` (`IndexSettings.MAX_REGEX_LENGTH_SETTING`). */
export const DEFAULT_MAX_REGEX_LENGTH = 1000;
/** ES's default `index.max_terms_count` (`IndexSettings.MAX_TERMS_COUNT_SETTING`). */
export const DEFAULT_MAX_TERMS_COUNT = 65_536;
/** ES's default `index.max_script_fields`. */
export const DEFAULT_MAX_SCRIPT_FIELDS = 32;

/** The most values any `terms` query of a query tree has (0 without one). */
function largestTermsQuery(q: Query): number {
  let n = q.kind === 'terms' ? q.values.length : 0;
  for (const c of subQueries(q)) n = Math.max(n, largestTermsQuery(c));
  return n;
}

/** Every `regexp` pattern of a query tree, in the order ES builds them. */
function regexpPatterns(q: Query, out: string[] = []): string[] {
  if (q.kind === 'regexp') out.push(q.value);
  else if (q.kind === 'bool') for (const c of [...q.must, ...q.should, ...q.filter, ...q.mustNot]) regexpPatterns(c, out);
  else if (q.kind === 'dis_max') for (const c of q.queries) regexpPatterns(c, out);
  else if (q.kind === 'constant_score') regexpPatterns(q.filter, out);
  else if (q.kind === 'multi_field') regexpPatterns(q.query, out);
  return out;
}

/**
 * ES's rejection of a `regexp` pattern (in the query or a rescore query) longer than
 * `index.max_regex_length` (`RegexpQueryBuilder.doToQuery`; the shard's query building wraps it as
 * `failed to create query: …`), or null.
 */
export function regexpLengthCause(req: SearchRequest, maxRegexLength: number, index: string, uuid: string): ErrorCause | null {
  for (const q of [req.query, ...req.rescore.map((r) => r.query)]) {
    for (const pattern of regexpPatterns(q)) {
      if (pattern.length <= maxRegexLength) continue;
      const reason =
        `The length of regex [${pattern.length}] used in the Regexp Query request has exceeded the allowed maximum of [${maxRegexLength}]. ` +
        'This maximum can be set by changing the [index.max_regex_length] index level setting.';
      return {
        type: 'query_shard_exception',
        reason: `failed to create query: ${reason}`,
        index_uuid: uuid,
        index,
        caused_by: { type: 'illegal_argument_exception', reason },
      };
    }
  }
  return null;
}

/**
 * ES's rejection of a `terms` query (in the query or a rescore query, terms lookups resolved) with
 * more values than `index.max_terms_count` (`TermsQueryBuilder.doToQuery`, wrapped by the shard's
 * query building as `failed to create query: …`), or null.
 */
export function termsCountCause(req: SearchRequest, maxTermsCount: number, index: string, uuid: string): ErrorCause | null {
  for (const q of [req.query, ...req.rescore.map((r) => r.query)]) {
    const count = largestTermsQuery(q);
    if (count <= maxTermsCount) continue;
    const reason =
      `The number of terms [${count}] used in the Terms Query request has exceeded the allowed maximum of [${maxTermsCount}]. ` +
      'This maximum can be set by changing the [index.max_terms_count] index level setting.';
    return {
      type: 'query_shard_exception',
      reason: `failed to create query: ${reason}`,
      index_uuid: uuid,
      index,
      caused_by: { type: 'illegal_argument_exception', reason },
    };
  }
  return null;
}

/**
 * ES's rejection of more `script_fields` than `index.max_script_fields` (`SearchService.parseSource`,
 * only when `size` is not 0), or null.
 */
export function scriptFieldsCause(req: SearchRequest, maxScriptFields: number): ErrorCause | null {
  if (req.size === 0 || req.scriptFields <= maxScriptFields) return null;
  return {
    type: 'illegal_argument_exception',
    reason:
      `Trying to retrieve too many script_fields. Must be less than or equal to: [${maxScriptFields}] but was [${req.scriptFields}]. ` +
      'This limit can be set by changing the [index.max_script_fields] index level setting.',
  };
}

/**
 * ES's rejection of a `rescore` for one index (`DefaultSearchContext.preProcess`): a sort other than
 * `_score` (optionally then `_shard_doc` ascending, `RescorePhase.validateSort`), or a `window_size`
 * over `index.max_rescore_window` (which defaults to `index.max_result_window`: ES's 10,000 while
 * Folio's default window applies). Null when there is no rescore or it is fine.
 */
export function rescoreCause(
  req: SearchRequest,
  sort: readonly SortField[],
  metadata: { maxResultWindow: number; maxRescoreWindow?: number },
): ErrorCause | null {
  if (req.rescore.length === 0) return null;
  const byScore = sort.length > 0 && sort[0].kind === 'score' && sort[0].order === 'desc';
  const tiebreak = sort.length === 1 || (sort.length === 2 && sort[1].field === SHARD_DOC && sort[1].order === 'asc');
  if (!byScore || !tiebreak) return { type: 'illegal_argument_exception', reason: 'Cannot use [sort] option in conjunction with [rescore].' };
  const maxWindow =
    metadata.maxRescoreWindow ?? (metadata.maxResultWindow === DEFAULT_MAX_RESULT_WINDOW ? MAX_SIZE_WITH_DEFAULT_WINDOW : metadata.maxResultWindow);
  for (const r of req.rescore) {
    if (r.windowSize <= maxWindow) continue;
    return {
      type: 'illegal_argument_exception',
      reason:
        `Rescore window [${r.windowSize}] is too large. It must be less than [${maxWindow}]. This prevents allocating massive heaps for storing the results ` +
        'to be rescored. This limit can be set by changing the [index.max_rescore_window] index level setting.',
    };
  }
  return null;
}
