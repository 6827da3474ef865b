/**
 * Printing an instant with a compiled date pattern (date-pattern.ts), in UTC, as `java.time`'s
 * `DateTimeFormatter.format` does for ES's `fields` and `docvalue_fields`; `epoch_millis` and
 * `epoch_second` print their fraction when there is one.
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/common/time/EpochTime.java
 */
import type { DateInstant } from './date-format.ts';
import { epochDay } from './date-calendar.ts';
import { DAYS, MONTHS, type Token } from './date-pattern.ts';

/** An instant's calendar fields in UTC. */
export interface Fields {
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

/** The UTC calendar fields of an instant, with its ISO week date. */
export function fieldsOf(i: DateInstant): Fields {
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

/** Prints `tokens` for the instant `i` with the UTC fields `f` (optional sections always print). */
export function printTokens(tokens: Token[], f: Fields, i: DateInstant): string {
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
        out +=
          tk.style === 'Z'
            ? '+0000'
            : tk.style === 'ZZZZ'
              ? 'GMT'
              : tk.style === 'x'
                ? '+00'
                : tk.style === 'xx'
                  ? '+0000'
                  : tk.style === 'xxx'
                    ? '+00:00'
                    : 'Z';
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
    if (i.ms < 0)
      return (
        '-' +
        String(-i.ms - 1) +
        '.' +
        String(1_000_000 - i.nanos)
          .padStart(6, '0')
          .replace(/0+$/, '')
      );
    return String(i.ms) + '.' + String(i.nanos).padStart(6, '0').replace(/0+$/, '');
  }
  const totalNanos = BigInt(i.ms) * 1_000_000n + BigInt(i.nanos);
  const neg = totalNanos < 0n;
  const abs = neg ? -totalNanos : totalNanos;
  const whole = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return (neg ? '-' : '') + whole.toString() + (frac ? '.' + frac : '');
}
