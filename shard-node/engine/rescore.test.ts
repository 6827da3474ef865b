import { describe, expect, it } from 'vitest';
import type { Rescore } from '../../protocol/rescore.ts';
import { SCORE_SORT } from '../../protocol/sort.ts';
import { load, newShard, q } from '../../test/support/engine-shard.ts';
import { searcherOf } from './searcher.ts';

describe('rescore on a shard', () => {
  const { shard } = newShard({ properties: { body: { type: 'text' }, tag: { type: 'keyword' } } });
  load(shard, [
    { _id: 'a', body: 'fox', tag: 'x' },
    { _id: 'b', body: 'fox fox dog', tag: 'y' },
    { _id: 'c', body: 'fox cat cat cat', tag: 'y' },
    { _id: 'd', body: 'dog', tag: 'y' },
  ]);
  const run = (rescore: Rescore[], k = 10) =>
    searcherOf(shard.acquire()).query({ query: q.match('body', 'fox'), sort: SCORE_SORT.slice(), k, trackTotalHits: 10, rescore });
  const plain = searcherOf(shard.acquire()).query({ query: q.match('body', 'fox'), sort: SCORE_SORT.slice(), k: 10, trackTotalHits: 10 });
  const scoreOf = (id: string) => plain.hits.find((h) => h._id === id)!._score!;
  const tagY = (over: Partial<Rescore> = {}): Rescore => ({
    windowSize: 10,
    query: q.term('tag', 'y'),
    queryWeight: 1,
    rescoreQueryWeight: 1,
    scoreMode: 'total',
    ...over,
  });

  it('adds the rescore query score to matching hits in the window (score_mode total)', () => {
    expect(plain.hits.map((h) => h._id)).toEqual(['a', 'b', 'c']);
    const r = run([tagY({ rescoreQueryWeight: 10 })]);
    const yScore = searcherOf(shard.acquire()).query({ query: q.term('tag', 'y'), sort: SCORE_SORT.slice(), k: 1, trackTotalHits: 1 }).hits[0]._score!;
    expect(r.hits.map((h) => h._id)).toEqual(['b', 'c', 'a']);
    expect(r.hits[0]._score).toBe(Math.fround(scoreOf('b') + Math.fround(yScore * 10)));
    expect(r.hits[0].sort[0]).toBe(r.hits[0]._score);
    expect(r.hits[2]._score).toBe(scoreOf('a'));
    expect(r.max_score).toBe(r.hits[0]._score);
    expect(r.total.value).toBe(3);
  });
  it('hits past the window keep score × query_weight; the top k is returned after rescoring', () => {
    const r = run([tagY({ windowSize: 1, queryWeight: 0.5, rescoreQueryWeight: 100, scoreMode: 'multiply' })], 2);
    // a (top, in the window) does not match tag:y: 0.5 × score; b and c are past the window: 0.5 × score
    expect(r.hits.map((h) => [h._id, h._score])).toEqual([
      ['a', Math.fround(scoreOf('a') * 0.5)],
      ['b', Math.fround(scoreOf('b') * 0.5)],
    ]);
  });
  it('collects max(k, window_size) hits first, so a rescored hit can rise into a page of one', () => {
    const r = run([tagY({ windowSize: 3, rescoreQueryWeight: 10, scoreMode: 'max' })], 1);
    expect(r.hits.map((h) => h._id)).toEqual(['b']);
  });
  it('applies several rescorers in order', () => {
    const r = run([
      tagY({ rescoreQueryWeight: 10 }),
      { windowSize: 1, query: q.match('body', 'cat'), queryWeight: 1, rescoreQueryWeight: 100, scoreMode: 'total' },
    ]);
    // after the first, b leads; the second rescores only b (window 1), which has no cat: order kept
    expect(r.hits.map((h) => h._id)).toEqual(['b', 'c', 'a']);
  });
});
