/**
 * The building blocks every query parser of the ES query DSL shares (query-dsl.ts, query-dsl-text.ts):
 * the single-field body walk (`{"f": v}` or `{"f": {...}}`), the parameter walk, field^boost specs,
 * and ES's `parsing_exception` texts of the hand-written `fromXContent` parsers.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/query/AbstractQueryBuilder.java
 */
import { illegalArgument, parsingException, type EsError } from '../../protocol/errors.ts';
import { javaParseDouble } from '../../shared/java-number.ts';
import { isObject, numberFormat, scalarText, tokenName } from './params.ts';

/** A JSON object of a query body. */
export type Obj = Record<string, unknown>;

/** True for a JSON scalar (ES `token.isValue()`, null aside). */
export const isValue = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
/** `[q] query does not support [key]`. */
export const unsupportedParam = (q: string, key: string): EsError => parsingException(`[${q}] query does not support [${key}]`);
/** `[q] unknown token [START_ARRAY] after [key]`. */
export const unknownToken = (q: string, v: unknown, key: string): EsError => parsingException(`[${q}] unknown token [${tokenName(v)}] after [${key}]`);
/** `AbstractQueryBuilder.throwParsingExceptionOnMultipleFields`. */
export const multipleFields = (q: string, a: string, b: string): EsError =>
  parsingException(`[${q}] query doesn't support multiple fields, found [${a}] and [${b}]`);
/** Folio's refusal of an ES parameter it does not run yet (400 `illegal_argument_exception`). */
export const notYet = (q: string, key: string): EsError => illegalArgument(`[${q}] query parameter [${key}] is not supported by Folio yet`);

/** `minimum_should_match` kept raw (number or string). */
export const msmOf = (v: unknown): string | number => (typeof v === 'number' ? v : scalarText(v));

/** Walks a single-field query body: `{"f": value}` (short) or `{"f": {...}}` (long); one field only. */
export function singleField(q: string, body: Obj, long: (field: string, params: Obj) => void, short: (field: string, v: unknown) => void): string | undefined {
  let field: string | undefined;
  for (const [k, v] of Object.entries(body)) {
    if (field !== undefined) throw multipleFields(q, field, k);
    field = k;
    if (isObject(v)) long(k, v);
    else short(k, v);
  }
  return field;
}

/** Walks the parameters of a long form: `on(key, value)` returns false for an unknown key. */
export function eachParam(q: string, params: Obj, on: (key: string, v: string | number | boolean) => boolean): void {
  for (const [k, v] of Object.entries(params)) {
    if (!isValue(v)) throw unknownToken(q, v, k);
    if (!on(k, v)) throw unsupportedParam(q, k);
  }
}

/** `field^2.5` → field and boost (`Float.parseFloat` of the text after the first `^`). */
export function fieldAndBoost(spec: string): { field: string; boost: number } {
  const i = spec.indexOf('^');
  if (i < 0) return { field: spec, boost: 1 };
  const b = javaParseDouble(spec.slice(i + 1));
  if (b === null) throw numberFormat(spec.slice(i + 1));
  return { field: spec.slice(0, i), boost: Math.fround(b) };
}
