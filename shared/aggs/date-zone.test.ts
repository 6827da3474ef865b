import { describe, expect, it } from 'vitest';
import { formatDate, parseDateValue } from './date-format.ts';
import { nextDateKey, roundDate, UTC, zoneOf } from './date-zone.ts';

describe('date rounding and formats', () => {
  it('the repeated hour at the end of New York DST is two hour buckets, printed with their offsets (as ES)', () => {
    const ny = zoneOf('America/New_York');
    const a = roundDate(Date.parse('2020-11-01T05:30:00Z'), { calendar: 'hour' }, ny);
    const b = roundDate(Date.parse('2020-11-01T06:30:00Z'), { calendar: 'hour' }, ny);
    expect([a, b]).toEqual([1604206800000, 1604210400000]);
    expect([formatDate(a, undefined, ny), formatDate(b, undefined, ny)]).toEqual(['2020-11-01T01:00:00.000-04:00', '2020-11-01T01:00:00.000-05:00']);
    expect(nextDateKey(a, { calendar: 'hour' }, ny)).toBe(b);
  });
  it('days, weeks, months, quarters and years start at local midnight', () => {
    const paris = zoneOf('Europe/Paris');
    const t = Date.parse('2024-05-15T12:00:00Z');
    expect(formatDate(roundDate(t, { calendar: 'day' }, paris), undefined, paris)).toBe('2024-05-15T00:00:00.000+02:00');
    expect(formatDate(roundDate(t, { calendar: 'week' }, paris), undefined, paris)).toBe('2024-05-13T00:00:00.000+02:00');
    expect(formatDate(roundDate(t, { calendar: 'month' }, paris), undefined, paris)).toBe('2024-05-01T00:00:00.000+02:00');
    expect(formatDate(roundDate(t, { calendar: 'quarter' }, paris), undefined, paris)).toBe('2024-04-01T00:00:00.000+02:00');
    expect(formatDate(roundDate(t, { calendar: 'year' }, paris), undefined, paris)).toBe('2024-01-01T00:00:00.000+01:00');
    const march = roundDate(Date.parse('2024-03-10T00:00:00Z'), { calendar: 'month' }, paris);
    expect(formatDate(nextDateKey(march, { calendar: 'month' }, paris), undefined, paris)).toBe('2024-04-01T00:00:00.000+02:00');
  });
  it('fixed intervals and offsets', () => {
    expect(roundDate(Date.parse('2024-01-01T05:00:00Z'), { fixedMs: 3 * 3_600_000 }, UTC)).toBe(Date.parse('2024-01-01T03:00:00Z'));
    expect(roundDate(Date.parse('2024-01-01T05:00:00Z'), { calendar: 'day' }, UTC, 6 * 3_600_000)).toBe(Date.parse('2023-12-31T06:00:00Z'));
  });
  it('formats and date math', () => {
    expect(formatDate(0, 'yyyy-MM-dd', UTC)).toBe('1970-01-01');
    expect(formatDate(0, 'epoch_millis||strict_date', UTC)).toBe('0');
    expect(formatDate(Date.UTC(2024, 6, 4, 9, 5), 'dd MMM yyyy HH:mm EEE', UTC)).toBe('04 Jul 2024 09:05 Thu');
    const now = Date.UTC(2024, 6, 4, 9, 5);
    expect(parseDateValue('now-1d/d', UTC, now)).toBe(Date.UTC(2024, 6, 3));
    expect(parseDateValue('2024-01-31||+1M', UTC)).toBe(Date.UTC(2024, 1, 29));
    expect(parseDateValue('2024-01-01T10:00:00+02:00')).toBe(Date.UTC(2024, 0, 1, 8));
    expect(parseDateValue(1000)).toBe(1000);
    expect(() => zoneOf('Mars/Olympus')).toThrow('Unknown time-zone ID: Mars/Olympus');
  });
});
