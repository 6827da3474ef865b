import { describe, expect, it } from 'vitest';
import type { SortField } from '../../protocol/sort.ts';
import type { MergedHit } from './merge.ts';
import { MAX_ANCHORS, pageAnchors, recordAnchors } from './range-anchors.ts';
import type { RankedKey } from './rank-bounds.ts';
import { SampleCache, type CachedSample } from './select-phase.ts';

const sort: SortField[] = [{ kind: 'field', field: 'n', order: 'asc', missing: '_last', mode: 'min' }];
const key = (n: number, shardIndex = 0): RankedKey => ({ shardIndex, index: 'i', key: { _id: `d${n}`, sort: [n] }, lo: n - 1, hi: n + 1 });
const hit = (n: number, shardIndex = 0): MergedHit => ({ shardIndex, index: 'i', hit: { _id: `d${n}`, _score: null, sort: [n] }, position: 0 });

describe('range anchors', () => {
  it('fix the rank of the first merged hit and of the last (the hit after the page)', () => {
    expect(pageAnchors([hit(5), hit(6), hit(7)], 40).map((a) => [a.key._id, a.lo, a.hi])).toEqual([
      ['d5', 40, 40],
      ['d7', 42, 42],
    ]);
    expect(pageAnchors([hit(5)], 40).map((a) => [a.lo, a.hi])).toEqual([[40, 40]]);
    expect(pageAnchors([], 40)).toEqual([]);
  });

  it('join the cached entry in place, in the global order; the cache keeps the entry it charged for', () => {
    const cache = new SampleCache({ maxBytes: 1 << 20, maxEntryBytes: 1 << 20 });
    const entry: CachedSample = { results: [], samples: 4, ranked: [key(2), key(10), key(20)] };
    cache.set('q', entry);
    const size = cache.calculatedSize;
    recordAnchors(cache, 'q', entry, sort, 11, [hit(12), hit(13)]);
    expect(cache.peek('q')).toBe(entry);
    expect(cache.calculatedSize).toBe(size);
    expect(entry.ranked.map((k) => [k.key._id, k.lo, k.hi])).toEqual([
      ['d2', 1, 3],
      ['d10', 9, 11],
      ['d12', 11, 11],
      ['d13', 12, 12],
      ['d20', 19, 21],
    ]);
    expect(entry.anchors).toBe(2);
    // The same page again brings the same anchors: nothing is copied or counted.
    const before = entry.ranked;
    recordAnchors(cache, 'q', entry, sort, 11, [hit(12), hit(13)]);
    expect(entry.ranked).toBe(before);
    expect(entry.anchors).toBe(2);
  });

  it('leave an entry alone once it was replaced (other generations) or is full', () => {
    const cache = new SampleCache({ maxBytes: 1 << 20, maxEntryBytes: 1 << 20 });
    const old: CachedSample = { results: [], samples: 4, ranked: [key(2)] };
    const now: CachedSample = { results: [], samples: 4, ranked: [key(2)] };
    cache.set('q', now);
    recordAnchors(cache, 'q', old, sort, 5, [hit(6), hit(7)]);
    expect(old.ranked).toHaveLength(1);
    expect(now.ranked).toHaveLength(1);
    const full: CachedSample = { results: [], samples: 4, ranked: [key(2)], anchors: MAX_ANCHORS };
    cache.set('f', full);
    recordAnchors(cache, 'f', full, sort, 5, [hit(6), hit(7)]);
    expect(full.ranked).toHaveLength(1);
  });
});
