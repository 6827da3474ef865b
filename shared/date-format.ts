/**
 * Elasticsearch date formats: the built-in names (`strict_date_optional_time`, `epoch_millis`,
 * `date`, `basic_date_time`, …) and Java `DateTimeFormatter` patterns (`yyyy/MM/dd`,
 * `yyyy-MM-dd HH:mm:ss.SSS`, `'T'` literals, `[…]` optional sections), joined by `||` as a mapping's
 * `format` is. A format parses the values of a `date` field and prints dates for the fields API,
 * `docvalue_fields` and stored fields: the first of the `||` alternatives prints, each is tried in
 * turn to parse. Instants are UTC epoch milliseconds plus the nanoseconds within the millisecond
 * (`date_nanos`); a value without a zone is UTC, as in ES.
 *
 * Minimal on purpose (no locales other than ROOT's English names, no week-based fields): it serves
 * the fetch phase until the mapping layer's own date module lands, and keeps the same contract
 * (`DateFormat.of(format).parse(value)` / `.format(ms)`) so the two can be merged.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-date-format.html
 * @see https://docs.oracle.com/en/java/javase/17/docs/api/java.base/java/time/format/DateTimeFormatter.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/time/DateFormatters.java
 */
import { illegalArgument } from './errors.ts';

/** ES's default format of a `date` field. */
export const DEFAULT_DATE_FORMAT = 'strict_date_optional_time||epoch_millis';
/** ES's default format of a `date_nanos` field. */
export const DEFAULT_DATE_NANOS_FORMAT = 'strict_date_optional_time_nanos||epoch_millis';

/** An instant: UTC epoch milliseconds (an integer) and the nanoseconds within that millisecond (0–999,999). */
export interface Instant {
  ms: number;
  nanos: number;
}

/** One parsed pattern element. */
type Token =
  | { kind: 'lit'; text: string }
  | { kind: 'field'; letter: string; width: number }
  | { kind: 'optional'; tokens: Token[] };

/** Built-in names (ES `FormatNames`) as patterns; `strict_` variants share them. */
const NAMED: Record<string, string> = {
  date_optional_time: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
  date_optional_time_nanos: "yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSSXXX",
  basic_date: 'yyyyMMdd',
  basic_date_time: "yyyyMMdd'T'HHmmss.SSSXX",
  basic_date_time_no_millis: "yyyyMMdd'T'HHmmssXX",
  basic_ordinal_date: 'yyyyDDD',
  basic_time: 'HHmmss.SSSXX',
  basic_time_no_millis: 'HHmmssXX',
  basic_t_time: "'T'HHmmss.SSSXX",
  basic_t_time_no_millis: "'T'HHmmssXX",
  date: 'yyyy-MM-dd',
  date_hour: "yyyy-MM-dd'T'HH",
  date_hour_minute: "yyyy-MM-dd'T'HH:mm",
  date_hour_minute_second: "yyyy-MM-dd'T'HH:mm:ss",
  date_hour_minute_second_fraction: "yyyy-MM-dd'T'HH:mm:ss.SSS",
  date_hour_minute_second_millis: "yyyy-MM-dd'T'HH:mm:ss.SSS",
  date_time: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
  date_time_no_millis: "yyyy-MM-dd'T'HH:mm:ssXXX",
  hour: 'HH',
  hour_minute: 'HH:mm',
  hour_minute_second: 'HH:mm:ss',
  hour_minute_second_fraction: 'HH:mm:ss.SSS',
  hour_minute_second_millis: 'HH:mm:ss.SSS',
  ordinal_date: 'yyyy-DDD',
  ordinal_date_time: "yyyy-DDD'T'HH:mm:ss.SSSXXX",
  ordinal_date_time_no_millis: "yyyy-DDD'T'HH:mm:ssXXX",
  time: 'HH:mm:ss.SSSXXX',
  time_no_millis: 'HH:mm:ssXXX',
  t_time: "'T'HH:mm:ss.SSSXXX",
  t_time_no_millis: "'T'HH:mm:ssXXX",
  year: 'yyyy',
  year_month: 'yyyy-MM',
  year_month_day: 'yyyy-MM-dd',
};

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
/** Pattern letters this module prints and parses. */
const LETTERS = new Set(['y', 'u', 'Y', 'M', 'L', 'd', 'D', 'H', 'k', 'h', 'K', 'm', 's', 'S', 'n', 'a', 'E', 'X', 'x', 'Z', 'z', 'V']);

/** Splits a Java `DateTimeFormatter` pattern into tokens. @throws EsError 400 for an unknown letter or an unclosed quote */
function tokenize(pattern: string, whole: string): Token[] {
  const stack: Token[][] = [[]];
  const top = () => stack[stack.length - 1];
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i];
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end < 0) throw illegalArgument(`Invalid format: [${whole}]: Pattern ends with an incomplete string literal: ${pattern}`);
      top().push({ kind: 'lit', text: end === i + 1 ? "'" : pattern.slice(i + 1, end).replaceAll("''", "'") });
      i = end + 1;
    } else if (c === '[') {
      stack.push([]);
      i++;
    } else if (c === ']') {
      if (stack.length === 1) throw illegalArgument(`Invalid format: [${whole}]: Pattern invalid as it contains ] without previous [`);
      const tokens = stack.pop()!;
      top().push({ kind: 'optional', tokens });
      i++;
    } else if (/[A-Za-z]/.test(c)) {
      if (!LETTERS.has(c)) throw illegalArgument(`Invalid format: [${whole}]: Unknown pattern letter: ${c}`);
      let j = i;
      while (pattern[j] === c) j++;
      top().push({ kind: 'field', letter: c, width: j - i });
      i = j;
    } else {
      top().push({ kind: 'lit', text: c });
      i++;
    }
  }
  while (stack.length > 1) {
    const tokens = stack.pop()!;
    top().push({ kind: 'optional', tokens });
  }
  return stack[0];
}

const pad = (n: number, w: number): string => {
  const s = String(Math.abs(n)).padStart(w, '0');
  return n < 0 ? '-' + s : s;
};

/** Calendar fields of an instant in UTC. */
interface Fields {
  year: number;
  month: number;
  day: number;
  dayOfYear: number;
  weekday: number;
  hour: number;
  minute: number;
  second: number;
  /** Nanoseconds of the second. */
  nano: number;
}

function fieldsOf(t: Instant): Fields {
  const d = new Date(t.ms);
  const start = Date.UTC(d.getUTCFullYear(), 0, 1);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    dayOfYear: Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - start) / 86_400_000) + 1,
    weekday: d.getUTCDay(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    nano: d.getUTCMilliseconds() * 1_000_000 + t.nanos,
  };
}

/** Prints one field token as `DateTimeFormatter` does for the UTC zone. */
function printField(tok: { letter: string; width: number }, f: Fields): string {
  const { letter, width } = tok;
  switch (letter) {
    case 'y': case 'u': case 'Y':
      return width === 2 ? pad(((f.year % 100) + 100) % 100, 2) : f.year > 9999 && width === 4 ? '+' + f.year : pad(f.year, width);
    case 'M': case 'L':
      if (width >= 4) return MONTHS[f.month - 1];
      if (width === 3) return MONTHS[f.month - 1].slice(0, 3);
      return pad(f.month, width);
    case 'd': return pad(f.day, width);
    case 'D': return pad(f.dayOfYear, width);
    case 'H': return pad(f.hour, width);
    case 'k': return pad(f.hour === 0 ? 24 : f.hour, width);
    case 'h': return pad(f.hour % 12 === 0 ? 12 : f.hour % 12, width);
    case 'K': return pad(f.hour % 12, width);
    case 'm': return pad(f.minute, width);
    case 's': return pad(f.second, width);
    case 'S': return String(f.nano).padStart(9, '0').slice(0, width).padEnd(width, '0');
    case 'n': return String(f.nano);
    case 'a': return f.hour < 12 ? 'AM' : 'PM';
    case 'E': return width >= 4 ? DAYS[f.weekday] : DAYS[f.weekday].slice(0, 3);
    case 'X': return 'Z';
    case 'x': return width === 1 ? '+00' : width === 2 || width === 4 ? '+0000' : '+00:00';
    case 'Z': return width <= 3 ? '+0000' : width === 4 ? 'GMT' : 'Z';
    case 'z': return 'UTC';
    case 'V': return 'Z';
    default: return '';
  }
}

function printTokens(tokens: readonly Token[], f: Fields): string {
  let out = '';
  for (const t of tokens) {
    if (t.kind === 'lit') out += t.text;
    else if (t.kind === 'field') out += printField(t, f);
    else out += printTokens(t.tokens, f);
  }
  return out;
}

/** The regex source of tokens, each field a named capture; fields seen are recorded in `names`. */
function regexOf(tokens: readonly Token[], names: { letter: string; width: number }[]): string {
  let out = '';
  for (const t of tokens) {
    if (t.kind === 'lit') out += t.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (t.kind === 'optional') out += `(?:${regexOf(t.tokens, names)})?`;
    else {
      names.push(t);
      const n = names.length - 1;
      out += `(?<f${n}>${fieldRegex(t)})`;
    }
  }
  return out;
}

function fieldRegex(t: { letter: string; width: number }): string {
  switch (t.letter) {
    case 'y': case 'u': case 'Y': return t.width === 2 ? '\\d{2}' : t.width >= 4 ? '[+-]?\\d{4,9}' : '[+-]?\\d{1,9}';
    case 'M': case 'L':
      if (t.width >= 4) return MONTHS.join('|');
      if (t.width === 3) return MONTHS.map((m) => m.slice(0, 3)).join('|');
      return t.width === 2 ? '\\d{2}' : '\\d{1,2}';
    case 'D': return t.width >= 3 ? '\\d{3}' : '\\d{1,3}';
    case 'S': return `\\d{1,${Math.max(t.width, 9)}}`;
    case 'n': return '\\d{1,9}';
    case 'a': return 'AM|PM|am|pm';
    case 'E': return t.width >= 4 ? DAYS.join('|') : DAYS.map((d) => d.slice(0, 3)).join('|');
    case 'X': case 'x': case 'Z': return 'Z|z|[+-]\\d{2}(?::?\\d{2})?(?::?\\d{2})?|GMT|UTC';
    case 'z': case 'V': return '[A-Za-z_/+\\-0-9]+';
    default: return t.width === 2 ? '\\d{2}' : '\\d{1,' + Math.max(t.width, 2) + '}';
  }
}

/** Offset text (`Z`, `+01:00`, `-0530`, `+01`) in minutes; null for a zone name other than UTC/GMT/Z. */
function offsetMinutes(s: string): number | null {
  if (s === 'Z' || s === 'z' || s === 'UTC' || s === 'GMT') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?:?(\d{2})?$/.exec(s);
  if (!m) return null;
  const v = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === '-' ? -v : v;
}

/** One `||` alternative: a pattern, or a format that is not a pattern (`epoch_millis`, ISO). */
interface Alternative {
  print(t: Instant): string;
  parse(v: unknown): Instant | null;
}

/** ES's ISO parser behind `strict_date_optional_time` (date alone, then time parts optional, zone optional). */
const ISO = /^([+-]?\d{4,9})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

function isoParse(v: unknown): Instant | null {
  if (typeof v !== 'string') return null;
  const m = ISO.exec(v.trim());
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  const nanosOfSecond = Number(frac.padEnd(9, '0'));
  const date = new Date(0);
  date.setUTCFullYear(Number(y), month - 1, day);
  if (date.getUTCDate() !== day) return null; // 2023-02-30
  const off = zone ? offsetMinutes(zone) : 0;
  if (off === null) return null;
  const ms = date.getTime() + Number(h) * 3_600_000 + Number(mi) * 60_000 + Number(s) * 1000 + Math.floor(nanosOfSecond / 1_000_000) - off * 60_000;
  return { ms, nanos: nanosOfSecond % 1_000_000 };
}

/** Prints an instant as `strict_date_optional_time` (milliseconds always; `nanos`: 3 to 9 fraction digits). */
function isoPrint(t: Instant, nanos: boolean): string {
  const f = fieldsOf(t);
  const y = f.year > 9999 ? '+' + f.year : f.year < 0 ? '-' + String(-f.year).padStart(6, '0') : pad(f.year, 4);
  const digits = String(f.nano).padStart(9, '0');
  let end = 3;
  if (nanos) {
    end = 9;
    while (end > 3 && digits[end - 1] === '0') end--; // appendFraction(NANO_OF_SECOND, 3, 9, true)
  }
  const frac = digits.slice(0, end);
  return `${y}-${pad(f.month, 2)}-${pad(f.day, 2)}T${pad(f.hour, 2)}:${pad(f.minute, 2)}:${pad(f.second, 2)}.${frac}Z`;
}

/** `epoch_millis` / `epoch_second`: a number, or a string of digits with an optional fraction. */
function epochParse(v: unknown, unitMs: number): Instant | null {
  let text: string;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    text = String(v);
  } else if (typeof v === 'string' && /^-?\d+(?:\.\d+)?$/.test(v.trim())) text = v.trim();
  else return null;
  if (/e/i.test(text)) text = BigInt(Math.trunc(Number(text))).toString();
  const neg = text.startsWith('-');
  const [int, frac = ''] = (neg ? text.slice(1) : text).split('.');
  // Exact: milliseconds and nanoseconds from the decimal digits, not from a double product.
  const totalNanos = BigInt(int) * BigInt(unitMs) * 1_000_000n + (BigInt((frac + '000000000000').slice(0, 12)) * BigInt(unitMs)) / 1_000_000n;
  const signed = neg ? -totalNanos : totalNanos;
  const ms = signed >= 0n ? signed / 1_000_000n : -((-signed + 999_999n) / 1_000_000n);
  return { ms: Number(ms), nanos: Number(signed - ms * 1_000_000n) };
}

function epochPrint(t: Instant, unitMs: number): string {
  if (unitMs === 1) {
    if (t.nanos === 0) return String(t.ms);
    return `${t.ms}.${String(t.nanos).padStart(6, '0').replace(/0+$/, '')}`;
  }
  const whole = Math.floor(t.ms / 1000);
  const rest = (t.ms - whole * 1000) * 1_000_000 + t.nanos;
  return rest === 0 ? String(whole) : `${whole}.${String(rest).padStart(9, '0').replace(/0+$/, '')}`;
}

/** A Java pattern as an {@link Alternative}. */
function patternAlternative(pattern: string, whole: string): Alternative {
  const tokens = tokenize(pattern, whole);
  const names: { letter: string; width: number }[] = [];
  const re = new RegExp(`^(?:${regexOf(tokens, names)})$`);
  return {
    print: (t) => printTokens(tokens, fieldsOf(t)),
    parse: (v) => {
      if (typeof v !== 'string' && typeof v !== 'number') return null;
      const m = re.exec(String(v));
      if (!m) return null;
      let year = 1970, month = 1, day = 1, dayOfYear = 0, hour = 0, minute = 0, second = 0, nano = 0, pm: boolean | null = null, off = 0;
      names.forEach((n, i) => {
        const s = m.groups![`f${i}`];
        if (s === undefined) return;
        switch (n.letter) {
          case 'y': case 'u': case 'Y': year = n.width === 2 ? 2000 + Number(s) : Number(s); break;
          case 'M': case 'L': month = /\d/.test(s) ? Number(s) : MONTHS.findIndex((x) => x.startsWith(s)) + 1; break;
          case 'd': day = Number(s); break;
          case 'D': dayOfYear = Number(s); break;
          case 'H': case 'k': hour = Number(s) % 24; break;
          case 'h': case 'K': hour = Number(s) % 12; break;
          case 'm': minute = Number(s); break;
          case 's': second = Number(s); break;
          case 'S': nano = Number(s.padEnd(9, '0').slice(0, 9)); break;
          case 'n': nano = Number(s); break;
          case 'a': pm = s.toUpperCase() === 'PM'; break;
          case 'X': case 'x': case 'Z': case 'z': case 'V': {
            const o = offsetMinutes(s);
            if (o === null) { off = NaN; break; }
            off = o;
            break;
          }
        }
      });
      if (Number.isNaN(off) || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
      if (pm !== null && pm) hour += 12;
      const date = new Date(0);
      date.setUTCFullYear(year, month - 1, dayOfYear > 0 ? 1 : day);
      if (dayOfYear > 0) date.setUTCDate(dayOfYear);
      else if (date.getUTCDate() !== day) return null;
      const ms = date.getTime() + hour * 3_600_000 + minute * 60_000 + second * 1000 + Math.floor(nano / 1_000_000) - off * 60_000;
      return { ms, nanos: nano % 1_000_000 };
    },
  };
}

function alternativeOf(name: string, whole: string): Alternative {
  const bare = name.startsWith('strict_') ? name.slice(7) : name;
  switch (bare) {
    case 'epoch_millis': return { print: (t) => epochPrint(t, 1), parse: (v) => epochParse(v, 1) };
    case 'epoch_second': return { print: (t) => epochPrint(t, 1000), parse: (v) => epochParse(v, 1000) };
    case 'date_optional_time': case 'iso8601': return { print: (t) => isoPrint(t, false), parse: isoParse };
    case 'date_optional_time_nanos': return { print: (t) => isoPrint(t, true), parse: isoParse };
  }
  if (Object.hasOwn(NAMED, bare)) return patternAlternative(NAMED[bare], whole);
  return patternAlternative(name, whole);
}

/** A parsed date format (one or more `||` alternatives). Build with {@link DateFormat.of}. */
export class DateFormat {
  /** The format as written. */
  readonly text: string;
  private readonly alternatives: Alternative[];

  private constructor(text: string) {
    this.text = text;
    const parts = text.split('||').map((p) => p.trim());
    if (parts.some((p) => p === '')) throw illegalArgument(`Invalid format: [${text}]: must not be empty`);
    this.alternatives = parts.map((p) => alternativeOf(p, text));
  }

  private static readonly cache = new Map<string, DateFormat>();

  /**
   * The format named by `text` (cached; a few hundred distinct formats at most in practice).
   * @throws EsError 400 `illegal_argument_exception` `Invalid format: [x]: Unknown pattern letter: b`
   */
  static of(text: string): DateFormat {
    let f = DateFormat.cache.get(text);
    if (!f) {
      f = new DateFormat(text);
      if (DateFormat.cache.size < 1024) DateFormat.cache.set(text, f);
    }
    return f;
  }

  /** Parses a source value (string, or number for the epoch formats) with the first alternative that accepts it; null when none does. */
  parse(value: unknown): Instant | null {
    for (const a of this.alternatives) {
      const t = a.parse(value);
      if (t !== null && Number.isFinite(t.ms)) return t;
    }
    return null;
  }

  /** Prints an instant with the first alternative (ES `DateFormatter.format`). */
  format(t: Instant | number): string {
    return this.alternatives[0].print(typeof t === 'number' ? { ms: t, nanos: 0 } : t);
  }
}
