import { describe, expect, it } from 'vitest';
import { FLOOR_SEGMENT_DOCS, MAX_SEGMENTS, MERGE_FACTOR, mergeTier, selectMerge, type SegmentView } from './segment-merge.ts';

/** Views with these live counts (the policy reads only `liveCount`). */
function views(counts: readonly number[]): SegmentView[] {
  return counts.map((liveCount) => ({ segment: null as never, live: null, liveCount }));
}

describe('merge policy (tiers of similar size)', () => {
  it('puts segments in tiers of a factor of MERGE_FACTOR above the floor', () => {
    expect(mergeTier(1)).toBe(0);
    expect(mergeTier(FLOOR_SEGMENT_DOCS * MERGE_FACTOR - 1)).toBe(0);
    expect(mergeTier(FLOOR_SEGMENT_DOCS * MERGE_FACTOR)).toBe(1);
    expect(mergeTier(FLOOR_SEGMENT_DOCS * MERGE_FACTOR ** 2)).toBe(2);
  });

  it('merges nothing up to MAX_SEGMENTS, then the MERGE_FACTOR smallest of the crowded tier', () => {
    expect(selectMerge(views(Array(MAX_SEGMENTS).fill(1000)))).toEqual([]);
    expect(selectMerge(views([5, ...Array(MAX_SEGMENTS).fill(1000)]))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('leaves large segments alone while only small ones are crowded', () => {
    // One segment of 2 M documents and ten small ones: 11 segments, but no tier holds more than 10.
    expect(selectMerge(views([2_000_000, ...Array(MAX_SEGMENTS).fill(1_250)]))).toEqual([]);
    // Eleven small ones: the ten smallest of them merge, never the large segments.
    const pick = selectMerge(views([2_000_000, 300_000, ...Array(MAX_SEGMENTS + 1).fill(1_250)]));
    expect(pick).toHaveLength(MERGE_FACTOR);
    expect(pick).not.toContain(0);
    expect(pick).not.toContain(1);
  });

  it('rewrites each document about once per tier while a shard grows (bounded write amplification)', () => {
    // 2,000 refreshes of 1,250 documents (2.5 M, a shard of the 10 M scale run), merges applied as picked.
    let segments: number[] = [];
    let written = 0;
    const refreshes = 2_000;
    for (let r = 0; r < refreshes; r++) {
      segments.push(1_250);
      for (let pick = selectMerge(views(segments)); pick.length > 0; pick = selectMerge(views(segments))) {
        const merged = pick.reduce((n, i) => n + segments[i], 0);
        written += merged;
        segments = [...segments.filter((_, i) => !pick.includes(i)), merged];
      }
    }
    const docs = refreshes * 1_250;
    expect(segments.reduce((a, b) => a + b, 0)).toBe(docs);
    // Tiers from 1,250 to 2.5 M documents: about 6 writes per document (5.8); the earlier policy (the
    // 10 smallest of all once there were more than 10) wrote each document 56 times here.
    expect(written / docs).toBeLessThan(8);
    expect(segments.length).toBeLessThanOrEqual(4 * MAX_SEGMENTS);
  });
});
