import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { parseSortBody, parseSortParam } from './sort-parse.ts';

const f = (field: string, order: 'asc' | 'desc' = 'asc') => ({ kind: 'field', field, order, missing: '_last', mode: order === 'asc' ? 'min' : 'max' });
const score = (order: 'asc' | 'desc' = 'desc') => ({ kind: 'score', field: '_score', order, missing: '_last', mode: order === 'asc' ? 'min' : 'max' });

describe('parseSortParam', () => {
  it('splits on commas and the last colon', () => {
    expect(parseSortParam('a:desc,b,_score')).toEqual([f('a', 'desc'), f('b'), score()]);
    expect(parseSortParam('ns:field:asc')).toEqual([f('ns:field')]);
    expect(parseSortParam('_score:asc,_doc')).toEqual([score('asc'), { ...f('_doc'), kind: 'doc' }]);
  });
  it('drops a clause whose order is not exactly asc/desc, as RestSearchAction', () => {
    expect(parseSortParam('a:DESC,b:up,c')).toEqual([f('c')]);
  });
});

describe('parseSortBody', () => {
  it('accepts every ES form', () => {
    expect(parseSortBody('n')).toEqual([f('n')]);
    expect(parseSortBody({ g: 'DESC' })).toEqual([f('g', 'desc')]);
    expect(
      parseSortBody([
        'n',
        { g: 'desc' },
        { o: { order: 'desc', missing: '_first', mode: 'min', unmapped_type: 'long' } },
        '_score',
        { _score: { order: 'asc' } },
        '_doc',
      ]),
    ).toEqual([
      f('n'),
      f('g', 'desc'),
      { ...f('o', 'desc'), missing: '_first', mode: 'min', unmappedType: 'long' },
      score(),
      score('asc'),
      { ...f('_doc'), kind: 'doc' },
    ]);
    expect(parseSortBody({ a: { missing: 5 }, b: 'asc' })).toEqual([{ ...f('a'), missing: 5 }, f('b')]);
  });
  it('reads every sort mode and numeric_type (case-insensitive)', () => {
    for (const mode of ['min', 'max', 'sum', 'avg', 'median'] as const) expect(parseSortBody({ a: { mode: mode.toUpperCase() } })[0].mode).toBe(mode);
    expect(parseSortBody({ a: { order: 'desc' } })[0].mode).toBe('max');
    expect(parseSortBody({ a: { numeric_type: 'Date_Nanos' } })[0].numericType).toBe('date_nanos');
    expect(parseSortBody({ a: 'asc' })[0].numericType).toBeUndefined();
  });
  it('rejects bad orders and options with ES texts', () => {
    const short = esErr(() => parseSortBody({ a: 'up' }));
    expect([short.type, short.message]).toEqual(['illegal_argument_exception', 'No enum constant org.elasticsearch.search.sort.SortOrder.UP']);
    const long = esErr(() => parseSortBody({ a: { order: 'up' } }));
    expect([long.type, long.message]).toEqual(['x_content_parse_exception', '[1:1] [field_sort] failed to parse field [order]']);
    expect(long.causedBy?.reason).toBe('No enum constant org.elasticsearch.search.sort.SortOrder.UP');
    expect(esErr(() => parseSortBody({ a: { order: 1 } })).message).toBe("[1:1] [field_sort] order doesn't support values of type: VALUE_NUMBER");
    expect(esErr(() => parseSortBody({ a: { ordr: 'asc' } })).message).toBe('[1:1] [field_sort] unknown field [ordr] did you mean [order]?');
    expect(esErr(() => parseSortBody({ a: 5 })).message).toBe('[1:1] [field_sort] Expected START_OBJECT but was: VALUE_NUMBER');
    expect(esErr(() => parseSortBody({ _score: { mode: 'max' } })).message).toBe('[1:1] [_score] unknown field [mode]');
    expect(esErr(() => parseSortBody({ a: { mode: 'foo' } })).causedBy?.reason).toBe('Unknown SortMode [foo]');
    expect(esErr(() => parseSortBody({ a: { numeric_type: 'int' } })).causedBy?.reason).toBe(
      'invalid value for [numeric_type], must be [long, double, date, date_nanos], got int',
    );
    expect(esErr(() => parseSortBody([5])).message).toBe('malformed sort format, within the sort array, an object, or an actual string are allowed');
    expect(esErr(() => parseSortBody(null)).message).toBe('malformed sort format, either start with array, object, or an actual string');
    expect(esErr(() => parseSortBody({ _script: {} })).type).toBe('illegal_argument_exception');
  });
});
