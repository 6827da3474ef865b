/**
 * Dates in aggregation requests and responses: `key_as_string`/`*_as_string` printed with a field's
 * (or the request's) `format` in a time zone, and the date values of requests (`extended_bounds`,
 * `date_range` `from`/`to`, `missing`) read as ES's `DateMathParser` reads them: epoch ms, ISO
 * dates, and `now`/`<date>||` with `+1d`, `-2M`, `/d` date math.
 * Formats: ES's named formats (`strict_date_optional_time`, `epoch_millis`, `date`, …) and Java
 * `DateTimeFormatter` patterns built from `y u M d H h m s S a E X x Z` and quoted text; the first
 * of `a||b` formats prints, as in ES.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-date-format.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/common-options.html#date-math
 */
import { illegalArgument } from '../../protocol/errors.ts';
import { DAY_MS, localToUtc, UTC, type Zone } from './date-zone.ts';

const ISO = "yyyy-MM-dd'T'HH:mm:ss.SSSXXX";

/** ES's named formats (with or without `strict_`) as patterns. */
const NAMED: Record<string, string> = {
  date_optional_time: ISO,
  date_optional_time_nanos: ISO,
  date_time: ISO,
  date_time_no_millis: "yyyy-MM-dd'T'HH:mm:ssXXX",
  date: 'yyyy-MM-dd',
  year_month_day: 'yyyy-MM-dd',
  year_month: 'yyyy-MM',
  year: 'yyyy',
  basic_date: 'yyyyMMdd',
  basic_date_time: "yyyyMMdd'T'HHmmss.SSSZ",
  date_hour: "yyyy-MM-dd'T'HH",
  date_hour_minute: "yyyy-MM-dd'T'HH:mm",
  date_hour_minute_second: "yyyy-MM-dd'T'HH:mm:ss",
  date_hour_minute_second_millis: "yyyy-MM-dd'T'HH:mm:ss.SSS",
  date_hour_minute_second_fraction: "yyyy-MM-dd'T'HH:mm:ss.SSS",
  hour: 'HH',
  hour_minute: 'HH:mm',
  hour_minute_second: 'HH:mm:ss',
  time: 'HH:mm:ss.SSSXXX',
  time_no_millis: 'HH:mm:ssXXX',
  ordinal_date: 'yyyy-DDD',
  week_date: "xxxx-'W'ww-e",
};

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

type Token = { lit: string } | { letter: string; count: number };

const compiled = new Map<string, Token[]>();

/** The pattern `format` prints with (the first of `a||b`, named formats resolved); null for epoch formats. */
function patternOf(format: string | undefined): string {
  const first = (format ?? 'strict_date_optional_time').split('||')[0].trim();
  const name = first.startsWith('strict_') ? first.slice(7) : first;
  return Object.hasOwn(NAMED, name) ? NAMED[name] : first;
}

/** Splits a Java pattern into letters runs and literals. @throws EsError 400 for an unknown letter. */
function compile(pattern: string): Token[] {
  const hit = compiled.get(pattern);
  if (hit) return hit;
  const out: Token[] = [];
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i];
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      const text = pattern.slice(i + 1, end === -1 ? pattern.length : end);
      out.push({ lit: text === '' ? "'" : text });
      i = end === -1 ? pattern.length : end + 1;
    } else if (/[A-Za-z]/.test(c)) {
      let j = i;
      while (pattern[j] === c) j++;
      if (!'yuMdHhmsSaEXxZDewL'.includes(c)) throw illegalArgument(`Unknown pattern letter: ${c}`);
      out.push({ letter: c, count: j - i });
      i = j;
    } else {
      out.push({ lit: c });
      i++;
    }
  }
  if (compiled.size > 1000) compiled.clear();
  compiled.set(pattern, out);
  return out;
}

const pad = (n: number, width: number): string => {
  const s = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? '-' + s : s;
};

/** `+hh:mm`-style offset text; `Z` for zero with the `X` letters. */
function offsetText(offsetMs: number, letter: string, count: number): string {
  if (offsetMs === 0 && letter === 'X') return 'Z';
  const sign = offsetMs < 0 ? '-' : '+';
  const mins = Math.abs(offsetMs) / 60_000;
  const hh = pad(Math.floor(mins / 60), 2);
  const mm = pad(mins % 60, 2);
  if (letter === 'Z') return count >= 4 ? `GMT${sign}${hh}:${mm}` : `${sign}${hh}${mm}`;
  if (count === 1) return mm === '00' ? `${sign}${hh}` : `${sign}${hh}${mm}`;
  return count === 2 || count === 4 ? `${sign}${hh}${mm}` : `${sign}${hh}:${mm}`;
}

/**
 * Prints `utcMs` with `format` (ES's default `strict_date_optional_time` when absent) in `zone`.
 * @throws EsError 400 for a pattern letter Folio does not print
 * @example formatDate(0, undefined, UTC) // '1970-01-01T00:00:00.000Z'
 */
export function formatDate(utcMs: number, format: string | undefined, zone: Zone = UTC): string {
  const pattern = patternOf(format);
  if (pattern === 'epoch_millis') return String(utcMs);
  if (pattern === 'epoch_second') return String(utcMs / 1000);
  const offset = zone.offsetAt(utcMs);
  const d = new Date(utcMs + offset);
  let s = '';
  for (const t of compile(pattern)) {
    if ('lit' in t) {
      s += t.lit;
      continue;
    }
    const n = t.count;
    switch (t.letter) {
      case 'y':
      case 'u':
      case 'x': {
        const y = d.getUTCFullYear();
        s += n === 2 ? pad(y % 100, 2) : pad(y, n);
        break;
      }
      case 'M':
      case 'L': {
        const m = d.getUTCMonth();
        s += n >= 4 ? MONTHS[m] : n === 3 ? MONTHS[m].slice(0, 3) : pad(m + 1, n);
        break;
      }
      case 'd':
        s += pad(d.getUTCDate(), n);
        break;
      case 'D':
        s += pad(Math.floor((utcMs + offset - Date.UTC(d.getUTCFullYear(), 0, 1)) / DAY_MS) + 1, n);
        break;
      case 'H':
        s += pad(d.getUTCHours(), n);
        break;
      case 'h':
        s += pad(d.getUTCHours() % 12 || 12, n);
        break;
      case 'm':
        s += pad(d.getUTCMinutes(), n);
        break;
      case 's':
        s += pad(d.getUTCSeconds(), n);
        break;
      case 'S':
        s += pad(d.getUTCMilliseconds(), 3).padEnd(n, '0').slice(0, n);
        break;
      case 'a':
        s += d.getUTCHours() < 12 ? 'AM' : 'PM';
        break;
      case 'E':
        s += n >= 4 ? DAYS[d.getUTCDay()] : DAYS[d.getUTCDay()].slice(0, 3);
        break;
      case 'e':
        s += String(((d.getUTCDay() + 6) % 7) + 1);
        break;
      case 'w':
        s += pad(isoWeek(d), n);
        break;
      default:
        s += offsetText(offset, t.letter, n); // X, Z
    }
  }
  return s;
}

/** ISO week number of a (local, as UTC fields) date. */
function isoWeek(d: Date): number {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  t.setUTCDate(t.getUTCDate() + 3 - ((t.getUTCDay() + 6) % 7));
  const firstThursday = new Date(Date.UTC(t.getUTCFullYear(), 0, 4));
  return 1 + Math.round(((t.getTime() - firstThursday.getTime()) / DAY_MS - 3 + ((firstThursday.getUTCDay() + 6) % 7)) / 7);
}

const ISO_DATE = /^(-?\d{4,})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** An ISO date (UTC, or `zone` when it names no offset) as epoch ms, or null. */
function parseIso(s: string, zone: Zone): number | null {
  const m = ISO_DATE.exec(s);
  if (!m) return null;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const d = new Date(Date.UTC(2000, Number(m[2] ?? 1) - 1, Number(m[3] ?? 1), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), ms));
  d.setUTCFullYear(Number(m[1]));
  const local = d.getTime();
  if (Number.isNaN(local)) return null;
  if (m[8] === undefined) return localToUtc(local, zone);
  if (m[8] === 'Z') return local;
  const sign = m[8][0] === '-' ? -1 : 1;
  const digits = m[8].slice(1).replace(':', '');
  return local - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * 60_000;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, H: 3_600_000, d: DAY_MS, w: 7 * DAY_MS };

/** Applies `+1d`/`-2M`/`/d` date math to `t` (in `zone` for rounding and calendar units). */
function applyMath(t: number, math: string, zone: Zone, original: string): number {
  let i = 0;
  while (i < math.length) {
    const op = math[i++];
    let num = '';
    while (i < math.length && /\d/.test(math[i])) num += math[i++];
    const unit = math[i++];
    if ((op !== '+' && op !== '-' && op !== '/') || unit === undefined || (op === '/' && num !== '')) {
      throw illegalArgument(`failed to parse date field [${original}] with format [strict_date_optional_time||epoch_millis]`);
    }
    const n = op === '/' ? 0 : Number(num === '' ? 1 : num) * (op === '-' ? -1 : 1);
    const local = new Date(t + zone.offsetAt(t));
    if (op === '/') {
      const y = local.getUTCFullYear();
      const mo = local.getUTCMonth();
      let start: number;
      if (unit === 'y') start = Date.UTC(y, 0, 1);
      else if (unit === 'M') start = Date.UTC(y, mo, 1);
      else if (unit === 'w') start = Math.floor(local.getTime() / DAY_MS) * DAY_MS - ((local.getUTCDay() + 6) % 7) * DAY_MS;
      else if (UNIT_MS[unit]) start = Math.floor(local.getTime() / UNIT_MS[unit]) * UNIT_MS[unit];
      else throw illegalArgument(`rounding /${unit} is not supported`);
      t = localToUtc(start, zone);
    } else if (unit === 'y' || unit === 'M') {
      // Java's plusMonths/plusYears: the day of month is clamped to the target month's length.
      const day = local.getUTCDate();
      local.setUTCDate(1);
      if (unit === 'y') local.setUTCFullYear(local.getUTCFullYear() + n);
      else local.setUTCMonth(local.getUTCMonth() + n);
      const days = new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth() + 1, 0)).getUTCDate();
      local.setUTCDate(Math.min(day, days));
      t = localToUtc(local.getTime(), zone);
    } else if (UNIT_MS[unit]) t += n * UNIT_MS[unit];
    else throw illegalArgument(`unit [${unit}] not supported for date math [${math}]`);
  }
  return t;
}

/**
 * A date value of a request as epoch ms: a number (epoch ms), a string of digits (epoch ms), an ISO
 * date (in `zone` when it has no offset), `now`, or either followed by date math (`now-1d/d`,
 * `2024-01-01||+1M`).
 * @throws EsError 400 `failed to parse date field [v] with format [strict_date_optional_time||epoch_millis]`
 */
export function parseDateValue(v: unknown, zone: Zone = UTC, nowMs: number = Date.now()): number {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  const s = String(v).trim();
  const fail = () => illegalArgument(`failed to parse date field [${s}] with format [strict_date_optional_time||epoch_millis]`);
  if (s.startsWith('now')) return applyMath(nowMs, s.slice(3), zone, s);
  const bars = s.indexOf('||');
  const anchor = bars === -1 ? s : s.slice(0, bars);
  let t: number | null = /^-?\d+$/.test(anchor) && !(anchor.length === 4) ? Number(anchor) : parseIso(anchor, zone);
  if (t === null || !Number.isFinite(t)) throw fail();
  if (bars !== -1) t = applyMath(t, s.slice(bars + 2), zone, s);
  return t;
}
