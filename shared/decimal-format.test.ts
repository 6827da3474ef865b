import { describe, expect, it } from 'vitest';
import { DecimalFormat } from './decimal-format.ts';

const f = (pattern: string, v: number) => DecimalFormat.of(pattern).format(v);

describe('DecimalFormat (Java patterns of docvalue_fields formats)', () => {
  it('pads and limits digits as Java does', () => {
    expect(f('#.0', 1)).toBe('1.0');
    expect(f('#.0', 0.5)).toBe('.5');
    expect(f('0.00', 3)).toBe('3.00');
    expect(f('000', 7)).toBe('007');
    expect(f('#.##', 1.5)).toBe('1.5');
    expect(f('#', 123)).toBe('123');
  });
  it('rounds HALF_EVEN on the exact binary value', () => {
    expect(f('#', 2.5)).toBe('2');
    expect(f('#', 3.5)).toBe('4');
    expect(f('0.00', 2.125)).toBe('2.12'); // 2.125 is exact: a tie, rounded to even
    expect(f('0.00', 2.345)).toBe('2.35'); // 2.345 is 2.34500000000000019…: not a tie
  });
  it('groups, prefixes, suffixes, percent and negatives', () => {
    expect(f('#,##0.###', 1234567.891)).toBe('1,234,567.891');
    expect(f('#%', 0.25)).toBe('25%');
    expect(f("'$'#.00", 3)).toBe('$3.00');
    expect(f('#.0', -2)).toBe('-2.0');
    expect(f('#', Number.NaN)).toBe('NaN');
  });
  it('refuses patterns it cannot read', () => {
    expect(() => DecimalFormat.of('0.###E0')).toThrow('Malformed pattern "0.###E0"');
    expect(() => DecimalFormat.of('0#')).toThrow('Malformed pattern');
  });
});
