/**
 * The parameter walk of aggregation builders, as ES's `ObjectParser` does it: an unknown key, a
 * value of the wrong token kind and a failing setter each answer `x_content_parse_exception`; value
 * readers (`parser.text()`, `doubleValue()`, `longValue()`), the values-source fields every
 * aggregation on a field declares, and Java's number printing.
 * @see https://github.com/elastic/elasticsearch/blob/main/libs/x-content/src/main/java/org/elasticsearch/xcontent/ObjectParser.java
 */
import { EsError, illegalArgument } from '../../../protocol/errors.ts';
import { javaParseDouble } from '../../../shared/java-number.ts';
import { didYouMean, isObject, numberFormat, tokenName, xContentError } from '../params.ts';
import type { AggValue, DateInterval } from '../../../protocol/agg-request.ts';

/** A JSON object of an aggregation body, as parsed (keys in request order). */
export type Obj = Record<string, unknown>;
/** Token kinds a parameter accepts (ObjectParser `ValueType`): V scalar, O object, A array. */
export type Spec = [tokens: string, set: (v: unknown) => void];

/**
 * Walks one builder's parameters as ES's `ObjectParser`: an unknown key, a value of the wrong token
 * kind, and a failing setter each give ES's `x_content_parse_exception`.
 */
export function walk(type: string, body: Obj, specs: Record<string, Spec>): void {
  for (const [k, v] of Object.entries(body)) {
    const spec = Object.hasOwn(specs, k) ? specs[k] : undefined;
    if (!spec) throw xContentError(`[${type}] unknown field [${k}]${didYouMean(k, Object.keys(specs))}`);
    const t = Array.isArray(v) ? 'A' : isObject(v) ? 'O' : v === null ? 'N' : 'V';
    if (!spec[0].includes(t)) throw xContentError(`[${type}] ${k} doesn't support values of type: ${tokenName(v)}`);
    try {
      spec[1](v);
    } catch (e) {
      if (e instanceof EsError && !e.message.startsWith('[1:1]')) throw xContentError(`[${type}] failed to parse field [${k}]`, e.toCause());
      throw e;
    }
  }
}

/** `parser.text()` of a string-only parameter. */
export function str(v: unknown): string {
  if (typeof v !== 'string') throw illegalArgument(`expected a string but found [${tokenName(v)}]`);
  return v;
}

/** `parser.doubleValue()`: numbers, or numeric strings. */
export function dbl(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const d = javaParseDouble(v);
    if (d === null) throw numberFormat(v);
    return d;
  }
  throw xContentError(`Current token (${tokenName(v)}) not numeric, cannot use numeric value accessors`);
}

/** `parser.longValue()`: numbers truncate, numeric strings parse. */
export function lng(v: unknown): number {
  return Math.trunc(dbl(v)) + 0;
}

/** A scalar `missing`/term value as given. */
export function scalar(v: unknown): AggValue {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  throw illegalArgument(`expected a value but found [${tokenName(v)}]`);
}

/** Fields every values-source aggregation declares (`ValuesSourceAggregationBuilder.declareFields`). */
export function valuesSource(n: { field: string; missing?: AggValue; format?: string }, numericMissing = false): Record<string, Spec> {
  return {
    field: ['V', (v) => (n.field = str(v))],
    missing: ['V', (v) => (n.missing = numericMissing ? dbl(v) : scalar(v))],
    format: ['V', (v) => (n.format = str(v))],
    value_type: ['V', () => undefined],
    script: [
      'VO',
      () => {
        throw illegalArgument('[script] in aggregations is not supported by Folio yet');
      },
    ],
  };
}

/** ES 8 `calendar_interval` units (`DateHistogramAggregationBuilder.DATE_FIELD_UNITS`). */
export const CALENDAR_UNITS: Record<string, Extract<DateInterval, { calendar: string }>['calendar']> = {
  '1m': 'minute',
  minute: 'minute',
  '1h': 'hour',
  hour: 'hour',
  '1d': 'day',
  day: 'day',
  '1w': 'week',
  week: 'week',
  '1M': 'month',
  month: 'month',
  '1q': 'quarter',
  quarter: 'quarter',
  '1y': 'year',
  year: 'year',
};

/** Java's `Double.toString` for the numbers ES prints in messages and keys (`150.0`, `1.5`, `1.0E7`). */
export function javaDoubleText(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (!Number.isFinite(d)) return d > 0 ? 'Infinity' : '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(d);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(d);
    return s.includes('.') ? s : s + '.0';
  }
  const [mant, exp] = d.toExponential().split('e');
  return `${mant.includes('.') ? mant : mant + '.0'}E${Number(exp)}`;
}
