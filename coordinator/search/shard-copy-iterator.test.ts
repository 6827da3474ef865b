import { describe, expect, it } from 'vitest';
import { copyIterators, nextCopy, ShardCopyIterator, type SearchTarget } from './shard-copy-iterator.ts';

const target: SearchTarget = Object.freeze({ index: 'i', shard: 0, node: 2, alternates: Object.freeze([0, 2, 1]) });

describe('ShardCopyIterator (ES SearchShardIterator)', () => {
  it('starts on the target’s copy with its other copies left, best first, and never writes to the target', () => {
    const [it] = copyIterators([target]);
    expect(it.position).toEqual({ node: 2, rest: [0, 1] });
    it.moveTo(nextCopy(it.position)!);
    expect(it.position).toEqual({ node: 0, rest: [1] });
    it.moveTo(nextCopy(it.position)!);
    expect([it.node, it.alternates]).toEqual([1, []]);
    expect(nextCopy(it.position)).toBeNull();
    expect(target).toEqual({ index: 'i', shard: 0, node: 2, alternates: [0, 2, 1] });
  });

  it('forks an iterator that moves on its own, and reads a single copy with `only`', () => {
    const it = new ShardCopyIterator(target);
    const fork = it.fork();
    fork.moveTo(nextCopy(fork.position)!);
    expect([it.node, fork.node]).toEqual([2, 0]);
    expect(ShardCopyIterator.only(target, 1).position).toEqual({ node: 1, rest: [] });
  });
});
