import { describe, expect, it } from 'vitest';
import type { SnapshotInfo } from '../../shared/snapshots/repository-layout.ts';
import { listingOptions, listSnapshots, type ListedSnapshot } from './snapshot-listing.ts';

function snap(name: string, start: number, end: number, shards: number, repository = 'r'): ListedSnapshot {
  const info = {
    snapshot: name,
    uuid: name,
    indices: Array.from({ length: shards }, (_, i) => `i${i}`),
    state: 'SUCCESS',
    include_global_state: true,
    start_time_in_millis: start,
    end_time_in_millis: end,
    shards: { total: shards, failed: 0, successful: shards },
    failures: [],
    index_ids: {},
    index_shards: {},
    stats: { incremental: { file_count: 0, size_in_bytes: 0 }, total: { file_count: 0, size_in_bytes: 0 } },
  } satisfies SnapshotInfo;
  return { repository, info };
}

const all = [snap('b', 10, 50, 2), snap('a', 20, 25, 3), snap('c', 5, 100, 1)];
const names = (r: { page: ListedSnapshot[] }) => r.page.map((s) => s.info.snapshot);
const opts = (q: Record<string, string>) => listingOptions((k) => q[k]);

describe('listing snapshots', () => {
  it('sorts by start time by default, or by a key and order, and takes a window', () => {
    expect(names(listSnapshots(all, opts({})))).toEqual(['c', 'b', 'a']);
    expect(names(listSnapshots(all, opts({ sort: 'name' })))).toEqual(['a', 'b', 'c']);
    expect(names(listSnapshots(all, opts({ sort: 'duration', order: 'desc' })))).toEqual(['c', 'b', 'a']);
    expect(names(listSnapshots(all, opts({ sort: 'index_count' })))).toEqual(['c', 'b', 'a']);
    expect(listSnapshots(all, opts({ sort: 'name', size: '1', offset: '1' }))).toMatchObject({ total: 3, remaining: 1 });
    expect(names(listSnapshots(all, opts({ sort: 'name', size: '1', offset: '1' })))).toEqual(['b']);
  });

  it('refuses an unknown key or order and a bad size', () => {
    expect(() => opts({ sort: 'nope' })).toThrow('unknown sort key [nope]');
    expect(() => opts({ order: 'up' })).toThrow('unknown order [up]');
    expect(() => opts({ size: '0' })).toThrow('size must be -1 or greater than 0');
  });
});
