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

type NumField = 'year' | 'month' | 'day' | 'dayOfYear' | 'hour' | 'hour12' | 'minute' | 'second' | 'weekYear' | 'week' | 'dayOfWeek';

type Token =
  | { t: 'lit'; s: string }
  | { t: 'num'; f: NumField; min: number; max: number; pad: number; twoDigitYear?: boolean }
  | { t: 'frac'; min: number; max: number; printMin: number; printMax: number }
  | { t: 'text'; f: 'month' | 'dow' | 'ampm' | 'era'; full: boolean }
  | { t: 'zone'; style: 'Z' | 'ZZZZ' | 'XXX' | 'X' | 'XX' | 'x' | 'xx' | 'xxx' | 'id' }
  | { t: 'opt'; tokens: Token[] }
  | { t: 'epoch'; unit: 'ms' | 's' };

interface Parsed {
  year?: number;
  month?: number;
  day?: number;
  dayOfYear?: number;
  hour?: number;
  hour12?: number;
  ampm?: number;
  minute?: number;
  second?: number;
  nanoOfSecond?: number;
  weekYear?: number;
  week?: number;
  dayOfWeek?: number;
  offsetMinutes?: number;
  region?: string;
  epoch?: DateInstant;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** Thrown (as a plain Error) for a pattern that cannot be compiled; callers wrap it in ES's error. */
export class InvalidDateFormat extends Error {}

// ---------------------------------------------------------------------------------------------
// Built-in formats (ES DateFormatters), written in the pattern language below with `[...]` optional
// sections. `strict` names take exact digit counts; the lenient ones take 1..n digits.
// ---------------------------------------------------------------------------------------------

const T = "'T'";
const HMS_FRAC = 'HH:mm:ss.SSS';
const BUILTIN: Record<string, string> = {
  date_optional_time: "yyyy[-MM[-dd['T'[HH[:mm[:ss[.SSS][,SSS]]]][Z]]]]",
  strict_date_optional_time: "yyyy[-MM[-dd['T'[HH[:mm[:ss[.SSS][,SSS]]]][Z]]]]",
  strict_date_optional_time_nanos: "yyyy[-MM[-dd['T'[HH[:mm[:ss[.SSSSSSSSS][,SSSSSSSSS]]]][Z]]]]",
  basic_date: 'yyyyMMdd',
  basic_date_time: `yyyyMMdd${T}HHmmss.SSSZ`,
  basic_date_time_no_millis: `yyyyMMdd${T}HHmmssZ`,
  basic_ordinal_date: 'yyyyDDD',
  basic_ordinal_date_time: `yyyyDDD${T}HHmmss.SSSZ`,
  basic_ordinal_date_time_no_millis: `yyyyDDD${T}HHmmssZ`,
  basic_time: 'HHmmss.SSSZ',
  basic_time_no_millis: 'HHmmssZ',
  basic_t_time: `${T}HHmmss.SSSZ`,
  basic_t_time_no_millis: `${T}HHmmssZ`,
  basic_week_date: "YYYY'W'wwe",
  basic_week_date_time: `YYYY'W'wwe${T}HHmmss.SSSZ`,
  basic_week_date_time_no_millis: `YYYY'W'wwe${T}HHmmssZ`,
  date: 'yyyy-MM-dd',
  date_hour: `yyyy-MM-dd${T}HH`,
  date_hour_minute: `yyyy-MM-dd${T}HH:mm`,
  date_hour_minute_second: `yyyy-MM-dd${T}HH:mm:ss`,
  date_hour_minute_second_fraction: `yyyy-MM-dd${T}${HMS_FRAC}`,
  date_hour_minute_second_millis: `yyyy-MM-dd${T}${HMS_FRAC}`,
  date_time: `yyyy-MM-dd${T}${HMS_FRAC}Z`,
  date_time_no_millis: `yyyy-MM-dd${T}HH:mm:ssZ`,
  hour: 'HH',
  hour_minute: 'HH:mm',
  hour_minute_second: 'HH:mm:ss',
  hour_minute_second_fraction: HMS_FRAC,
  hour_minute_second_millis: HMS_FRAC,
  ordinal_date: 'yyyy-DDD',
  ordinal_date_time: `yyyy-DDD${T}${HMS_FRAC}Z`,
  ordinal_date_time_no_millis: `yyyy-DDD${T}HH:mm:ssZ`,
  time: `${HMS_FRAC}Z`,
  time_no_millis: 'HH:mm:ssZ',
  t_time: `${T}${HMS_FRAC}Z`,
  t_time_no_millis: `${T}HH:mm:ssZ`,
  week_date: "YYYY-'W'ww-e",
  week_date_time: `YYYY-'W'ww-e${T}${HMS_FRAC}Z`,
  week_date_time_no_millis: `YYYY-'W'ww-e${T}HH:mm:ssZ`,
  weekyear: 'YYYY',
  weekyear_week: "YYYY-'W'ww",
  weekyear_week_day: "YYYY-'W'ww-e",
  year: 'yyyy',
  year_month: 'yyyy-MM',
  year_month_day: 'yyyy-MM-dd',
};

/** Printers of the built-ins whose printed form differs from their parser (ES prints every field). */
const BUILTIN_PRINTERS: Record<string, string> = {
  date_optional_time: `yyyy-MM-dd${T}${HMS_FRAC}Z`,
  strict_date_optional_time: `yyyy-MM-dd${T}${HMS_FRAC}Z`,
  strict_date_optional_time_nanos: `yyyy-MM-dd${T}HH:mm:ss.SSSSSSSSSZ`,
};

interface CompileOptions {
  /** Built-in format: `S` parses 1..9 digits, `Z` prints `Z`/`+01:00`; lenient built-ins take 1..n digits. */
  builtin: boolean;
  strict: boolean;
  /** Printing `SSSSSSSSS` of `_nanos`: 3 to 9 digits, trailing zeros dropped (ES `appendFraction(NANO, 3, 9)`). */
  nanosPrinter?: boolean;
}

/** Compiles a Java-style pattern into tokens. @throws InvalidDateFormat */
function compilePattern(pattern: string, opts: CompileOptions): Token[] {
  let i = 0;
  const parseSeq = (inOptional: boolean): Token[] => {
    const out: Token[] = [];
    while (i < pattern.length) {
      const c = pattern[i];
      if (c === '[') {
        i++;
        out.push({ t: 'opt', tokens: parseSeq(true) });
        continue;
      }
      if (c === ']') {
        if (!inOptional) throw new InvalidDateFormat(`Pattern invalid as it contains ] without previous [`);
        i++;
        return out;
      }
      if (c === "'") {
        let j = i + 1;
        let s = '';
        for (;;) {
          if (j >= pattern.length) throw new InvalidDateFormat(`Pattern ends with an incomplete string literal: ${pattern}`);
          if (pattern[j] === "'") {
            if (pattern[j + 1] === "'") {
              s += "'";
              j += 2;
              continue;
            }
            break;
          }
          s += pattern[j++];
        }
        out.push({ t: 'lit', s: j === i + 1 ? "'" : s });
        i = j + 1;
        continue;
      }
      if (/[A-Za-z]/.test(c)) {
        let n = 1;
        while (pattern[i + n] === c) n++;
        i += n;
        out.push(letterToken(c, n, opts));
        continue;
      }
      out.push({ t: 'lit', s: c });
      i++;
    }
    return out;
  };
  const tokens = parseSeq(false);
  return tokens;
}

function num(f: NumField, n: number, opts: CompileOptions, fixedMax: number): Token {
  // Java: one letter takes 1..fixedMax digits, two letters exactly two; lenient built-ins take 1..n.
  if (opts.builtin && !opts.strict) return { t: 'num', f, min: 1, max: Math.max(n, fixedMax), pad: n };
  if (n === 1) return { t: 'num', f, min: 1, max: fixedMax, pad: 1 };
  return { t: 'num', f, min: n, max: Math.max(n, fixedMax === 3 ? 3 : n), pad: n };
}

function letterToken(c: string, n: number, opts: CompileOptions): Token {
  switch (c) {
    case 'y':
    case 'u':
    case 'Y': {
      const f: NumField = c === 'Y' ? 'weekYear' : 'year';
      if (n === 2) return { t: 'num', f, min: 2, max: 2, pad: 2, twoDigitYear: true };
      if (opts.builtin) return { t: 'num', f, min: opts.strict ? 4 : 1, max: opts.strict ? 4 : 9, pad: 4 };
      return { t: 'num', f, min: n, max: 19, pad: n };
    }
    case 'M':
    case 'L':
      if (n >= 3) return { t: 'text', f: 'month', full: n >= 4 };
      return num('month', n, opts, 2);
    case 'd':
      return num('day', n, opts, 2);
    case 'D':
      return num('dayOfYear', n, opts, 3);
    case 'H':
    case 'k':
      return num('hour', n, opts, 2);
    case 'h':
    case 'K':
      return num('hour12', n, opts, 2);
    case 'm':
      return num('minute', n, opts, 2);
    case 's':
      return num('second', n, opts, 2);
    case 'w':
      return num('week', n, opts, 2);
    case 'e':
    case 'c':
      if (n >= 3) return { t: 'text', f: 'dow', full: n >= 4 };
      return num('dayOfWeek', n, opts, 1);
    case 'E':
      return { t: 'text', f: 'dow', full: n >= 4 };
    case 'a':
      return { t: 'text', f: 'ampm', full: false };
    case 'G':
      return { t: 'text', f: 'era', full: n >= 4 };
    case 'S':
      if (opts.builtin) {
        if (opts.nanosPrinter) return { t: 'frac', min: 1, max: 9, printMin: 3, printMax: 9 };
        return { t: 'frac', min: 1, max: 9, printMin: n, printMax: n };
      }
      return { t: 'frac', min: n, max: n, printMin: n, printMax: n };
    case 'n':
      return { t: 'frac', min: 1, max: 9, printMin: 9, printMax: 9 };
    case 'Z':
      if (opts.builtin) return { t: 'zone', style: 'XXX' };
      return { t: 'zone', style: n === 4 ? 'ZZZZ' : n === 5 ? 'XXX' : 'Z' };
    case 'X':
      return { t: 'zone', style: n === 1 ? 'X' : n === 2 ? 'XX' : 'XXX' };
    case 'x':
      return { t: 'zone', style: n === 1 ? 'x' : n === 2 ? 'xx' : 'xxx' };
    case 'z':
    case 'V':
    case 'O':
      return { t: 'zone', style: 'id' };
    default:
      throw new InvalidDateFormat(`Unknown pattern letter: ${c}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Digits a run of adjacent fixed-width number tokens after `tokens[k]` needs (Java adjacent value parsing). */
function reservedAfter(tokens: Token[], k: number): number {
  let r = 0;
  for (let j = k + 1; j < tokens.length; j++) {
    const tk = tokens[j];
    if (tk.t === 'num' && tk.min === tk.max) r += tk.min;
    else if (tk.t === 'frac' && tk.min === tk.max) r += tk.min;
    else break;
  }
  return r;
}

/** Parses a zone at `pos`: `Z`, `±HH`, `±HHmm`, `±HH:mm`, `UTC`, `GMT±..`, a region id. */
function parseZone(s: string, pos: number, p: Parsed): number {
  if (s[pos] === 'Z' && !/[A-Za-z]/.test(s[pos + 1] ?? '')) {
    p.offsetMinutes = 0;
    return pos + 1;
  }
  const off = /^([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?/.exec(s.slice(pos));
  if (off) {
    const h = Number(off[2]);
    const m = Number(off[3] ?? 0);
    if (h > 18 || m > 59) return -1;
    p.offsetMinutes = (off[1] === '-' ? -1 : 1) * (h * 60 + m);
    return pos + off[0].length;
  }
  const id = /^(?:UTC|GMT|UT)(?![A-Za-z/])([+-]\d{1,2}(?::?\d{2})?)?|^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*/.exec(s.slice(pos));
  if (!id) return -1;
  const text = id[0];
  const fixed = /^(?:UTC|GMT|UT)(?:([+-])(\d{1,2})(?::?(\d{2}))?)?$/.exec(text);
  if (fixed) {
    p.offsetMinutes = fixed[1] ? (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3] ?? 0)) : 0;
    return pos + text.length;
  }
  if (!isRegion(text)) return -1;
  p.region = text;
  return pos + text.length;
}

const regionCache = new Map<string, boolean>();
function isRegion(id: string): boolean {
  let ok = regionCache.get(id);
  if (ok === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: id });
      ok = true;
    } catch {
      ok = false;
    }
    if (regionCache.size < 1000) regionCache.set(id, ok);
  }
  return ok;
}

function matchText(s: string, pos: number, names: readonly string[], full: boolean): [number, number] | null {
  for (let k = 0; k < names.length; k++) {
    const name = full ? names[k] : names[k].slice(0, 3);
    if (s.slice(pos, pos + name.length).toLowerCase() === name.toLowerCase()) return [k, pos + name.length];
  }
  return null;
}

/** Parses `tokens` from `pos`; returns the end position or -1. Writes into `p` (callers copy for optionals). */
function parseTokens(tokens: Token[], s: string, pos: number, p: Parsed): number {
  for (let k = 0; k < tokens.length; k++) {
    const tk = tokens[k];
    switch (tk.t) {
      case 'lit':
        if (!s.startsWith(tk.s, pos)) {
          // ES's optional-time formats accept a space or lower-case t where the pattern says 'T'? No: exact.
          return -1;
        }
        pos += tk.s.length;
        break;
      case 'opt': {
        const trial: Parsed = { ...p };
        const end = parseTokens(tk.tokens, s, pos, trial);
        if (end >= 0) {
          Object.assign(p, trial);
          pos = end;
        }
        break;
      }
      case 'num': {
        let sign = 1;
        let start = pos;
        if ((tk.f === 'year' || tk.f === 'weekYear') && !tk.twoDigitYear && (s[pos] === '-' || s[pos] === '+') && tk.min !== tk.max) {
          if (s[pos] === '-') sign = -1;
          start = ++pos;
        }
        let end = start;
        while (end < s.length && end - start < tk.max && isDigit(s.charCodeAt(end))) end++;
        if (tk.min !== tk.max) {
          const reserve = reservedAfter(tokens, k);
          if (reserve > 0) end = Math.max(start, Math.min(end, countDigits(s, start) - reserve + start));
        }
        if (end - start < tk.min) return -1;
        let v = Number(s.slice(start, end));
        if (tk.twoDigitYear) v += 2000;
        p[tk.f] = sign * v;
        pos = end;
        break;
      }
      case 'frac': {
        let end = pos;
        while (end < s.length && end - pos < tk.max && isDigit(s.charCodeAt(end))) end++;
        if (end - pos < tk.min) return -1;
        p.nanoOfSecond = Number(s.slice(pos, end).padEnd(9, '0'));
        pos = end;
        break;
      }
      case 'text': {
        if (tk.f === 'ampm') {
          const m = matchText(s, pos, ['AM', 'PM'], true);
          if (!m) return -1;
          [p.ampm, pos] = m;
        } else if (tk.f === 'month') {
          const m = matchText(s, pos, MONTHS, tk.full);
          if (!m) return -1;
          p.month = m[0] + 1;
          pos = m[1];
        } else if (tk.f === 'dow') {
          const m = matchText(s, pos, DAYS, tk.full);
          if (!m) return -1;
          p.dayOfWeek = m[0] + 1;
          pos = m[1];
        } else {
          const m = matchText(s, pos, tk.full ? ['Anno Domini'] : ['AD'], true);
          if (!m) return -1;
          pos = m[1];
        }
        break;
      }
      case 'zone':
        pos = parseZone(s, pos, p);
        if (pos < 0) return -1;
        break;
      case 'epoch': {
        const m = (tk.unit === 'ms' ? /^(-?)(\d+)(?:\.(\d{1,6}))?/ : /^(-?)(\d+)(?:\.(\d{1,9}))?/).exec(s.slice(pos));
        if (!m) return -1;
        const e = epochInstant(m[1] === '-', m[2], m[3] ?? '', tk.unit);
        if (!e) return -1;
        p.epoch = e;
        pos += m[0].length;
        break;
      }
    }
  }
  return pos;
}

function countDigits(s: string, from: number): number {
  let e = from;
  while (e < s.length && isDigit(s.charCodeAt(e))) e++;
  return e - from;
}

/** An epoch value (`ms` or `s`, with an optional fraction) as an instant; null when out of range. */
function epochInstant(negative: boolean, whole: string, fraction: string, unit: 'ms' | 's'): DateInstant | null {
  const w = Number(whole);
  let ms: number;
  let nanos: number;
  if (unit === 'ms') {
    ms = w;
    nanos = Number(fraction.padEnd(6, '0'));
  } else {
    const f = fraction.padEnd(9, '0');
    ms = w * 1000 + Number(f.slice(0, 3));
    nanos = Number(f.slice(3));
  }
  if (!Number.isSafeInteger(ms)) return null;
  if (negative) {
    // -1.5 ms is 1.5 ms before the epoch: ms -2 and 500,000 ns.
    if (nanos > 0) return { ms: -ms - 1, nanos: 1_000_000 - nanos };
    return { ms: -ms + 0, nanos: 0 };
  }
  return { ms, nanos };
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1];
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Epoch days of a civil date (proleptic Gregorian, any year). */
function epochDay(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return Math.floor(d.getTime() / 86_400_000);
}

/** Offset (minutes east of UTC) of region `zone` at the UTC instant `utcMs`. */
function regionOffsetAt(region: string, utcMs: number): number {
  const dtf = regionFormatter(region);
  const parts = dtf.formatToParts(new Date(utcMs));
  const get = (type: string): number => Number(parts.find((x) => x.type === type)?.value ?? 0);
  let year = get('year');
  if (parts.find((x) => x.type === 'era')?.value === 'BC') year = 1 - year;
  const local = epochDay(year, get('month'), get('day')) * 86_400_000 + (get('hour') % 24) * 3_600_000 + get('minute') * 60_000 + get('second') * 1000;
  return Math.round((local - (utcMs - (((utcMs % 1000) + 1000) % 1000))) / 60_000);
}

const regionFormatters = new Map<string, Intl.DateTimeFormat>();
function regionFormatter(region: string): Intl.DateTimeFormat {
  let f = regionFormatters.get(region);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: region,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    regionFormatters.set(region, f);
  }
  return f;
}

/** UTC ms of a local wall-clock time `localMs` in `zone` (the earlier offset at a gap or overlap, as java.time). */
export function localToUtc(localMs: number, zone: TimeZone | undefined): number {
  if (!zone) return localMs;
  if ('offsetMinutes' in zone) return localMs - zone.offsetMinutes * 60_000;
  let guess = localMs - regionOffsetAt(zone.region, localMs) * 60_000;
  guess = localMs - regionOffsetAt(zone.region, guess) * 60_000;
  return guess;
}

/** ISO week-based date → epoch day (weeks start on Monday; week 1 holds January 4th). */
function isoWeekDay(weekYear: number, week: number, dow: number): number {
  const jan4 = epochDay(weekYear, 1, 4);
  const jan4Dow = ((((jan4 + 3) % 7) + 7) % 7) + 1; // 1970-01-01 was a Thursday (4)
  return jan4 - (jan4Dow - 1) + (week - 1) * 7 + (dow - 1);
}

/** Resolves parsed fields into an instant; null for an invalid date (month 13, February 30, hour 24). */
function resolve(p: Parsed, zone: TimeZone | undefined, roundUp = false): DateInstant | null {
  if (p.epoch) return p.epoch;
  let day: number;
  if (p.weekYear !== undefined || p.week !== undefined) {
    const wy = p.weekYear ?? p.year ?? 1970;
    const w = p.week ?? 1;
    const dow = p.dayOfWeek ?? 1;
    if (w < 1 || w > 53 || dow < 1 || dow > 7) return null;
    day = isoWeekDay(wy, w, dow);
  } else {
    const year = p.year ?? 1970;
    if (p.dayOfYear !== undefined) {
      if (p.dayOfYear < 1 || p.dayOfYear > (isLeap(year) ? 366 : 365)) return null;
      day = epochDay(year, 1, 1) + p.dayOfYear - 1;
    } else {
      const month = p.month ?? 1;
      const d = p.day ?? 1;
      if (month < 1 || month > 12 || d < 1 || d > daysInMonth(year, month)) return null;
      day = epochDay(year, month, d);
    }
  }
  let hour = p.hour ?? (roundUp ? 23 : 0);
  if (p.hour12 !== undefined) {
    if (p.hour12 < 1 || p.hour12 > 12) return null;
    hour = (p.hour12 % 12) + (p.ampm === 1 ? 12 : 0);
  } else if (p.ampm !== undefined && p.hour === undefined) hour = p.ampm === 1 ? 12 : 0;
  const minute = p.minute ?? (roundUp ? 59 : 0);
  const second = p.second ?? (roundUp ? 59 : 0);
  if (hour > 23 || minute > 59 || second > 59) return null;
  const nano = p.nanoOfSecond ?? (roundUp ? 999_999_999 : 0);
  const local = day * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + Math.floor(nano / 1_000_000);
  let ms: number;
  if (p.offsetMinutes !== undefined) ms = local - p.offsetMinutes * 60_000;
  else if (p.region !== undefined) ms = localToUtc(local, { region: p.region });
  else ms = localToUtc(local, zone);
  if (!Number.isFinite(ms)) return null;
  return { ms, nanos: nano % 1_000_000 };
}

// ---------------------------------------------------------------------------------------------
// Printing (UTC)
// ---------------------------------------------------------------------------------------------

interface Fields {
  year: number;
  month: number;
  day: number;
  dayOfYear: number;
  hour: number;
  minute: number;
  second: number;
  nanoOfSecond: number;
  dow: number;
  weekYear: number;
  week: number;
}

function fieldsOf(i: DateInstant): Fields {
  const d = new Date(i.ms);
  const dayNo = Math.floor(i.ms / 86_400_000);
  const year = d.getUTCFullYear();
  const dow = ((((dayNo + 3) % 7) + 7) % 7) + 1;
  // ISO week: the week's Thursday decides its year.
  const thursday = dayNo - dow + 4;
  const ty = new Date(thursday * 86_400_000).getUTCFullYear();
  const week = Math.floor((thursday - epochDay(ty, 1, 1)) / 7) + 1;
  return {
    year,
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    dayOfYear: dayNo - epochDay(year, 1, 1) + 1,
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    nanoOfSecond: d.getUTCMilliseconds() * 1_000_000 + i.nanos,
    dow,
    weekYear: ty,
    week,
  };
}

function pad(v: number, n: number): string {
  const s = String(Math.abs(v)).padStart(n, '0');
  return v < 0 ? '-' + s : s;
}

function printTokens(tokens: Token[], f: Fields, i: DateInstant): string {
  let out = '';
  for (const tk of tokens) {
    switch (tk.t) {
      case 'lit':
        out += tk.s;
        break;
      case 'opt':
        out += printTokens(tk.tokens, f, i);
        break;
      case 'num': {
        let v: number;
        if (tk.f === 'hour12') v = f.hour % 12 === 0 ? 12 : f.hour % 12;
        else if (tk.f === 'dayOfWeek') v = f.dow;
        else v = f[tk.f];
        if (tk.twoDigitYear) v = ((v % 100) + 100) % 100;
        const s = pad(v, tk.pad);
        // Java prints a year above 9999 with a sign when the pattern's width is 4 (SignStyle.EXCEEDS_PAD).
        out += (tk.f === 'year' || tk.f === 'weekYear') && tk.pad === 4 && v > 9999 ? '+' + s : s;
        break;
      }
      case 'frac': {
        let s = String(f.nanoOfSecond).padStart(9, '0').slice(0, tk.printMax);
        while (s.length > tk.printMin && s.endsWith('0')) s = s.slice(0, -1);
        out += s;
        break;
      }
      case 'text':
        if (tk.f === 'month') out += tk.full ? MONTHS[f.month - 1] : MONTHS[f.month - 1].slice(0, 3);
        else if (tk.f === 'dow') out += tk.full ? DAYS[f.dow - 1] : DAYS[f.dow - 1].slice(0, 3);
        else if (tk.f === 'ampm') out += f.hour < 12 ? 'AM' : 'PM';
        else out += tk.full ? 'Anno Domini' : 'AD';
        break;
      case 'zone':
        out += tk.style === 'Z' ? '+0000' : tk.style === 'ZZZZ' ? 'GMT' : tk.style === 'x' ? '+00' : tk.style === 'xx' ? '+0000' : tk.style === 'xxx' ? '+00:00' : 'Z';
        break;
      case 'epoch':
        out += printEpoch(i, tk.unit);
        break;
    }
  }
  return out;
}

/** `epoch_millis`/`epoch_second` text: the whole units, then the fraction when there is one (ES). */
function printEpoch(i: DateInstant, unit: 'ms' | 's'): string {
  if (unit === 'ms') {
    if (i.nanos === 0) return String(i.ms);
    // A negative instant with nanos: -1.5 ms is ms -2 + 500,000 ns.
    if (i.ms < 0) return '-' + String(-i.ms - 1) + '.' + String(1_000_000 - i.nanos).padStart(6, '0').replace(/0+$/, '');
    return String(i.ms) + '.' + String(i.nanos).padStart(6, '0').replace(/0+$/, '');
  }
  const totalNanos = BigInt(i.ms) * 1_000_000n + BigInt(i.nanos);
  const neg = totalNanos < 0n;
  const abs = neg ? -totalNanos : totalNanos;
  const whole = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return (neg ? '-' : '') + whole.toString() + (frac ? '.' + frac : '');
}

// ---------------------------------------------------------------------------------------------
// Formatters
// ---------------------------------------------------------------------------------------------

interface Alternative {
  parser: Token[];
  printer: Token[];
}

function compileOne(name: string): Alternative {
  const trimmed = name.trim();
  if (trimmed === 'epoch_millis') return { parser: [{ t: 'epoch', unit: 'ms' }], printer: [{ t: 'epoch', unit: 'ms' }] };
  if (trimmed === 'epoch_second') return { parser: [{ t: 'epoch', unit: 's' }], printer: [{ t: 'epoch', unit: 's' }] };
  const strict = trimmed.startsWith('strict_');
  const base = strict ? trimmed.slice(7) : trimmed;
  const builtinName = BUILTIN[trimmed] !== undefined ? trimmed : BUILTIN[base] !== undefined ? base : undefined;
  if (builtinName !== undefined) {
    // `strict_date_optional_time` has its own entry; other strict_ names share the lenient pattern.
    // The basic_ formats have no separators: their fields always take fixed widths.
    const opts: CompileOptions = { builtin: true, strict: strict || builtinName.startsWith('strict_') || builtinName.startsWith('basic_') };
    const printerPattern = BUILTIN_PRINTERS[builtinName] ?? BUILTIN[builtinName];
    return {
      parser: compilePattern(BUILTIN[builtinName], opts),
      printer: compilePattern(printerPattern, { ...opts, nanosPrinter: builtinName.endsWith('_nanos') }),
    };
  }
  if (trimmed === '') throw new InvalidDateFormat('Empty format');
  const tokens = compilePattern(trimmed, { builtin: false, strict: true });
  return { parser: tokens, printer: tokens };
}

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
