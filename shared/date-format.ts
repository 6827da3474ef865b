/**
 * Elasticsearch date formats: the built-in names (`strict_date_optional_time`, `epoch_millis`,
 * `date_hour_minute`, ...), Java `DateTimeFormatter` patterns (`yyyy-MM-dd HH:mm:ss.SSS`,
 * `yyyy/MM/dd`, `uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSSX`) and `||`-joined alternatives, for parsing
 * document values and query bounds and for printing values (`fields`, `docvalue_fields`).
 * An instant is epoch milliseconds plus the nanoseconds within that millisecond, so `date_nanos`
 * values keep their nanoseconds. Printing is in UTC; parsing uses the value's own offset, else the
 * given time zone, else UTC. Fields a format leaves out default to 1970-01-01T00:00:00.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-date-format.html
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/common/time/DateFormatters.java
 */
import { daysInMonth, localToUtc } from './date-calendar.ts';
import { parseTokens, parseZone, resolve, type Parsed } from './date-parse.ts';
import { compileOne } from './date-pattern.ts';
import { fieldsOf, printTokens } from './date-print.ts';

/** An instant: `ms` since the epoch (an integer, negative before 1970) and `nanos` within it (0..999,999). */
export interface DateInstant {
  ms: number;
  nanos: number;
}

/** ES's default `format` of a `date` field. */
export const DEFAULT_DATE_FORMAT = 'strict_date_optional_time||epoch_millis';
/** ES's default `format` of a `date_nanos` field. */
export const DEFAULT_DATE_NANOS_FORMAT = 'strict_date_optional_time_nanos||epoch_millis';

/** A compiled format: parse a text (null when it does not match) and print an instant. */
export interface DateFormatter {
  /** The format as written (`yyyy/MM/dd||epoch_millis`). */
  readonly pattern: string;
  /**
   * Parses `text`; a text without an offset is read in `zone` (default UTC). Null when no alternative
   * matches. `roundUp` (range bounds `gt`/`lte`) fills missing time fields with their largest value.
   */
  parse(text: string, zone?: TimeZone, roundUp?: boolean): DateInstant | null;
  /** Prints with the first alternative, in UTC. */
  format(instant: DateInstant): string;
}

/** A time zone for parsing: a fixed offset in minutes, or an IANA region (`Europe/Paris`). */
export type TimeZone = { offsetMinutes: number } | { region: string };

/** `strict_date_optional_time` in one regular expression: the common case of every date field, parsed without tokens. */
const ISO_FAST = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(?:(\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/;

/**
 * The ISO fast path of the `*date_optional_time*` formats: the instant, null for an invalid date,
 * or undefined when the text has another shape (the token parser then decides).
 */
function parseIsoFast(text: string, zone: TimeZone | undefined, roundUp: boolean, nanosDigits: number): DateInstant | null | undefined {
  const m = ISO_FAST.exec(text);
  if (!m || (m[7] !== undefined && m[7].length > nanosDigits)) return undefined;
  const year = +m[1];
  if (year < 100) return undefined; // Date.UTC maps years 0-99 to 1900-1999
  const month = m[2] === undefined ? 1 : +m[2];
  const day = m[3] === undefined ? 1 : +m[3];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const hour = m[4] === undefined ? (roundUp ? 23 : 0) : +m[4];
  const minute = m[5] === undefined ? (roundUp ? 59 : 0) : +m[5];
  const second = m[6] === undefined ? (roundUp ? 59 : 0) : +m[6];
  if (hour > 23 || minute > 59 || second > 59) return null;
  const frac = m[7];
  const nano = frac === undefined ? (roundUp ? 999_999_999 : 0) : frac.length === 3 ? +frac * 1_000_000 : +frac.padEnd(9, '0');
  const local = Date.UTC(year, month - 1, day, hour, minute, second, Math.floor(nano / 1_000_000));
  const z = m[8];
  let ms: number;
  if (z === undefined) ms = localToUtc(local, zone);
  else if (z === 'Z') ms = local;
  else {
    const h = +z.slice(1, 3);
    const mi = z.length > 3 ? +z.slice(-2) : 0;
    if (h > 18 || mi > 59) return null;
    ms = local - (z[0] === '-' ? -1 : 1) * (h * 60 + mi) * 60_000;
  }
  return { ms, nanos: nano % 1_000_000 };
}

const formatterCache = new Map<string, DateFormatter>();

/**
 * The formatter of an ES `format` (built-in names, Java patterns, `||` alternatives), compiled once.
 * @throws InvalidDateFormat for a pattern with an unknown letter or an unbalanced `]` or quote
 * @example dateFormatter('yyyy/MM/dd||epoch_millis').parse('2015/01/02') // {ms: 1420156800000, nanos: 0}
 */
export function dateFormatter(format: string): DateFormatter {
  let f = formatterCache.get(format);
  if (f) return f;
  const names = format.split('||');
  const alternatives = names.map(compileOne);
  const first = names[0].trim();
  const fastNanos = first === 'strict_date_optional_time' || first === 'date_optional_time' || first === 'strict_date_optional_time_nanos' ? 9 : 0;
  f = {
    pattern: format,
    parse(text: string, zone?: TimeZone, roundUp?: boolean): DateInstant | null {
      if (fastNanos > 0) {
        const r = parseIsoFast(text, zone, roundUp === true, fastNanos);
        if (r !== undefined) return r;
      }
      for (const alt of alternatives) {
        const p: Parsed = {};
        const end = parseTokens(alt.parser, text, 0, p);
        if (end !== text.length) continue;
        const r = resolve(p, zone, roundUp);
        if (r) return r;
      }
      return null;
    },
    format(instant: DateInstant): string {
      const alt = alternatives[0];
      return printTokens(alt.printer, fieldsOf(instant), instant);
    },
  };
  if (formatterCache.size < 500) formatterCache.set(format, f);
  return f;
}

/**
 * Parses a date value with an ES `format` (default {@link DEFAULT_DATE_FORMAT}): a string, or a
 * JSON number read as its decimal text (so `epoch_millis` takes it, as ES does). `roundUp` fills
 * missing time fields with their largest values (ES's range bounds `gt` and `lte`).
 * @returns the instant, or null when the value matches no alternative.
 */
export function parseDateInstant(value: unknown, format: string = DEFAULT_DATE_FORMAT, zone?: TimeZone, roundUp?: boolean): DateInstant | null {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    text = Number.isInteger(value) ? value.toFixed(0) : String(value);
  } else return null;
  return (format === DEFAULT_DATE_FORMAT ? (defaultFormatter ??= dateFormatter(DEFAULT_DATE_FORMAT)) : dateFormatter(format)).parse(text, zone, roundUp);
}

/** The formatter of {@link DEFAULT_DATE_FORMAT}, kept for the per-document path. */
let defaultFormatter: DateFormatter | undefined;

/**
 * {@link parseDateInstant} truncated to epoch milliseconds (a `date` field's resolution).
 * @example parseDate('2015-01-01') // 1420070400000
 */
export function parseDate(value: unknown, format?: string, zone?: TimeZone): number | null {
  const i = parseDateInstant(value, format, zone);
  return i ? i.ms : null;
}

/**
 * Prints an instant (epoch ms, with optional nanos within the ms) in an ES `format`'s first
 * alternative, in UTC.
 * @example formatDate(1540815132123, 'epoch_millis', 456789) // '1540815132123.456789'
 * @example formatDate(0, 'yyyy-MM-dd HH:mm:ss.SSS') // '1970-01-01 00:00:00.000'
 */
export function formatDate(ms: number, format: string = DEFAULT_DATE_FORMAT, nanos = 0): string {
  return dateFormatter(format).format({ ms, nanos });
}

/**
 * Parses an ES `time_zone` parameter (`+01:00`, `-0800`, `Z`, `UTC`, `Europe/Paris`).
 * @returns null when it names no zone.
 */
export function parseTimeZone(text: string): TimeZone | null {
  const p: Parsed = {};
  const end = parseZone(text, 0, p);
  if (end !== text.length) return null;
  if (p.region !== undefined) return { region: p.region };
  return { offsetMinutes: p.offsetMinutes ?? 0 };
}
