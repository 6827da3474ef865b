/**
 * The numeric `format` of aggregations (`value_as_string`, `key_as_string`): Java's
 * `DecimalFormat` patterns of the common kind, `0` (a digit always shown), `#` (a digit shown when
 * significant), `.`, `,` (grouping), with literal prefixes and suffixes (`$###.00`, `0.0 %` is
 * not scaled), rounding half-even as Java does.
 * @see https://docs.oracle.com/en/java/javase/17/docs/api/java.base/java/text/DecimalFormat.html
 */
import { illegalArgument } from '../../protocol/errors.ts';

interface Pattern {
  prefix: string;
  suffix: string;
  minInt: number;
  minFrac: number;
  maxFrac: number;
  grouping: number;
}

const cache = new Map<string, Pattern>();

function compile(pattern: string): Pattern {
  const hit = cache.get(pattern);
  if (hit) return hit;
  const positive = pattern.split(';')[0];
  const m = /^([^#0,.]*)([#0,]*)(?:\.([#0]*))?([^#0,.]*)$/.exec(positive);
  if (!m || m[2] === '') throw illegalArgument(`Malformed pattern "${pattern}"`);
  const int = m[2];
  const frac = m[3] ?? '';
  const lastComma = int.lastIndexOf(',');
  const p: Pattern = {
    prefix: m[1].replace(/'/g, ''),
    suffix: m[4].replace(/'/g, ''),
    minInt: (int.replace(/,/g, '').match(/0/g) ?? []).length,
    minFrac: (frac.match(/0/g) ?? []).length,
    maxFrac: frac.length,
    grouping: lastComma === -1 ? 0 : int.length - lastComma - 1,
  };
  if (cache.size > 1000) cache.clear();
  cache.set(pattern, p);
  return p;
}

/** Rounds `x` to `digits` fraction digits, half to even (Java's `RoundingMode.HALF_EVEN`). */
function roundHalfEven(x: number, digits: number): string {
  if (x >= 1e21) return BigInt(x).toString() + (digits > 0 ? '.' + '0'.repeat(digits) : ''); // integral at this size
  const fixed = x.toFixed(Math.min(100, digits + 3));
  const [i, f = ''] = fixed.split('.');
  const kept = f.slice(0, digits);
  const rest = f.slice(digits);
  const digitsStr = i + kept;
  let n = BigInt(digitsStr);
  const half = rest === '' ? 0 : Number('0.' + rest);
  const exactHalf = /^50*$/.test(rest) && Number.isFinite(x) && Number(fixed) === x;
  if (half > 0.5 || (half === 0.5 && (!exactHalf || n % 2n === 1n))) n += 1n;
  const s = n.toString().padStart(digits + 1, '0');
  return digits === 0 ? s : `${s.slice(0, -digits)}.${s.slice(-digits)}`;
}

/**
 * Formats `value` with a `DecimalFormat` pattern.
 * @throws EsError 400 `Malformed pattern "…"` for a pattern outside the supported kind
 * @example formatDecimal(1234.5, '#,##0.00') // '1,234.50'
 */
export function formatDecimal(value: number, pattern: string): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '∞' : '-∞';
  const p = compile(pattern);
  const neg = value < 0;
  let [int, frac = ''] = roundHalfEven(Math.abs(value), p.maxFrac).split('.');
  while (frac.length > p.minFrac && frac.endsWith('0')) frac = frac.slice(0, -1);
  int = int.replace(/^0+/, '');
  if (int.length < p.minInt) int = int.padStart(p.minInt, '0');
  if (p.grouping > 0) int = int.replace(new RegExp(`\\B(?=(\\d{${p.grouping}})+(?!\\d))`, 'g'), ',');
  const body = frac.length > 0 ? `${int}.${frac}` : int === '' ? '0' : int;
  return `${neg && /[1-9]/.test(body) ? '-' : ''}${p.prefix}${body}${p.suffix}`;
}
