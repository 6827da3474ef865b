import { describe, expect, it, vi } from 'vitest';
import { mergeMappings } from '../../shared/dynamic-mapping.ts';
import type { Mapping } from '../../protocol/mapping.ts';
import type { WriteOp } from '../../protocol/write.ts';
import { SegmentBuilder } from './segment-builder.ts';
import { Shard } from './shard.ts';
import { searcherOf } from './searcher.ts';

/** A shard as the shard node opens it (background merges), cut at every check point. */
function newShard(now?: () => number, gcDeletesMs?: number): Shard {
  let m: Mapping = { properties: { n: { type: 'long' }, t: { type: 'keyword' }, w: { type: 'text' } } };
  return new Shard({
    index: 'i',
    shard: 0,
    getMapping: () => m,
    updateMapping: (u) => (m = mergeMappings(m, u)),
    backgroundMerges: true,
    mergeSliceMs: 0,
    now,
    gcDeletesMs,
  });
}

/** Every live `_id` of the current generation with its `_source`, failing on an id seen twice. */
function liveDocs(shard: Shard): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of shard.acquire().views) {
    for (let d = 0; d < v.segment.maxDoc; d++) {
      if (v.live && !v.live[d]) continue;
      const id = v.segment.ids.get(d);
      expect(out.has(id), `${id} live twice`).toBe(false);
      out.set(id, v.segment.source(d));
    }
  }
  return out;
}

/** What a search sees: live docs in `_id` order, statistics of a few terms, and a match count. */
function searchable(shard: Shard): unknown {
  const g = shard.acquire();
  const stats = ['a', 'b', 'c', 'x'].map((t) => g.termStats('t', t));
  const words = ['red', 'blue', 'green'].map((t) => g.termStats('w', t));
  const count = searcherOf(g).count({ kind: 'term', field: 't', value: 'a', caseInsensitive: false, boost: 1 });
  return { docs: [...liveDocs(shard)].sort(([a], [b]) => (a < b ? -1 : 1)), stats, words, fields: g.fieldStats('w'), count, total: g.docCount };
}

const doc = (i: number, rev = 0): WriteOp => ({
  op: 'index',
  _id: `d${i}`,
  source: JSON.stringify({ n: i * 10 + rev, t: 'abc'[i % 3], w: `${['red', 'blue', 'green'][i % 3]} w${i} r${rev}` }),
  create: false,
});
const del = (i: number): WriteOp => ({ op: 'delete', _id: `d${i}` });
const src = (i: number, rev = 0): string => (doc(i, rev) as Extract<WriteOp, { op: 'index' }>).source;

/** Writes with overwrites and deletes, both of buffered and of refreshed docs. */
function history(shard: Shard, refresh: () => void): void {
  shard.apply(Array.from({ length: 300 }, (_, i) => doc(i)));
  refresh();
  shard.apply([...Array.from({ length: 200 }, (_, i) => doc(300 + i)), doc(5, 1), doc(305, 1), doc(305, 2), del(7), del(307), del(9999)]);
}

const flush = () => new Promise<void>((r) => setImmediate(r));

describe('refresh in event-loop slices', () => {
  it('publishes what a refresh in one task publishes', async () => {
    const once = newShard();
    history(once, () => once.refresh());
    once.refresh();
    const sliced = newShard();
    const refreshes: Promise<number>[] = [];
    history(sliced, () => void refreshes.push(sliced.refreshSliced(0)));
    await Promise.all(refreshes);
    await sliced.refreshSliced(0);
    expect(searchable(sliced)).toEqual(searchable(once));
    expect(sliced.stats()).toEqual({ ...once.stats(), generation: sliced.generation });
    expect(sliced.hasPendingWrites).toBe(false);
    for (const id of ['d5', 'd7', 'd305', 'd307', 'd499']) expect(sliced.get(id)).toEqual(once.get(id));
    expect(sliced.versionMapStats()).toEqual(once.versionMapStats());
  });

  it('yields while sealing; searches see the last published generation until the new one is complete', async () => {
    const shard = newShard();
    shard.apply(Array.from({ length: 50 }, (_, i) => doc(i)));
    shard.refresh();
    const before = shard.generation;
    const seen = searchable(shard);
    shard.apply(Array.from({ length: 400 }, (_, i) => doc(50 + i)));
    const done = shard.refreshSliced(0);
    let slices = 0;
    while (shard.refreshRunning) {
      expect(shard.generation).toBe(before);
      expect(searchable(shard)).toEqual(seen);
      await flush();
      slices++;
    }
    expect(slices).toBeGreaterThan(3);
    expect(await done).toBe(before + 1);
    expect(shard.acquire().docCount).toBe(450);
  });

  it('loses no write made while sealing: the new generation holds the writes before it, the next one the rest', async () => {
    const shard = newShard();
    shard.apply(Array.from({ length: 100 }, (_, i) => doc(i)));
    shard.refresh();
    shard.apply(Array.from({ length: 100 }, (_, i) => doc(100 + i)));
    const done = shard.refreshSliced(0);
    await flush();
    expect([shard.refreshRunning, shard.hasPendingWrites]).toEqual([true, true]); // the sealed writes are not searchable yet
    // While sealing: a new doc; an update and a delete of docs being sealed; of refreshed docs too.
    shard.apply([doc(500), doc(150, 1), del(160), doc(10, 1), del(20)]);
    expect(shard.get('d150')._source).toContain('r1'); // real-time get sees the writes at once
    expect(shard.get('d160').found).toBe(false);
    await done;
    const first = liveDocs(shard);
    // The writes made before the refresh started, as they were then.
    expect([first.size, first.has('d500'), first.get('d150'), first.has('d160'), first.get('d10'), first.has('d20')]).toEqual([
      200,
      false,
      src(150),
      true,
      src(10),
      true,
    ]);
    expect(shard.hasPendingWrites).toBe(true);
    await shard.refreshSliced(0);
    const next = liveDocs(shard);
    expect([next.size, next.has('d500'), next.get('d150'), next.has('d160'), next.get('d10'), next.has('d20')]).toEqual([
      199,
      true,
      src(150, 1),
      false,
      src(10, 1),
      false,
    ]);
    expect(shard.hasPendingWrites).toBe(false);
    expect([shard.get('d150')._version, shard.get('d10')._version, shard.get('d160').found]).toEqual([2, 2, false]);
    expect(shard.versionMapStats()).toEqual({ entries: 2, tombstones: 2 });
  });

  it('a refresh in one task finishes a sliced one first; a second sliced refresh waits and includes later writes', async () => {
    const shard = newShard();
    shard.apply(Array.from({ length: 200 }, (_, i) => doc(i)));
    const first = shard.refreshSliced(0);
    await flush();
    shard.apply([doc(900)]);
    const second = shard.refreshSliced(0);
    await flush();
    shard.apply([doc(901)]);
    shard.refresh(); // drains the sliced refresh, then refreshes what is pending
    expect(shard.refreshRunning).toBe(false);
    expect(liveDocs(shard).size).toBe(202);
    const ids = await Promise.all([first, second]);
    expect(ids[1]).toBeGreaterThanOrEqual(ids[0]);
    expect(liveDocs(shard).size).toBe(202);
    expect(shard.hasPendingWrites).toBe(false);
  });

  it('a tombstone made while sealing is not collected on the strength of that refresh', async () => {
    let t = 1_000_000;
    const shard = newShard(() => t, -1);
    shard.apply(Array.from({ length: 200 }, (_, i) => doc(i)));
    shard.refresh();
    shard.apply([doc(300)]);
    const done = shard.refreshSliced(0);
    await flush();
    shard.apply([del(5)]); // deletes a refreshed doc: the generation being sealed still shows it
    t += 10;
    await done;
    expect(liveDocs(shard).has('d5')).toBe(true);
    expect(shard.pruneTombstones()).toBe(0);
    expect(shard.versionMapStats().tombstones).toBe(1);
    await shard.refreshSliced(0); // publishes the delete, then prunes (gc_deletes -1: every pass is due)
    expect(liveDocs(shard).has('d5')).toBe(false);
    expect(shard.versionMapStats().tombstones).toBe(0);
  });

  it('a buffer whose sealing failed is sealed by the next refreshes, nothing lost', async () => {
    const shard = newShard();
    shard.apply(Array.from({ length: 50 }, (_, i) => doc(i)));
    // eslint-disable-next-line require-yield -- the mock's first step throws, as a sealing that fails does: it has nothing to yield
    const spy = vi.spyOn(SegmentBuilder.prototype, 'buildSteps').mockImplementationOnce(function* () {
      throw new Error('seal failed');
    });
    await expect(shard.refreshSliced(0)).rejects.toThrow('seal failed');
    spy.mockRestore();
    expect([shard.hasPendingWrites, shard.refreshRunning, shard.get('d7').found, liveDocs(shard).size]).toEqual([true, false, true, 0]);
    shard.apply([doc(100), del(3)]);
    await shard.refreshSliced(0); // the failed buffer first
    expect([liveDocs(shard).size, shard.hasPendingWrites]).toEqual([49, true]);
    await shard.refreshSliced(0);
    expect([liveDocs(shard).size, liveDocs(shard).has('d100'), liveDocs(shard).has('d3'), shard.hasPendingWrites]).toEqual([50, true, false, false]);
  });
});
