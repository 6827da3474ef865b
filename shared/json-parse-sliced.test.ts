import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonInPieces, parseJsonSliced, PIECE_CHARS } from './json-parse-sliced.ts';

/** JSON text of `v` with random blanks around tokens (JSON.stringify's indent covers the structural ones). */
const texts = fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(undefined, 1, '\t', ' \r\n')).map(([v, indent]) => JSON.stringify(v, null, indent));

/** Same result as JSON.parse, or both throw a SyntaxError. */
function sameAsJsonParse(text: string, piece: number): void {
  let expected: unknown;
  try {
    expected = JSON.parse(text);
  } catch (err) {
    expect(err).toBeInstanceOf(SyntaxError);
    expect(() => parseJsonInPieces(text, piece)).toThrow(SyntaxError);
    return;
  }
  const got = parseJsonInPieces(text, piece);
  expect(got).toStrictEqual(expected);
  if (got !== null && typeof got === 'object') expect(Object.keys(got)).toEqual(Object.keys(expected as object));
}

describe('parseJsonInPieces / parseJsonSliced', () => {
  it('equals JSON.parse for any JSON text, whatever the piece size', () => {
    fc.assert(
      fc.property(texts, fc.integer({ min: 1, max: 64 }), (text, piece) => sameAsJsonParse(text, piece)),
      { numRuns: 500 },
    );
  });

  it('refuses what JSON.parse refuses (texts with one character removed, replaced or added)', () => {
    const mutated = fc.tuple(texts, fc.nat(), fc.constantFrom('', ',', ']', '}', '[', '{', ':', '"', '\\', 'x', ' ')).map(([t, at, c]) => {
      const i = t.length === 0 ? 0 : at % t.length;
      return [t.slice(0, i) + c + t.slice(i + 1), t.slice(0, i) + c + t.slice(i)];
    });
    fc.assert(
      fc.property(mutated, fc.integer({ min: 1, max: 16 }), ([a, b], piece) => {
        sameAsJsonParse(a, piece);
        sameAsJsonParse(b, piece);
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps JSON.parse key semantics: __proto__ as an own key, duplicates (first place, last value), integer keys first', () => {
    const text = '{"b":1,"__proto__":{"x":1},"a":[1,2,3],"b":2,"1":"one","c":{"__proto__":[]}}';
    for (const piece of [1, 3, 8, 1000]) {
      const got = parseJsonInPieces(text, piece) as Record<string, unknown>;
      expect(got).toStrictEqual(JSON.parse(text));
      expect(Object.keys(got)).toEqual(['1', 'b', '__proto__', 'a', 'c']);
      expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    }
  });

  it('parses a 750 KB query with a 60,000-value terms list in slices, equal to JSON.parse', async () => {
    const values = Array.from({ length: 60_000 }, (_, j) => `v1-${j}`);
    const text = JSON.stringify({
      index: 'cities',
      query: {
        kind: 'bool',
        should: [
          { kind: 'terms', field: 'country', values },
          { kind: 'ids', values: values.slice(0, 10_000) },
        ],
      },
      k: 10,
    });
    expect(text.length).toBeGreaterThan(40 * PIECE_CHARS);
    let yields = 0;
    let done = false;
    const counting = (async () => {
      while (!done) {
        await new Promise((r) => setImmediate(r));
        yields++;
      }
    })();
    const got = await parseJsonSliced(text, 0); // slice 0: yields at every cut
    done = true;
    await counting;
    expect(got).toStrictEqual(JSON.parse(text));
    expect(yields).toBeGreaterThan(10);
  });

  it('keeps the order of an array mixing plain strings (taken as text) with escaped strings and other values', () => {
    const text = JSON.stringify(['a', 1, 'b\n', { x: 'y' }, 'c', null, '\u2028é', 'd"e', '', 'f\\', [['g']], 'h']);
    for (const piece of [1, 2, 5, 8, 1000]) sameAsJsonParse(text, piece);
    for (const bad of ['["a\tb"]', '["a\u0001"]', '["a",]', '["a" "b"]', '["a\\"', '["\\x"]']) sameAsJsonParse(bad, 1);
  });

  it('rejects a large malformed text with a SyntaxError', async () => {
    const text = '[' + Array.from({ length: 20_000 }, (_, i) => `"${i}"`).join(',') + ',]';
    await expect(parseJsonSliced(text)).rejects.toThrow(SyntaxError);
    await expect(parseJsonSliced('{"a":' + text.slice(0, -2) + ']')).rejects.toThrow(SyntaxError);
  });
});
