/**
 * Java `DecimalFormat` patterns, the `format` of a numeric field in `docvalue_fields` (ES
 * `DocValueFormat.Decimal`, `Locale.ROOT` symbols): `#.0`, `0.00`, `#,##0.###`, `000`, with a
 * literal prefix and suffix (`'$'#`, `#%`). Rounding is Java's default `HALF_EVEN`. Exponent
 * (`0.###E0`) and per-mille patterns are not supported: they are refused with the error ES gives a
 * malformed pattern.
 * @see https://docs.oracle.com/en/java/javase/17/docs/api/java.base/java/text/DecimalFormat.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/DocValueFormat.java
 */
import { illegalArgument } from '../protocol/errors.ts';

/** A compiled pattern. Build with {@link DecimalFormat.of}. */
export class DecimalFormat {
  readonly pattern: string;
  private readonly prefix: string;
  private readonly suffix: string;
  private readonly minInt: number;
  private readonly minFrac: number;
  private readonly maxFrac: number;
  /** Digits per group (0: no grouping). */
  private readonly grouping: number;
  /** 100 for a `%` pattern, else 1. */
  private readonly multiplier: number;

  private constructor(pattern: string) {
    this.pattern = pattern;
    const positive = pattern.split(';')[0];
    const m = /^((?:'[^']*'|[^#0,.'])*)([#0,]*)(?:\.([0#]*))?((?:'[^']*'|[^#0,.'])*)$/.exec(positive);
    if (!m || (m[2] === '' && m[3] === undefined) || /E/.test(m[2] + (m[3] ?? ''))) throw illegalArgument(`Malformed pattern "${pattern}"`);
    const literal = (s: string) => s.replace(/'([^']*)'/g, (_, x: string) => (x === '' ? "'" : x));
    this.prefix = literal(m[1]);
    this.suffix = literal(m[4]);
    const int = m[2];
    const frac = m[3] ?? '';
    if (/0.*#/.test(int.replaceAll(',', '')) || /#.*0/.test(frac)) throw illegalArgument(`Malformed pattern "${pattern}"`);
    this.minInt = [...int].filter((c) => c === '0').length;
    const lastComma = int.lastIndexOf(',');
    this.grouping = lastComma < 0 ? 0 : int.length - lastComma - 1;
    this.minFrac = [...frac].filter((c) => c === '0').length;
    this.maxFrac = frac.length;
    this.multiplier = (m[1] + m[4]).includes('%') ? 100 : 1;
  }

  private static readonly cache = new Map<string, DecimalFormat>();

  /**
   * The format of `pattern` (cached).
   * @throws EsError 400 `illegal_argument_exception` for a pattern it cannot read.
   */
  static of(pattern: string): DecimalFormat {
    let f = DecimalFormat.cache.get(pattern);
    if (!f) {
      f = new DecimalFormat(pattern);
      if (DecimalFormat.cache.size < 1024) DecimalFormat.cache.set(pattern, f);
    }
    return f;
  }

  /** Formats `value` as Java's `DecimalFormat.format(double)` does. @example DecimalFormat.of('#.0').format(1) // "1.0" */
  format(value: number): string {
    if (Number.isNaN(value)) return 'NaN';
    const neg = value < 0 || Object.is(value, -0);
    const x = Math.abs(value) * this.multiplier;
    if (!Number.isFinite(x)) return (neg ? '-' : '') + this.prefix + '∞' + this.suffix;
    let [int, frac] = roundHalfEven(x, this.maxFrac).split('.') as [string, string | undefined];
    frac = (frac ?? '').replace(/0+$/, '');
    if (frac.length < this.minFrac) frac = frac.padEnd(this.minFrac, '0');
    if (int === '0' && this.minInt === 0) int = '';
    int = int.padStart(this.minInt, '0');
    if (this.grouping > 0 && int.length > this.grouping) {
      const groups: string[] = [];
      for (let end = int.length; end > 0; end -= this.grouping) groups.unshift(int.slice(Math.max(0, end - this.grouping), end));
      int = groups.join(',');
    }
    const body = frac.length > 0 ? `${int}.${frac}` : int === '' ? '0' : int;
    return (neg ? '-' : '') + this.prefix + body + this.suffix; // Java prints -0.001 as "-0" too
  }
}

/**
 * `x` (≥ 0) rounded to `digits` fraction digits, HALF_EVEN on the exact binary value (as Java's
 * `DecimalFormat`), as plain decimal text.
 */
function roundHalfEven(x: number, digits: number): string {
  const fixed = x.toFixed(Math.min(digits, 100)); // exact value rounded half-up
  if (x >= 1e21) return BigInt(Math.round(x)).toString();
  // A tie is possible only when x has at most digits+1 fraction digits exactly; check it exactly.
  const exact = exactDecimal(x);
  const [ei, ef = ''] = exact.split('.');
  if (ef.length === digits + 1 && ef.endsWith('5')) {
    const kept = ei + ef.slice(0, digits);
    const lastKept = Number(kept.at(-1));
    if (lastKept % 2 === 0) return digits === 0 ? ei : `${ei}.${ef.slice(0, digits)}`; // round down to even
  }
  return fixed;
}

/** The exact decimal expansion of a finite double ≥ 0 (every double is a finite binary fraction). */
function exactDecimal(x: number): string {
  if (Number.isInteger(x)) return BigInt(x).toString();
  let scale = 0;
  let v = x;
  while (!Number.isInteger(v) && scale < 1100) {
    v *= 2;
    scale++;
  }
  // x = v / 2^scale = v * 5^scale / 10^scale
  const digits = (BigInt(v) * 5n ** BigInt(scale)).toString().padStart(scale + 1, '0');
  const int = digits.slice(0, digits.length - scale);
  const frac = digits.slice(digits.length - scale).replace(/0+$/, '');
  return frac === '' ? int : `${int}.${frac}`;
}
