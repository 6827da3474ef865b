import { describe, expect, it } from 'vitest';
import { formatDecimal } from './decimal-format.ts';

describe('DecimalFormat patterns', () => {
  it('formats as Java does, rounding half-even', () => {
    const cases: [number, string, string][] = [
      [1234.5, '#,##0.00', '1,234.50'],
      [0.125, '0.00', '0.12'],
      [0.135, '0.00', '0.14'],
      [2.5, '0', '2'],
      [3.5, '0', '4'],
      [5, '$###.00', '$5.00'],
      [0, '#.##', '0'],
      [0.5, '#.##', '.5'],
      [-1.5, '0.0', '-1.5'],
      [12, '00000', '00012'],
      [1.23456, '0.###', '1.235'],
    ];
    for (const [v, p, want] of cases) expect(formatDecimal(v, p)).toBe(want);
  });
  it('refuses patterns it does not know', () => {
    expect(() => formatDecimal(1, '0.0E0')).toThrow('Malformed pattern "0.0E0"');
  });
});
