import { describe, expect, it } from 'vitest';
import { stringBytes } from '../../shared/size-estimate.ts';
import { DfsCache, DFS_CACHE_BOUNDS, type DfsEntry } from './dfs-cache.ts';

describe('DfsCache', () => {
  const entry = (): DfsEntry => ({
    stats: { terms: { 'f\u0000t': { docFreq: 1, totalTermFreq: 1 } }, fields: {} },
    generations: new Map([['i/0', 3]]),
    nodes: new Map([['i/0', 0]]),
  });

  it('caches an ordinary query, but not one whose key holds a 100,000-term list', () => {
    const cache = new DfsCache();
    const small = DfsCache.key(['i/0'], { kind: 'match_all', boost: 1 });
    cache.set(small, entry());
    expect(cache.get(small)).toBeDefined();
    const terms = Array.from({ length: 100_000 }, (_, i) => `term-${i}`);
    const huge = DfsCache.key(['i/0'], { kind: 'terms', field: 'f', values: terms, boost: 1 } as never);
    expect(stringBytes(huge)).toBeGreaterThan(DFS_CACHE_BOUNDS.maxEntryBytes);
    cache.set(huge, entry());
    expect(cache.has(huge)).toBe(false);
    expect(cache.calculatedSize).toBeLessThan(DFS_CACHE_BOUNDS.maxEntryBytes);
  });

  it('holds at most its byte budget however many distinct queries arrive', () => {
    const cache = new DfsCache({ maxBytes: 64 * 1024, maxEntryBytes: 16 * 1024 });
    for (let i = 0; i < 5_000; i++) cache.set(DfsCache.key(['i/0'], { kind: 'term', field: 'f', value: `v${i}`.repeat(20), boost: 1 } as never), entry());
    expect(cache.calculatedSize).toBeLessThanOrEqual(64 * 1024);
    expect(cache.size).toBeGreaterThan(10);
  });
});
