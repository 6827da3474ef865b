import { describe, expect, it } from 'vitest';
import { mix32, numberSliceHash, shardSlice } from './slice.ts';

describe('shardSlice', () => {
  it('follows SliceBuilder.toFilter: 2 shards, 4 slices → slices 0 and 2 share shard 0', () => {
    expect([0, 1, 2, 3].map((id) => [shardSlice({ id, max: 4 }, 0, 2), shardSlice({ id, max: 4 }, 1, 2)])).toEqual([
      [{ kind: 'part', id: 0, max: 2 }, { kind: 'none' }],
      [{ kind: 'none' }, { kind: 'part', id: 0, max: 2 }],
      [{ kind: 'part', id: 1, max: 2 }, { kind: 'none' }],
      [{ kind: 'none' }, { kind: 'part', id: 1, max: 2 }],
    ]);
    expect(shardSlice({ id: 1, max: 2 }, 3, 4)).toEqual({ kind: 'all' }); // fewer slices than shards: shard 3 % 2 = 1
    expect(shardSlice({ id: 0, max: 2 }, 3, 4)).toEqual({ kind: 'none' });
    expect(shardSlice({ id: 1, max: 3 }, 0, 1)).toEqual({ kind: 'part', id: 1, max: 3 });
  });

  it('puts every (shard, sub-slice) pair in exactly one slice, for any shard and slice counts', () => {
    for (let shards = 1; shards <= 9; shards++) {
      for (let max = 2; max <= 20; max++) {
        // Each shard's sub-slice numbers must be covered once: count who reads (shard, sub) over all slice ids.
        const readers = new Map<string, number>();
        for (let id = 0; id < max; id++) {
          for (let shard = 0; shard < shards; shard++) {
            const s = shardSlice({ id, max }, shard, shards);
            if (s.kind === 'all') readers.set(`${shard}/all`, (readers.get(`${shard}/all`) ?? 0) + 1);
            if (s.kind === 'part') {
              expect(s.id).toBeLessThan(s.max);
              readers.set(`${shard}/${s.id}/${s.max}`, (readers.get(`${shard}/${s.id}/${s.max}`) ?? 0) + 1);
            }
          }
        }
        for (let shard = 0; shard < shards; shard++) {
          const keys = [...readers.keys()].filter((k) => k.startsWith(`${shard}/`));
          expect(keys.length, `shards ${shards} max ${max} shard ${shard}`).toBeGreaterThan(0);
          for (const k of keys) expect(readers.get(k)).toBe(1);
          if (!readers.has(`${shard}/all`)) {
            const n = Number(keys[0].split('/')[2]);
            expect(keys.length).toBe(n); // sub-slices 0..n-1 of one split, each read once
            expect(keys.every((k) => Number(k.split('/')[2]) === n)).toBe(true);
          }
        }
      }
    }
  });
});

describe('slice hashes', () => {
  it('spread consecutive inputs evenly', () => {
    const counts = [0, 0, 0, 0];
    for (let v = 0; v < 40_000; v++) counts[numberSliceHash(v) % 4]++;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(400);
    expect(numberSliceHash(-0)).toBe(numberSliceHash(0));
    expect(mix32(0)).toBe(0);
    expect(mix32(1)).not.toBe(mix32(2));
  });
});
