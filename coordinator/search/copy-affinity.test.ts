import { describe, expect, it } from 'vitest';
import type { ShardTarget } from '../cluster/index-view.ts';
import { preferCopies, shardKeyOf } from './copy-affinity.ts';

const t = (shard: number, node: number, alternates: number[]): ShardTarget => ({ index: 'i', shard, node, alternates });

describe('copy affinity of the search caches', () => {
  it('re-points targets to the cached copies, keeping the former copy as the first alternate', () => {
    const targets = [t(0, 0, [1]), t(1, 2, [0, 1])];
    expect(preferCopies(targets, (x) => (x.shard === 0 ? 1 : 2))).toBe(true);
    expect(targets).toEqual([t(0, 1, [0]), t(1, 2, [0, 1])]);
  });

  it('is a miss, changing nothing, when a cached copy cannot be read (out of sync, pinned, unknown)', () => {
    const targets = [t(0, 0, [1]), t(1, 2, [])];
    expect(preferCopies(targets, (x) => (x.shard === 0 ? 1 : 0))).toBe(false);
    expect(preferCopies(targets, (x) => (x.shard === 0 ? 1 : undefined))).toBe(false);
    expect(targets).toEqual([t(0, 0, [1]), t(1, 2, [])]);
    expect(shardKeyOf(targets[1])).toBe('i/1');
  });
});
