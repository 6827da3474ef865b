import { describe, expect, it } from 'vitest';
import type { Mapping } from '../../../protocol/mapping.ts';
import { citiesIndex } from '../../../scripts/samples/cities.ts';
import { expectSameSegment, loadCitiesWithEdgeCases } from '../../../test/support/segment-equality.ts';
import { newShard } from '../../../test/support/engine-shard.ts';
import { CorruptSegmentFileError } from './corrupt-segment-file.ts';
import { decodeSegment, encodeSegment } from './segment-codec.ts';

/** A shard loaded with 3,000 cities and the edge cases, and its segments. */
function segments() {
  const { shard } = newShard(citiesIndex.mappings as Mapping);
  loadCitiesWithEdgeCases(shard, 3000);
  return shard.acquire().views.map((v) => v.segment);
}

describe('segment files', () => {
  const segs = segments();

  it('round-trip every search-, sort- and aggregation-visible structure of real segments', () => {
    expect(segs.length).toBeGreaterThanOrEqual(2);
    expect(segs.some((s) => s.routings !== null && [...s.numeric.values()].some((n) => n.multi.size > 0))).toBe(true);
    for (const seg of segs) expectSameSegment(seg, decodeSegment(encodeSegment(seg), 'test'));
  });

  it('notice a changed structure (the comparison can fail)', () => {
    const decoded = decodeSegment(encodeSegment(segs[0]), 'test');
    decoded.seqNos[1]++;
    expect(() => expectSameSegment(segs[0], decoded)).toThrow();
  });

  it('detect a flipped byte anywhere in the file', () => {
    const seg = segs[segs.length - 1];
    const bytes = encodeSegment(seg);
    let seed = 42;
    const at = [0, 8, bytes.length - 1, bytes.length - 5, bytes.length - 9];
    for (let i = 0; i < 40; i++) at.push((seed = (seed * 1103515245 + 12345) % 2 ** 31) % bytes.length);
    for (const pos of at) {
      const bad = Buffer.from(bytes);
      bad[pos] ^= 1 << (pos % 8);
      expect(() => decodeSegment(bad, `flip@${pos}`), `flip at ${pos}`).toThrow(CorruptSegmentFileError);
    }
    expect(() => decodeSegment(bytes.subarray(0, bytes.length - 1), 'short')).toThrow(/checksum failed/);
    expect(() => decodeSegment(Buffer.alloc(3), 'tiny')).toThrow(/too short/);
  });

  it('find every _id of a segment read from its file, before and after its background _id table', async () => {
    const seg = segs[0];
    const ids = Array.from({ length: seg.maxDoc }, (_, d) => seg.ids.get(d));
    const atOnce = decodeSegment(encodeSegment(seg), 'test');
    // The first lookup comes before the background build: it builds the table at once.
    for (const [d, id] of ids.entries()) expect(atOnce.idToOrd.get(id)).toBe(d);
    expect(atOnce.idToOrd.get('no-such-id')).toBe(-1);
    const sliced = decodeSegment(encodeSegment(seg), 'test');
    await sliced.buildIdTable();
    const built = sliced.idToOrd;
    await sliced.buildIdTable();
    expect(sliced.idToOrd).toBe(built);
    for (const [d, id] of ids.entries()) expect(built.get(id)).toBe(d);
  });
});
