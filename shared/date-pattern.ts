/**
 * The pattern language of Elasticsearch date formats, compiled into tokens: Java `DateTimeFormatter`
 * letters (`yyyy`, `MM`, `dd`, `HH`, `SSS`, `Z`, `X`, ...), `'quoted'` literals and `[...]` optional
 * sections, and the built-in names (`strict_date_optional_time`, `basic_date`, ...) written in it.
 * A format's alternatives compile into a parser and a printer (date-parse.ts, date-print.ts).
 * @see https://docs.oracle.com/en/java/javase/21/docs/api/java.base/java/time/format/DateTimeFormatter.html
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/common/time/DateFormatters.java
 */

/** A numeric field a pattern letter reads or prints. */
export type NumField = 'year' | 'month' | 'day' | 'dayOfYear' | 'hour' | 'hour12' | 'minute' | 'second' | 'weekYear' | 'week' | 'dayOfWeek';

/** One compiled element of a pattern: a literal, a number, a fraction, a name, a zone, an optional section, an epoch value. */
export type Token =
  | { t: 'lit'; s: string }
  | { t: 'num'; f: NumField; min: number; max: number; pad: number; twoDigitYear?: boolean }
  | { t: 'frac'; min: number; max: number; printMin: number; printMax: number }
  | { t: 'text'; f: 'month' | 'dow' | 'ampm' | 'era'; full: boolean }
  | { t: 'zone'; style: 'Z' | 'ZZZZ' | 'XXX' | 'X' | 'XX' | 'x' | 'xx' | 'xxx' | 'id' }
  | { t: 'opt'; tokens: Token[] }
  | { t: 'epoch'; unit: 'ms' | 's' };

/** Month names (English, as ES's `Locale.ROOT`). */
export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** Day-of-week names, Monday first (ISO). */
export const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

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

/** A compiled alternative: the tokens it parses with and the tokens it prints with. */
export interface Alternative {
  parser: Token[];
  printer: Token[];
}

/**
 * Compiles one alternative of a format: `epoch_millis`, `epoch_second`, a built-in name (with or
 * without `strict_`) or a Java pattern.
 * @throws InvalidDateFormat for an empty format, an unknown letter, an unbalanced `]` or quote
 */
export function compileOne(name: string): Alternative {
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
