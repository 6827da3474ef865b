import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { parseRescore } from './rescore-parse.ts';
import { parseSearchRequest } from './search-request.ts';

const rescoreQuery = { rescore_query: { match: { t: 'x' } } };

describe('parseRescore', () => {
  it('reads one rescorer or an array, with ES defaults', () => {
    expect(parseRescore({ query: rescoreQuery })).toEqual([
      { windowSize: 10, query: { kind: 'match', field: 't', query: 'x', operator: 'or', boost: 1 }, queryWeight: 1, rescoreQueryWeight: 1, scoreMode: 'total' },
    ]);
    const two = parseRescore([
      { window_size: 50, query: { ...rescoreQuery, query_weight: 0.7, rescore_query_weight: '1.2', score_mode: 'Max' } },
      { query: rescoreQuery },
    ]);
    expect(two.map((r) => [r.windowSize, r.queryWeight, r.rescoreQueryWeight, r.scoreMode])).toEqual([
      [50, Math.fround(0.7), Math.fround(1.2), 'max'],
      [10, 1, 1, 'total'],
    ]);
  });
  it("rejects bad rescorers with ES's texts", () => {
    expect(esErr(() => parseRescore({ window_size: 5 })).message).toBe('missing rescore type');
    expect(esErr(() => parseRescore({ window: 5, query: rescoreQuery })).message).toBe("rescore doesn't support [window]");
    expect(esErr(() => parseRescore({ query: { ...rescoreQuery, weight: 1 } })).message).toBe('[1:1] [query] unknown field [weight]');
    expect(esErr(() => parseRescore({ query: { query_weight: 1 } })).message).toBe('rescore_query cannot be null');
    expect(esErr(() => parseRescore({ query: { ...rescoreQuery, score_mode: 'sum' } })).causedBy?.reason).toBe('illegal score_mode [sum]');
    expect(esErr(() => parseRescore({ script: {} })).type).toBe('illegal_argument_exception');
    expect(esErr(() => parseRescore({ query: rescoreQuery, other: {} })).message).toBe('you can either define [query] or [script], not both.');
  });
  it('is refused in a scroll, and script_fields are counted', () => {
    const e = esErr(() => parseSearchRequest(new URLSearchParams('scroll=1m'), { rescore: { query: rescoreQuery } }, '/i/_search'));
    expect(e.message).toBe('Validation Failed: 1: using [rescore] is not allowed in a scroll context;');
    expect(parseSearchRequest(new URLSearchParams(), { script_fields: { a: { script: '1' }, b: { script: '2' } } }, '/i/_search').scriptFields).toBe(2);
  });
});
