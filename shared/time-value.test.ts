import { describe, expect, it } from 'vitest';
import { formatTimeValue } from './time-value.ts';

describe('formatTimeValue (ES TimeValue.toString)', () => {
  it('prints whole units without a fraction', () => {
    expect(formatTimeValue(86_400_000)).toBe('1d');
    expect(formatTimeValue(3_600_000)).toBe('1h');
    expect(formatTimeValue(60_000)).toBe('1m');
    expect(formatTimeValue(5_000)).toBe('5s');
    expect(formatTimeValue(250)).toBe('250ms');
    expect(formatTimeValue(0)).toBe('0s');
  });
  it('truncates to one fraction digit, dropping a zero digit', () => {
    expect(formatTimeValue(90_000_000)).toBe('1d'); // 25h = 1.041…d
    expect(formatTimeValue(5_400_000)).toBe('1.5h');
    expect(formatTimeValue(119_999)).toBe('1.9m');
    expect(formatTimeValue(1_500)).toBe('1.5s');
  });
  it('prints negative durations as the bare number', () => {
    expect(formatTimeValue(-1)).toBe('-1');
  });
});
