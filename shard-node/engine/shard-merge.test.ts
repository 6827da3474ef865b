import { describe, expect, it } from 'vitest';
import { mergeMappings } from '../../shared/dynamic-mapping.ts';
import type { Mapping } from '../../protocol/mapping.ts';
import { MAX_SEGMENTS } from './segment-merge.ts';
import { Shard } from './shard.ts';
import { searcherOf } from './searcher.ts';

/** A shard that merges in the background, cut at every check point. */
function backgroundShard(): Shard {
  let m: Mapping = { properties: { n: { type: 'long' }, t: { type: 'keyword' }, w: { type: 'text' } } };
  return new Shard({ index: 'i', shard: 0, getMapping: () => m, updateMapping: (u) => (m = mergeMappings(m, u)), backgroundMerges: true, mergeSliceMs: 0 });
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

const flush = () => new Promise<void>((r) => setImmediate(r));

describe('background merges', () => {
  it('keep every document exactly once while deletes, updates and refreshes happen during the merge', async () => {
    const shard = backgroundShard();
    const expected = new Map<string, string>();
    const index = (id: string, doc: object) => {
      const source = JSON.stringify(doc);
      expect(shard.apply([{ op: 'index', _id: id, source, create: false }])[0].error).toBeUndefined();
      expected.set(id, source);
    };
    for (let b = 0; b <= MAX_SEGMENTS; b++) {
      for (let i = 0; i < 1500; i++) index(`${b}-${i}`, { n: i, t: `t${i % 50}`, w: `w${b} x${i % 7}` });
      shard.refresh();
    }
    expect(shard.mergeRunning).toBe(true); // the 11th segment set a merge off; refresh returned before it ended
    const generationAtStart = shard.generation;
    let step = 0;
    while (shard.mergeRunning) {
      // Deletes and updates of documents in the segments being merged, and a refresh now and then.
      const b = step % MAX_SEGMENTS;
      const i = (step * 37) % 1500;
      shard.apply([{ op: 'delete', _id: `${b}-${i}` }]);
      expected.delete(`${b}-${i}`);
      index(`${b}-${(i + 1) % 1500}`, { n: -step, t: 'updated', w: 'u' });
      if (step % 5 === 4) shard.refresh();
      step++;
      await flush();
    }
    expect(step).toBeGreaterThan(5); // the merge really ran in slices with writes in between
    expect(shard.lastMergeError).toBeNull();
    shard.refresh();
    await shard.mergesIdle();
    shard.refresh();
    expect(shard.generation).toBeGreaterThan(generationAtStart);
    expect(shard.stats().segments).toBeLessThanOrEqual(MAX_SEGMENTS);
    expect(liveDocs(shard)).toEqual(expected);
    expect(shard.stats().docs).toBe(expected.size);
    for (const [id, source] of expected) expect(shard.get(id)._source).toBe(source);
    // Deleted ids stay deleted for real-time get and for a search.
    expect(shard.get('0-0').found).toBe(false);
    expect(searcherOf(shard.acquire()).count({ kind: 'term', field: 't', value: 'updated', caseInsensitive: false, boost: 1 })).toBe(
      [...expected.values()].filter((s) => s.includes('"updated"')).length,
    );
  });

  it('publish a merged generation at once when nothing is pending, and search the same documents', async () => {
    const shard = backgroundShard();
    for (let b = 0; b <= MAX_SEGMENTS; b++) {
      shard.apply(Array.from({ length: 300 }, (_, i) => ({ op: 'index' as const, _id: `${b}-${i}`, source: JSON.stringify({ n: i }), create: false })));
      shard.refresh();
    }
    const before = shard.acquire();
    expect(before.views.length).toBe(MAX_SEGMENTS + 1);
    await shard.mergesIdle();
    const after = shard.acquire();
    expect(after.id).toBe(before.id + 1);
    expect(after.views.length).toBeLessThanOrEqual(MAX_SEGMENTS);
    expect(after.docCount).toBe(before.docCount);
    expect(before.views.length).toBe(MAX_SEGMENTS + 1); // the older generation is unchanged (point in time)
  });

  it('drop a merge whose segment was fully deleted meanwhile, losing nothing', async () => {
    const shard = backgroundShard();
    for (let b = 0; b <= MAX_SEGMENTS; b++) {
      shard.apply(Array.from({ length: 2000 }, (_, i) => ({ op: 'index' as const, _id: `${b}-${i}`, source: JSON.stringify({ n: i }), create: false })));
      shard.refresh();
    }
    expect(shard.mergeRunning).toBe(true);
    // Delete every document of the first (smallest-picked) segment, and refresh: it is dropped.
    shard.apply(Array.from({ length: 2000 }, (_, i) => ({ op: 'delete' as const, _id: `0-${i}` })));
    shard.refresh();
    await shard.mergesIdle();
    shard.refresh();
    await shard.mergesIdle();
    expect(shard.lastMergeError).toBeNull();
    expect(shard.stats().docs).toBe(MAX_SEGMENTS * 2000);
    expect(liveDocs(shard).size).toBe(MAX_SEGMENTS * 2000);
  });
});
