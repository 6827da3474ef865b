import { describe, expect, it } from 'vitest';
import { parseAggregations } from '../../rest/aggs/agg-parse.ts';
import { HyperLogLog } from '../../../shared/aggs/hyperloglog.ts';
import type { FieldMapping } from '../../../protocol/mapping.ts';
import type { AggPartial } from '../../../protocol/aggs.ts';
import { reduceAggs } from './reduce.ts';
import { renderAggs } from './render.ts';

const FIELDS: Record<string, FieldMapping> = {
  d: { type: 'date' },
  n: { type: 'long' },
  x: { type: 'double' },
  tag: { type: 'keyword' },
  b: { type: 'boolean' },
};

/** Reduces per-shard partials of one aggregation and renders it. */
function reduceOne(body: Record<string, unknown>, shards: (AggPartial | undefined)[], typedKeys = false): unknown {
  const nodes = parseAggregations({ a: body });
  const o = reduceAggs(
    nodes,
    shards.map((p) => (p ? [p] : undefined)),
  );
  if (!o.done) throw new Error('not settled');
  return renderAggs(o.reduced, { fieldMapping: (f) => FIELDS[f], typedKeys })[
    typedKeys ? Object.keys(renderAggs(o.reduced, { fieldMapping: (f) => FIELDS[f], typedKeys }))[0] : 'a'
  ];
}

const stats = (count: number, sum: number, min: number | null, max: number | null, sumSq: number): AggPartial => ({ t: 'stats', count, sum, min, max, sumSq });

describe('metric reducers', () => {
  const parts = [stats(2, 3, 1, 2, 5), stats(1, 10, 10, 10, 100), undefined];
  it('min, max, sum, avg, value_count', () => {
    expect(reduceOne({ min: { field: 'n' } }, parts)).toEqual({ value: 1 });
    expect(reduceOne({ max: { field: 'n' } }, parts)).toEqual({ value: 10 });
    expect(reduceOne({ sum: { field: 'n' } }, parts)).toEqual({ value: 13 });
    expect(reduceOne({ avg: { field: 'n' } }, parts)).toEqual({ value: 13 / 3 });
    expect(reduceOne({ value_count: { field: 'n' } }, parts)).toEqual({ value: 3 });
  });
  it('empty metrics: null min/max/avg, 0 sum (ES)', () => {
    expect(reduceOne({ min: { field: 'n' } }, [undefined])).toEqual({ value: null });
    expect(reduceOne({ avg: { field: 'n' } }, [stats(0, 0, null, null, 0)])).toEqual({ value: null });
    expect(reduceOne({ sum: { field: 'n' } }, [])).toEqual({ value: 0 });
    expect(reduceOne({ stats: { field: 'n' } }, [])).toEqual({ count: 0, min: null, max: null, avg: null, sum: 0 });
  });
  it('stats and extended_stats with sigma bounds', () => {
    expect(reduceOne({ stats: { field: 'n' } }, parts)).toEqual({ count: 3, min: 1, max: 10, avg: 13 / 3, sum: 13 });
    const es = reduceOne({ extended_stats: { field: 'n', sigma: 1 } }, [stats(2, 4, 1, 3, 10)]) as Record<string, unknown>;
    expect(es).toMatchObject({
      count: 2,
      avg: 2,
      sum_of_squares: 10,
      variance: 1,
      variance_sampling: 2,
      std_deviation: 1,
      std_deviation_bounds: { upper: 3, lower: 1 },
    });
  });
  it('dates print value_as_string with the field format', () => {
    expect(reduceOne({ max: { field: 'd' } }, [stats(1, 0, 0, 86_400_000, 0)])).toEqual({ value: 86_400_000, value_as_string: '1970-01-02T00:00:00.000Z' });
  });
  it('cardinality: exact union of value sets, sketches merged past the threshold', () => {
    expect(
      reduceOne({ cardinality: { field: 'tag' } }, [
        { t: 'card', values: ['a', 'b'] },
        { t: 'card', values: ['b', 'c'] },
      ]),
    ).toEqual({ value: 3 });
    const h = new HyperLogLog(14);
    for (let i = 0; i < 5000; i++) h.add(`v${i}`);
    const v = (
      reduceOne({ cardinality: { field: 'tag' } }, [
        { t: 'card', registers: h.toBase64(), precision: 14 },
        { t: 'card', values: ['v1', 'new'] },
      ]) as { value: number }
    ).value;
    expect(Math.abs(v - 5001) / 5001).toBeLessThan(0.03);
  });
  it('percentiles merge t-digests; keyed by Java doubles', () => {
    const centroids = (vals: number[]) => ({ t: 'pct' as const, centroids: vals.flatMap((v) => [v, 1]) });
    const out = reduceOne({ percentiles: { field: 'x', percents: [0, 50, 100] } }, [centroids([1, 2, 3]), centroids([4, 5])]) as {
      values: Record<string, number>;
    };
    expect(Object.keys(out.values)).toEqual(['0.0', '50.0', '100.0']);
    expect(out.values['0.0']).toBe(1);
    expect(out.values['100.0']).toBe(5);
    expect(out.values['50.0']).toBeCloseTo(3, 0);
    expect(reduceOne({ percentiles: { field: 'x', percents: [50], keyed: false } }, [])).toEqual({ values: [{ key: 50, value: null }] });
  });
});

describe('bucket reducers', () => {
  it('histogram: merged, min_doc_count 0 fills gaps and extended_bounds; keyed uses Java doubles', () => {
    const p1: AggPartial = {
      t: 'hist',
      buckets: [
        { key: 0, n: 1 },
        { key: 20, n: 2 },
      ],
    };
    const p2: AggPartial = { t: 'hist', buckets: [{ key: 20, n: 1 }] };
    expect(reduceOne({ histogram: { field: 'x', interval: 10, extended_bounds: { min: 0, max: 35 } } }, [p1, p2])).toEqual({
      buckets: [
        { key: 0, doc_count: 1 },
        { key: 10, doc_count: 0 },
        { key: 20, doc_count: 3 },
        { key: 30, doc_count: 0 },
      ],
    });
    expect(reduceOne({ histogram: { field: 'x', interval: 10, min_doc_count: 2, keyed: true } }, [p1, p2])).toEqual({
      buckets: { '20.0': { key: 20, doc_count: 3 } },
    });
    expect(reduceOne({ histogram: { field: 'x', interval: 10, order: { _count: 'desc' } } }, [p1, p2])).toEqual({
      buckets: [
        { key: 20, doc_count: 3 },
        { key: 0, doc_count: 1 },
        { key: 10, doc_count: 0 },
      ],
    });
  });
  it('date_histogram fills calendar months and prints key_as_string first', () => {
    const jan = Date.UTC(2024, 0, 1);
    const mar = Date.UTC(2024, 2, 1);
    expect(
      reduceOne({ date_histogram: { field: 'd', calendar_interval: 'month', format: 'yyyy-MM' } }, [
        {
          t: 'hist',
          buckets: [
            { key: jan, n: 2 },
            { key: mar, n: 1 },
          ],
        },
      ]),
    ).toEqual({
      buckets: [
        { key_as_string: '2024-01', key: jan, doc_count: 2 },
        { key_as_string: '2024-02', key: Date.UTC(2024, 1, 1), doc_count: 0 },
        { key_as_string: '2024-03', key: mar, doc_count: 1 },
      ],
    });
  });
  it('too many buckets is ES 8 400 with max_buckets', () => {
    const nodes = parseAggregations({ a: { histogram: { field: 'x', interval: 1 } } });
    const p: AggPartial = {
      t: 'hist',
      buckets: [
        { key: 0, n: 1 },
        { key: 1_000_000, n: 1 },
      ],
    };
    expect(() => reduceAggs(nodes, [[p]], new Map(), 1000)).toThrow(
      expect.objectContaining({ status: 400, type: 'too_many_buckets_exception', metadata: { max_buckets: 1000 } }),
    );
  });
  it('range keys, from/to, keyed; date_range as strings', () => {
    const p: AggPartial = { t: 'multi', buckets: [{ n: 1 }, { n: 2 }] };
    expect(reduceOne({ range: { field: 'x', ranges: [{ to: 5 }, { from: 5, key: 'big' }] } }, [p, p])).toEqual({
      buckets: [
        { key: '*-5.0', to: 5, doc_count: 2 },
        { key: 'big', from: 5, doc_count: 4 },
      ],
    });
    expect(reduceOne({ range: { field: 'x', keyed: true, ranges: [{ to: 5 }, { from: 5 }] } }, [p])).toEqual({
      buckets: { '*-5.0': { to: 5, doc_count: 1 }, '5.0-*': { from: 5, doc_count: 2 } },
    });
    expect(reduceOne({ date_range: { field: 'd', format: 'yyyy', ranges: [{ from: '2024-01-01' }] } }, [{ t: 'multi', buckets: [{ n: 3 }] }])).toEqual({
      buckets: [{ key: '2024-*', from: Date.UTC(2024, 0, 1), from_as_string: '2024', doc_count: 3 }],
    });
  });
  it('filters keyed with the other bucket, anonymous as a list; single buckets', () => {
    const p: AggPartial = { t: 'multi', buckets: [{ n: 1 }, { n: 2 }, { n: 3 }] };
    expect(reduceOne({ filters: { filters: { b: { match_all: {} }, a: { match_all: {} } }, other_bucket: true } }, [p])).toEqual({
      buckets: { a: { doc_count: 1 }, b: { doc_count: 2 }, _other_: { doc_count: 3 } },
    });
    expect(reduceOne({ filters: { filters: [{ match_all: {} }, { match_all: {} }] } }, [{ t: 'multi', buckets: [{ n: 1 }, { n: 2 }] }])).toEqual({
      buckets: [{ doc_count: 1 }, { doc_count: 2 }],
    });
    expect(
      reduceOne({ missing: { field: 'n' } }, [
        { t: 'single', n: 2 },
        { t: 'single', n: 5 },
      ]),
    ).toEqual({ doc_count: 7 });
  });
  it('terms: key order settles in one round; boolean keys print key_as_string; typed_keys', () => {
    const s1: AggPartial = {
      t: 'terms',
      buckets: [
        { key: 'a', n: 1 },
        { key: 'b', n: 5 },
      ],
      complete: false,
      cutoff: 0,
      total: 9,
    };
    const s2: AggPartial = {
      t: 'terms',
      buckets: [
        { key: 'a', n: 2 },
        { key: 'c', n: 1 },
      ],
      complete: true,
      cutoff: 0,
      total: 3,
    };
    expect(reduceOne({ terms: { field: 'tag', size: 2, order: { _key: 'asc' } } }, [s1, s2])).toEqual({
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: 4,
      buckets: [
        { key: 'a', doc_count: 3 },
        { key: 'b', doc_count: 5 },
      ],
    });
    const bools: AggPartial = {
      t: 'terms',
      buckets: [
        { key: 1, n: 2 },
        { key: 0, n: 1 },
      ],
      complete: true,
      cutoff: 0,
      total: 3,
    };
    expect(reduceOne({ terms: { field: 'b' } }, [bools], true)).toEqual({
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: 0,
      buckets: [
        { key: 1, key_as_string: 'true', doc_count: 2 },
        { key: 0, key_as_string: 'false', doc_count: 1 },
      ],
    });
  });
  it('terms by count: unsettled lists answer refinement tasks for the shards that must say more', () => {
    const nodes = parseAggregations({ a: { terms: { field: 'tag', size: 1 } } });
    const s1: AggPartial = { t: 'terms', buckets: [{ key: 'x', n: 5 }], complete: false, cutoff: 4, total: 20 };
    const s2: AggPartial = { t: 'terms', buckets: [{ key: 'y', n: 6 }], complete: false, cutoff: 3, total: 20 };
    const o = reduceAggs(nodes, [[s1], [s2]]);
    expect(o.done).toBe(false);
    if (o.done) return;
    expect(o.tasks.get(0)).toEqual(expect.arrayContaining([{ path: [], agg: 0, include: ['y'] }]));
    expect(o.tasks.get(1)).toEqual(expect.arrayContaining([{ path: [], agg: 0, include: ['x'] }]));
  });
  it('bucket_sort sorts and pages the parent buckets; gap_policy skip drops buckets without a value', () => {
    const b = (key: string, n: number, sum: number | null) => ({
      key,
      n,
      aggs: [sum === null ? stats(0, 0, null, null, 0) : stats(1, sum, sum, sum, sum * sum), { t: 'pipe' as const }],
    });
    const p: AggPartial = { t: 'terms', buckets: [b('a', 3, 5), b('b', 2, 9), b('c', 1, 7), b('d', 1, null)], complete: true, cutoff: 0, total: 7 };
    const out = reduceOne(
      { terms: { field: 'tag' }, aggs: { m: { max: { field: 'n' } }, s: { bucket_sort: { sort: [{ m: { order: 'desc' } }], from: 1, size: 2 } } } },
      [p],
    ) as { buckets: { key: string }[] };
    expect(out.buckets.map((x) => x.key)).toEqual(['c', 'a']);
    const keyed = reduceOne({ terms: { field: 'tag' }, aggs: { m: { max: { field: 'n' } }, s: { bucket_sort: { size: 1 } } } }, [p]) as {
      buckets: { key: string }[];
    };
    expect(keyed.buckets.map((x) => x.key)).toEqual(['a']);
    expect(() => parseAggregations({ s: { bucket_sort: {} } })).toThrow(
      'Validation Failed: 1: bucket_sort aggregation [s] must be declared inside of another aggregation;',
    );
  });
  it('top_hits merges the shards lists in sort order, skips from, sums totals', () => {
    const hit = (id: string, v: number) => ({ _index: 'i', _id: id, _score: null, sort: [v], _source: `{"v":${v}}` });
    const p1: AggPartial = { t: 'top', total: 3, maxScore: null, hits: [hit('a', 9), hit('b', 5), hit('c', 1)] };
    const p2: AggPartial = { t: 'top', total: 2, maxScore: null, hits: [hit('d', 7), hit('e', 6)] };
    const out = reduceOne({ top_hits: { from: 1, size: 2, sort: [{ v: 'desc' }] } }, [p1, p2]) as {
      hits: { total: unknown; hits: { _id: string; sort: number[] }[] };
    };
    expect(out.hits.total).toEqual({ value: 5, relation: 'eq' });
    expect(out.hits.hits.map((h) => [h._id, h.sort[0]])).toEqual([
      ['d', 7],
      ['e', 6],
    ]);
  });
  it('numeric format gives *_as_string through DecimalFormat; show_term_doc_count_error adds 0 per bucket', () => {
    expect(reduceOne({ avg: { field: 'x', format: '0.00' } }, [stats(3, 10, 1, 5, 40)])).toEqual({ value: 10 / 3, value_as_string: '3.33' });
    expect(reduceOne({ histogram: { field: 'x', interval: 1000, format: '#,##0' } }, [{ t: 'hist', buckets: [{ key: 1000, n: 1 }] }])).toEqual({
      buckets: [{ key_as_string: '1,000', key: 1000, doc_count: 1 }],
    });
    const t: AggPartial = { t: 'terms', buckets: [{ key: 'a', n: 1 }], complete: true, cutoff: 0, total: 1 };
    expect(reduceOne({ terms: { field: 'tag', show_term_doc_count_error: true } }, [t])).toEqual({
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: 0,
      buckets: [{ key: 'a', doc_count: 1, doc_count_error_upper_bound: 0 }],
    });
  });
  it('sibling bucket metrics over reduced buckets, gaps skipped', () => {
    const nodes = parseAggregations({
      t: { terms: { field: 'tag' }, aggs: { m: { max: { field: 'n' } } } },
      a: { avg_bucket: { buckets_path: 't>m' } },
      mx: { max_bucket: { buckets_path: 't>m' } },
      c: { stats_bucket: { buckets_path: 't>_count' } },
    });
    const b = (key: string, n: number, m: number | null) => ({ key, n, aggs: [m === null ? stats(0, 0, null, null, 0) : stats(1, m, m, m, m * m)] });
    const p: AggPartial = { t: 'terms', buckets: [b('x', 3, 2), b('y', 2, 8), b('z', 1, null)], complete: true, cutoff: 0, total: 6 };
    const o = reduceAggs(nodes, [[p, { t: 'pipe' }, { t: 'pipe' }, { t: 'pipe' }]]);
    if (!o.done) throw new Error('unsettled');
    const out = renderAggs(o.reduced, { fieldMapping: (f) => FIELDS[f], typedKeys: false });
    expect(out.a).toEqual({ value: 5 });
    expect(out.mx).toEqual({ value: 8, keys: ['y'] });
    expect(out.c).toEqual({ count: 3, min: 1, max: 3, avg: 2, sum: 6 });
    expect(() => parseAggregations({ t: { terms: { field: 'tag' } }, m: { max_bucket: { buckets_path: 'nope>x' } } })).toThrow(
      'Validation Failed: 1: No aggregation found for path [nope>x];',
    );
    expect(() => parseAggregations({ m: { max_bucket: {} } })).toThrow('Missing required field [buckets_path] for aggregation [m]');
  });
  it('cumulative_sum and derivative over histogram buckets; a gap gives a null derivative', () => {
    const bucket = (key: number, m: number | null) => ({
      key,
      n: 1,
      aggs: [m === null ? stats(0, 0, null, null, 0) : stats(1, m, m, m, m * m), { t: 'pipe' as const }, { t: 'pipe' as const }],
    });
    const p: AggPartial = { t: 'hist', buckets: [bucket(0, 1), bucket(1, 3), bucket(2, null), bucket(3, 6)] };
    const out = reduceOne(
      {
        histogram: { field: 'x', interval: 1 },
        aggs: { m: { max: { field: 'n' } }, c: { cumulative_sum: { buckets_path: 'm' } }, d: { derivative: { buckets_path: 'm' } } },
      },
      [p],
    ) as { buckets: Record<string, unknown>[] };
    expect(out.buckets.map((b) => (b.c as { value: number }).value)).toEqual([1, 4, 4, 10]);
    expect(out.buckets.map((b) => (b.d as { value: number | null } | undefined)?.value)).toEqual([undefined, 2, null, null]);
    expect(() => parseAggregations({ t: { terms: { field: 'tag' }, aggs: { c: { cumulative_sum: { buckets_path: '_count' } } } } })).toThrow(
      'Validation Failed: 1: cumulative_sum aggregation [c] must have a histogram, date_histogram or auto_date_histogram as parent;',
    );
  });
});
