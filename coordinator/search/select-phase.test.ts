import { describe, expect, it } from 'vitest';
import type { SelectSampleResponse } from '../../protocol/search.ts';
import type { ShardReply } from './fan-out.ts';
import { rankSampleKeys } from './rank-bounds.ts';
import { reusedSamples, SAMPLE_CACHE_BOUNDS, SampleCache, sampleBytes, type CachedSample } from './select-phase.ts';

describe('reusedSamples', () => {
  it('grows S with the largest shard so range rounds carry about 128 entries per shard, within bounds', () => {
    expect(reusedSamples([1_000, 900], 256)).toBe(256);
    expect(reusedSamples([250_000, 249_000, 251_000, 250_500], 256)).toBe(3_922);
    expect(reusedSamples([10_000_000], 256)).toBe(4_096);
    expect(reusedSamples([], 256)).toBe(256);
  });
});

/** A cached sample of `shards` shards with `perShard` keys each, shaped as the bench's `bench-cities` replies. */
function sample(shards: number, perShard: number): CachedSample {
  const results: ShardReply<SelectSampleResponse>[] = Array.from({ length: shards }, (_, s) => ({
    shardIndex: s,
    target: { index: 'bench-cities', shard: s },
    node: s,
    response: {
      node: `shard-${s}`,
      index: 'bench-cities',
      shard: s,
      generation: 3,
      total: { value: 250_000, relation: 'eq' },
      max_score: null,
      keys: Array.from({ length: perShard }, (_, i) => ({ _id: `${100_000 + i}-${s}`, sort: [i * 7] })),
    },
  }));
  const sort = [{ kind: 'field' as const, field: 'n', order: 'asc' as const, missing: '_last' as const, mode: 'min' as const }];
  const ranked = rankSampleKeys(
    results.map((r) => ({ shardIndex: r.shardIndex, index: r.target.index, total: r.response.total.value, keys: r.response.keys })),
    sort,
  );
  return { results, samples: perShard, ranked };
}

describe('SampleCache', () => {
  it('caches the reused sample of 1 M documents on 4 shards (its ranked keys are not charged twice)', () => {
    const cache = new SampleCache();
    const big = sample(4, reusedSamples([250_000], 256));
    expect(sampleBytes(big, Infinity)).toBeLessThan(SAMPLE_CACHE_BOUNDS.maxEntryBytes);
    cache.set('q', big);
    expect(cache.get('q')).toBe(big);
  });

  it('takes a reused sample no larger than an entry holds, so it is cached', () => {
    const cache = new SampleCache();
    for (const shards of [4, 12, 40]) {
      const small = sample(shards, 256);
      const fits = Math.min(4_096, cache.fittingSamples(small));
      expect(fits).toBeGreaterThan(0);
      const big = sample(shards, fits);
      cache.set(`q${shards}`, big);
      expect(cache.get(`q${shards}`), `${shards} shards × ${fits} keys`).toBe(big);
    }
    expect(cache.fittingSamples(sample(40, 256))).toBeLessThan(4_096);
  });

  it('computes the fitting size of a sample once: a repeated deep page does not walk its keys again', () => {
    const cache = new SampleCache();
    const s = sample(4, 1_000);
    const fits = cache.fittingSamples(s);
    // Keys ten times as large: a new walk would give a smaller S; the memoized one is answered.
    const fat = { _id: 'x'.repeat(2_000), sort: [0] };
    for (const r of s.results) r.response.keys.fill(fat);
    expect(cache.fittingSamples(s)).toBe(fits);
    expect(new SampleCache().fittingSamples(s)).toBeLessThan(fits);
  });
});
