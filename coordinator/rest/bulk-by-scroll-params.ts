/**
 * The URL parameters `_reindex`, `_delete_by_query` and `_update_by_query` share, parsed with ES's
 * texts (`AbstractBaseReindexRestHandler.setCommonOptions`): `slices`, `requests_per_second`,
 * `max_docs`, `refresh`, `wait_for_completion`, `conflicts`.
 * @see https://github.com/elastic/elasticsearch/blob/main/modules/reindex/src/main/java/org/elasticsearch/reindex/AbstractBaseReindexRestHandler.java
 */
import { illegalArgument } from '../../protocol/errors.ts';
import { javaParseDouble } from '../../shared/java-number.ts';
import { numberFormatCause, parseBooleanParam, parseIntParam } from './params.ts';

/**
 * `slices`: a positive integer or `auto` (default 1).
 * @throws EsError 400 `[slices] must be a positive integer or the string "auto", but was [x]`
 */
export function parseSlicesParam(raw: string | null): number | 'auto' {
  if (raw === null) return 1;
  if (raw === 'auto') return 'auto';
  const message = `[slices] must be a positive integer or the string "auto", but was [${raw}]`;
  const n = /^[+-]?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n > 2147483647) throw illegalArgument(message, numberFormatCause(raw));
  if (n < 1) throw illegalArgument(message);
  return n;
}

/**
 * `requests_per_second`: documents per second, `-1` (the default) for unthrottled.
 * @returns the rate, Infinity when unthrottled
 * @throws EsError 400 `[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.`
 */
export function parseRequestsPerSecond(raw: string | null): number {
  if (raw === null) return Infinity;
  const message = '[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.';
  const v = javaParseDouble(raw);
  if (v === null) throw illegalArgument(message, numberFormatCause(raw));
  if (v === -1) return Infinity;
  if (!(v > 0)) throw illegalArgument(message);
  return v;
}

/**
 * `max_docs` from the body (`max_docs`, or the deprecated `size`) and the URL, which must agree, as
 * ES sets them (`AbstractBulkByScrollRequest.setMaxDocs`): the body's while `slices` is still 1, the
 * URL's once the URL's `slices` is set (`auto` counts as 0).
 * @returns the limit, or null for all documents
 * @throws EsError 400 `[max_docs] set to two different values [a] and [b]`, `[max_docs] parameter
 *   cannot be negative, found [n]`, `[max_docs] should be >= [slices]`, or the int parse error of the URL value
 */
export function parseMaxDocs(urlValue: string | null, bodyValue: unknown, slices: number | 'auto'): number | null {
  const set = (n: number, currentSlices: number): number => {
    if (n < 0) throw illegalArgument(`[max_docs] parameter cannot be negative, found [${n}]`);
    if (n < currentSlices) throw illegalArgument('[max_docs] should be >= [slices]');
    return n;
  };
  let maxDocs: number | null = null;
  if (bodyValue !== undefined && bodyValue !== null) {
    const n = typeof bodyValue === 'number' ? bodyValue : Number(bodyValue);
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- any JSON value is echoed; the message is kept as it was
    if (!Number.isInteger(n)) throw illegalArgument(`[max_docs] must be an integer but was [${String(bodyValue)}]`);
    maxDocs = set(n, 1);
  }
  if (urlValue !== null) {
    const n = parseIntParam('max_docs', urlValue);
    if (maxDocs !== null && maxDocs !== n) throw illegalArgument(`[max_docs] set to two different values [${maxDocs}] and [${n}]`);
    maxDocs = set(n, slices === 'auto' ? 0 : slices);
  }
  return maxDocs;
}

/**
 * `conflicts`: `abort` (default) or `proceed`.
 * @returns true for `proceed`
 * @throws EsError 400 `conflicts may only be "proceed" or "abort" but was [x]`
 */
export function parseConflicts(value: unknown): boolean {
  const conflicts = value ?? 'abort';
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a body's `conflicts` may be any JSON value, echoed as String() renders it (message kept as it was)
  if (conflicts !== 'abort' && conflicts !== 'proceed') throw illegalArgument(`conflicts may only be "proceed" or "abort" but was [${String(conflicts)}]`);
  return conflicts === 'proceed';
}

/** `refresh` of a bulk-by-scroll action (`paramAsBoolean`: empty or `true` refreshes). */
export function parseRefresh(raw: string | null): boolean {
  return raw === null ? false : parseBooleanParam(raw);
}

/** `wait_for_completion` (default true). */
export function parseWaitForCompletion(raw: string | null): boolean {
  return raw === null ? true : parseBooleanParam(raw);
}
