import { describe, expect, it } from 'vitest';
import { parseAggregations } from '../../rest/aggs/agg-parse.ts';
import { EsError } from '../../../protocol/errors.ts';
import type { FieldMapping } from '../../../protocol/mapping.ts';
import type { AggPartial, TermsPartial } from '../../../protocol/aggs.ts';
import { reduceAggs } from './reduce.ts';
import { renderAggs } from './render.ts';

const FIELDS: Record<string, FieldMapping> = { tag: { type: 'keyword' }, n: { type: 'long' }, t: { type: 'date' } };

/** One complete terms list per shard, each bucket with `sum` (of n) and `max` partials. */
function termsShard(buckets: [key: string, docs: number, sum: number, max: number][]): AggPartial[] {
  const p: TermsPartial = {
    t: 'terms',
    buckets: buckets.map(([key, n, sum, max]) => ({
      key,
      n,
      aggs: [{ t: 'stats', count: n, sum }, { t: 'stats', count: n, max }, { t: 'pipe' }, { t: 'pipe' }, { t: 'pipe' }],
    })),
    complete: true,
    cutoff: 0,
    total: buckets.reduce((x, b) => x + b[1], 0),
  };
  return [p];
}

function run(pipes: Record<string, unknown>, size = 10, typedKeys = false): Record<string, unknown> {
  const nodes = parseAggregations({
    t: { terms: { field: 'tag', size, order: { _count: 'desc' } }, aggs: { s: { sum: { field: 'n' } }, m: { max: { field: 'n' } }, ...pipes } },
  });
  const shards = [
    termsShard([
      ['a', 4, 40, 20],
      ['b', 3, 3, 1],
      ['c', 1, 100, 100],
    ]),
    termsShard([
      ['a', 1, 5, 5],
      ['d', 2, 0, 0],
      ['c', 1, 1, 1],
    ]),
  ];
  const o = reduceAggs(nodes, shards);
  if (!o.done) throw new Error('not settled');
  return renderAggs(o.reduced, { fieldMapping: (f) => FIELDS[f], typedKeys });
}

const keys = (out: Record<string, unknown>) => (out.t as { buckets: { key: string }[] }).buckets.map((b) => b.key);

describe('parent pipelines', () => {
  // Reduced: a 5 docs s=45 m=20; b 3 docs s=3 m=1; c 2 docs s=101 m=100; d 2 docs s=0 m=0.

  it('bucket_script adds a value per bucket, after the other aggregations, with format', () => {
    const out = run({ ratio: { bucket_script: { buckets_path: { s: 's', c: '_count' }, script: 'params.s / params.c', format: '0.00' } } });
    const buckets = (out.t as { buckets: Record<string, unknown>[] }).buckets;
    expect(buckets[0]).toEqual({ key: 'a', doc_count: 5, s: { value: 45 }, m: { value: 20 }, ratio: { value: 9, value_as_string: '9.00' } });
    expect(Object.keys(buckets[0]).at(-1)).toBe('ratio');
    expect(buckets.map((b) => (b.ratio as { value: number }).value)).toEqual([9, 1, 50.5, 0]);
  });

  it('bucket_selector keeps the buckets whose script is true; typed_keys name the value simple_value', () => {
    const out = run({
      keep: { bucket_selector: { buckets_path: { s: 's', m: 'm' }, script: { source: 'params.s > params.min && params.m < 50', params: { min: 2 } } } },
    });
    expect(keys(out)).toEqual(['a', 'b']);
    const typed = run({ r: { bucket_script: { buckets_path: 's', script: 'params._value * 2' } } }, 10, true);
    expect((typed['sterms#t'] as { buckets: Record<string, unknown>[] }).buckets[0]['simple_value#r']).toEqual({ value: 90 });
  });

  it('pipelines run in dependency order: a selector or a sort may read a bucket_script declared after it', () => {
    const out = run({
      keep: { bucket_selector: { buckets_path: { r: 'ratio' }, script: 'params.r >= 1' } },
      page: { bucket_sort: { sort: [{ ratio: { order: 'desc' } }], size: 2 } },
      ratio: { bucket_script: { buckets_path: { s: 's', c: '_count' }, script: 'params.s / params.c' } },
    });
    expect(keys(out)).toEqual(['c', 'a']);
    expect((out.t as { total_buckets: number }).total_buckets).toBe(3); // b, a, c pass the selector; d (0) does not
  });

  it('bucket_sort pages and says how many buckets it paged through (total_buckets)', () => {
    const out = run({ page: { bucket_sort: { sort: [{ m: { order: 'asc' } }], from: 1, size: 2 } } });
    expect(keys(out)).toEqual(['b', 'a']);
    expect(out.t).toMatchObject({ sum_other_doc_count: 0, total_buckets: 4 });
    expect(Object.keys(out.t as object)).toEqual(['doc_count_error_upper_bound', 'sum_other_doc_count', 'total_buckets', 'buckets']);
    expect(run({ all: { bucket_sort: { sort: ['_key'] } } }, 2).t).toMatchObject({ total_buckets: 2, sum_other_doc_count: 4 }); // the parent's size comes first, as in ES
    expect(
      run({ r: { bucket_script: { buckets_path: 's', script: '1' } }, s2: { bucket_selector: { buckets_path: 's', script: 'true' } } }).t,
    ).not.toHaveProperty('total_buckets');
  });

  it('gaps: skip leaves a bucket without a script value; insert_zeros reads 0', () => {
    // A path to a missing sub-aggregation value (the bucket_script `x` is null in bucket d).
    const out = run({
      x: { bucket_script: { buckets_path: { s: 's' }, script: 'params.s > 0 ? params.s : null' } },
      y: { bucket_script: { buckets_path: { x: 'x' }, script: 'params.x + 1' } },
      w: { bucket_script: { buckets_path: { x: 'x' }, script: 'params.x + 1', gap_policy: 'insert_zeros' } },
    });
    const d = (out.t as { buckets: Record<string, unknown>[] }).buckets.find((b) => b.key === 'd')!;
    expect(d).not.toHaveProperty('x');
    expect(d).not.toHaveProperty('y');
    expect(d.w).toEqual({ value: 1 });
  });

  it('a script of the wrong result type or with a runtime error answers a 400 script_exception', () => {
    const fail = (pipes: Record<string, unknown>) => {
      try {
        run(pipes);
      } catch (e) {
        return e as EsError;
      }
      throw new Error('no error');
    };
    expect(fail({ x: { bucket_selector: { buckets_path: { s: 's' }, script: 'params.s' } } })).toMatchObject({
      status: 400,
      type: 'script_exception',
      message: 'runtime error',
    });
    expect(fail({ x: { bucket_script: { buckets_path: { s: 's' }, script: 'params.s > 1' } } }).causedBy?.type).toBe('class_cast_exception');
    expect(fail({ x: { bucket_script: { buckets_path: { s: 's' }, script: '1 / 0' } } }).causedBy).toMatchObject({ type: 'arithmetic_exception' });
  });

  it('parse-time errors: paths, parents, cycles, scripts', () => {
    const err = (aggs: Record<string, unknown>) => {
      try {
        parseAggregations(aggs);
      } catch (e) {
        return e as EsError;
      }
      throw new Error('no error');
    };
    expect(err({ x: { bucket_selector: { buckets_path: { a: '_count' }, script: 'true' } } }).message).toBe(
      'Validation Failed: 1: bucket_selector aggregation [x] must be declared inside of another aggregation;',
    );
    expect(err({ t: { terms: { field: 'tag' }, aggs: { x: { bucket_script: { buckets_path: { a: 'nope' }, script: '1' } } } } }).message).toBe(
      'Validation Failed: 1: No aggregation found for path [nope];',
    );
    expect(err({ t: { terms: { field: 'tag' }, aggs: { x: { bucket_sort: {} } } } }).message).toBe(
      'Validation Failed: 1: [x] is configured to perform nothing. Please set either of [sort, size, from] to use bucket_sort;',
    );
    expect(
      err({ t: { terms: { field: 'tag' }, aggs: { x: { bucket_script: { buckets_path: { a: '_count' }, script: 'Math.log(params.a)' } } } } }),
    ).toMatchObject({ type: 'script_exception', message: 'compile error' });
    expect(
      err({ t: { terms: { field: 'tag' }, aggs: { x: { bucket_script: { buckets_path: { a: '_count' }, script: { source: '1', lang: 'groovy' } } } } } })
        .message,
    ).toBe('script_lang not supported [groovy]');
    expect(err({ t: { terms: { field: 'tag' }, aggs: { x: { bucket_script: { buckets_path: { a: '_count' }, script: { id: 'stored' } } } } } }).type).toBe(
      'x_content_parse_exception',
    );
    expect(err({ f: { filter: { match_all: {} }, aggs: { x: { bucket_selector: { buckets_path: { a: '_count' }, script: 'true' } } } } }).type).toBe(
      'illegal_argument_exception',
    );
    const cycle = parseAggregations({
      t: {
        terms: { field: 'tag' },
        aggs: { a: { bucket_script: { buckets_path: { v: 'b' }, script: '1' } }, b: { bucket_script: { buckets_path: { v: 'a' }, script: '1' } } },
      },
    });
    expect(() => reduceAggs(cycle, [termsShard([['a', 1, 1, 1]])])).toThrow('Cyclical dependency found with pipeline aggregator [a]');
  });
});
