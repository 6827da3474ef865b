import { describe, expect, it } from 'vitest';
import { byteBoundedCache } from './bounded-cache.ts';
import { estimateBytes, stringBytes } from './size-estimate.ts';

describe('estimateBytes', () => {
  it('charges strings 2 bytes per character, numbers 8, containers per slot, typed arrays their bytes', () => {
    expect(stringBytes('abcd')).toBe(16 + 8);
    expect(estimateBytes('abcd')).toBe(24);
    expect(estimateBytes(1.5)).toBe(8);
    expect(estimateBytes(new Float64Array(100))).toBe(32 + 800);
    expect(estimateBytes([1, 2, 3])).toBe(32 + 24);
    expect(estimateBytes({ a: 1 })).toBe(32 + 8 + stringBytes('a') + 8);
    expect(estimateBytes(new Map([['k', 2]]))).toBe(32 + 16 + stringBytes('k') + 8);
  });

  it('stops walking past the limit (bounded cost for a huge value)', () => {
    // Each element counts the reads of its field, so the work done is counted, not timed.
    let reads = 0;
    const huge = {
      docs: Array.from({ length: 100_000 }, (_, i) => ({
        get id() {
          reads++;
          return `doc-${i}`;
        },
      })),
    };
    expect(estimateBytes(huge)).toBeGreaterThan(10_000_000);
    expect(reads).toBe(100_000);
    reads = 0;
    const est = estimateBytes(huge, 10_000);
    expect(est).toBeGreaterThan(10_000);
    expect(est).toBeLessThan(1_000_000);
    expect(reads).toBe(0); // stopped at the array's slots, before touching its elements
  });
});

describe('byteBoundedCache', () => {
  it('evicts least recently used entries past maxBytes, and refuses entries above maxEntryBytes', () => {
    const cache = byteBoundedCache<string>({ maxBytes: 1_100, maxEntryBytes: 400 });
    const v = 'x'.repeat(150); // 316 bytes + 18 for the key: three fit, four do not
    cache.set('a', v);
    cache.set('b', v);
    cache.set('c', v);
    expect(cache.calculatedSize).toBe(3 * 334);
    expect(cache.get('a')).toBe(v); // a is now the most recent
    cache.set('d', v);
    expect([cache.has('a'), cache.has('b'), cache.has('c'), cache.has('d')]).toEqual([true, false, true, true]);
    cache.set('big', 'y'.repeat(300)); // 638 bytes > 400
    expect(cache.has('big')).toBe(false);
    cache.set('k'.repeat(1_000), 'small'); // the key alone is over the cap
    expect(cache.size).toBe(3);
  });

  it('rejects inconsistent bounds', () => {
    expect(() => byteBoundedCache({ maxBytes: 10, maxEntryBytes: 20 })).toThrow(/maxEntryBytes <= maxBytes/);
  });
});
