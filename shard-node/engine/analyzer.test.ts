import { describe, expect, it } from 'vitest';
import { analyze, analyzeTerms } from './analyzer.ts';

describe('standard analyzer', () => {
  it('splits on whitespace and punctuation and lowercases', () => {
    expect(analyzeTerms('The QUICK brown-fox, jumped! (over)')).toEqual(['the', 'quick', 'brown', 'fox', 'jumped', 'over']);
  });
  it('keeps letter-joined apostrophes, dots and colons, and digit-joined dots and commas', () => {
    expect(analyzeTerms("can't U.S.A 3.14 1,000 rock'n'roll a:b")).toEqual(["can't", 'u.s.a', '3.14', '1,000', "rock'n'roll", 'a:b']);
  });
  it('does not join letters to digits across punctuation, nor trailing punctuation', () => {
    expect(analyzeTerms("a.1 1.a end. 'quoted' x'")).toEqual(['a', '1', '1', 'a', 'end', 'quoted', 'x']);
  });
  it('keeps letter-digit runs and underscores together, drops underscore-only runs', () => {
    expect(analyzeTerms('abc123 foo_bar ___ 42')).toEqual(['abc123', 'foo_bar', '42']);
  });
  it('handles unicode letters and combining marks', () => {
    expect(analyzeTerms('Zürich São Paulo Ελλάδα Москва')).toEqual(['zürich', 'são', 'paulo', 'ελλάδα', 'москва']);
    expect(analyzeTerms('cafe\u0301 ok')).toEqual(['cafe\u0301', 'ok']);
  });
  it('emits each Han and Hiragana character alone and Katakana runs together', () => {
    expect(analyzeTerms('東京タワーへようこそabc')).toEqual(['東', '京', 'タワー', 'へ', 'よ', 'う', 'こ', 'そ', 'abc']);
  });
  it('splits tokens longer than 255 chars at 255', () => {
    const t = analyzeTerms('x'.repeat(600));
    expect(t.map((s) => s.length)).toEqual([255, 255, 90]);
  });
  it('returns positions starting at the given offset', () => {
    expect(analyze('a b', 5)).toEqual([
      { term: 'a', position: 5 },
      { term: 'b', position: 6 },
    ]);
    expect(analyze('')).toEqual([]);
  });
});
