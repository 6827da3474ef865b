import { describe, expect, it } from 'vitest';
import type { Query } from '../../protocol/query-ast.ts';
import { SCORE_SORT } from '../../protocol/sort.ts';
import { load, newShard } from '../../test/support/engine-shard.ts';
import { searcherOf } from './searcher.ts';

const mm = (
  type: Extract<Query, { kind: 'multi_match' }>['type'],
  query: string,
  fields: [string, number][],
  extra: Partial<Extract<Query, { kind: 'multi_match' }>> = {},
): Query => ({
  kind: 'multi_match',
  fields: fields.map(([field, boost]) => ({ field, boost })),
  query,
  operator: 'or',
  type,
  tieBreaker: 0,
  boost: 1,
  ...extra,
});

describe('multi_match types', () => {
  const { shard } = newShard({
    properties: { color: { type: 'text' }, shape: { type: 'text' }, first: { type: 'text' }, last: { type: 'text' }, tag: { type: 'keyword' } },
  });
  load(shard, [
    { _id: '1', color: 'orange red yellow' },
    { _id: '2', color: 'orange red purple', shape: 'red square' },
    { _id: '3', color: 'orange red yellow purple' },
    { _id: 'w', first: 'will', last: 'smith', tag: 'will smith' },
    { _id: 'x', first: 'smith', last: 'jones' },
    { _id: 'y', first: 'will', last: 'will' },
  ]);
  const run = (q: Query) => searcherOf(shard.acquire()).query({ query: q, sort: SCORE_SORT.slice(), k: 10, trackTotalHits: 10 });

  it('cross_fields never scores negatively (the peer suite case) and ranks the doc matching both fields first', () => {
    const r = run(
      mm(
        'cross_fields',
        'red',
        [
          ['color', 1],
          ['shape', 100],
        ],
        { tieBreaker: 0.1 },
      ),
    );
    expect(r.total.value).toBe(3);
    expect(r.hits[0]._id).toBe('2');
    for (const h of r.hits) expect(h._score!).toBeGreaterThan(0);
  });
  it('cross_fields is term-centric: each term may come from any field, and operator and applies per term', () => {
    const and = run(
      mm(
        'cross_fields',
        'will smith',
        [
          ['first', 1],
          ['last', 1],
        ],
        { operator: 'and' },
      ),
    );
    expect(and.hits.map((h) => h._id)).toEqual(['w']); // x has smith but no will
    const or = run(
      mm('cross_fields', 'will smith', [
        ['first', 1],
        ['last', 1],
      ]),
    );
    expect(or.hits[0]._id).toBe('w');
    expect(or.total.value).toBe(3);
    // best_fields would rank y (will twice) against w differently; cross_fields blends the idf of "will" over both fields
    const blended = run(
      mm('cross_fields', 'will', [
        ['first', 1],
        ['last', 1],
      ]),
    );
    const scores = new Map(blended.hits.map((h) => [h._id, h._score]));
    expect(scores.get('y')).toBeGreaterThanOrEqual(scores.get('w')!);
  });
  it('cross_fields puts a keyword field in its own group', () => {
    const r = run(
      mm(
        'cross_fields',
        'will smith',
        [
          ['tag', 1],
          ['first', 1],
        ],
        { operator: 'and' },
      ),
    );
    expect(r.hits.map((h) => h._id)).toEqual(['w']);
  });
  it('bool_prefix honours minimum_should_match over its clauses (the prefix counts as one)', () => {
    expect(
      run(mm('bool_prefix', 'orange red pur', [['color', 1]], { minimumShouldMatch: 3 }))
        .hits.map((h) => h._id)
        .sort(),
    ).toEqual(['2', '3']);
  });
  it('bool_prefix treats the last term as a prefix and sums the fields', () => {
    expect(
      run(mm('bool_prefix', 'orange pur', [['color', 1]], { operator: 'and' }))
        .hits.map((h) => h._id)
        .sort(),
    ).toEqual(['2', '3']);
    const r = run(
      mm('bool_prefix', 'squ', [
        ['color', 1],
        ['shape', 1],
      ]),
    );
    expect(r.hits.map((h) => [h._id, h._score])).toEqual([['2', 1]]);
  });
});
