import { describe, expect, it } from 'vitest';
import { byField, load, newShard, q } from '../../test/support/engine-shard.ts';
import { afterRank, rangeOfMatches, sampleMatches, sortedMatches } from './selection.ts';
import { liveOrder, orderSpec } from './sort-order.ts';
import { searcherOf } from './searcher.ts';

/** 3 segments (the last refresh deletes d1 and d7), population-like ties and missing values. */
function shardWithSegments() {
  const { shard } = newShard({ properties: { n: { type: 'long' }, tag: { type: 'keyword' } } });
  load(
    shard,
    [0, 1, 2, 3].map((i) => ({ _id: `d${i}`, n: i % 2, tag: i % 2 ? 'b' : 'a' })),
  );
  load(
    shard,
    [4, 5, 6, 7].map((i) => ({ _id: `d${i}`, n: i % 2, tag: 'a' })),
  );
  shard.apply([
    { op: 'delete', _id: 'd1' },
    { op: 'delete', _id: 'd7' },
    { op: 'index', _id: 'd8', source: JSON.stringify({}), create: false },
  ]);
  shard.refresh();
  return shard;
}

const ids = (sm: ReturnType<typeof sortedMatches>): string[] => Array.from({ length: sm.size }, (_, r) => sm.hit(r)._id);

describe('presorted permutation', () => {
  it('orders live docs of every segment by value, missing per `missing`, then _id; cached per generation', () => {
    const gen = shardWithSegments().acquire();
    expect(gen.views.length).toBe(3);
    expect(ids(sortedMatches(searcherOf(gen), { query: q.all(), sort: [byField('n', 'desc')] }))).toEqual(['d3', 'd5', 'd0', 'd2', 'd4', 'd6', 'd8']);
    expect(ids(sortedMatches(searcherOf(gen), { query: q.all(), sort: [byField('n', 'asc', { missing: '_first' })] }))).toEqual([
      'd8',
      'd0',
      'd2',
      'd4',
      'd6',
      'd3',
      'd5',
    ]);
    const spec = orderSpec([byField('n', 'desc')], false, gen.fields())!;
    expect(liveOrder(gen, gen.views, gen.bases, spec, gen.fields())).toBe(liveOrder(gen, gen.views, gen.bases, spec, gen.fields()));
  });

  it('gives the same matches and order as the general collector path (filtered, keyword)', () => {
    const gen = shardWithSegments().acquire();
    const query = q.term('tag', 'a');
    const fast = sortedMatches(searcherOf(gen), { query, sort: [byField('n', 'desc')] });
    const general = sortedMatches(searcherOf(gen), { query, sort: [byField('n', 'desc')], trackScores: true });
    expect(ids(fast)).toEqual(ids(general));
    expect(ids(fast)).toEqual(['d5', 'd0', 'd2', 'd4', 'd6']);
    expect(general.maxScore).not.toBeNull();
    expect(fast.maxScore).toBeNull();
  });

  it('serves the query phase top k and search_after from the permutation', () => {
    const gen = shardWithSegments().acquire();
    const out = searcherOf(gen).query({ query: q.all(), sort: [byField('n', 'desc')], k: 3, trackTotalHits: 10_000 });
    expect(out.total).toEqual({ value: 7, relation: 'eq' });
    expect(out.hits.map((h) => [h._id, h.sort[0], h._score])).toEqual([
      ['d3', 1, null],
      ['d5', 1, null],
      ['d0', 0, null],
    ]);
    const after = searcherOf(gen).query({ query: q.all(), sort: [byField('n', 'desc')], k: 10, trackTotalHits: 10_000, searchAfter: { sort: [1] } });
    expect(after.hits.map((h) => h._id)).toEqual(['d0', 'd2', 'd4', 'd6', 'd8']);
    const sm = sortedMatches(searcherOf(gen), { query: q.all(), sort: [byField('n', 'desc')] });
    expect(afterRank(sm.size, (r) => sm.hit(r), { sort: [0], _id: 'd2' }, [byField('n', 'desc')])).toBe(4);
  });
});

describe('selection rounds on one shard', () => {
  it('samples keys at ⌊j·n/S⌋ with the exact count', () => {
    const sm = sortedMatches(searcherOf(shardWithSegments().acquire()), { query: q.all(), sort: [byField('n', 'desc')] });
    const s = sampleMatches(sm, 3);
    expect(s.total).toBe(7);
    expect(s.keys).toEqual([
      { sort: [1], _id: 'd3' },
      { sort: [0], _id: 'd0' },
      { sort: [0], _id: 'd4' },
    ]); // ranks 0, 2, 4
    expect(sampleMatches(sm, 100).keys.length).toBe(7);
  });

  it('counts before the lower key and returns [lower, upper) up to limit; equalBefore moves an equal doc before', () => {
    const sm = sortedMatches(searcherOf(shardWithSegments().acquire()), { query: q.all(), sort: [byField('n', 'desc')] });
    expect(rangeOfMatches(sm, { sort: [0], _id: 'd0' }, { sort: [0], _id: 'd6' }, 10)).toMatchObject({
      before: 2,
      hits: [{ _id: 'd0' }, { _id: 'd2' }, { _id: 'd4' }],
    });
    expect(rangeOfMatches(sm, { sort: [0], _id: 'd0', equalBefore: true }, undefined, 2)).toMatchObject({ before: 3, hits: [{ _id: 'd2' }, { _id: 'd4' }] });
    expect(rangeOfMatches(sm, { sort: [0], _id: 'd1' }, undefined, 100).before).toBe(3); // between d0 and d2
    expect(rangeOfMatches(sm, undefined, { sort: [1], _id: 'd5', equalBefore: true }, 100).hits.map((h) => h._id)).toEqual(['d3', 'd5']);
    expect(rangeOfMatches(sm, undefined, undefined, 0)).toEqual({ before: 0, hits: [] });
  });
});
