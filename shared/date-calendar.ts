/**
 * Calendar and time-zone arithmetic for date formats: the proleptic Gregorian calendar of
 * `java.time` (any year, leap rules, ISO week dates) and the offset of a time zone at an instant,
 * read from `Intl` for IANA regions.
 * @see https://docs.oracle.com/en/java/javase/21/docs/api/java.base/java/time/chrono/IsoChronology.html
 */
import type { TimeZone } from './date-format.ts';

/** Days of each month in a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** Days in `month` (1-12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1];
}

/** Whether `y` is a leap year (proleptic Gregorian). */
export function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Epoch days of a civil date (proleptic Gregorian, any year). */
export function epochDay(year: number, month: number, day: number): number {
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
export function isoWeekDay(weekYear: number, week: number, dow: number): number {
  const jan4 = epochDay(weekYear, 1, 4);
  const jan4Dow = ((((jan4 + 3) % 7) + 7) % 7) + 1; // 1970-01-01 was a Thursday (4)
  return jan4 - (jan4Dow - 1) + (week - 1) * 7 + (dow - 1);
}
