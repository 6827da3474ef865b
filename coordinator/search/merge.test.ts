import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ShardHit } from '../../protocol/search.ts';
import { compareHits, type SortField } from '../../protocol/sort.ts';
import { mergeTopHits, reduceTotalHits, type ShardTopHits } from './merge.ts';

const field = (f: string, order: 'asc' | 'desc', missing: SortField['missing'] = '_last'): SortField => ({
  kind: 'field',
  field: f,
  order,
  missing,
  mode: order === 'asc' ? 'min' : 'max',
});

/** Splits hits over `k` shards by a given assignment and returns each shard's sorted top `n`. */
function shardLists(hits: ShardHit[], assign: number[], k: number, sort: SortField[], n: number): ShardTopHits[] {
  return Array.from({ length: k }, (_, s) => ({
    shardIndex: s,
    index: 'idx',
    hits: hits
      .filter((_, i) => assign[i] % k === s)
      .sort((a, b) => compareHits(a, b, sort))
      .slice(0, n),
  }));
}

describe('mergeTopHits', () => {
  it('merges by sort values then _id and skips from', () => {
    const sort = [field('pop', 'desc')];
    const a: ShardTopHits = {
      shardIndex: 0,
      index: 'i',
      hits: [
        { _id: 'b', _score: null, sort: [5] },
        { _id: 'a', _score: null, sort: [1] },
      ],
    };
    const b: ShardTopHits = {
      shardIndex: 1,
      index: 'i',
      hits: [
        { _id: 'a', _score: null, sort: [5] },
        { _id: 'c', _score: null, sort: [3] },
      ],
    };
    expect(mergeTopHits([a, b], sort, 0, 10).map((m) => m.hit._id)).toEqual(['a', 'b', 'c', 'a']);
    expect(mergeTopHits([a, b], sort, 1, 2).map((m) => [m.shardIndex, m.hit._id])).toEqual([
      [0, 'b'],
      [1, 'c'],
    ]);
    expect(mergeTopHits([a, b], sort, 4, 10)).toEqual([]);
  });

  it('places missing values last in both orders', () => {
    for (const order of ['asc', 'desc'] as const) {
      const sort = [field('x', order)];
      const s: ShardTopHits = {
        shardIndex: 0,
        index: 'i',
        hits: [
          { _id: 'a', _score: null, sort: [1] },
          { _id: 'b', _score: null, sort: [null] },
        ],
      };
      expect(mergeTopHits([s], sort, 0, 2).map((m) => m.hit._id)).toEqual(['a', 'b']);
    }
  });

  it('rejects a shard list that is not sorted', () => {
    const sort = [field('x', 'asc')];
    const s: ShardTopHits = {
      shardIndex: 3,
      index: 'i',
      hits: [
        { _id: 'a', _score: null, sort: [2] },
        { _id: 'b', _score: null, sort: [1] },
      ],
    };
    expect(() => mergeTopHits([s], sort, 0, 2)).toThrow(/shard 3 of \[i\] was not sorted by the provided Sort/);
  });

  it('equals the oracle slice for any shard count, sort, from and size, ties included (property)', () => {
    const sortArb = fc.array(
      fc.record({
        f: fc.constantFrom('a', 'b', 'c'),
        order: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
        missing: fc.constantFrom<'_last' | '_first'>('_last', '_first'),
      }),
      { minLength: 0, maxLength: 3 },
    );
    const docArb = fc.record({
      a: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
      b: fc.option(fc.constantFrom('x', 'y', 'é', '𝄞', 'Z'), { nil: null }),
      c: fc.option(fc.double({ min: -2, max: 2, noNaN: true }), { nil: null }),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 0, maxLength: 80 }),
        fc.array(docArb, { minLength: 80, maxLength: 80 }),
        fc.array(fc.nat(1000), { minLength: 80, maxLength: 80 }),
        fc.integer({ min: 1, max: 8 }),
        sortArb,
        fc.nat(90),
        fc.nat(30),
        (ids, docs, assign, k, sortSpec, from, size) => {
          const sort = sortSpec.map((s) => field(s.f, s.order, s.missing));
          const hits: ShardHit[] = ids.map((id, i) => ({ _id: id, _score: null, sort: sort.map((s) => docs[i][s.field as 'a' | 'b' | 'c']) }));
          const oracle = [...hits].sort((x, y) => compareHits(x, y, sort)).slice(from, from + size);
          const merged = mergeTopHits(shardLists(hits, assign, k, sort, from + size), sort, from, size);
          expect(merged.map((m) => m.hit)).toEqual(oracle);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('reduceTotalHits', () => {
  it('sums, caps at track_total_hits with gte, and is null when disabled', () => {
    const t = [
      { value: 6000, relation: 'eq' as const },
      { value: 6000, relation: 'eq' as const },
    ];
    expect(reduceTotalHits(t, 10_000)).toEqual({ value: 10_000, relation: 'gte' });
    expect(reduceTotalHits(t, Number.MAX_SAFE_INTEGER)).toEqual({ value: 12_000, relation: 'eq' });
    expect(reduceTotalHits(t, -1)).toBeNull();
    expect(reduceTotalHits([{ value: 3, relation: 'gte' }], 10)).toEqual({ value: 3, relation: 'gte' });
  });
});
