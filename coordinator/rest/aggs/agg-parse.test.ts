import { describe, expect, it } from 'vitest';
import { EsError } from '../../../protocol/errors.ts';
import { parseAggregations } from './agg-parse.ts';
import { javaDoubleText } from './param-parse.ts';

const err = (body: Record<string, unknown>): EsError => {
  try {
    parseAggregations(body);
  } catch (e) {
    return e as EsError;
  }
  throw new Error('expected an error');
};

describe('parseAggregations', () => {
  it('builds the tree with ES defaults, sub-aggregations to any depth, and meta', () => {
    const [t] = parseAggregations({
      t: { terms: { field: 'tag' }, meta: { x: 1 }, aggs: { h: { histogram: { field: 'n', interval: 5 }, aggs: { s: { sum: { field: 'n' } } } } } },
    });
    expect(t).toMatchObject({ type: 'terms', name: 't', size: 10, shardSize: null, minDocCount: 1, meta: { x: 1 } });
    expect(t.type === 'terms' && t.order).toEqual([
      { key: '_count', asc: false },
      { key: '_key', asc: true },
    ]);
    expect(t.aggs[0]).toMatchObject({ type: 'histogram', interval: 5, minDocCount: 0, aggs: [{ type: 'sum', field: 'n' }] });
  });
  it('orders: object or array, _key tie-break appended unless present', () => {
    const [a] = parseAggregations({ a: { terms: { field: 'f', order: { _key: 'desc' } } } });
    expect(a.type === 'terms' && a.order).toEqual([{ key: '_key', asc: false }]);
    const [b] = parseAggregations({ b: { terms: { field: 'f', order: [{ m: 'asc' }, { _count: 'DESC' }] } } });
    expect(b.type === 'terms' && b.order).toEqual([
      { key: 'm', asc: true },
      { key: '_count', asc: false },
      { key: '_key', asc: true },
    ]);
  });
  it('tree errors carry ES texts', () => {
    expect(err({ 'a[': { terms: { field: 'f' } } }).message).toBe(
      "Invalid aggregation name [a[]. Aggregation names can contain any character except '[', ']', and '>'",
    );
    const unknown = err({ a: { termz: { field: 'f' } } });
    expect([unknown.type, unknown.message, unknown.causedBy?.type]).toEqual([
      'parsing_exception',
      'Unknown aggregation type [termz] did you mean [terms]?',
      'named_object_not_found_exception',
    ]);
    expect(err({ a: {} }).message).toBe('Missing definition for aggregation [a]');
    expect(err({ a: { terms: { field: 'f' }, avg: { field: 'g' } } }).message).toBe('Found two aggregation type definitions in [a]: [terms] and [avg]');
    expect(err({ a: 1 }).message).toBe('Aggregation definition for [a starts with a [VALUE_NUMBER], expected a [START_OBJECT].');
    expect(err({ a: { terms: 'f' } }).message).toBe('Expected [START_OBJECT] under [terms], but got a [VALUE_STRING] in [a]');
    const sub = err({ a: { avg: { field: 'n' }, aggs: { b: { max: { field: 'n' } } } } });
    expect([sub.type, sub.message]).toEqual(['aggregation_initialization_exception', 'Aggregator [a] of type [avg] cannot accept sub-aggregations']);
    expect(err({ a: { moving_fn: {} } }).message).toBe('aggregation type [moving_fn] is not supported by Folio yet');
    expect(err({ a: { terms: { field: 'f' }, aggs: { s: { bucket_selector: {} } } } }).message).toBe('Required [buckets_path, script]');
  });
  it('parameter errors are ObjectParser x_content_parse_exceptions', () => {
    const size = err({ a: { terms: { field: 'f', size: 0 } } });
    expect([size.type, size.message, size.causedBy?.reason]).toEqual([
      'x_content_parse_exception',
      '[1:1] [terms] failed to parse field [size]',
      '[size] must be greater than 0. Found [0] in [a]',
    ]);
    expect(err({ a: { terms: { field: 'f', sise: 1 } } }).message).toBe('[1:1] [terms] unknown field [sise] did you mean [size]?');
    expect(err({ a: { terms: { field: 'f', min_doc_count: -1 } } }).causedBy?.reason).toBe(
      '[minDocCount] must be greater than or equal to 0. Found [-1] in [a]',
    );
    expect(err({ a: { terms: { field: 'f', order: { _count: 'up' } } } }).causedBy?.reason).toBe('Unknown order direction [up]');
    expect(err({ h: { histogram: { field: 'n', interval: -1 } } }).causedBy?.reason).toBe('[interval] must be >0 for histogram aggregation [h]');
    expect(err({ d: { date_histogram: { field: 'd', calendar_interval: '2d' } } }).causedBy?.reason).toBe(
      'The supplied interval [2d] could not be parsed as a calendar interval.',
    );
    expect(err({ d: { date_histogram: { field: 'd', calendar_interval: '1d', fixed_interval: '1h' } } }).causedBy?.reason).toBe(
      'Cannot use [fixed_interval] with [calendar_interval] configuration option.',
    );
    expect(err({ d: { date_histogram: { field: 'd', fixed_interval: '1M' } } }).causedBy?.reason).toBe(
      'failed to parse setting [date_histogram.fixedInterval] with value [1M] as a time value: unit is missing or unrecognized',
    );
    expect(err({ r: { range: { field: 'n' } } }).message).toBe('No [ranges] specified for the [r] aggregation');
    const pct = err({ p: { percentiles: { field: 'n', percents: [150] } } });
    expect([pct.message, pct.causedBy?.reason]).toEqual([
      '[1:1] Failed to build [percentiles] after last required field arrived',
      'percent must be in [0,100], got [150.0]: [p]',
    ]);
    expect(err({ t: { terms: { field: 'f', include: '(a|b)' } } }).causedBy?.reason).toContain('is not supported by Folio yet');
  });
  it('date values resolve on the coordinator; ranges sort by from then to', () => {
    const [d] = parseAggregations({
      d: { date_histogram: { field: 'd', calendar_interval: 'month', time_zone: '+01:00', extended_bounds: { min: '2024-01-01', max: '2024-03-01' } } },
    });
    expect(d).toMatchObject({
      dateInterval: { calendar: 'month' },
      timeZone: '+01:00',
      extendedBounds: { min: Date.UTC(2023, 11, 31, 23), max: Date.UTC(2024, 1, 29, 23) },
    });
    const [r] = parseAggregations({ r: { range: { field: 'n', ranges: [{ from: 10 }, { to: 5 }, { from: 5, to: 10 }] } } });
    expect(r.type === 'range' && r.ranges).toEqual([{ to: 5 }, { from: 5, to: 10 }, { from: 10 }]);
  });
  it('composite: sources, after by source name, ES errors', () => {
    const [c] = parseAggregations({
      c: {
        composite: {
          size: 2,
          sources: [{ t: { terms: { field: 'tag', order: 'desc' } } }, { h: { histogram: { field: 'n', interval: 5, missing_bucket: true } } }],
          after: { t: 'b', h: null },
        },
      },
    });
    expect(c).toMatchObject({
      type: 'composite',
      size: 2,
      after: ['b', null],
      sources: [
        { name: 't', kind: 'terms', asc: false, missingFirst: false },
        { name: 'h', kind: 'histogram', interval: 5, missingBucket: true, missingFirst: true },
      ],
    });
    expect(err({ c: { composite: { sources: [] } } }).message).toBe('Composite [sources] cannot be empty');
    expect(err({ c: { composite: { sources: [{ t: { terms: { field: 'a' } } }], after: {} } } }).message).toBe('[after] has 0 value(s) but [sources] has 1');
    expect(err({ c: { composite: { size: 70000, sources: [{ t: { terms: { field: 'a' } } }] } } }).type).toBe('too_many_buckets_exception');
    expect(err({ t: { terms: { field: 'a' }, aggs: { c: { composite: { sources: [{ t: { terms: { field: 'b' } } }] } } } } }).message).toBe(
      '[composite] aggregation cannot be used with a parent aggregation of type: [terms]',
    );
  });
  it('prints doubles as Java does', () => {
    expect([javaDoubleText(150), javaDoubleText(1.5), javaDoubleText(1e7), javaDoubleText(-0.25), javaDoubleText(0)]).toEqual([
      '150.0',
      '1.5',
      '1.0E7',
      '-0.25',
      '0.0',
    ]);
  });
});
