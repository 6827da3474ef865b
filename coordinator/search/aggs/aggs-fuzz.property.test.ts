/**
 * Robustness property: any `aggs` JSON, parsed, collected on real shard engines and reduced,
 * either answers or fails with a 4xx EsError (ES's error for bad input), never anything else.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAggregations } from '../../rest/aggs/agg-parse.ts';
import { mergeMappings } from '../../../shared/dynamic-mapping.ts';
import { EsError } from '../../../protocol/errors.ts';
import { flatFields, type Mapping } from '../../../protocol/mapping.ts';
import { collectShardAggs, refineShardAggs } from '../../../shard-node/engine/aggs/shard-aggs.ts';
import { Shard } from '../../../shard-node/engine/shard.ts';
import { recordReplies, reduceAggs, type ReplyLog } from './reduce.ts';
import { renderAggs } from './render.ts';
import { searcherOf } from '../../../shard-node/engine/searcher.ts';

const MAPPING: Mapping = { properties: { tag: { type: 'keyword' }, n: { type: 'long' }, d: { type: 'date' }, t: { type: 'text' }, b: { type: 'boolean' } } };

function shards() {
  let mapping = MAPPING;
  return [0, 1].map((s) => {
    const shard = new Shard({ index: 'f', shard: s, getMapping: () => mapping, updateMapping: (u) => (mapping = mergeMappings(mapping, u)) });
    for (let i = 0; i < 20; i++) {
      shard.apply([
        {
          op: 'index',
          _id: `${s}-${i}`,
          source: JSON.stringify({ tag: ['a', 'b', 'c'][i % 3], n: i, d: 86_400_000 * i, t: 'x y', b: i % 2 === 0 }),
          create: false,
        },
      ]);
    }
    shard.refresh();
    return shard.acquire();
  });
}

const field = fc.constantFrom('tag', 'n', 'd', 't', 'b', 'nope', '_index');
const value = fc.oneof(fc.integer({ min: -5, max: 50 }), fc.double({ noNaN: true }), fc.string({ maxLength: 4 }), fc.boolean(), fc.constant(null), field);
const params = fc.dictionary(
  fc.constantFrom(
    'field',
    'size',
    'min_doc_count',
    'order',
    'interval',
    'calendar_interval',
    'fixed_interval',
    'ranges',
    'missing',
    'include',
    'exclude',
    'format',
    'percents',
    'sources',
    'after',
    'buckets_path',
    'from',
    'sort',
    'keyed',
    'offset',
    'extended_bounds',
    'time_zone',
    'precision_threshold',
    'filters',
    'shard_size',
    'values',
  ),
  fc.oneof(value, fc.array(value, { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 4 }), value, { maxKeys: 2 })),
  { maxKeys: 4 },
);
const type = fc.constantFrom(
  'terms',
  'histogram',
  'date_histogram',
  'range',
  'date_range',
  'filter',
  'filters',
  'missing',
  'global',
  'min',
  'avg',
  'stats',
  'extended_stats',
  'cardinality',
  'percentiles',
  'percentile_ranks',
  'composite',
  'top_hits',
  'bucket_sort',
  'max_bucket',
  'cumulative_sum',
  'bogus',
);
/** Mostly well-formed aggregations (so collection and reduce run), with the odd bad value. */
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const sane: fc.Arbitrary<[string, Record<string, unknown>]> = fc.oneof(
  fc
    .record(
      {
        field,
        size: opt(fc.integer({ min: 0, max: 4 })),
        min_doc_count: opt(fc.integer({ min: 0, max: 3 })),
        order: opt(fc.constantFrom({ _count: 'asc' }, { _key: 'desc' }, { m: 'desc' }, { _count: 'desc' })),
        missing: opt(fc.constantFrom('a', 3, true)),
        include: opt(fc.constantFrom(['a', 'b'], 'a.*', [1, 2])),
      },
      { requiredKeys: ['field'] },
    )
    .map((p) => ['terms', p] as [string, Record<string, unknown>]),
  fc
    .record(
      { field, interval: fc.constantFrom(1, 5, 0.5, -1), min_doc_count: opt(fc.constantFrom(0, 1)), extended_bounds: opt(fc.constant({ min: -3, max: 40 })) },
      { requiredKeys: ['field', 'interval'] },
    )
    .map((p) => ['histogram', p] as [string, Record<string, unknown>]),
  fc
    .record(
      {
        field,
        calendar_interval: fc.constantFrom('day', 'month', '1w', '2d'),
        time_zone: opt(fc.constantFrom('Europe/Paris', '+01:00', 'Nope/Zone')),
        min_doc_count: opt(fc.constantFrom(0, 1)),
      },
      { requiredKeys: ['field', 'calendar_interval'] },
    )
    .map((p) => ['date_histogram', p] as [string, Record<string, unknown>]),
  fc
    .record({ field, ranges: fc.constantFrom([{ to: 5 }, { from: 5 }], [{ from: 2, to: 3, key: 'k' }], []) })
    .map((p) => ['range', p] as [string, Record<string, unknown>]),
  fc
    .tuple(fc.constantFrom('min', 'max', 'sum', 'avg', 'value_count', 'stats', 'extended_stats', 'cardinality', 'missing'), field)
    .map(([t, f]) => [t, { field: f }] as [string, Record<string, unknown>]),
  fc
    .record({ field, percents: opt(fc.constantFrom([50], [1, 99], [150])) }, { requiredKeys: ['field'] })
    .map((p) => ['percentiles', p] as [string, Record<string, unknown>]),
  fc
    .tuple(field, fc.integer({ min: 1, max: 3 }))
    .map(([f, size]) => ['composite', { size, sources: [{ k: { terms: { field: f } } }] }] as [string, Record<string, unknown>]),
  fc.constantFrom<[string, Record<string, unknown>]>(
    ['top_hits', { size: 2, sort: [{ n: 'desc' }] }],
    ['top_hits', { size: 1 }],
    ['filter', { term: { tag: 'a' } }],
    ['filters', { filters: { x: { term: { tag: 'a' } } }, other_bucket: true }],
    ['global', {}],
    ['bucket_sort', { sort: [{ _count: 'desc' }], size: 1 }],
    ['max_bucket', { buckets_path: 'x>_count' }],
    ['cumulative_sum', { buckets_path: '_count' }],
  ),
);
const agg = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc
    .tuple(
      fc.oneof({ arbitrary: sane, weight: 9 }, { arbitrary: fc.tuple(type, params), weight: 1 }),
      fc.option(fc.dictionary(fc.constantFrom('x', 'm', 'y'), tie('node'), { maxKeys: 2 }), { nil: undefined, freq: 2 }),
    )
    .map(([[t, p], subs]) => ({ [t]: p, ...(subs ? { aggs: subs } : {}) })),
}));

describe('aggregations on bad input', () => {
  it('answer or fail with a 4xx EsError, never anything else', () => {
    const gens = shards();
    const query = { kind: 'match_all', boost: 1 } as const;
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a', 'b'), agg.node, { minKeys: 1, maxKeys: 2 }), (body) => {
        try {
          const nodes = parseAggregations(body);
          const parts = gens.map((g) => collectShardAggs(searcherOf(g), nodes, query, undefined, 'f'));
          const log: ReplyLog = new Map();
          for (let round = 0; round < 20; round++) {
            const o = reduceAggs(nodes, parts, log);
            if (o.done) {
              renderAggs(o.reduced, { fieldMapping: (f) => flatFields(MAPPING).get(f), typedKeys: true });
              return;
            }
            for (const [p, tasks] of o.tasks) recordReplies(log, p, tasks, refineShardAggs(searcherOf(gens[p]), nodes, query, tasks, 'f'));
          }
          throw new Error('did not settle');
        } catch (e) {
          expect(e, String((e as Error).stack)).toBeInstanceOf(EsError);
          expect((e as EsError).status).toBeGreaterThanOrEqual(400);
          expect((e as EsError).status).toBeLessThan(500);
        }
      }),
      { numRuns: 400 },
    );
  });
});
