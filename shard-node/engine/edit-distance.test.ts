import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedEditDistance, codePoints } from './edit-distance.ts';

/** The full optimal-string-alignment (or Levenshtein) table: the reference. */
function reference(a: number[], b: number[], transpositions: boolean): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (transpositions && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

const cp = (s: string) => codePoints(s);

describe('boundedEditDistance', () => {
  it('counts substitutions, insertions, deletions and (optionally) adjacent swaps', () => {
    expect(boundedEditDistance(cp('xylophoen'), 0, cp('xylophone'), 0, 2, true)).toBe(1);
    expect(boundedEditDistance(cp('xylophoen'), 0, cp('xylophone'), 0, 2, false)).toBe(2);
    expect(boundedEditDistance(cp('dob'), 0, cp('dog'), 0, 1, true)).toBe(1);
    expect(boundedEditDistance(cp('kitten'), 0, cp('sitting'), 0, 2, true)).toBe(3); // over the bound: k + 1
    expect(boundedEditDistance(cp('ab'), 0, cp('ab'), 0, 0, true)).toBe(0);
  });
  it('compares from the given offsets (a fuzzy prefix is skipped)', () => {
    expect(boundedEditDistance(cp('xxabc'), 2, cp('yyabd'), 2, 1, true)).toBe(1);
  });
  it('works on code points: an astral character is one edit', () => {
    expect(boundedEditDistance(cp('a😀b'), 0, cp('a😁b'), 0, 1, true)).toBe(1);
    expect(cp('a😀').length).toBe(2);
  });
  it('equals the full table, capped at k + 1, for any short strings and k ≤ 2', () => {
    const word = fc.array(fc.constantFrom(97, 98, 99, 0x1f600), { maxLength: 8 });
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 2 }), fc.boolean(), (a, b, k, tr) => {
        const want = Math.min(reference(a, b, tr), k + 1);
        expect(boundedEditDistance(Int32Array.from(a), 0, Int32Array.from(b), 0, k, tr)).toBe(want);
      }),
      { numRuns: 3000 },
    );
  });
  it('stays linear in the lengths: 200 comparisons of 5,000-code-point strings that differ everywhere stay fast', () => {
    const a = cp('ab'.repeat(2500));
    const b = cp('ba'.repeat(2500));
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) boundedEditDistance(a, 0, b, 0, 2, true);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
