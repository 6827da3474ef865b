import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newShard, q } from '../../test/support/engine-shard.ts';
import { searcherOf } from '../engine/searcher.ts';
import { cityDocs, loadCitiesWithEdgeCases } from '../../test/support/segment-equality.ts';
import { blockCacheStats, clearBlockCache, configureBlockCache, defaultBlockCacheBytes } from '../engine/columns/block-cache.ts';
import { SOURCE_BLOCK_DOCS } from '../engine/columns/source-slab.ts';
import { CorruptSegmentFileError } from '../engine/segment-file/corrupt-segment-file.ts';
import type { Segment } from '../engine/segment.ts';
import type { Shard } from '../engine/shard.ts';
import { SegmentCommits } from './segment-commits.ts';

const dirs: string[] = [];
afterEach(() => {
  configureBlockCache(defaultBlockCacheBytes());
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'folio-ondemand-'));
  dirs.push(d);
  return d;
}

const segmentsOf = (s: Shard): Segment[] => s.acquire().views.map((v) => v.segment);
/** Every doc's `_source` text, segment by segment. */
const sourcesOf = (segs: readonly Segment[]): string[][] => segs.map((seg) => Array.from({ length: seg.maxDoc }, (_, d) => seg.source(d)));

/** Every term's postings (docs, freqs, positions) and stats, field by field, segment by segment, read through the cached and the one-pass paths. */
function postingsOf(segs: readonly Segment[]): unknown[] {
  const plain = (p: { docs: Int32Array; freqs: Int32Array | null; positions: Int32Array | null } | undefined) =>
    p && [Array.from(p.docs), p.freqs && Array.from(p.freqs), p.positions && Array.from(p.positions)];
  return segs.map((seg) =>
    [...seg.inverted].map(([field, inv]) => {
      const terms = inv.terms.sorted();
      return [
        field,
        terms.map((t, ord) => [t, plain(inv.terms.get(t)), Array.from(inv.terms.docs(t)!), inv.terms.stats(t), plain(inv.terms.postingsOnce(ord))]),
      ];
    }),
  );
}

/** A shard with cities and edge cases (unicode, astral, lone surrogates), in several segments. */
function citiesShard(n = 3000): Shard {
  const { shard } = newShard();
  loadCitiesWithEdgeCases(shard, n);
  return shard;
}

describe('postings read from segment files on demand', () => {
  it('a flushed segment and a segment opened from its file return the same postings for every term, with the postings out of the heap', async () => {
    const shard = citiesShard(2000);
    const segs = segmentsOf(shard);
    const expected = postingsOf(segs);
    const d = dir();
    await new SegmentCommits(d).write(shard.commit());
    expect(segs.every((s) => [...s.inverted.values()].every((inv) => inv.terms.onDisk))).toBe(true);
    clearBlockCache();
    expect(postingsOf(segs)).toEqual(expected);
    const loaded = new SegmentCommits(d).load()!.segments.map((c) => c.segment);
    expect(loaded.every((s) => [...s.inverted.values()].every((inv) => inv.terms.onDisk))).toBe(true);
    configureBlockCache(8 * 1024); // one page: each page read evicts the one before
    const before = blockCacheStats('postings');
    expect(postingsOf(loaded)).toEqual(expected);
    const after = blockCacheStats('postings');
    expect(after.misses - before.misses).toBeGreaterThan(20); // every page of the stream, at least once
    expect(after.evictions - before.evictions).toBeGreaterThan(10);
    expect(after.bytes).toBeLessThanOrEqual(8 * 1024);
  });

  it('a flipped byte in a postings page throws CorruptSegmentFileError from the search that reads it', async () => {
    const shard = citiesShard(1000);
    const d = dir();
    await new SegmentCommits(d).write(shard.commit());
    const g = shard.acquire();
    // One of the first terms of `name` in the largest segment with a live doc: its postings are in the stream's first page.
    const largest = g.views.map((v) => v.segment).reduce((a, b) => (a.maxDoc >= b.maxDoc ? a : b));
    const term = largest.inverted
      .get('name')!
      .terms.sorted()
      .slice(0, 20)
      .find((t) => searcherOf(g).count(q.term('name', t)) > 0)!;
    const query = q.term('name', term);
    expect(searcherOf(g).count(query)).toBeGreaterThan(0);
    const countryBefore = searcherOf(g).count(q.term('country', 'US'));
    // Flip a byte in the first page of the `name` postings of every segment file.
    for (const seg of g.views.map((v) => v.segment)) {
      const inv = seg.inverted.get('name')!;
      const stream = Buffer.from(inv.terms.encodedParts().postings);
      for (const f of readdirSync(d).filter((x) => x.endsWith('.fseg'))) {
        const whole = readFileSync(join(d, f));
        const at = whole.indexOf(stream);
        if (at < 0) continue;
        const fd = openSync(join(d, f), 'r+');
        writeSync(fd, Buffer.from([whole[at + 10] ^ 0xff]), 0, 1, at + 10);
        closeSync(fd);
      }
    }
    clearBlockCache();
    expect(() => searcherOf(g).count(query)).toThrow(CorruptSegmentFileError);
    expect(searcherOf(g).count(q.term('country', 'US'))).toBe(countryBefore); // other fields still read
  });
});

describe('_source blocks read from segment files on demand', () => {
  it('a flushed segment and a segment opened from its file return the same _source bytes for every doc, with the blocks out of the heap', async () => {
    const shard = citiesShard();
    const segs = segmentsOf(shard);
    const expected = sourcesOf(segs);
    const heapBefore = segs.reduce((n, s) => n + s.sources.byteLength, 0);
    const d = dir();
    await new SegmentCommits(d).write(shard.commit());
    expect(segs.every((s) => s.sources.onDisk)).toBe(true);
    expect(segs.reduce((n, s) => n + s.sources.byteLength, 0)).toBeLessThan(heapBefore / 3);
    clearBlockCache();
    expect(sourcesOf(segs)).toEqual(expected);

    const loaded = new SegmentCommits(d).load()!.segments.map((c) => c.segment);
    expect(loaded.every((s) => s.sources.onDisk)).toBe(true);
    clearBlockCache();
    expect(sourcesOf(loaded)).toEqual(expected);
    // Byte for byte, and the bytes a segment file stores are the same again.
    for (let i = 0; i < segs.length; i++) {
      expect(Buffer.from(loaded[i].sources.blocks).equals(Buffer.from(segs[i].sources.blocks))).toBe(true);
      for (let doc = 0; doc < segs[i].maxDoc; doc += 97)
        expect(Buffer.from(loaded[i].sources.bytesOf(doc)).equals(Buffer.from(segs[i].sources.bytesOf(doc)))).toBe(true);
    }
  });

  it('a tiny cache evicts all the time and still returns the right bytes, in any order', async () => {
    const shard = citiesShard();
    const segs = segmentsOf(shard);
    const expected = sourcesOf(segs);
    await new SegmentCommits(dir()).write(shard.commit());
    configureBlockCache(8 * 1024); // a few blocks
    const before = blockCacheStats('source');
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5000; i++) {
      const s = Math.floor(next() * segs.length);
      const doc = Math.floor(next() * segs[s].maxDoc);
      expect(segs[s].source(doc)).toBe(expected[s][doc]);
      expect(blockCacheStats('source').bytes).toBeLessThanOrEqual(8 * 1024);
    }
    const after = blockCacheStats('source');
    expect(after.evictions - before.evictions).toBeGreaterThan(1000);
    expect(after.misses - before.misses).toBeGreaterThan(1000);
  });

  it('a reader holding segments merged away and deleted from the directory still reads their _source', async () => {
    const { shard } = newShard();
    const docs = cityDocs(1200);
    // 6 segments of 200: under the merge policy's segment count, so nothing merges yet.
    for (let i = 0; i < 1200; i += 200) {
      shard.apply(docs.slice(i, i + 200).map((x) => ({ op: 'index' as const, _id: x._id, source: x.json, create: false })));
      shard.refresh();
    }
    const d = dir();
    const commits = new SegmentCommits(d);
    await commits.write(shard.commit());
    const firstFiles = readdirSync(d).filter((f) => f.endsWith('.fseg'));
    const held = shard.acquire(); // a point in time / scroll holds this generation
    const heldSegs = held.views.map((v) => v.segment);
    expect(heldSegs.every((s) => s.sources.onDisk && [...s.inverted.values()].every((inv) => inv.terms.onDisk))).toBe(true);
    const queries = [q.match('name', 'san'), q.term('country', 'US'), q.match('name', 'saint petersburg')];
    const counts = queries.map((x) => searcherOf(held).count(x));
    expect(counts[0]).toBeGreaterThan(0);
    // More small segments: the merge policy merges, and the next flush deletes the merged-away files.
    const more = cityDocs(1000, 1200);
    for (let i = 0; i < 1000; i += 100) {
      shard.apply(more.slice(i, i + 100).map((x) => ({ op: 'index' as const, _id: x._id, source: x.json, create: false })));
      shard.refresh();
    }
    await shard.mergesIdle();
    await commits.write(shard.commit());
    const now = readdirSync(d).filter((f) => f.endsWith('.fseg'));
    expect(firstFiles.filter((f) => !now.includes(f)).length).toBeGreaterThan(0);
    clearBlockCache(); // every block and page comes from the (deleted) files
    const fetched = held.fetch(docs.map((x) => x._id));
    expect(fetched.map((f) => f?._source)).toEqual(docs.map((x) => x.json));
    expect(queries.map((x) => searcherOf(held).count(x))).toEqual(counts);
  });

  it('a flipped byte in a _source block throws CorruptSegmentFileError from the read (a shard failure, not a crash); other blocks still read', async () => {
    const shard = citiesShard(1000);
    const seg = segmentsOf(shard).reduce((a, b) => (a.maxDoc >= b.maxDoc ? a : b));
    const expected = sourcesOf([seg])[0];
    const d = dir();
    await new SegmentCommits(d).write(shard.commit());
    // Find the segment's file and the second block's bytes in it, and flip one.
    const blocks = Buffer.from(seg.sources.blocks);
    const second = blocks.subarray(seg.sources.blockOffsets[1], seg.sources.blockOffsets[2]);
    let flipped = false;
    for (const f of readdirSync(d).filter((x) => x.endsWith('.fseg'))) {
      const whole = readFileSync(join(d, f));
      const at = whole.indexOf(blocks.subarray(0, seg.sources.blockOffsets[2]));
      if (at < 0) continue;
      const pos = at + seg.sources.blockOffsets[1] + Math.floor(second.length / 2);
      const fd = openSync(join(d, f), 'r+');
      writeSync(fd, Buffer.from([whole[pos] ^ 0xff]), 0, 1, pos);
      closeSync(fd);
      flipped = true;
    }
    expect(flipped).toBe(true);
    clearBlockCache();
    expect(() => seg.source(SOURCE_BLOCK_DOCS)).toThrow(CorruptSegmentFileError);
    expect(() => seg.source(SOURCE_BLOCK_DOCS)).toThrow(/checksum failed/);
    expect(() => seg.source(SOURCE_BLOCK_DOCS)).toThrow(expect.objectContaining({ status: 500, type: 'corrupt_index_exception' }));
    expect(seg.source(0)).toBe(expected[0]);
    expect(seg.source(2 * SOURCE_BLOCK_DOCS)).toBe(expected[2 * SOURCE_BLOCK_DOCS]);
  });

  it.runIf(process.platform === 'linux')(
    'keeps a merged-away segment file open while a reader holds it, and closes it once the reader is gone and collected',
    () => {
      const child = spawnSync(process.execPath, ['--expose-gc', join(import.meta.dirname, '../../test/support/segment-fd-lifetime-child.ts')], {
        encoding: 'utf8',
      });
      expect(child.status, child.stderr).toBe(0);
      const r = JSON.parse(child.stdout.trim().split('\n').pop()!) as {
        deleted: number;
        readAfterDelete: boolean;
        whileHeld: number;
        afterRelease: number;
        live: number;
      };
      expect(r.deleted).toBeGreaterThan(0);
      expect(r.readAfterDelete).toBe(true);
      expect(r.whileHeld).toBe(r.live + r.deleted); // the deleted files' descriptors stay open for the reader
      expect(r.afterRelease).toBe(r.live); // and close once nothing holds their segments
    },
  );
});
