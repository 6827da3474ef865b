/**
 * ES date math for range queries on date fields: an anchor (`now`, or a date followed by `||`),
 * then additions (`+1d`, `-2h`) and roundings (`/d`) in the units y, M, w, d, h/H, m, s. Rounding
 * down gives the unit's first millisecond, rounding up its last one (ES rounds up for `gt` and
 * `lte`, so `lte: now/d` includes the whole day). Calendar units and rounding follow the time zone.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/common-options.html#date-math
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/common/time/JavaDateMathParser.java
 */
import type { DateInstant, TimeZone } from '../../shared/date-format.ts';
import { localToUtc } from '../../shared/date-calendar.ts';
import { parseDateInstant } from '../../shared/date-format.ts';

/** Options of one parse: the field's format, `time_zone`, whether to round up, and the current time. */
export interface DateMathOptions {
  format?: string;
  zone?: TimeZone;
  roundUp: boolean;
  nowMs: number;
}

/** Offset in ms of `zone` at the UTC instant `utcMs` (0 for UTC). */
function offsetMs(zone: TimeZone | undefined, utcMs: number): number {
  if (!zone) return 0;
  if ('offsetMinutes' in zone) return zone.offsetMinutes * 60_000;
  return utcMs - localToUtc(utcMs, zone); // offset at (about) that instant
}

interface Civil {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  ms: number;
}

function toCivil(localMs: number): Civil {
  const t = new Date(localMs);
  return {
    y: t.getUTCFullYear(),
    mo: t.getUTCMonth(),
    d: t.getUTCDate(),
    h: t.getUTCHours(),
    mi: t.getUTCMinutes(),
    s: t.getUTCSeconds(),
    ms: t.getUTCMilliseconds(),
  };
}

function fromCivil(c: Civil): number {
  const t = new Date(0);
  t.setUTCFullYear(c.y, c.mo, c.d);
  t.setUTCHours(c.h, c.mi, c.s, c.ms);
  return t.getTime();
}

/** Adds `n` units to a local wall-clock time. */
function add(local: number, n: number, unit: string): number {
  const c = toCivil(local);
  switch (unit) {
    case 'y':
      c.y += n;
      break;
    case 'M':
      c.mo += n;
      break;
    case 'w':
      c.d += 7 * n;
      break;
    case 'd':
      c.d += n;
      break;
    case 'h':
    case 'H':
      return local + n * 3_600_000;
    case 'm':
      return local + n * 60_000;
    case 's':
      return local + n * 1000;
  }
  return fromCivil(c);
}

/** Rounds a local wall-clock time down to the start of its unit. */
function roundDown(local: number, unit: string): number {
  const c = toCivil(local);
  switch (unit) {
    case 'y':
      return fromCivil({ ...c, mo: 0, d: 1, h: 0, mi: 0, s: 0, ms: 0 });
    case 'M':
      return fromCivil({ ...c, d: 1, h: 0, mi: 0, s: 0, ms: 0 });
    case 'w': {
      const day = fromCivil({ ...c, h: 0, mi: 0, s: 0, ms: 0 });
      const dow = (new Date(day).getUTCDay() + 6) % 7; // Monday = 0
      return day - dow * 86_400_000;
    }
    case 'd':
      return fromCivil({ ...c, h: 0, mi: 0, s: 0, ms: 0 });
    case 'h':
    case 'H':
      return fromCivil({ ...c, mi: 0, s: 0, ms: 0 });
    case 'm':
      return fromCivil({ ...c, s: 0, ms: 0 });
    case 's':
      return fromCivil({ ...c, ms: 0 });
  }
  return local;
}

/** Thrown for a malformed expression; callers turn it into ES's `parse_exception`. */
export class DateMathError extends Error {}

/**
 * Evaluates a date-math expression (or a plain date) to an instant.
 * @returns null when the anchor date does not parse with the format
 * @throws DateMathError for a malformed math part (ES: "operator not supported for date math [...]")
 * @example parseDateMath('2020-01-15||/M', {roundUp: false, nowMs: 0}) // {ms: 1577836800000, nanos: 0}
 */
export function parseDateMath(text: string, opts: DateMathOptions): DateInstant | null {
  let anchor: DateInstant | null;
  let math: string;
  if (text.startsWith('now')) {
    anchor = { ms: opts.nowMs, nanos: 0 };
    math = text.slice(3);
  } else {
    const sep = text.indexOf('||');
    if (sep < 0) return parseDateInstant(text, opts.format, opts.zone, opts.roundUp);
    anchor = parseDateInstant(text.slice(0, sep), opts.format, opts.zone, opts.roundUp);
    math = text.slice(sep + 2);
  }
  if (!anchor || math === '') return anchor;
  const off = offsetMs(opts.zone, anchor.ms);
  let local = anchor.ms + off;
  let nanos = anchor.nanos;
  let i = 0;
  while (i < math.length) {
    const op = math[i++];
    if (op === '/') {
      const unit = math[i++];
      if (!unit || !'yMwdhHms'.includes(unit)) throw new DateMathError(`rounding to unit [${unit ?? ''}] is not supported for date math [${math}]`);
      local = roundDown(local, unit);
      if (opts.roundUp) local = add(local, 1, unit) - 1;
      nanos = 0;
    } else if (op === '+' || op === '-') {
      let j = i;
      while (j < math.length && math[j] >= '0' && math[j] <= '9') j++;
      const n = j > i ? Number(math.slice(i, j)) : 1;
      const unit = math[j];
      if (!unit || !'yMwdhHms'.includes(unit)) throw new DateMathError(`unit [${unit ?? ''}] not supported for date math [${math}]`);
      local = add(local, op === '+' ? n : -n, unit);
      i = j + 1;
    } else throw new DateMathError(`operator not supported for date math [${math}]`);
  }
  return { ms: localToUtc(local, opts.zone ?? undefined), nanos };
}
