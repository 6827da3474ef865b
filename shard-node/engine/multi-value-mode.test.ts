import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SortField } from '../../protocol/sort.ts';
import { pick } from './multi-value-mode.ts';
import { byField, load, newShard, q } from '../../test/support/engine-shard.ts';
import { jsonNumber } from '../../test/support/json-number.ts';
import { searcherOf } from './searcher.ts';

const sortBy = (shard: ReturnType<typeof newShard>['shard'], sort: SortField[]) =>
  searcherOf(shard.acquire())
    .query({ query: q.all(), sort, k: 10, trackTotalHits: 10 })
    .hits.map((h) => [h._id, h.sort[0]]);

describe('pick (MultiValueMode)', () => {
  it('long arithmetic: the sum wraps at 2^63, avg and an even median round', () => {
    // The peer's sort tests on a long field (values as Folio holds them: doubles, ascending; jsonNumber rounds a long's text as JSON does).
    expect(pick([1, jsonNumber('9223372036854775807')], 'sum', true)).toBe(-9223372036854775808);
    expect(pick([1, jsonNumber('9223372036854775807')], 'avg', true)).toBe(-4611686018427387904);
    expect(pick([1, jsonNumber('9223372036854775807')], 'median', true)).toBe(4611686018427387904);
    expect(pick([3, 4, 2147483647], 'avg', true)).toBe(715827885);
    expect(pick([-2, -1, 5, 2147483648], 'avg', true)).toBe(536870913);
    expect(pick([-2, -1, 5, 2147483648], 'median', true)).toBe(2);
    expect(pick([3, 4, 2147483647], 'median', true)).toBe(4);
  });
  it('double arithmetic: sum in ascending order, total / count, (a + b) / 2', () => {
    expect(pick([-2.0, -1.9, 5.8, 450359962737049.7], 'avg', false)).toBe(112589990684262.89);
    expect(pick([-2.0, -1.9, 5.8, 450359962737049.7], 'sum', false)).toBe(450359962737051.56);
    expect(pick([-2.0, -1.9, 5.8, 450359962737049.7], 'median', false)).toBe(1.95);
    expect(pick([1.1, 900719925474099.1], 'median', false)).toBe(450359962737050.1);
    expect(pick([3.5, 4.6, 450359962737049.4], 'median', false)).toBe(4.6);
  });
  it('min and max are the ends, and every mode of one value is that value', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 9 }), fc.boolean(), (raw, longBased) => {
        const v = [...raw].sort((a, b) => a - b);
        expect(pick(v, 'min', longBased)).toBe(Math.min(...v));
        expect(pick(v, 'max', longBased)).toBe(Math.max(...v));
        const sum = v.reduce((a, b) => a + b, 0);
        expect(pick(v, 'sum', longBased)).toBe(sum);
        expect(pick(v, 'avg', longBased)).toBe(longBased && v.length > 1 ? Math.round(sum / v.length) : sum / v.length);
        for (const mode of ['min', 'max', 'sum', 'avg', 'median'] as const) expect(pick([v[0]], mode, longBased)).toBe(v[0]);
      }),
    );
  });
});

describe('sort modes on a shard', () => {
  const { shard } = newShard({ properties: { l: { type: 'long' }, d: { type: 'double' }, k: { type: 'keyword' } } });
  load(shard, [
    { _id: '1', l: [jsonNumber('9223372036854775807'), 1], d: [900719925474099.1, 1.1], k: ['b', 'y'] },
    { _id: '2', l: [jsonNumber('922337203685477777'), 2], d: [jsonNumber('900719925474099.2'), 900719925474099.3], k: 'c' },
    { _id: '3', l: [2147483647, 3, 4], d: [450359962737049.4, 3.5, 4.6], k: ['a', 'z'] },
    { _id: '4', l: [2147483648, 5, -1, -2], d: [450359962737049.7, 5.8, -1.9, -2.0] },
    { _id: '5', l: [7, 7], d: [2.5, 2.5] },
  ]);

  it('sum, avg and median on a long field (ES 260_sort_long values)', () => {
    expect(sortBy(shard, [byField('l', 'asc', { mode: 'sum' })])).toEqual([
      ['1', -9223372036854775808],
      ['5', 14],
      ['4', 2147483650],
      ['3', 2147483654],
      ['2', jsonNumber('922337203685477779')],
    ]);
    expect(sortBy(shard, [byField('l', 'desc', { mode: 'avg' })])).toEqual([
      ['2', 461168601842738880],
      ['3', 715827885],
      ['4', 536870913],
      ['5', 7],
      ['1', -4611686018427387904],
    ]);
    expect(sortBy(shard, [byField('l', 'asc', { mode: 'median' })])).toEqual([
      ['4', 2],
      ['3', 4],
      ['5', 7],
      ['2', 461168601842738880],
      ['1', 4611686018427387904],
    ]);
  });
  it('two equal values count twice', () => {
    expect(sortBy(shard, [byField('d', 'asc', { mode: 'sum' })])[0]).toEqual(['5', 5]);
  });
  it('the presorted order (match_all) and the collector agree', () => {
    const sort = [byField('d', 'desc', { mode: 'median' })];
    const presorted = sortBy(shard, sort);
    const collected = searcherOf(shard.acquire()).query({ query: q.bool({ should: [q.all(), q.term('k', 'zz')] }), sort, k: 10, trackTotalHits: 10 });
    expect(collected.hits.map((h) => [h._id, h.sort[0]])).toEqual(presorted);
    expect(presorted.map((x) => x[1])).toEqual([jsonNumber('900719925474099.2'), 450359962737050.1, 4.6, 2.5, 1.95]);
  });
  it('numeric_type long truncates a double field; keywords take min or max only', () => {
    expect(sortBy(shard, [byField('d', 'asc', { numericType: 'long' })]).map((x) => x[1])).toEqual([-2, 1, 2, 3, 900719925474099]);
    expect(sortBy(shard, [byField('k', 'desc')]).map((x) => x[1])).toEqual(['z', 'y', 'c', null, null]);
    expect(() => sortBy(shard, [byField('k', 'asc', { mode: 'avg' })])).toThrow('we only support AVG, MEDIAN and SUM on number based fields');
    expect(() => sortBy(shard, [byField('k', 'asc', { numericType: 'double' })])).toThrow(
      '[numeric_type] option cannot be set on a non-numeric field, got keyword',
    );
  });
});
