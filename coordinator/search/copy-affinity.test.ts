import { describe, expect, it } from 'vitest';
import type { ShardTarget } from '../cluster/index-view.ts';
import { preferCopies, shardKeyOf } from './copy-affinity.ts';
import { copyIterators } from './shard-copy-iterator.ts';

const t = (shard: number, node: number, alternates: number[]): ShardTarget => ({ index: 'i', shard, node, alternates });

describe('copy affinity of the search caches', () => {
  it('moves the copy iterators to the cached copies, keeping the former copy as the first alternate', () => {
    const targets = [t(0, 0, [1]), t(1, 2, [0, 1])];
    const copies = copyIterators(targets);
    expect(preferCopies(copies, (x) => (x.shard === 0 ? 1 : 2))).toBe(true);
    expect(copies.map((c) => c.position)).toEqual([
      { node: 1, rest: [0] },
      { node: 2, rest: [0, 1] },
    ]);
    expect(targets).toEqual([t(0, 0, [1]), t(1, 2, [0, 1])]);
  });

  it('is a miss, moving nothing, when a cached copy cannot be read (out of sync, pinned, unknown)', () => {
    const targets = [t(0, 0, [1]), t(1, 2, [])];
    const copies = copyIterators(targets);
    expect(preferCopies(copies, (x) => (x.shard === 0 ? 1 : 0))).toBe(false);
    expect(preferCopies(copies, (x) => (x.shard === 0 ? 1 : undefined))).toBe(false);
    expect(copies.map((c) => c.position)).toEqual([
      { node: 0, rest: [1] },
      { node: 2, rest: [] },
    ]);
    expect(shardKeyOf(targets[1])).toBe('i/1');
  });

  it('keeps a copy order a preference fixed: a cached result of another copy is a miss', () => {
    const targets = [{ ...t(0, 2, [0, 1]), fixedOrder: true }, t(1, 0, [1])];
    const copies = copyIterators(targets);
    expect(preferCopies(copies, (x) => (x.shard === 0 ? 0 : 1))).toBe(false);
    expect(preferCopies(copies, (x) => (x.shard === 0 ? 2 : 1))).toBe(true);
    expect(copies.map((c) => c.position)).toEqual([
      { node: 2, rest: [0, 1] },
      { node: 1, rest: [0] },
    ]);
  });
});
