import { describe, expect, it } from 'vitest';
import { compareCodePoints, compareHits, type SortField } from './sort.ts';

describe('compareCodePoints', () => {
  it('orders supplementary characters after the whole BMP, as UTF-8 byte order does', () => {
    // U+FF5E (BMP, high) vs U+1D11E (astral): UTF-16 units say 0xD834 < 0xFF5E, code points say otherwise.
    expect(compareCodePoints('\uFF5E', '𝄞')).toBeLessThan(0);
    expect('\uFF5E' < '𝄞').toBe(false);
    expect(Buffer.compare(Buffer.from('\uFF5E'), Buffer.from('𝄞'))).toBeLessThan(0);
    expect(compareCodePoints('ab', 'abc')).toBeLessThan(0);
    expect(compareCodePoints('b', 'abc')).toBeGreaterThan(0);
  });
});

describe('compareHits', () => {
  const desc: SortField = { kind: 'field', field: 'p', order: 'desc', missing: '_last', mode: 'max' };
  it('sorts by values, then _id ascending, whatever the order of the values', () => {
    const hits = [
      { _id: 'b', sort: [1] },
      { _id: 'a', sort: [1] },
      { _id: 'c', sort: [2] },
      { _id: 'd', sort: [null] },
    ];
    expect([...hits].sort((x, y) => compareHits(x, y, [desc])).map((h) => h._id)).toEqual(['c', 'a', 'b', 'd']);
  });
  it('puts _first missing values first', () => {
    const first = { ...desc, missing: '_first' as const };
    expect(compareHits({ _id: 'a', sort: [null] }, { _id: 'b', sort: [9] }, [first])).toBeLessThan(0);
  });
});
