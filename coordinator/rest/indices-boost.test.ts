// `indices_boost` as SearchSourceBuilder reads it: the array and the deprecated object form, and
// ES's parsing_exception texts.
import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { parseIndicesBoost } from './indices-boost.ts';
import { parseSearchRequest } from './search-request.ts';

describe('parseIndicesBoost', () => {
  it('reads both forms in order, boosts as floats', () => {
    expect(parseIndicesBoost([{ 'a*': 2 }, { b: 1.5 }])).toEqual([
      { index: 'a*', boost: 2 },
      { index: 'b', boost: 1.5 },
    ]);
    expect(parseIndicesBoost({ a: 2, b: '1' })).toEqual([
      { index: 'a', boost: 2 },
      { index: 'b', boost: 1 },
    ]);
    expect(parseIndicesBoost([{ a: 0.1 }])[0].boost).toBe(Math.fround(0.1));
  });

  it("refuses malformed entries with ES's texts", () => {
    expect(esErr(() => parseIndicesBoost([3]))).toMatchObject({
      type: 'parsing_exception',
      message: 'Expected [START_OBJECT] in [indices_boost] but found [VALUE_NUMBER]',
    });
    expect(esErr(() => parseIndicesBoost([{}])).message).toBe('Expected [FIELD_NAME] in [indices_boost] but found [END_OBJECT]');
    expect(esErr(() => parseIndicesBoost([{ a: 'x' }])).message).toBe('Expected [VALUE_NUMBER] in [indices_boost] but found [VALUE_STRING]');
    expect(esErr(() => parseIndicesBoost([{ a: 1, b: 2 }])).message).toBe('Expected [END_OBJECT] in [indices_boost] but found [FIELD_NAME]');
    expect(esErr(() => parseIndicesBoost({ a: {} })).message).toBe('Unknown key for a START_OBJECT in [a].');
  });

  it('is part of the parsed search request only when given', () => {
    expect(parseSearchRequest(new URLSearchParams(), { indices_boost: [{ a: 2 }] }, '/_search').indicesBoost).toEqual([{ index: 'a', boost: 2 }]);
    expect(parseSearchRequest(new URLSearchParams(), {}, '/_search')).not.toHaveProperty('indicesBoost');
  });
});
