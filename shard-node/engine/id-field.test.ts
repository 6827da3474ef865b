import { describe, expect, it } from 'vitest';
import { byField, load, newShard } from '../../test/support/engine-shard.ts';
import { searcherOf } from './searcher.ts';

describe('queries on the _id metadata field', () => {
  it('match term, terms, match and exists on _id like an ids query, with a constant score', () => {
    const { shard } = newShard();
    load(shard, [
      { _id: 'd1', a: 1 },
      { _id: 'd2', a: 2 },
      { _id: 'x', a: 3 },
    ]);
    const g = searcherOf(shard.acquire());
    const run = (query: Parameters<typeof g.query>[0]['query']) =>
      g.query({ query, sort: [{ kind: 'score', field: '_score', order: 'desc', missing: '_last', mode: 'max' }], k: 10, trackTotalHits: 10_000 });
    expect(run({ kind: 'term', field: '_id', value: 'd1', caseInsensitive: false, boost: 2 }).hits).toEqual([{ _id: 'd1', _score: 2, sort: [2] }]);
    expect(run({ kind: 'terms', field: '_id', values: ['d2', 'x', 'nope'], boost: 1 }).hits.map((h) => h._id)).toEqual(['d2', 'x']);
    expect(run({ kind: 'match', field: '_id', query: 'x', operator: 'or', boost: 1 }).hits.map((h) => h._id)).toEqual(['x']);
    expect(run({ kind: 'exists', field: '_id', boost: 1 }).total.value).toBe(3);
    expect(
      g
        .query({ query: { kind: 'term', field: '_id', value: 'd2', caseInsensitive: false, boost: 1 }, sort: [byField('a')], k: 10, trackTotalHits: 10 })
        .hits.map((h) => h._id),
    ).toEqual(['d2']);
  });
});
