import { describe, expect, it } from 'vitest';
import { IdColumn } from './id-column.ts';
import { IdHash } from './id-hash.ts';
import { narrowIntegers } from './columns.ts';

const LATIN1 = ['1', '2-0', 'abc', '', 'café', 'x'.repeat(300)];
const WIDE = ['a', '東京', '😀', '\ud800x', '', 'é'];

describe('_id column', () => {
  for (const [name, ids] of [
    ['Latin-1', LATIN1],
    ['with UTF-16 ids', WIDE],
  ] as const) {
    it(`returns every id by ordinal and compares in place (${name})`, () => {
      const c = IdColumn.of(ids);
      expect(c.length).toBe(ids.length);
      expect(c.toArray()).toEqual(ids);
      ids.forEach((id, d) => {
        expect(c.get(d)).toBe(id);
        expect(c.equals(d, id)).toBe(true);
        expect(c.equals(d, id + 'x')).toBe(false);
        expect(c.equals(d, id.length > 0 ? id.slice(0, -1) + '\u0100' : 'a')).toBe(false);
      });
    });
    it(`round-trips through its file layout (${name})`, () => {
      const c = IdColumn.of(ids);
      expect(IdColumn.fromParts(c.lengths(), c.blob()).toArray()).toEqual(ids);
    });
    it(`backs the _id hash (${name})`, () => {
      const c = IdColumn.of(ids);
      const h = IdHash.build(c);
      ids.forEach((id, d) => expect(h.get(id)).toBe(d));
      expect(h.get('absent')).toBe(-1);
    });
  }
  it('holds Latin-1 ids in one byte a character plus a 4-byte offset', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `${100000 + i}-3`);
    expect(IdColumn.of(ids).byteLength).toBe(1000 * 8 + 1001 * 4);
  });
  it('refuses lengths that do not match the blob', () => {
    expect(() => IdColumn.fromParts(Uint32Array.of(1, 2), 'ab')).toThrow(RangeError);
  });
});

describe('narrowIntegers', () => {
  it('picks the narrowest exact array', () => {
    expect(narrowIntegers(Float64Array.of(1, 1, 255))).toBeInstanceOf(Uint8Array);
    expect(narrowIntegers(Float64Array.of(0, 256))).toBeInstanceOf(Uint16Array);
    expect(narrowIntegers(Float64Array.of(0, 70_000))).toBeInstanceOf(Int32Array);
    expect(narrowIntegers(Float64Array.of(-1, 2))).toBeInstanceOf(Int32Array);
    expect(narrowIntegers(Float64Array.of(0, 2 ** 31))).toBeInstanceOf(Float64Array);
    expect(narrowIntegers(Float64Array.of(0, 1.5))).toBeInstanceOf(Float64Array);
    expect(narrowIntegers(Float64Array.of(-0))).toBeInstanceOf(Float64Array);
    expect(Array.from(narrowIntegers(Float64Array.of(3, 70_000, 5)))).toEqual([3, 70_000, 5]);
  });
});
