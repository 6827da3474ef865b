import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TooComplexError } from './regexp-derivatives.ts';
import { compileWildcard, normalizeWildcardPattern } from './wildcard-automaton.ts';

/** The plain recursive definition of Lucene wildcards over code points: the reference. */
function reference(p: string[], t: string[]): boolean {
  if (p.length === 0) return t.length === 0;
  if (p[0] === '*') return reference(p.slice(1), t) || (t.length > 0 && reference(p, t.slice(1)));
  if (p[0] === '\\' && p.length > 1) return t.length > 0 && t[0] === p[1] && reference(p.slice(2), t.slice(1));
  if (t.length === 0) return false;
  return (p[0] === '?' || p[0] === t[0]) && reference(p.slice(1), t.slice(1));
}

describe('compileWildcard', () => {
  it('matches * (any string), ? (one character) and escapes', () => {
    expect(compileWildcard('qu?ck*', false).matches('quickly')).toBe(true);
    expect(compileWildcard('qu?ck*', false).matches('quck')).toBe(false);
    expect(compileWildcard('a\\*b', false).matches('a*b')).toBe(true);
    expect(compileWildcard('a\\*b', false).matches('axb')).toBe(false);
    expect(compileWildcard('ab\\', false).matches('ab\\')).toBe(true); // a trailing escape is itself
    expect(compileWildcard('?', false).matches('😀')).toBe(true); // one code point
    expect(compileWildcard('', false).matches('')).toBe(true);
  });
  it('folds case with case_insensitive', () => {
    expect(compileWildcard('B?OWN*', true).matches('brownie')).toBe(true);
    expect(compileWildcard('B?OWN*', false).matches('brownie')).toBe(false);
    expect(compileWildcard('ÉTÉ', true).matches('été')).toBe(true);
  });
  it('agrees with the recursive definition on small patterns and terms', () => {
    const pattern = fc.array(fc.constantFrom('a', 'b', '*', '?', '\\'), { maxLength: 7 });
    const term = fc.array(fc.constantFrom('a', 'b', '*', '\\'), { maxLength: 8 });
    fc.assert(
      fc.property(pattern, term, (p, t) => {
        expect(compileWildcard(p.join(''), false).matches(t.join(''))).toBe(reference(p, t));
      }),
      { numRuns: 3000 },
    );
  });
  it('refuses a pattern whose automaton is too large, as Lucene does', () => {
    expect(() => compileWildcard(`*a${'?'.repeat(20)}`, false, 1000)).toThrow(TooComplexError);
    const t0 = performance.now();
    expect(() => compileWildcard('a'.repeat(100_000), false)).toThrow('more than 10000 states');
    expect(performance.now() - t0).toBeLessThan(100);
  });
  it('matches a pathological pattern against a long term in linear time', () => {
    const m = compileWildcard('*a*a*a*a*a*a*a*a*b', false);
    const t0 = performance.now();
    expect(m.matches('a'.repeat(100_000))).toBe(false);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe('normalizeWildcardPattern', () => {
  it('normalizes the literal runs and keeps wildcards and escaped pairs', () => {
    expect(normalizeWildcardPattern('Qu?CK*\\X', (s) => s.toLowerCase())).toBe('qu?ck*\\X');
  });
});
