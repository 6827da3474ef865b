import { afterEach, describe, expect, it } from 'vitest';
import {
  blockCacheMaxBytes,
  blockCacheStats,
  cachedBlock,
  clearBlockCache,
  configureBlockCache,
  defaultBlockCacheBytes,
  MAX_DEFAULT_BLOCK_CACHE_BYTES,
  ENTRY_OVERHEAD_BYTES,
} from './block-cache.ts';

afterEach(() => configureBlockCache(defaultBlockCacheBytes()));

const block = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe('block cache', () => {
  it('defaults to a tenth of the heap limit and refuses a size that is not a positive integer', () => {
    expect(blockCacheMaxBytes()).toBe(defaultBlockCacheBytes());
    expect(defaultBlockCacheBytes()).toBeGreaterThan(1024 * 1024);
    expect(defaultBlockCacheBytes()).toBeLessThanOrEqual(MAX_DEFAULT_BLOCK_CACHE_BYTES);
    for (const bad of [0, -1, 1.5, NaN]) expect(() => configureBlockCache(bad)).toThrow(RangeError);
  });

  it('counts hits and misses, loads a block once while it is cached, and shares the cached bytes', () => {
    configureBlockCache(1 << 20);
    const before = blockCacheStats('source');
    let loads = 0;
    const load = () => (loads++, block(100, 7));
    const a = cachedBlock('source', 'k:1', load);
    const b = cachedBlock('source', 'k:1', load);
    expect(b).toBe(a);
    expect(loads).toBe(1);
    const after = blockCacheStats('source');
    expect(after.misses - before.misses).toBe(1);
    expect(after.hits - before.hits).toBe(1);
    expect(after.bytes).toBe(100 + ENTRY_OVERHEAD_BYTES);
    clearBlockCache();
    expect(blockCacheStats('source').bytes).toBe(0);
    cachedBlock('source', 'k:1', load);
    expect(loads).toBe(2);
  });

  it('stays within its size in bytes, evicting the least recently used blocks, and counts evictions', () => {
    const entry = 1000 + ENTRY_OVERHEAD_BYTES;
    configureBlockCache(10 * entry);
    const before = blockCacheStats('source');
    for (let i = 0; i < 30; i++) {
      cachedBlock('source', `e:${i}`, () => block(1000, i));
      if (i === 5) cachedBlock('source', 'e:0', () => block(1000, 0)); // e:0 is used again: it outlives e:1..e:5
      expect(blockCacheStats('source').bytes).toBeLessThanOrEqual(10 * entry);
    }
    const after = blockCacheStats('source');
    expect(after.bytes).toBe(10 * entry);
    expect(after.evictions - before.evictions).toBe(20);
    // The last ten are cached (hits); an early one is not (a miss that loads it again).
    let loads = 0;
    const got = cachedBlock('source', 'e:29', () => (loads++, block(1000, 29)));
    expect(loads).toBe(0);
    expect(got[0]).toBe(29);
    cachedBlock('source', 'e:3', () => (loads++, block(1000, 3)));
    expect(loads).toBe(1);
  });

  it('returns a block larger than the whole cache without keeping it', () => {
    configureBlockCache(4096);
    const big = cachedBlock('source', 'big', () => block(8192, 1));
    expect(big.byteLength).toBe(8192);
    expect(blockCacheStats('source').bytes).toBe(0);
    let loads = 0;
    cachedBlock('source', 'big', () => (loads++, block(8192, 1)));
    expect(loads).toBe(1);
  });
});
