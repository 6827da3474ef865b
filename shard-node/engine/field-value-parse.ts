/**
 * Parses one value of a field as its type's mapper does before indexing: numbers coerced,
 * truncated and range-checked per numeric type (ES `NumberFieldMapper.NumberType`, `half_float` and
 * `scaled_float` rounded), dates and `date_nanos` instants (`DateFieldMapper`), booleans, geo points
 * and base64 `binary` values. A value the type refuses is a {@link MalformedValue} (doc-parser.ts
 * turns it into ES's `document_parsing_exception`, or `_ignored` with `ignore_malformed`); the
 * lenient `parse*` forms answer null instead, for queries (term-level-compile.ts).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/coerce.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/mapper/NumberFieldMapper.java
 */
import type { FieldMapping } from '../../protocol/mapping.ts';
import { INTEGER_TYPES } from '../../protocol/mapping.ts';
import { parseDate as parseDateWithFormat, parseDateInstant } from '../../shared/date-format.ts';

/** A value the type refuses: the field's value is not indexed (`ignore_malformed`), or the document fails. */
export class MalformedValue extends Error {
  readonly cause_: { type: string; reason: string } | undefined;
  constructor(cause?: { type: string; reason: string }) {
    super(cause?.reason ?? 'malformed');
    this.cause_ = cause;
  }
}

/**
 * Parses a date as a `date` field with `format` (ES default `strict_date_optional_time||epoch_millis`):
 * ISO strings (UTC when no zone is given) or epoch milliseconds (number or digit string), or the
 * given format's alternatives. Returns epoch ms, or null.
 * @see shared/date-format.ts
 */
export function parseDate(v: unknown, format?: string): number | null {
  return parseDateWithFormat(v, format);
}

/** Epoch nanoseconds of 2262-04-11T23:47:16.854775807Z, the last instant a `date_nanos` holds (Java `Long.MAX_VALUE` ns). */
const MAX_NANOS_MS = 9_223_372_036_854;

/**
 * Parses a `date_nanos` value into epoch nanoseconds (a double: exact to about 256 ns for current
 * dates, docs/compatibility.md); ES refuses instants before 1970 and after 2262-04-11T23:47:16.854775807.
 * @throws MalformedValue for an unparsable or out-of-range value
 */
export function parseDateNanos(v: unknown, format: string): number {
  const i = parseDateInstant(v, format);
  if (!i) throw new MalformedValue();
  const instant = instantText(i.ms, i.nanos);
  if (i.ms < 0) {
    throw new MalformedValue({
      type: 'illegal_argument_exception',
      reason: `date[${instant}] is before the epoch in 1970 and cannot be stored in nanosecond resolution`,
    });
  }
  if (i.ms > MAX_NANOS_MS || (i.ms === MAX_NANOS_MS && i.nanos > 775_807)) {
    throw new MalformedValue({
      type: 'illegal_argument_exception',
      reason: `date[${instant}] is after 2262-04-11T23:47:16.854775807 and cannot be stored in nanosecond resolution`,
    });
  }
  return i.ms * 1e6 + i.nanos;
}

/** Java `Instant.toString()`: ISO UTC with the fraction in groups of three digits, as needed. */
function instantText(ms: number, nanos: number): string {
  const d = new Date(ms - (((ms % 1000) + 1000) % 1000));
  const base = d.toISOString().slice(0, 19);
  const frac = (((ms % 1000) + 1000) % 1000) * 1_000_000 + nanos;
  if (frac === 0) return base + 'Z';
  let f = String(frac).padStart(9, '0');
  while (f.endsWith('000')) f = f.slice(0, -3);
  return `${base}.${f}Z`;
}

/** Rounds to the nearest IEEE half-precision value (ties to even), as ES's `half_float` stores it. */
export function toHalfFloat(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  if (a >= 65520) return x > 0 ? Infinity : -Infinity;
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  const quantum = e < -14 ? 2 ** -24 : 2 ** (e - 10);
  const q = a / quantum;
  let r = Math.round(q);
  if (r - q === 0.5 && r % 2 === 1) r--; // Math.round rounds .5 up: make it even
  return Math.sign(x) * r * quantum;
}

/** The largest integral values of the integer types (ES `NumberFieldMapper.NumberType`). */
const INTEGER_RANGE: Record<string, [number, number, string]> = {
  byte: [-128, 127, 'a byte'],
  short: [-32768, 32767, 'a short'],
  integer: [-2147483648, 2147483647, 'an integer'],
  long: [-(2 ** 63), 2 ** 63, 'a long'],
  unsigned_long: [0, 2 ** 64, 'an unsigned long'],
};

/** Exact range check of an integer string for `long`/`unsigned_long` (doubles cannot tell 2^63 - 1 from 2^63). */
function inIntegerRange(v: string, type: string): boolean {
  if (type !== 'long' && type !== 'unsigned_long') return true;
  const m = /^\s*([+-]?\d+)(?:\.\d*)?\s*$/.exec(v);
  if (!m) return true; // not a plain integer text: the double range check decides
  const b = BigInt(m[1]);
  return type === 'long' ? b >= -(2n ** 63n) && b < 2n ** 63n : b >= 0n && b < 2n ** 64n;
}

/**
 * A numeric field's value as ES indexes it: integer types truncated (with `coerce`, the default)
 * and range-checked, `float`/`half_float` finite, `half_float` and `scaled_float` rounded.
 * @throws MalformedValue when the type refuses it
 */
export function parseNumeric(v: unknown, fm: FieldMapping): number {
  if (fm.coerce === false && typeof v !== 'number') throw new MalformedValue();
  const n = parseNumber(v, fm.type === 'scaled_float' || fm.coerce === false ? { ...fm, type: 'double' } : fm);
  if (n === null) throw new MalformedValue();
  const range = INTEGER_RANGE[fm.type];
  if (range) {
    if (fm.coerce === false && !Number.isInteger(n))
      throw new MalformedValue({ type: 'illegal_argument_exception', reason: `Value [${String(v)}] has a decimal part` });
    // Above 2^53 a JSON number is already a double: Long.MAX_VALUE reads as 2^63, so the bound is inclusive.
    if (n < range[0] || n > range[1] || (typeof v === 'string' && !inIntegerRange(v, fm.type))) {
      throw new MalformedValue({ type: 'illegal_argument_exception', reason: `Value [${String(v)}] is out of range for ${range[2]}` });
    }
    return n;
  }
  switch (fm.type) {
    case 'half_float': {
      const h = toHalfFloat(n);
      if (!Number.isFinite(h))
        throw new MalformedValue({ type: 'illegal_argument_exception', reason: `[half_float] supports only finite values, but got [${h}]` });
      return h;
    }
    case 'float':
      if (!Number.isFinite(Math.fround(n)))
        throw new MalformedValue({ type: 'illegal_argument_exception', reason: `[float] supports only finite values, but got [${Math.fround(n)}]` });
      return n;
    case 'scaled_float': {
      const sf = fm.scaling_factor ?? 1;
      return Math.round(n * sf) / sf;
    }
    // `double`, and the integer types (range-checked above): the value as parsed.
    case 'double':
    case 'byte':
    case 'short':
    case 'integer':
    case 'long':
    case 'unsigned_long':
      return n;
    // Not numeric types (their values are parsed elsewhere): the number as parsed, unchanged.
    case 'alias':
    case 'binary':
    case 'boolean':
    case 'constant_keyword':
    case 'date':
    case 'date_nanos':
    case 'flat_object':
    case 'flattened':
    case 'geo_point':
    case 'ip':
    case 'keyword':
    case 'match_only_text':
    case 'nested':
    case 'object':
    case 'text':
    case 'wildcard':
      return n;
  }
}

/** ES `binary`: a base64 string (standard or URL-safe alphabet, padding optional). */
export function isBase64(v: unknown): boolean {
  return typeof v === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(v.replace(/\s/g, ''));
}

/** Parses a numeric value (number or numeric string), truncating for integer types; null if invalid. */
export function parseNumber(v: unknown, fm: FieldMapping): number | null {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && v.trim() !== '') n = Number(v);
  else return null;
  if (!Number.isFinite(n)) return null;
  return INTEGER_TYPES.has(fm.type) ? Math.trunc(n) : n;
}

/** Parses a boolean as ES: `true`/`false` or their strings; null if invalid. */
export function parseBoolean(v: unknown): boolean | null {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  return null;
}

/** Parses a `geo_point` (`{lat, lon}`, `[lon, lat]`, `"lat,lon"`); null if invalid. */
export function parseGeoPoint(v: unknown): { lat: number; lon: number } | null {
  let lat: number;
  let lon: number;
  if (Array.isArray(v)) [lon, lat] = v.map(Number);
  else if (typeof v === 'string') [lat, lon] = v.split(',').map((x) => Number(x.trim()));
  else if (v !== null && typeof v === 'object') ({ lat, lon } = v as { lat: number; lon: number });
  else return null;
  lat = Number(lat);
  lon = Number(lon);
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  return { lat, lon };
}
