import { describe, expect, it } from 'vitest';
import { reusedSamples } from './select-phase.ts';

describe('reusedSamples', () => {
  it('grows S with the largest shard so range rounds carry about 128 entries per shard, within bounds', () => {
    expect(reusedSamples([1_000, 900], 256)).toBe(256);
    expect(reusedSamples([250_000, 249_000, 251_000, 250_500], 256)).toBe(3_922);
    expect(reusedSamples([10_000_000], 256)).toBe(4_096);
    expect(reusedSamples([], 256)).toBe(256);
  });
});
