/**
 * One `_source` value of a mapped field as each fetch sub-phase shows it, by field type, as ES's
 * field mappers do:
 * - the fields API (`fields`, ES `MappedFieldType.valueFetcher`): the value parsed as indexed and
 *   printed by the mapping: keyword values over `ignore_above` left out, integer types as integers,
 *   `float` and `half_float` at their precision (printed like Java's `Float.toString`),
 *   `scaled_float` rounded to its factor, dates in the field's (or the requested) format,
 *   `geo_point` as GeoJSON (or WKT);
 * - doc values (`docvalue_fields`, ES `DocValueFormat`): the indexed value (a float as the double it
 *   widens to), dates printed by the format, numbers by a `DecimalFormat` pattern when one is given;
 * - stored fields (`store: true`, ES `MappedFieldType.valueForDisplay`).
 * A value the field cannot parse (a malformed one kept by `ignore_malformed`) is left out.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-fields.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/mapper/NumberFieldMapper.java
 */
import { dateFormatter, DEFAULT_DATE_FORMAT, DEFAULT_DATE_NANOS_FORMAT, parseDateInstant, type DateFormatter, type DateInstant } from './date-format.ts';
import { InvalidDateFormat } from './date-pattern.ts';
import { DecimalFormat } from './decimal-format.ts';
import { illegalArgument } from '../protocol/errors.ts';
import type { FieldMapping } from '../protocol/mapping.ts';

/** A field mapping with the parameters the fetch phase reads beyond those the engine indexes. */
export type FetchMapping = FieldMapping & {
  store?: boolean;
  null_value?: unknown;
  /** `constant_keyword`: the value every document has. */
  value?: unknown;
};

/** The field type as written in the mapping (types the engine does not index are fetched too). */
export function typeOf(fm: FieldMapping): string {
  return fm.type;
}

const INTEGERS: Record<string, [number, number]> = {
  byte: [-128, 127],
  short: [-32768, 32767],
  integer: [-2147483648, 2147483647],
  long: [-(2 ** 63), 2 ** 63],
  unsigned_long: [0, 2 ** 64],
};
const FLOATS = new Set(['double', 'float', 'half_float', 'scaled_float']);
const STRINGS = new Set(['keyword', 'constant_keyword', 'wildcard', 'text', 'match_only_text', 'search_as_you_type', 'ip', 'version', 'binary']);
const DATES = new Set(['date', 'date_nanos']);

/** True for the numeric field types. */
export function isNumericType(type: string): boolean {
  return Object.hasOwn(INTEGERS, type) || FLOATS.has(type);
}

/**
 * `x` as Java prints a `float` (`Float.toString`: the shortest decimal that reads back as the same
 * float), as a JSON number. @example javaFloat(Math.fround(3.14)) // 3.14
 */
export function javaFloat(x: number): number {
  const f = Math.fround(x);
  if (!Number.isFinite(f) || Number.isInteger(f)) return f;
  for (let p = 1; p <= 9; p++) {
    const v = Number(f.toPrecision(p));
    if (Math.fround(v) === f) return v;
  }
  return f;
}

/** A number as a `half_float` field indexes it (ES parses to float, then rounds to half precision). */
export function halfFloat(x: number): number {
  return Math.f16round(Math.fround(x));
}

/** A JSON value as ES reads a number (`Number`, or a numeric string); null when it is not one. */
function numberOf(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v.trim());
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/**
 * The value a numeric field indexes for `v` (ES `NumberType.parse` with `coerce`): integer types
 * truncated and range-checked, `float` rounded to single precision, `half_float` to half,
 * `scaled_float` to its scaling factor; null for a value the type rejects.
 */
export function numericValue(fm: FieldMapping, v: unknown): number | null {
  const n = numberOf(v);
  if (n === null) return null;
  const t = typeOf(fm);
  const range = Object.hasOwn(INTEGERS, t) ? INTEGERS[t] : undefined;
  if (range) {
    const i = Math.trunc(n);
    return i < range[0] || i >= range[1] + (t === 'long' || t === 'unsigned_long' ? 0 : 1) ? null : i;
  }
  if (t === 'float') return Math.fround(n);
  if (t === 'half_float') return halfFloat(n);
  if (t === 'scaled_float') {
    const f = fm.scaling_factor ?? 1;
    return Math.round(n * f) / f;
  }
  return n;
}

/** ES `Booleans.parseBoolean` on a source value (`""` is false, as the boolean mapper reads it). */
function booleanOf(v: unknown): boolean | null {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false' || v === '') return false;
  return null;
}

/** A `geo_point` source value (`{lat, lon}`, `[lon, lat]`, `"lat,lon"`, `POINT (lon lat)`). */
export function geoPointOf(v: unknown): { lat: number; lon: number } | null {
  let lat: number;
  let lon: number;
  if (Array.isArray(v)) [lon, lat] = v.map(Number);
  else if (typeof v === 'string') {
    const wkt = /^\s*POINT\s*\(\s*(\S+)\s+(\S+)\s*\)\s*$/i.exec(v);
    if (wkt) [lon, lat] = [Number(wkt[1]), Number(wkt[2])];
    else [lat, lon] = v.split(',').map((x) => Number(x.trim()));
  } else if (v !== null && typeof v === 'object') ({ lat, lon } = v as { lat: number; lon: number });
  else return null;
  lat = Number(lat);
  lon = Number(lon);
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  return { lat, lon };
}

/** The format text of a date field (its `format`, or ES's default for the type). */
function fieldFormatText(fm: FieldMapping): string {
  return fm.format ?? (typeOf(fm) === 'date_nanos' ? DEFAULT_DATE_NANOS_FORMAT : DEFAULT_DATE_FORMAT);
}

/**
 * A compiled date format (shared/date-format.ts).
 * @throws EsError 400 `Invalid format: [x]: Unknown pattern letter: b` (ES `DateFormatter.forPattern`)
 */
export function dateFormatOf(format: string): DateFormatter {
  try {
    return dateFormatter(format);
  } catch (e) {
    if (e instanceof InvalidDateFormat) throw illegalArgument(`Invalid format: [${format}]: ${e.message}`);
    throw e;
  }
}

/** The mapping's own date format (its `format`, or ES's default for the type). */
export function fieldDateFormat(fm: FieldMapping): DateFormatter {
  return dateFormatOf(fieldFormatText(fm));
}

/** A date source value as an instant (parsed by the mapping's format), or null. */
export function dateValue(fm: FieldMapping, v: unknown): DateInstant | null {
  const t = parseDateInstant(v, fieldFormatText(fm));
  if (t === null) return null;
  return typeOf(fm) === 'date' ? { ms: t.ms, nanos: 0 } : t; // a `date` keeps milliseconds
}

/** A scalar as its text (`XContentParser.text()`); null for objects and arrays. */
function textOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/**
 * ES `MappedFieldType.checkNoFormat`.
 * @throws EsError 400 `Field [name] of type [type] doesn't support formats.`
 */
export function noFormat(name: string, fm: FieldMapping): never {
  throw illegalArgument(`Field [${name}] of type [${typeOf(fm)}] doesn't support formats.`);
}

/**
 * How the fields API prints a field's values: a function of one source value (undefined: left
 * out). `format` is allowed for dates (a date format) and `geo_point` (`geojson`, `wkt`).
 * @throws EsError 400 for a `format` the type does not take, or an invalid date format.
 */
export function fetchValueFn(name: string, fm: FetchMapping, format: string | undefined): (v: unknown) => unknown {
  const t = typeOf(fm);
  if (DATES.has(t)) {
    const out = format !== undefined ? dateFormatOf(format) : fieldDateFormat(fm);
    return (v) => {
      const instant = dateValue(fm, v);
      return instant === null ? undefined : out.format(instant);
    };
  }
  if (t === 'geo_point') {
    if (format !== undefined && format !== 'geojson' && format !== 'wkt') throw illegalArgument(`Unrecognized geometry format [${format}].`);
    return (v) => {
      const p = geoPointOf(v);
      if (!p) return undefined;
      return format === 'wkt' ? `POINT (${p.lon} ${p.lat})` : { type: 'Point', coordinates: [p.lon, p.lat] };
    };
  }
  if (format !== undefined) noFormat(name, fm);
  if (isNumericType(t)) {
    const float = t === 'float' || t === 'half_float';
    return (v) => {
      const n = numericValue(fm, v);
      return n === null ? undefined : float ? javaFloat(n) : n;
    };
  }
  if (t === 'boolean') return (v) => booleanOf(v) ?? undefined;
  if (t === 'constant_keyword') return () => (fm.value === undefined ? undefined : (textOf(fm.value) ?? undefined));
  if (STRINGS.has(t)) {
    const limit = t === 'keyword' ? fm.ignore_above : undefined;
    return (v) => {
      const s = textOf(v);
      return s === null || (limit !== undefined && s.length > limit) ? undefined : s;
    };
  }
  return (v) => v; // range, flattened, and types Folio does not know: the source value as is
}

/** A doc value of one document, with the key doc values sort by. */
export interface DocValue {
  key: number | string;
  /** Nanoseconds within the millisecond (date_nanos), a second key. */
  nanos?: number;
  value: unknown;
}

/**
 * How `docvalue_fields` reads a field: one source value → its doc value (null: none), how the doc
 * values sort (keywords are a sorted set, without repeats), and how each prints with `format`
 * (a `DecimalFormat` pattern for numbers, a date format for dates).
 * @throws EsError 400 for a `format` the type does not take.
 */
export function docValueFns(
  name: string,
  fm: FetchMapping,
  format: string | undefined,
): { read: (v: unknown) => DocValue | null; unique: boolean; print: (d: DocValue) => unknown } {
  const t = typeOf(fm);
  if (DATES.has(t)) {
    const out = format !== undefined ? dateFormatOf(format) : fieldDateFormat(fm);
    return {
      read: (v) => {
        const i = dateValue(fm, v);
        return i === null ? null : { key: i.ms, nanos: i.nanos, value: i };
      },
      unique: false,
      print: (d) => out.format(d.value as DateInstant),
    };
  }
  if (isNumericType(t)) {
    const dec = format !== undefined ? DecimalFormat.of(format) : null;
    return {
      read: (v) => {
        const n = numericValue(fm, v);
        return n === null ? null : { key: n, value: n };
      },
      unique: false,
      print: (d) => (dec ? dec.format(d.key as number) : d.key),
    };
  }
  if (format !== undefined) noFormat(name, fm);
  if (t === 'boolean') {
    return {
      read: (v) => {
        const b = booleanOf(v);
        return b === null ? null : { key: b ? 1 : 0, value: b };
      },
      unique: false,
      print: (d) => d.value,
    };
  }
  if (t === 'geo_point') {
    return {
      read: (v) => {
        const p = geoPointOf(v);
        return p === null ? null : { key: 0, value: p };
      },
      unique: false,
      print: (d) => d.value,
    };
  }
  const fetch = fetchValueFn(name, fm, undefined);
  return {
    read: (v) => {
      const s = fetch(v);
      return typeof s === 'string' ? { key: s, value: s } : null;
    },
    unique: true,
    print: (d) => d.value,
  };
}

/**
 * How a `store: true` field shows its stored values (ES `valueForDisplay`): dates in the field's
 * format, numbers at their type's precision, booleans, strings.
 */
export function storedValueFn(name: string, fm: FetchMapping): (v: unknown) => unknown {
  return fetchValueFn(name, fm, undefined);
}
