/**
 * Value coercion exactly as Elasticsearch reads request values: URL parameters through
 * `RestRequest.paramAsInt/paramAsBoolean` (Java `Integer.parseInt`, `Booleans.parseBoolean`), body
 * values through `AbstractXContentParser.intValue/floatValue/booleanValue` (numeric strings coerced,
 * floats truncated), and time values through `TimeValue.parseTimeValue`.
 * Every rejection is an {@link EsError} with ES's status, type and reason.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/rest/RestRequest.java
 * @see https://github.com/elastic/elasticsearch/blob/main/libs/x-content/src/main/java/org/elasticsearch/xcontent/support/AbstractXContentParser.java
 * @see https://github.com/elastic/elasticsearch/blob/main/libs/core/src/main/java/org/elasticsearch/core/TimeValue.java
 */
import { EsError, illegalArgument, type ErrorCause } from '../../protocol/errors.ts';
import { JAVA_INT_MAX, JAVA_INT_MIN, javaParseDouble, javaParseInt } from '../../shared/java-number.ts';
import type { Operator } from '../../protocol/query-ast.ts';

/**
 * The location prefix ES puts on `x_content_parse_exception` reasons. Folio parses JSON before
 * walking it and keeps no token positions, so every location is reported as `[1:1]`.
 */
export const NO_LOCATION = '[1:1]';

/** The Jackson token name ES prints for a JSON value (`VALUE_NUMBER`, `START_OBJECT`, …). */
export function tokenName(v: unknown): string {
  if (v === null || v === undefined) return 'VALUE_NULL';
  if (Array.isArray(v)) return 'START_ARRAY';
  switch (typeof v) {
    case 'string':
      return 'VALUE_STRING';
    case 'number':
      return 'VALUE_NUMBER';
    case 'boolean':
      return 'VALUE_BOOLEAN';
    case 'bigint':
    case 'function':
    case 'object':
    case 'symbol':
    case 'undefined':
      break;
  }
  return 'START_OBJECT';
}

/** True for a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The `number_format_exception` cause Java throws for a bad number: `For input string: "abc"`. */
export function numberFormatCause(input: string): ErrorCause {
  return { type: 'number_format_exception', reason: `For input string: "${input}"` };
}

/** 400 `number_format_exception` thrown unwrapped (as a body value that is not a number). */
export function numberFormat(input: string): EsError {
  return new EsError(400, 'number_format_exception', input.trim() === '' ? 'empty String' : `For input string: "${input}"`);
}

/** 400 `x_content_parse_exception` `[1:1] {msg}`, optionally wrapping a cause. */
export function xContentError(msg: string, cause?: ErrorCause): EsError {
  return new EsError(400, 'x_content_parse_exception', `${NO_LOCATION} ${msg}`, { causedBy: cause });
}

/**
 * `RestRequest.paramAsInt`: a URL parameter as a Java int.
 * @throws EsError 400 `illegal_argument_exception` `Failed to parse int parameter [name] with value [v]`
 *   caused by `number_format_exception` `For input string: "v"`.
 */
export function parseIntParam(name: string, value: string): number {
  const n = javaParseInt(value);
  if (n === null) throw illegalArgument(`Failed to parse int parameter [${name}] with value [${value}]`, numberFormatCause(value));
  return n;
}

/**
 * `RestRequest.paramAsBoolean`: an empty value means true (`?pretty`), else `true`/`false` exactly.
 * @throws EsError 400 `illegal_argument_exception` `Failed to parse value [x] as only [true] or [false] are allowed.`
 */
export function parseBooleanParam(value: string): boolean {
  if (value === '') return true;
  return parseJavaBoolean(value);
}

/** ES `Booleans.parseBoolean(String)`: exactly `true` or `false`, else 400 `illegal_argument_exception`. */
export function parseJavaBoolean(value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw illegalArgument(`Failed to parse value [${value}] as only [true] or [false] are allowed.`);
}

/** Jackson's name for a scalar in numeric/boolean accessor errors (`VALUE_TRUE`, `VALUE_STRING`, …). */
function jacksonToken(v: unknown): string {
  if (v === true) return 'VALUE_TRUE';
  if (v === false) return 'VALUE_FALSE';
  if (typeof v === 'number') return Number.isInteger(v) ? 'VALUE_NUMBER_INT' : 'VALUE_NUMBER_FLOAT';
  return tokenName(v);
}

/**
 * `XContentParser.intValue()` with ES's default coercion: numbers truncate, numeric strings are
 * parsed as doubles then cast (NaN → 0).
 * @throws EsError 400 `number_format_exception` (non-numeric string), `illegal_argument_exception`
 *   `Value [s] is out of range for an integer` (string), `x_content_parse_exception`
 *   `Numeric value (n) out of range of int (-2147483648 - 2147483647)` (number) or
 *   `Current token (VALUE_TRUE) not numeric, cannot use numeric value accessors` (other types).
 */
export function xContentInt(v: unknown): number {
  if (typeof v === 'string') {
    const d = javaParseDouble(v);
    if (d === null) throw numberFormat(v);
    if (d < JAVA_INT_MIN || d > JAVA_INT_MAX) throw illegalArgument(`Value [${v}] is out of range for an integer`);
    return Number.isNaN(d) ? 0 : Math.trunc(d) + 0;
  }
  if (typeof v === 'number') {
    if (v < JAVA_INT_MIN || v > JAVA_INT_MAX) {
      throw xContentError(`Numeric value (${v}) out of range of int (${JAVA_INT_MIN} - ${JAVA_INT_MAX})`);
    }
    return Math.trunc(v) + 0;
  }
  throw xContentError(`Current token (${jacksonToken(v)}) not numeric, cannot use numeric value accessors`);
}

/**
 * `XContentParser.floatValue()`: numbers as is, numeric strings via `Float.parseFloat`.
 * @throws EsError 400 `number_format_exception` or `x_content_parse_exception` as {@link xContentInt}.
 */
export function xContentFloat(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const d = javaParseDouble(v);
    if (d === null) throw numberFormat(v);
    return Math.fround(d);
  }
  throw xContentError(`Current token (${jacksonToken(v)}) not numeric, cannot use numeric value accessors`);
}

/**
 * `XContentParser.booleanValue()`: JSON booleans, or the strings `true`/`false`.
 * @throws EsError 400 `illegal_argument_exception` for other strings, `x_content_parse_exception`
 *   `Current token (VALUE_NUMBER_INT) not of boolean type` for other types.
 */
export function xContentBoolean(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return parseJavaBoolean(v);
  throw xContentError(`Current token (${jacksonToken(v)}) not of boolean type`);
}

/** A query `boost` as `AbstractQueryBuilder.boost(float)`: 400 `negative [boost] are not allowed.` below 0. */
export function boostOf(v: unknown): number {
  const b = xContentFloat(v);
  if (b < 0) throw illegalArgument('negative [boost] are not allowed.');
  return b;
}

/**
 * ES `Operator.fromString`: `or`/`and` in any case.
 * @throws EsError 400 `illegal_argument_exception` `No enum constant org.elasticsearch.index.query.Operator.XOR`.
 */
export function operatorOf(v: unknown): Operator {
  const up = scalarText(v).toUpperCase();
  if (up === 'OR' || up === 'AND') return up === 'OR' ? 'or' : 'and';
  throw illegalArgument(`No enum constant org.elasticsearch.index.query.Operator.${up}`);
}

/** Scalar JSON value as `parser.text()` gives it (numbers and booleans as their text). */
export function scalarText(v: unknown): string {
  return typeof v === 'string' ? v : String(v);
}

const TIME_UNITS_MS: [suffix: string, ms: number][] = [
  ['nanos', 1e-6],
  ['micros', 1e-3],
  ['ms', 1],
  ['s', 1000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
];

/**
 * ES `TimeValue.parseTimeValue(s, settingName)` in milliseconds: `500ms`, `1s`, `2m` (lower-case `m`
 * only; `M` is not minutes), `1h`, `1d`, `nanos`, `micros`; `-1` (= -1) and `0` without unit.
 * Sub-millisecond values truncate toward 0 (`TimeValue.millis()`).
 * @throws EsError 400 `illegal_argument_exception`:
 *   `failed to parse setting [name] with value [s] as a time value: unit is missing or unrecognized`,
 *   `... as a time value: negative durations are not supported`,
 *   `failed to parse [s], fractional time values are not supported`, `failed to parse [s]`.
 * @example parseTimeValue('1s', 'timeout') // 1000
 */
export function parseTimeValue(s: string, settingName: string): number {
  const normalized = s.toLowerCase().trim();
  for (const [suffix, ms] of TIME_UNITS_MS) {
    const matches = suffix === 'm' ? s.endsWith('m') : normalized.endsWith(suffix);
    if (!matches) continue;
    const num = normalized.slice(0, normalized.length - suffix.length).trim();
    if (!/^[+-]?[0-9]+$/.test(num) || !Number.isSafeInteger(Number(num))) {
      const cause = numberFormatCause(num);
      if (javaParseDouble(num) !== null) throw illegalArgument(`failed to parse [${s}], fractional time values are not supported`, cause);
      throw illegalArgument(`failed to parse [${s}]`, cause);
    }
    const n = Number(num);
    if (n < -1) {
      throw illegalArgument(`failed to parse setting [${settingName}] with value [${s}] as a time value: negative durations are not supported`);
    }
    return Math.trunc(n * ms) + 0;
  }
  if (/^-0*1$/.test(normalized)) return -1;
  if (/^0+$/.test(normalized)) return 0;
  throw illegalArgument(`failed to parse setting [${settingName}] with value [${s}] as a time value: unit is missing or unrecognized`);
}

/**
 * The longest name, in UTF-16 code units, for which Folio looks for similar names. ES computes the
 * edit distance for any name (Jackson caps body field names at 50,000 characters), an O(n × m) cost
 * per candidate that let one 200 KB query name block the event loop for seconds. Every name ES can
 * suggest is far shorter, and a name more than twice as long as a candidate can never reach the
 * 0.5 similarity ES asks for, so this bound changes no suggestion ES would make for the names Folio
 * knows.
 */
export const MAX_SUGGESTION_NAME_CHARS = 256;

/** At most this many candidates are compared with an unknown name (the lists Folio suggests from are far shorter). */
export const MAX_SUGGESTION_CANDIDATES = 1000;

/**
 * Lucene `LevenshteinDistance.getDistance`: 1 - editDistance / max(length), over code points.
 * Costs O(|target| × |other|): callers bound the lengths (see {@link similarNames}).
 * @returns a similarity in [0, 1]; 1 means equal.
 */
export function levenshteinSimilarity(target: string, other: string): number {
  const a = Array.from(target);
  const b = Array.from(other);
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 1 : 0;
  let prev = Array.from({ length: a.length + 1 }, (_, i) => i);
  for (let j = 1; j <= b.length; j++) {
    const cur = [j];
    for (let i = 1; i <= a.length; i++) {
      cur[i] = Math.min(cur[i - 1] + 1, prev[i] + 1, prev[i - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return 1 - prev[a.length] / Math.max(a.length, b.length);
}

/** Code points of `s` (what Lucene's distance counts). */
function codePointCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Candidates similar to `unknown` (similarity > `threshold`), best first then by name, as ES's
 * `SuggestingErrorOnUnknown` (threshold 0.7) and `BaseRestHandler.unrecognized` (0.5).
 *
 * Bounded: no suggestion for a name longer than {@link MAX_SUGGESTION_NAME_CHARS}, at most
 * {@link MAX_SUGGESTION_CANDIDATES} candidates, and a candidate whose length alone rules it out
 * (the distance is at least the length difference) is skipped without computing the distance: the same answer as ES, in
 * O(candidates × 256²) at worst.
 */
export function similarNames(unknown: string, candidates: Iterable<string>, threshold: number): string[] {
  if (unknown.length > MAX_SUGGESTION_NAME_CHARS) return [];
  const n = codePointCount(unknown);
  const scored: [number, string][] = [];
  let seen = 0;
  for (const c of candidates) {
    if (++seen > MAX_SUGGESTION_CANDIDATES) break;
    if (c.length > 2 * MAX_SUGGESTION_NAME_CHARS) continue; // n ≤ 256 against ≥ 257 code points: similarity < 0.5
    const m = codePointCount(c);
    // The similarity formula at the smallest possible distance, |n - m| (rounding is monotone, so
    // no candidate this skips could have passed).
    const upperBound = n === 0 || m === 0 ? (n === m ? 1 : 0) : Math.fround(1 - Math.abs(n - m) / Math.max(n, m));
    if (!(upperBound > threshold)) continue;
    const d = Math.fround(levenshteinSimilarity(unknown, c));
    if (d > threshold) scored.push([d, c]);
  }
  scored.sort((x, y) => y[0] - x[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0));
  return scored.map((s) => s[1]);
}

/** ES `SuggestingErrorOnUnknown.suggest`: `""`, ` did you mean [x]?` or ` did you mean any of [x, y]?`. */
export function didYouMean(unknown: string, candidates: Iterable<string>): string {
  const keys = similarNames(unknown, candidates, 0.7);
  if (keys.length === 0) return '';
  return keys.length === 1 ? ` did you mean [${keys[0]}]?` : ` did you mean any of [${keys.join(', ')}]?`;
}

/**
 * Parameters every REST handler accepts on top of its own (ES `BaseRestHandler.ALWAYS_SUPPORTED`
 * plus `error_trace`, which `RestController` consumes).
 */
export const ALWAYS_ACCEPTED_PARAMS: readonly string[] = ['pretty', 'human', 'error_trace', 'filter_path', 'format'];

/**
 * ES `BaseRestHandler.unrecognized`: fails when `given` holds a name outside `accepted`. Names are
 * listed sorted; each gets ` -> did you mean [x]?` (or `any of [x, y]`) for candidates of similarity
 * > 0.5 among `accepted`.
 * @param path the request path without query string, as ES prints it (`/idx/_doc/1`).
 * @throws EsError 400 `illegal_argument_exception`
 *   `request [/idx/_search] contains unrecognized parameters: [sise] -> did you mean [size]?, [zzz]`
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/rest/BaseRestHandler.java
 */
export function checkUnrecognizedParams(path: string, given: Iterable<string>, accepted: readonly string[]): void {
  const bad = [...new Set(given)].filter((k) => !accepted.includes(k)).sort();
  if (bad.length === 0) return;
  const parts = bad.map((b) => {
    const c = similarNames(b, accepted, 0.5);
    return `[${b}]` + (c.length === 0 ? '' : ` -> did you mean ${c.length > 1 ? 'any of ' : ''}[${c.join(', ')}]?`);
  });
  throw illegalArgument(`request [${path}] contains unrecognized parameter${bad.length > 1 ? 's' : ''}: ${parts.join(', ')}`);
}
