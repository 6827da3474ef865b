import { describe, expect, it } from 'vitest';
import { sampleRanks } from '../../protocol/search.ts';
import type { SortField } from '../../protocol/sort.ts';
import { boundForShard, chooseWindow, rankSampleKeys, type ShardSample } from './rank-bounds.ts';

const ASC: SortField[] = [{ kind: 'field', field: 'n', order: 'asc', missing: '_last', mode: 'min' }];

/** A shard holding numeric keys `values` (sorted, ids `<prefix><value>`), sampled with S keys. */
function shard(shardIndex: number, values: number[], samples: number, index = 'i'): ShardSample {
  const keys = sampleRanks(values.length, samples).map((r) => ({ sort: [values[r]], _id: `k${String(values[r]).padStart(4, '0')}` }));
  return { shardIndex, index, total: values.length, keys };
}

describe('sampleRanks', () => {
  it('is every rank up to S matches, else ⌊j·n/S⌋', () => {
    expect(sampleRanks(3, 4)).toEqual([0, 1, 2]);
    expect(sampleRanks(10, 4)).toEqual([0, 2, 5, 7]);
    expect(sampleRanks(0, 4)).toEqual([]);
  });
});

describe('rank bounds of sample keys', () => {
  it('are exact when every shard sends every key', () => {
    const a = shard(0, [1, 4, 6], 8);
    const b = shard(1, [2, 3, 5], 8);
    const ranked = rankSampleKeys([a, b], ASC);
    expect(ranked.map((k) => k.key.sort[0])).toEqual([1, 2, 3, 4, 5, 6]);
    for (const [g, k] of ranked.entries()) expect([k.lo, k.hi]).toEqual([g, g]);
  });

  it('bound the other shards by their neighbouring samples', () => {
    // Shard 0 holds 0..9 sampled at ranks 0, 5; shard 1 holds 10..19 sampled at ranks 0, 5.
    const a = shard(0, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 2);
    const b = shard(1, [10, 11, 12, 13, 14, 15, 16, 17, 18, 19], 2);
    const ranked = rankSampleKeys([a, b], ASC);
    expect(ranked.map((k) => [k.key.sort[0], k.lo, k.hi])).toEqual([
      [0, 0, 0],
      [5, 5, 5], // shard 1's first sample (10) is after 5: shard 1 contributes exactly 0
      [10, 6, 10], // shard 0 has more than rank 5 and at most all 10 before 10
      [15, 11, 15],
    ]);
  });

  it('chooses a lower key with rank surely ≤ from and an upper key surely ≥ from + size', () => {
    const a = shard(0, [0, 2, 4, 6, 8, 10, 12, 14, 16, 18], 3);
    const b = shard(1, [1, 3, 5, 7, 9, 11, 13, 15, 17, 19], 3);
    for (let from = 0; from < 22; from++) {
      for (const size of [1, 3, 7]) {
        const w = chooseWindow([a, b], ASC, from, size);
        if (from >= 20) {
          expect(w.empty).toBe(true);
          continue;
        }
        const lowerRank = w.lower ? (w.lower.key.sort[0] as number) : 0; // value = global rank here
        const upperRank = w.upper ? (w.upper.key.sort[0] as number) : 20;
        expect(lowerRank).toBeLessThanOrEqual(from);
        expect(upperRank).toBeGreaterThanOrEqual(Math.min(20, from + size));
        expect(w.limit).toBe(from + size - (w.lower?.lo ?? 0));
      }
    }
  });

  it('orders equal keys of different indices by index name, and tells each shard which side it is on', () => {
    const p = shard(0, [1, 2], 8, 'p');
    const q = shard(1, [1, 2], 8, 'q');
    const ranked = rankSampleKeys([q, p], ASC);
    expect(ranked.map((k) => [k.index, k.key.sort[0], k.lo])).toEqual([
      ['p', 1, 0],
      ['q', 1, 1],
      ['p', 2, 2],
      ['q', 2, 3],
    ]);
    const qKey = ranked[1];
    expect(boundForShard(qKey, { index: 'p', shardIndex: 0 })).toEqual({ sort: [1], _id: 'k0001', equalBefore: true });
    expect(boundForShard(qKey, { index: 'q', shardIndex: 1 })).toEqual({ sort: [1], _id: 'k0001' });
    expect(boundForShard(ranked[0], { index: 'q', shardIndex: 1 })).toEqual({ sort: [1], _id: 'k0001' });
    expect(boundForShard(null, { index: 'q', shardIndex: 1 })).toBeUndefined();
  });
});
