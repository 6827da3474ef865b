import { describe, expect, it } from 'vitest';
import { HyperLogLog, precisionFor } from './hyperloglog.ts';
import { simpleRegex } from './simple-regex.ts';

describe('include/exclude regular expressions', () => {
  it('matches whole terms with literals, ., .*, .+ and |', () => {
    const m = simpleRegex('sw.*|de|a.c|x.+', 'include');
    expect(['swiss', 'sw', 'de', 'abc', 'xy'].map(m)).toEqual([true, true, true, true, true]);
    expect(['asw', 'dex', 'ac', 'x'].map(m)).toEqual([false, false, false, false]);
    expect(simpleRegex('a\\.b', 'include')('a.b')).toBe(true);
    expect(simpleRegex('a\\.b', 'include')('axb')).toBe(false);
  });
  it('is linear on patterns that backtrack exponentially in a naive matcher', () => {
    const started = performance.now();
    expect(simpleRegex('.*a.*a.*a.*a.*a.*b', 'include')('a'.repeat(2000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
  it('refuses what it cannot match exactly', () => {
    expect(() => simpleRegex('[ab]c', 'exclude')).toThrow('[exclude] regular expression [[ab]c] is not supported by Folio yet');
    expect(() => simpleRegex('a+', 'include')).toThrow('is not supported by Folio yet');
  });
});

describe('HyperLogLog for cardinality', () => {
  it('takes ES precision from the threshold', () => {
    expect([precisionFor(3000), precisionFor(40_000), precisionFor(0), precisionFor(100)]).toEqual([14, 18, 4, 10]);
  });
  it('estimates within a few percent and merges by register maximum', () => {
    const a = new HyperLogLog(14);
    const b = new HyperLogLog(14);
    for (let i = 0; i < 60_000; i++) (i % 2 ? a : b).add(`v${i}`);
    for (let i = 0; i < 20_000; i++) a.add(i * 0.5);
    a.merge(HyperLogLog.fromBase64(14, b.toBase64()));
    expect(Math.abs(a.estimate() - 80_000) / 80_000).toBeLessThan(0.03);
  });
});
