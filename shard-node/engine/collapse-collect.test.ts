import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { byField, load, newShard, q } from '../../test/support/engine-shard.ts';
import { searcherOf } from './searcher.ts';

const KEY = (field: string) => byField(field, 'asc');

function shardWith(docs: Record<string, unknown>[]) {
  const { shard } = newShard({ properties: { k: { type: 'keyword' }, n: { type: 'integer' }, v: { type: 'long' }, t: { type: 'text' } } });
  load(shard, docs);
  return shard.acquire(undefined, 60_000);
}

describe('the shard query phase of a collapsed search', () => {
  const docs = [
    { _id: 'a', k: 'x', n: 1, v: 5 },
    { _id: 'b', k: 'x', n: 2, v: 9 },
    { _id: 'c', k: 'y', n: 3, v: 9 },
    { _id: 'd', n: 4, v: 7 },
    { _id: 'e', k: 'z', n: 5, v: 1 },
    { _id: 'f', n: 6, v: 8 },
  ];
  it('keeps the best hit per key (the null key for documents without a value), groups ordered by sort values then key', () => {
    const gen = shardWith(docs);
    const sort = [byField('v', 'desc'), KEY('k')];
    const r = searcherOf(gen).query({ query: q.all(), sort, k: 10, trackTotalHits: 10_000, collapse: { field: 'k', groupKeysUpTo: 10 } });
    expect(r.hits.map((h) => [h._id, h.sort])).toEqual([
      ['b', [9, 'x']],
      ['c', [9, 'y']],
      ['f', [8, null]],
      ['e', [1, 'z']],
    ]);
    expect(r.total).toEqual({ value: 6, relation: 'eq' });
    expect(r.groups?.count).toBe(4);
    expect(new Set(r.groups?.keys)).toEqual(new Set(['x', 'y', 'z', null]));
    const top = searcherOf(gen).query({ query: q.all(), sort, k: 2, trackTotalHits: 10_000, collapse: { field: 'k', groupKeysUpTo: 3 } });
    expect(top.hits.map((h) => h._id)).toEqual(['b', 'c']);
    expect(top.groups).toEqual({ count: 4 }); // more keys than asked for: none sent
  });

  it('counts groups without returning any with k 0, and filters by search_after on the collapse field', () => {
    const gen = shardWith(docs);
    expect(
      searcherOf(gen).query({
        query: q.all(),
        sort: [byField('v', 'desc'), KEY('n')],
        k: 0,
        trackTotalHits: 10_000,
        collapse: { field: 'n', groupKeysUpTo: 0 },
      }),
    ).toMatchObject({ hits: [], groups: { count: 6 } });
    const r = searcherOf(gen).query({
      query: q.all(),
      sort: [byField('k'), KEY('k')],
      k: 10,
      searchAfter: { sort: ['x'] },
      trackTotalHits: 10_000,
      collapse: { field: 'k', groupKeysUpTo: 10 },
    });
    expect(r.hits.map((h) => h.sort)).toEqual([
      ['y', 'y'],
      ['z', 'z'],
      [null, null],
    ]);
    expect(r.groups?.count).toBe(4);
  });

  it("fails a document with several values with ES's type and text (400)", () => {
    const gen = shardWith([{ _id: 'm', k: ['p', 'q'], n: [1, 2] }]);
    for (const field of ['k', 'n']) {
      const e = esErr(() =>
        searcherOf(gen).query({ query: q.all(), sort: [byField('v'), KEY(field)], k: 10, trackTotalHits: 10_000, collapse: { field, groupKeysUpTo: 0 } }),
      );
      expect([e.status, e.type, e.message]).toEqual([400, 'illegal_state_exception', 'failed to collapse 0, the collapse field must be single valued']);
    }
  });
});
