import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { searchAnalyzer } from './search-analyzers.ts';

describe('searchAnalyzer', () => {
  it('runs the built-in analyzers', () => {
    expect(searchAnalyzer(undefined, 'match').analyze('The QUICK-fox')).toEqual(['the', 'quick', 'fox']);
    expect(searchAnalyzer('whitespace', 'match').analyze(' BROWN\tfox-1 ')).toEqual(['BROWN', 'fox-1']);
    expect(searchAnalyzer('simple', 'match').analyze('Fox2Dog')).toEqual(['fox', 'dog']);
    expect(searchAnalyzer('stop', 'match').analyze('The fox and THE dog')).toEqual(['fox', 'dog']);
    expect(searchAnalyzer('keyword', 'match').analyze('New York')).toEqual(['New York']);
  });
  it('normalizes whole terms (lower-casing unless whitespace or keyword)', () => {
    expect(searchAnalyzer('standard', 'match').normalize('FoX')).toBe('fox');
    expect(searchAnalyzer('whitespace', 'match').normalize('FoX')).toBe('FoX');
  });
  it("answers ES's error for an unknown name", () => {
    const e = esErr(() => searchAnalyzer('nope', 'match_bool_prefix'));
    expect([e.status, e.type, e.message]).toEqual([400, 'query_shard_exception', '[match_bool_prefix] analyzer [nope] not found']);
    expect(() => searchAnalyzer('toString', 'match')).toThrow('analyzer [toString] not found');
  });
});
