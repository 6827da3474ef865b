/**
 * Time zones and date rounding for `date_histogram` and `date_range`, as ES's `Rounding` does them:
 * calendar units of a day or more start at local midnight (`LocalDate.atStartOfDay(zone)`), shorter
 * units and fixed intervals under a day are truncated in the local time of the instant itself (so
 * the repeated hour at the end of daylight saving time is two buckets, as in ES), and `offset`
 * shifts every bucket after the zone is applied. Zone offsets come from `Intl.DateTimeFormat`
 * (the IANA database Node ships), cached per 15-minute slot.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-bucket-datehistogram-aggregation.html#datehistogram-aggregation-time-zone
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/Rounding.java
 */
import { EsError } from '../../protocol/errors.ts';
import type { DateInterval } from '../../protocol/agg-request.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** One day in ms. */
export const DAY_MS = 86_400_000;
const SLOT_MS = 15 * MINUTE_MS;
const MAX_CACHED_SLOTS = 200_000;

/** A time zone: the offset (local − UTC, in ms) at an instant. */
export interface Zone {
  /** The id as given (`Europe/Paris`, `+01:00`, `UTC`). */
  id: string;
  /** True for a fixed offset (no daylight saving). */
  fixed: boolean;
  offsetAt(utcMs: number): number;
}

/** UTC. */
export const UTC: Zone = { id: 'UTC', fixed: true, offsetAt: () => 0 };

const zones = new Map<string, Zone>();

/** `±hh`, `±hh:mm`, `±hhmm` (optionally after `UTC`/`GMT`) → offset ms, or null. */
function fixedOffset(id: string): number | null {
  const m = /^(?:UTC|GMT|UT)?([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(id);
  if (!m) return null;
  const ms = (Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0)) * 1000;
  if (ms > 18 * HOUR_MS) return null;
  return m[1] === '-' ? -ms : ms;
}

/**
 * The zone of an ES `time_zone` (Java `ZoneId.of`): `Z`, `UTC`, `GMT`, a `±hh:mm` offset, or an
 * IANA id. @throws EsError 400 `illegal_argument_exception` `Unknown time-zone ID: x` (Java's
 * `ZoneRulesException` text) for an id the IANA database does not know.
 */
export function zoneOf(id: string): Zone {
  const cached = zones.get(id);
  if (cached) return cached;
  let zone: Zone;
  if (id === 'Z' || id === 'UTC' || id === 'GMT' || id === 'UT' || id === 'Etc/UTC') zone = { ...UTC, id };
  else {
    const fixed = fixedOffset(id);
    if (fixed !== null) zone = { id, fixed: true, offsetAt: () => fixed };
    else zone = intlZone(id);
  }
  if (zones.size > 1000) zones.clear();
  zones.set(id, zone);
  return zone;
}

/** An IANA zone through `Intl.DateTimeFormat`, with the offset cached per 15-minute UTC slot. */
function intlZone(id: string): Zone {
  let dtf: Intl.DateTimeFormat;
  try {
    dtf = new Intl.DateTimeFormat('en-US', {
      timeZone: id,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
  } catch {
    throw new EsError(400, 'illegal_argument_exception', `Unknown time-zone ID: ${id}`);
  }
  const cache = new Map<number, number>();
  const compute = (utcMs: number): number => {
    const f: Record<string, string> = {};
    for (const p of dtf.formatToParts(new Date(utcMs))) f[p.type] = p.value;
    let year = Number(f.year);
    if (f.era === 'BC' || f.era === 'B') year = 1 - year;
    const local = Date.UTC(0, Number(f.month) - 1, Number(f.day), Number(f.hour), Number(f.minute), Number(f.second));
    const d = new Date(local);
    d.setUTCFullYear(year);
    return d.getTime() - (utcMs - (((utcMs % 1000) + 1000) % 1000));
  };
  return {
    id,
    fixed: false,
    offsetAt(utcMs: number): number {
      const slot = Math.floor(utcMs / SLOT_MS);
      let o = cache.get(slot);
      if (o === undefined) {
        if (cache.size > MAX_CACHED_SLOTS) cache.clear();
        o = compute(slot * SLOT_MS);
        cache.set(slot, o);
      }
      return o;
    },
  };
}

/** The UTC instant of a local time (the earlier one in an overlap, the later one in a gap, as `atZone`). */
export function localToUtc(localMs: number, zone: Zone): number {
  if (zone.fixed) return localMs - zone.offsetAt(0);
  const o1 = zone.offsetAt(localMs - zone.offsetAt(localMs));
  const utc = localMs - o1;
  const o2 = zone.offsetAt(utc);
  if (o2 === o1) {
    // An overlap: the earlier instant, whose offset is the larger one, may also show this local time.
    const earlier = localMs - zone.offsetAt(utc - HOUR_MS);
    if (earlier < utc && zone.offsetAt(earlier) + earlier === localMs) return earlier;
    return utc;
  }
  return localMs - o2;
}

/** Milliseconds of a calendar unit or fixed interval below a day (null for longer ones). */
function subDayMs(interval: DateInterval): number | null {
  if ('fixedMs' in interval) return interval.fixedMs < DAY_MS ? interval.fixedMs : null;
  if (interval.calendar === 'minute') return MINUTE_MS;
  if (interval.calendar === 'hour') return HOUR_MS;
  return null;
}

const floorTo = (v: number, unit: number): number => Math.floor(v / unit) * unit;

/** Start of the calendar unit holding local time `local` (local ms). */
function calendarFloor(local: number, unit: string): number {
  const d = new Date(local);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (unit) {
    case 'day':
      return floorTo(local, DAY_MS);
    case 'week':
      return floorTo(local, DAY_MS) - ((d.getUTCDay() + 6) % 7) * DAY_MS; // ISO weeks start on Monday
    case 'month':
      return utcDate(y, m, 1);
    case 'quarter':
      return utcDate(y, m - (m % 3), 1);
    default:
      return utcDate(y, 0, 1);
  }
}

/** `Date.UTC` for any year (two-digit years are not shifted to the 1900s). */
function utcDate(y: number, m: number, day: number): number {
  const d = new Date(Date.UTC(2000, m, day));
  d.setUTCFullYear(y);
  return d.getTime();
}

/** Local time `local` plus one calendar unit. */
function calendarNext(local: number, unit: string): number {
  const d = new Date(local);
  switch (unit) {
    case 'day':
      return local + DAY_MS;
    case 'week':
      return local + 7 * DAY_MS;
    case 'month':
      d.setUTCMonth(d.getUTCMonth() + 1);
      return d.getTime();
    case 'quarter':
      d.setUTCMonth(d.getUTCMonth() + 3);
      return d.getTime();
    default:
      d.setUTCFullYear(d.getUTCFullYear() + 1);
      return d.getTime();
  }
}

/**
 * The key of the bucket holding `utcMs`: its start as epoch ms.
 * @param offsetMs the aggregation's `offset` (applied after the zone)
 */
export function roundDate(utcMs: number, interval: DateInterval, zone: Zone, offsetMs = 0): number {
  const t = utcMs - offsetMs;
  const sub = subDayMs(interval);
  if (sub !== null) {
    const o = zone.offsetAt(t);
    return floorTo(t + o, sub) - o + offsetMs;
  }
  const local = t + zone.offsetAt(t);
  const start = 'fixedMs' in interval ? floorTo(local, interval.fixedMs) : calendarFloor(local, interval.calendar);
  return localToUtc(start, zone) + offsetMs;
}

/** The key of the bucket after the one keyed `key` (for the empty buckets between two keys). */
export function nextDateKey(key: number, interval: DateInterval, zone: Zone, offsetMs = 0): number {
  const t = key - offsetMs;
  const sub = subDayMs(interval);
  if (sub !== null) {
    const next = roundDate(key + sub, interval, zone, offsetMs);
    return next > key ? next : roundDate(key + 2 * sub, interval, zone, offsetMs);
  }
  const local = t + zone.offsetAt(t);
  const next = 'fixedMs' in interval ? local + interval.fixedMs : calendarNext(local, interval.calendar);
  return localToUtc(next, zone) + offsetMs;
}
