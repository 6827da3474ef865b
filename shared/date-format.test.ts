import { describe, expect, it } from 'vitest';
import { dateFormatter, formatDate, parseDate, parseDateInstant, parseTimeZone } from './date-format.ts';
import { InvalidDateFormat } from './date-pattern.ts';

describe('parseDate with the default format (strict_date_optional_time||epoch_millis)', () => {
  it('reads ISO dates in UTC unless they carry an offset', () => {
    expect(parseDate('2015-01-01')).toBe(Date.UTC(2015, 0, 1));
    expect(parseDate('2015-01-01T12:10:30Z')).toBe(Date.UTC(2015, 0, 1, 12, 10, 30));
    expect(parseDate('2015-01-01T12:10:30.123+01:00')).toBe(Date.UTC(2015, 0, 1, 11, 10, 30, 123));
    expect(parseDate('2015-01-01T12:10:30,5')).toBe(Date.UTC(2015, 0, 1, 12, 10, 30, 500));
    expect(parseDate('2015-01')).toBe(Date.UTC(2015, 0, 1));
    expect(parseDate('2015')).toBe(Date.UTC(2015, 0, 1));
  });
  it('reads other digit strings and numbers as epoch milliseconds', () => {
    expect(parseDate('1420070400000')).toBe(1420070400000);
    expect(parseDate(1420070400000)).toBe(1420070400000);
    expect(parseDate('-1')).toBe(-1);
  });
  it('refuses invalid dates', () => {
    expect(parseDate('2015-13-01')).toBeNull();
    expect(parseDate('2015-02-29')).toBeNull();
    expect(parseDate('2016-02-29')).toBe(Date.UTC(2016, 1, 29));
    expect(parseDate('2015-01-01T24:00:00Z')).toBeNull();
    expect(parseDate('abc')).toBeNull();
    expect(parseDate(true)).toBeNull();
  });
});

describe('explicit formats', () => {
  it('parses and prints Java patterns', () => {
    const ms = Date.UTC(2018, 9, 29, 12, 12, 12, 123);
    expect(parseDate('2018-10-29 12:12:12.123', 'yyyy-MM-dd HH:mm:ss.SSS')).toBe(ms);
    expect(formatDate(ms, 'yyyy-MM-dd HH:mm:ss.SSS')).toBe('2018-10-29 12:12:12.123');
    expect(parseDate('2018/10/29', 'yyyy/MM/dd')).toBe(Date.UTC(2018, 9, 29));
    expect(formatDate(ms, 'yyyy/MM/dd')).toBe('2018/10/29');
    expect(parseDate('20181029', 'yyyyMMdd')).toBe(Date.UTC(2018, 9, 29));
    expect(parseDate('29 Oct 2018', 'dd MMM yyyy')).toBe(Date.UTC(2018, 9, 29));
    expect(formatDate(ms, 'EEEE, MMMM d, yyyy h:mm a')).toBe('Monday, October 29, 2018 12:12 PM');
    expect(parseDate('12:30', 'HH:mm')).toBe(Date.UTC(1970, 0, 1, 12, 30));
  });
  it('needs the exact digits a pattern gives, and the whole text', () => {
    expect(parseDate('2018-10-29 12:12:12.12', 'yyyy-MM-dd HH:mm:ss.SSS')).toBeNull();
    expect(parseDate('2018-10-29x', 'yyyy-MM-dd')).toBeNull();
    expect(parseDate('2018-10-29', 'yyyy/MM/dd')).toBeNull();
  });
  it('tries `||` alternatives in order and prints with the first', () => {
    const f = 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis';
    expect(parseDate('2015/01/02 03:04:05', f)).toBe(Date.UTC(2015, 0, 2, 3, 4, 5));
    expect(parseDate('2015/01/02', f)).toBe(Date.UTC(2015, 0, 2));
    expect(parseDate('1000', f)).toBe(1000);
    expect(formatDate(1000, f)).toBe('1970/01/01 00:00:01');
  });
  it('epoch_second and epoch_millis with fractions', () => {
    expect(parseDate('1540815132', 'epoch_second')).toBe(1540815132000);
    expect(parseDate(1540815132, 'epoch_second')).toBe(1540815132000);
    expect(parseDateInstant('1540815132.123456789', 'epoch_second')).toEqual({ ms: 1540815132123, nanos: 456789 });
    expect(formatDate(1540815132987, 'epoch_second')).toBe('1540815132.987');
    expect(formatDate(1540815132000, 'epoch_second')).toBe('1540815132');
    expect(formatDate(1540815132123, 'epoch_millis', 456789)).toBe('1540815132123.456789');
    expect(parseDateInstant('1540815132123.456789', 'epoch_millis')).toEqual({ ms: 1540815132123, nanos: 456789 });
    expect(formatDate(-1, 'epoch_millis')).toBe('-1');
  });
  it('prints the built-ins as ES does', () => {
    const ms = Date.UTC(2018, 9, 29, 12, 12, 12, 123);
    expect(formatDate(ms)).toBe('2018-10-29T12:12:12.123Z');
    expect(formatDate(ms, 'strict_date_optional_time_nanos', 456789)).toBe('2018-10-29T12:12:12.123456789Z');
    expect(formatDate(Date.UTC(2018, 9, 29, 12, 12, 12, 987), 'strict_date_optional_time_nanos')).toBe('2018-10-29T12:12:12.987Z');
    expect(formatDate(ms, "uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSSX", 456789)).toBe('2018-10-29T12:12:12.123456789Z');
    expect(formatDate(ms, 'date')).toBe('2018-10-29');
    expect(formatDate(ms, 'basic_date_time')).toBe('20181029T121212.123Z');
    expect(formatDate(ms, 'date_hour_minute')).toBe('2018-10-29T12:12');
    expect(formatDate(ms, 'year_month')).toBe('2018-10');
    expect(formatDate(ms, 'ordinal_date')).toBe('2018-302');
    expect(formatDate(ms, 'week_date')).toBe('2018-W44-1');
    expect(parseDate('2018-W44-1', 'week_date')).toBe(Date.UTC(2018, 9, 29));
  });
  it('lenient built-ins take fewer digits, strict ones do not', () => {
    expect(parseDate('2018-1-2', 'date')).toBe(Date.UTC(2018, 0, 2));
    expect(parseDate('2018-1-2', 'strict_date')).toBeNull();
    expect(parseDate('20160101', 'basic_date')).toBe(Date.UTC(2016, 0, 1));
  });
  it('reads nanoseconds with the _nanos format', () => {
    expect(parseDateInstant('2018-10-29T12:12:12.123456789Z', 'strict_date_optional_time_nanos')).toEqual({
      ms: Date.UTC(2018, 9, 29, 12, 12, 12, 123),
      nanos: 456789,
    });
  });
  it('refuses unknown pattern letters', () => {
    expect(() => dateFormatter('yyyy-MM-dd qq')).toThrow(InvalidDateFormat);
  });
});

describe('time zones', () => {
  it('applies a time_zone to texts without an offset only', () => {
    expect(parseDate('2015-01-01T00:00:00', undefined, parseTimeZone('+01:00')!)).toBe(Date.UTC(2014, 11, 31, 23));
    expect(parseDate('2015-01-01T00:00:00Z', undefined, parseTimeZone('+01:00')!)).toBe(Date.UTC(2015, 0, 1));
    expect(parseDate('2015-07-01T00:00:00', undefined, parseTimeZone('Europe/Paris')!)).toBe(Date.UTC(2015, 5, 30, 22));
    expect(parseDate('2015-01-01T00:00:00', undefined, parseTimeZone('Europe/Paris')!)).toBe(Date.UTC(2014, 11, 31, 23));
  });
  it('parses zone texts', () => {
    expect(parseTimeZone('Z')).toEqual({ offsetMinutes: 0 });
    expect(parseTimeZone('-0830')).toEqual({ offsetMinutes: -510 });
    expect(parseTimeZone('UTC')).toEqual({ offsetMinutes: 0 });
    expect(parseTimeZone('Not/AZone')).toBeNull();
  });
});
