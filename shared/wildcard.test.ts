import { describe, expect, it } from 'vitest';
import { wildcardCanMatchPrefix, wildcardMatch } from './wildcard.ts';

describe('wildcardMatch (ES Regex.simpleMatch)', () => {
  it('matches literally without a star', () => {
    expect(wildcardMatch('cities', 'cities')).toBe(true);
    expect(wildcardMatch('cities', 'citie')).toBe(false);
    expect(wildcardMatch('', '')).toBe(true);
    expect(wildcardMatch('a.b', 'axb')).toBe(false); // `.` is literal
    expect(wildcardMatch('a?c', 'abc')).toBe(false); // `?` is literal
    expect(wildcardMatch('[ab]', 'a')).toBe(false);
  });

  it('lets * match any run of characters, dots and the empty run included', () => {
    expect(wildcardMatch('*', '')).toBe(true);
    expect(wildcardMatch('*', 'a.b.c')).toBe(true);
    expect(wildcardMatch('cit*', 'cities')).toBe(true);
    expect(wildcardMatch('*ies', 'cities')).toBe(true);
    expect(wildcardMatch('c*t*s', 'cities')).toBe(true);
    expect(wildcardMatch('c*x*s', 'cities')).toBe(false);
    expect(wildcardMatch('a*c', 'abbc')).toBe(true);
    expect(wildcardMatch('a*c', 'abbd')).toBe(false);
    expect(wildcardMatch('a**c', 'ac')).toBe(true);
    expect(wildcardMatch('*.lat', 'geo.lat')).toBe(true);
    expect(wildcardMatch('ab*ab', 'ab')).toBe(false); // prefix and suffix may not overlap
    expect(wildcardMatch('ab*ab', 'abab')).toBe(true);
    expect(wildcardMatch('*aab', 'aaab')).toBe(true); // needs the star to give back a character
  });

  it('compares UTF-16 code units, as Java chars', () => {
    expect(wildcardMatch('é*', 'été')).toBe(true);
    expect(wildcardMatch('*😀', 'x😀')).toBe(true);
  });

  it('takes microseconds on the backtracking case that took a regex over a second', () => {
    const text = 'a'.repeat(80);
    const t0 = performance.now();
    expect(wildcardMatch('*a*a*a*a*a*b', text)).toBe(false);
    expect(wildcardMatch('*a'.repeat(40) + '*b', text + 'b')).toBe(true);
    expect(wildcardMatch('*a'.repeat(2000) + '*b', 'a'.repeat(5000))).toBe(false);
    expect(performance.now() - t0).toBeLessThan(200);
  });
});

describe('wildcardCanMatchPrefix', () => {
  it('answers whether some completion of the prefix can match', () => {
    expect(wildcardCanMatchPrefix('a.*.c', 'a.')).toBe(true);
    expect(wildcardCanMatchPrefix('a.*.c', 'a.b.')).toBe(true);
    expect(wildcardCanMatchPrefix('a.*.c', 'b.')).toBe(false);
    expect(wildcardCanMatchPrefix('a.b', 'a.b.')).toBe(false);
    expect(wildcardCanMatchPrefix('a.b.c', 'a.b.')).toBe(true);
    expect(wildcardCanMatchPrefix('*', 'anything.')).toBe(true);
    expect(wildcardCanMatchPrefix('', '')).toBe(true);
    expect(wildcardCanMatchPrefix('a*bc', 'abxb')).toBe(true);
  });
});
