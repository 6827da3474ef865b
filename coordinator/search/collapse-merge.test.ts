import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ShardHit } from '../../protocol/search.ts';
import { compareHits, type SortField, type SortValue } from '../../protocol/sort.ts';
import { mergeTopGroups, reduceGroupTotal } from './collapse-merge.ts';
import type { ShardTopHits } from './merge.ts';

const clause = (f: string, order: 'asc' | 'desc', missing: SortField['missing'] = '_last'): SortField => ({
  kind: 'field',
  field: f,
  order,
  missing,
  mode: order === 'asc' ? 'min' : 'max',
});
const KEY = clause('k', 'asc');

interface Doc {
  _id: string;
  key: SortValue;
  v: SortValue;
}

const hitOf = (d: Doc): ShardHit => ({ _id: d._id, _score: null, sort: [d.v, d.key] });

/** What a shard's collector returns: its best hit per key, the `n` best groups (collapse-collect.ts). */
function shardGroups(docs: readonly Doc[], sort: SortField[], n: number): ShardHit[] {
  const best = new Map<SortValue, ShardHit>();
  for (const d of docs) {
    const h = hitOf(d);
    const held = best.get(d.key);
    if (!held || compareHits(h, held, sort) < 0) best.set(d.key, h);
  }
  return [...best.values()].sort((a, b) => compareHits(a, b, sort)).slice(0, n);
}

describe('mergeTopGroups', () => {
  it('keeps the best hit of a key that several shards hold, and orders ties by key', () => {
    const sort = [clause('v', 'desc'), KEY];
    const a: ShardTopHits = {
      shardIndex: 0,
      index: 'i',
      hits: [
        { _id: 'a1', _score: null, sort: [9, 'x'] },
        { _id: 'a2', _score: null, sort: [5, 'y'] },
      ],
    };
    const b: ShardTopHits = {
      shardIndex: 1,
      index: 'i',
      hits: [
        { _id: 'b1', _score: null, sort: [7, 'y'] },
        { _id: 'b2', _score: null, sort: [5, 'w'] },
      ],
    };
    expect(mergeTopGroups([a, b], sort, 0, 10).map((m) => m.hit._id)).toEqual(['a1', 'b1', 'b2']);
    expect(mergeTopGroups([a, b], sort, 1, 1).map((m) => m.hit._id)).toEqual(['b1']);
    expect(mergeTopGroups([a, b], sort, 3, 5)).toEqual([]);
  });

  it('treats a missing key as one group of its own (null), after the others on ties', () => {
    const sort = [clause('v', 'asc'), KEY];
    const s: ShardTopHits = {
      shardIndex: 0,
      index: 'i',
      hits: [
        { _id: 'x', _score: null, sort: [1, 'a'] },
        { _id: 'y', _score: null, sort: [1, null] },
      ],
    };
    const t: ShardTopHits = { shardIndex: 1, index: 'i', hits: [{ _id: 'z', _score: null, sort: [2, null] }] };
    expect(mergeTopGroups([s, t], sort, 0, 5).map((m) => m.hit._id)).toEqual(['x', 'y']);
  });

  it('rejects a shard list that is not sorted', () => {
    const sort = [clause('v', 'asc'), KEY];
    const s: ShardTopHits = {
      shardIndex: 2,
      index: 'i',
      hits: [
        { _id: 'a', _score: null, sort: [2, 'k'] },
        { _id: 'b', _score: null, sort: [1, 'j'] },
      ],
    };
    expect(() => mergeTopGroups([s], sort, 0, 2)).toThrow(/shard 2 of \[i\] was not sorted by the provided Sort/);
  });

  it('equals grouping one sorted list, over 1–8 shards, any from and size, ties included (property)', () => {
    const docArb = fc.record({
      key: fc.option(fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constantFrom('a', 'b', 'é', '𝄞')), { nil: null }),
      v: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 }), { minLength: 0, maxLength: 60 }),
        fc.array(docArb, { minLength: 60, maxLength: 60 }),
        fc.array(fc.nat(1000), { minLength: 60, maxLength: 60 }),
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
        fc.constantFrom<'_last' | '_first'>('_last', '_first'),
        fc.nat(15),
        fc.integer({ min: 1, max: 12 }),
        (ids, shapes, assign, shards, order, missing, from, size) => {
          const sort = [clause('v', order, missing), KEY];
          const docs: Doc[] = ids.map((_id, i) => ({ _id, ...shapes[i] }));
          const lists: ShardTopHits[] = Array.from({ length: shards }, (_, s) => ({
            shardIndex: s,
            index: 'idx',
            hits: shardGroups(
              docs.filter((_, i) => assign[i] % shards === s),
              sort,
              from + size,
            ),
          }));
          const oracle = shardGroups(docs, sort, Number.MAX_SAFE_INTEGER).slice(from, from + size);
          const merged = mergeTopGroups(lists, sort, from, size).map((m) => m.hit);
          expect(merged).toEqual(oracle);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('reduceGroupTotal', () => {
  it('counts the union of the shards keys exactly, or the bound with gte', () => {
    expect(
      reduceGroupTotal(
        [
          { count: 2, keys: ['a', 'b'] },
          { count: 2, keys: ['b', 1] },
        ],
        10,
      ),
    ).toEqual({ value: 3, relation: 'eq' });
    expect(
      reduceGroupTotal(
        [
          { count: 2, keys: ['a', null] },
          { count: 1, keys: [null] },
        ],
        10,
      ),
    ).toEqual({ value: 2, relation: 'eq' });
    expect(
      reduceGroupTotal(
        [
          { count: 4, keys: ['a', 'b', 'c', 'd'] },
          { count: 1, keys: ['e'] },
        ],
        3,
      ),
    ).toEqual({ value: 3, relation: 'gte' });
    expect(reduceGroupTotal([{ count: 11 }, { count: 1, keys: ['e'] }], 10)).toEqual({ value: 10, relation: 'gte' });
    expect(reduceGroupTotal([{ count: 12 }], 100)).toEqual({ value: 12, relation: 'eq' });
    expect(reduceGroupTotal([{ count: 12 }], -1)).toBeNull();
    expect(reduceGroupTotal([], 5)).toEqual({ value: 0, relation: 'eq' });
  });
});
