/**
 * Parsing a text with a compiled date pattern (date-pattern.ts), as `java.time`'s
 * `DateTimeFormatter.parse` does: fields are read token by token (adjacent fixed-width numbers
 * share a digit run), optional sections are tried and dropped on a mismatch, and the fields are then
 * resolved into an instant in the text's own offset, else the given time zone, else UTC. A date that
 * does not exist (month 13, February 30, hour 24) resolves to null.
 * @see https://docs.oracle.com/en/java/javase/21/docs/api/java.base/java/time/format/DateTimeFormatterBuilder.html
 */
import type { DateInstant, TimeZone } from './date-format.ts';
import { daysInMonth, epochDay, isLeap, isoWeekDay, localToUtc } from './date-calendar.ts';
import { DAYS, MONTHS, type Token } from './date-pattern.ts';

/** The fields a text gave, before they are resolved into an instant. */
export interface Parsed {
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
export function parseZone(s: string, pos: number, p: Parsed): number {
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
export function parseTokens(tokens: Token[], s: string, pos: number, p: Parsed): number {
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
      case 'num':
        pos = parseNumber(tk, tokens, k, s, pos, p);
        if (pos < 0) return -1;
        break;
      case 'frac': {
        let end = pos;
        while (end < s.length && end - pos < tk.max && isDigit(s.charCodeAt(end))) end++;
        if (end - pos < tk.min) return -1;
        p.nanoOfSecond = Number(s.slice(pos, end).padEnd(9, '0'));
        pos = end;
        break;
      }
      case 'text':
        pos = parseName(tk, s, pos, p);
        if (pos < 0) return -1;
        break;
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

/** Reads the number `tk` (`tokens[k]`; a year may carry a sign) at `pos` into `p`; the end position or -1. */
function parseNumber(tk: Extract<Token, { t: 'num' }>, tokens: Token[], k: number, s: string, pos: number, p: Parsed): number {
  let sign = 1;
  let start = pos;
  if ((tk.f === 'year' || tk.f === 'weekYear') && !tk.twoDigitYear && (s[pos] === '-' || s[pos] === '+') && tk.min !== tk.max) {
    if (s[pos] === '-') sign = -1;
    start = pos + 1;
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
  return end;
}

/** Reads the name `tk` (AM/PM, a month, a day of the week, the era) at `pos` into `p`; the end position or -1. */
function parseName(tk: Extract<Token, { t: 'text' }>, s: string, pos: number, p: Parsed): number {
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

/** Resolves parsed fields into an instant; null for an invalid date (month 13, February 30, hour 24). */
export function resolve(p: Parsed, zone: TimeZone | undefined, roundUp = false): DateInstant | null {
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
