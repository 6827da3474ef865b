import { describe, expect, it } from 'vitest';
import { DateFormat, DEFAULT_DATE_FORMAT } from './date-format.ts';
import { esErr } from '../test/support/es-error.ts';

const ms = (iso: string) => Date.parse(iso);

describe('DateFormat', () => {
  it('parses the default format (ISO, date alone, epoch millis) and prints strict_date_optional_time', () => {
    const f = DateFormat.of(DEFAULT_DATE_FORMAT);
    expect(f.parse('1990-12-29T22:30:00.000Z')).toEqual({ ms: ms('1990-12-29T22:30:00.000Z'), nanos: 0 });
    expect(f.parse('2015-01-01')).toEqual({ ms: ms('2015-01-01T00:00:00Z'), nanos: 0 });
    expect(f.parse('2015-01-01T12:10:30+01:00')!.ms).toBe(ms('2015-01-01T11:10:30Z'));
    expect(f.parse(1420070400001)).toEqual({ ms: 1420070400001, nanos: 0 });
    expect(f.parse('1420070400001')!.ms).toBe(1420070400001);
    expect(f.parse('2023-02-30')).toBeNull();
    expect(f.parse('not a date')).toBeNull();
    expect(f.format(ms('2015-01-01T00:00:00Z'))).toBe('2015-01-01T00:00:00.000Z');
  });

  it('prints Java patterns, named formats and epoch formats', () => {
    const t = ms('1990-12-29T22:30:05.123Z');
    expect(DateFormat.of('yyyy/MM/dd').format(t)).toBe('1990/12/29');
    expect(DateFormat.of("yyyy-MM-dd'T'HH:mm:ss.SSS").format(t)).toBe('1990-12-29T22:30:05.123');
    expect(DateFormat.of('MMM d, yyyy hh:mm a').format(t)).toBe('Dec 29, 1990 10:30 PM');
    expect(DateFormat.of('basic_date').format(t)).toBe('19901229');
    expect(DateFormat.of('strict_date_time').format(t)).toBe('1990-12-29T22:30:05.123Z');
    expect(DateFormat.of('epoch_millis').format(t)).toBe(String(t));
    expect(DateFormat.of('epoch_second').format(t)).toBe('662509805.123');
    expect(DateFormat.of('year_month_day||epoch_millis').format(t)).toBe('1990-12-29');
  });

  it('parses a pattern, each || alternative in turn', () => {
    const f = DateFormat.of('yyyy-MM-dd HH:mm:ss.SSS||yyyy/MM/dd||epoch_millis');
    expect(f.parse('2020-01-02 03:04:05.678')!.ms).toBe(ms('2020-01-02T03:04:05.678Z'));
    expect(f.parse('2020/01/02')!.ms).toBe(ms('2020-01-02T00:00:00Z'));
    expect(f.parse(5)!.ms).toBe(5);
    expect(f.parse('2020-01-02')).toBeNull();
  });

  it('keeps nanoseconds for date_nanos formats and epoch fractions', () => {
    const n = DateFormat.of('strict_date_optional_time_nanos');
    const t = n.parse('2018-10-29T12:12:12.123456789Z')!;
    expect(t).toEqual({ ms: ms('2018-10-29T12:12:12.123Z'), nanos: 456789 });
    expect(n.format(t)).toBe('2018-10-29T12:12:12.123456789Z');
    expect(n.format({ ms: t.ms, nanos: 0 })).toBe('2018-10-29T12:12:12.123Z');
    expect(DateFormat.of('epoch_millis').format(t)).toBe(`${t.ms}.456789`);
    expect(DateFormat.of('epoch_millis').parse('-1.5')).toEqual({ ms: -2, nanos: 500000 });
    expect(DateFormat.of('epoch_second').parse('1500000000.5')).toEqual({ ms: 1500000000500, nanos: 0 });
  });

  it('refuses an unknown pattern letter with ES text', () => {
    const e = esErr(() => DateFormat.of('yyyy-bb'));
    expect([e.status, e.type, e.message]).toEqual([400, 'illegal_argument_exception', 'Invalid format: [yyyy-bb]: Unknown pattern letter: b']);
  });
});
