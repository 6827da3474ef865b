// ES's max_concurrent_searches: its default from the data nodes and processors, and the URL parameter.
import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { defaultMaxConcurrentSearches, parseMaxConcurrentSearches } from './max-concurrent-searches.ts';

describe('defaultMaxConcurrentSearches', () => {
  it('is data nodes × min(search pool, 10), the pool being processors × 3 / 2 + 1', () => {
    expect(defaultMaxConcurrentSearches(3, 4)).toBe(21); // pool 7
    expect(defaultMaxConcurrentSearches(2, 16)).toBe(20); // pool 25, capped at 10
    expect(defaultMaxConcurrentSearches(0, 4)).toBe(1);
  });
});

describe('parseMaxConcurrentSearches', () => {
  it('reads a positive int, absent means the default', () => {
    expect(parseMaxConcurrentSearches(null)).toBeUndefined();
    expect(parseMaxConcurrentSearches('5')).toBe(5);
  });

  it("refuses a non-int and a value below 1 with ES's texts", () => {
    expect(esErr(() => parseMaxConcurrentSearches('x')).message).toBe('Failed to parse int parameter [max_concurrent_searches] with value [x]');
    expect(esErr(() => parseMaxConcurrentSearches('0')).message).toBe('maxConcurrentSearchRequests must be positive');
  });
});
