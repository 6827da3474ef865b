import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { byField, newShard, q } from '../../test/support/engine-shard.ts';
import { loadCitiesWithEdgeCases } from '../../test/support/segment-equality.ts';
import { searcherOf } from '../engine/searcher.ts';
import { CorruptSegmentFileError } from '../engine/segment-file/corrupt-segment-file.ts';
import type { Segment } from '../engine/segment.ts';
import type { Shard } from '../engine/shard.ts';
import { SegmentCommits } from './segment-commits.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'folio-ondemand-dv-'));
  dirs.push(d);
  return d;
}

function citiesShard(n = 2000): Shard {
  const { shard } = newShard();
  loadCitiesWithEdgeCases(shard, n);
  return shard;
}

const segmentsOf = (s: Shard): Segment[] => s.acquire().views.map((v) => v.segment);

/** Every keyword field's rank columns, segment by segment. */
const docValuesOf = (segs: readonly Segment[]): unknown[] =>
  segs.map((seg) => [...seg.strings].map(([field, sv]) => [field, Array.from(sv.min), Array.from(sv.max), sv.min === sv.max]));

/** The first page of hits sorted by keyword fields, both directions. */
function sortedPages(shard: Shard): unknown[] {
  const s = searcherOf(shard.acquire());
  return (['asc', 'desc'] as const).flatMap((order) =>
    ['country.keyword', 'name.keyword'].map(
      (field) => s.query({ query: q.all(), sort: [byField(field, order), byField('_id')], k: 25, trackTotalHits: 10_000 }).hits,
    ),
  );
}

describe('keyword doc values read from segment files on demand', () => {
  it('a flushed segment and one opened from its file give the same columns and sorts as in memory', async () => {
    const shard = citiesShard();
    const segs = segmentsOf(shard);
    const expected = docValuesOf(segs);
    const pages = sortedPages(shard);
    const d = dir();
    await new SegmentCommits(d).write(shard.commit());
    expect(docValuesOf(segs)).toEqual(expected);
    expect(sortedPages(shard)).toEqual(pages);
    const loaded = new SegmentCommits(d).load()!.segments.map((c) => c.segment);
    expect(docValuesOf(loaded)).toEqual(expected);
  });

  it('the columns stay in the file until first read: a flipped byte there throws CorruptSegmentFileError from that read, not before', async () => {
    const shard = citiesShard();
    const largest = segmentsOf(shard).reduce((a, b) => (a.maxDoc >= b.maxDoc ? a : b));
    const column = Buffer.from(new Uint8Array(largest.strings.get('name.keyword')!.min.buffer.slice(0)));
    const d = dir();
    await new SegmentCommits(d).write(shard.commit());
    let flipped = 0;
    for (const f of readdirSync(d).filter((x) => x.endsWith('.fseg'))) {
      const at = readFileSync(join(d, f)).indexOf(column);
      if (at < 0) continue;
      const fd = openSync(join(d, f), 'r+');
      writeSync(fd, Buffer.from([column[7] ^ 0xff]), 0, 1, at + 7);
      closeSync(fd);
      flipped++;
    }
    expect(flipped).toBe(1);
    expect(searcherOf(shard.acquire()).count(q.match('name', 'san'))).toBeGreaterThan(0); // searches that do not read it go on
    expect(() => largest.strings.get('name.keyword')!.min).toThrow(CorruptSegmentFileError);
    expect(Array.from(largest.strings.get('country.keyword')!.min).length).toBe(largest.maxDoc);
  });
});
