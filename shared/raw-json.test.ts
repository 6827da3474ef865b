import { describe, expect, it } from 'vitest';
import { isExactNumber, parseExact } from './exact-json.ts';
import { filterSourceText } from './raw-json.ts';

describe('parseExact', () => {
  it('keeps numbers a double would change as their text, and plain numbers as numbers', () => {
    const v = parseExact('{"big": 72057594037927937, "d": 1.10, "e": 1e400, "n": 2, "f": 0.5, "a": [9007199254740993, 3]}') as Record<string, unknown>;
    expect([isExactNumber(v.big), isExactNumber(v.d), isExactNumber(v.e), isExactNumber(v.n), isExactNumber(v.f)]).toEqual([true, true, true, false, false]);
    expect(v.n).toBe(2);
    expect(JSON.stringify(v)).toBe('{"big":72057594037927937,"d":1.10,"e":1e400,"n":2,"f":0.5,"a":[9007199254740993,3]}');
  });
});

describe('filterSourceText', () => {
  const text =
    '{"include": {"field1": "v1", "field2": "v2"}, "count": 1, "bigint": 72057594037927936, "d": 1.10, "arr": [{"x": 18446744073709551615, "y": 1}]}';

  it('keeps the exact text of numbers in includes and excludes (ES re-renders the filtered map from the parsed source)', () => {
    expect(filterSourceText(text, { includes: ['bigint', 'd'], excludes: [] })).toBe('{"bigint":72057594037927936,"d":1.10}');
    expect(filterSourceText(text, { includes: ['arr.x'], excludes: [] })).toBe('{"arr":[{"x":18446744073709551615}]}');
    expect(filterSourceText(text, { includes: [], excludes: ['include', 'count', 'arr'] })).toBe('{"bigint":72057594037927936,"d":1.10}');
  });

  it('returns the stored text itself when nothing is filtered, and nothing for false', () => {
    expect(filterSourceText(text, true)).toBe(text);
    expect(filterSourceText(text, { includes: [], excludes: [] })).toBe(text);
    expect(filterSourceText(text, false)).toBeUndefined();
  });

  it('does not descend into an exact number as if it were an object', () => {
    expect(filterSourceText('{"a": 72057594037927937}', { includes: ['a.rawJSON'], excludes: [] })).toBe('{}');
  });
});
