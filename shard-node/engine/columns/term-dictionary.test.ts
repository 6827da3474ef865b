import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compareCodePoints } from '../../../protocol/sort.ts';
import { TERMS_PER_BLOCK, TermDictionary } from './term-dictionary.ts';

function sortedSet(xs: string[]): string[] {
  return [...new Set(xs)].sort(compareCodePoints);
}

/** First index of `sorted` whose term is ≥ `t` (the reference for seekCeil). */
function ceilRef(sorted: string[], t: string): number {
  const i = sorted.findIndex((s) => compareCodePoints(s, t) >= 0);
  return i < 0 ? sorted.length : i;
}

const termArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('a', 'b', 'é', '😀'), maxLength: 8 }),
  fc.string({ maxLength: 90 }),
);

function check(sorted: string[], probes: string[], dict: TermDictionary): void {
  expect(dict.size).toBe(sorted.length);
  expect(dict.toArray()).toEqual(sorted);
  sorted.forEach((t, i) => {
    expect(dict.term(i)).toBe(t);
    expect(dict.ord(t)).toBe(i);
  });
  for (const p of probes) {
    const ord = ceilRef(sorted, p);
    expect(dict.seekCeil(p)).toEqual({ ord, found: sorted[ord] === p });
    expect(dict.ord(p)).toBe(sorted[ord] === p ? ord : -1);
  }
}

describe('TermDictionary', () => {
  it('maps ordinals to terms and back, and seeks the ceiling of any term (property)', () => {
    fc.assert(
      fc.property(fc.array(termArb, { maxLength: 200 }), fc.array(termArb, { maxLength: 20 }), (terms, probes) => {
        const sorted = sortedSet(terms);
        const dict = TermDictionary.build(sorted);
        check(sorted, probes, dict);
        check(sorted, probes, TermDictionary.fromEncoded(dict.encodedParts()));
      }),
    );
  });

  it('handles no terms, one term, a full block and the empty string', () => {
    for (const sorted of [[], ['x'], Array.from({ length: TERMS_PER_BLOCK }, (_, i) => `t${String(i).padStart(3, '0')}`), ['', 'a']]) {
      check(sorted, ['', 'a', 'zz', 't015', 't0155'], TermDictionary.build(sorted));
    }
  });

  it('iterates a range of ordinals', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => `k${String(i).padStart(3, '0')}`);
    const dict = TermDictionary.build(sorted);
    const seen: [string, number][] = [];
    dict.forEach(
      (t, o) => {
        seen.push([t, o]);
      },
      30,
      70,
    );
    expect(seen).toEqual(sorted.slice(30, 70).map((t, i) => [t, i + 30]));
  });

  it('iterates correctly while its callback looks terms up in the same dictionary', () => {
    const sorted = Array.from({ length: 70 }, (_, i) => `shared-${String(i).padStart(2, '0')}`);
    const dict = TermDictionary.build(sorted);
    const seen: string[] = [];
    dict.forEach((t) => {
      seen.push(t);
      expect(dict.ord('zzz-unrelated-and-long')).toBe(-1);
      expect(dict.term(33)).toBe(sorted[33]);
    });
    expect(seen).toEqual(sorted);
  });

  it('stores shared prefixes once', () => {
    const sorted = Array.from({ length: 64 }, (_, i) => `a-long-shared-prefix-${String(i).padStart(2, '0')}`);
    const raw = sorted.reduce((n, t) => n + t.length, 0);
    expect(TermDictionary.build(sorted).encodedParts().bytes.length).toBeLessThan(raw / 4);
  });
});
