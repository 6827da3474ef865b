/**
 * Merging segments into one, dropping deleted documents, and the merge policy that picks which
 * segments to merge. A simplified Lucene `TieredMergePolicy`: when a generation holds more than
 * {@link MAX_SEGMENTS} segments, the {@link MERGE_FACTOR} smallest (by live docs) are merged.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/TieredMergePolicy.java
 */
import type { InvertedField, NumericField, PostingList, StringDocValues } from './segment.ts';
import { Segment } from './segment.ts';

/** A generation may hold this many segments before a merge is triggered. */
export const MAX_SEGMENTS = 10;
/** How many of the smallest segments one merge combines. */
export const MERGE_FACTOR = 10;

/** A segment with its live-docs bitset (null = all live) and live count. */
export interface SegmentView {
  segment: Segment;
  live: Uint8Array | null;
  liveCount: number;
}

/**
 * Picks the segments to merge: none while there are at most `MAX_SEGMENTS`, else the
 * `MERGE_FACTOR` smallest by live document count. Returns indexes into `views`.
 */
export function selectMerge(views: readonly SegmentView[]): number[] {
  if (views.length <= MAX_SEGMENTS) return [];
  return views
    .map((v, i) => [v.liveCount, i] as const)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .slice(0, MERGE_FACTOR)
    .map(([, i]) => i)
    .sort((a, b) => a - b);
}

/**
 * Merges segments (in the given order) into one new segment holding only their live docs.
 * Returns the segment and, per input, the old-ordinal → new-ordinal map (-1 for dropped docs).
 */
export function mergeSegments(views: readonly SegmentView[]): { segment: Segment; ordMaps: Int32Array[] } {
  const ordMaps: Int32Array[] = [];
  const ids: string[] = [];
  const sources: string[] = [];
  for (const v of views) {
    const m = new Int32Array(v.segment.maxDoc).fill(-1);
    for (let d = 0; d < v.segment.maxDoc; d++) {
      if (v.live && !v.live[d]) continue;
      m[d] = ids.length;
      ids.push(v.segment.ids[d]);
      sources.push(v.segment.sources[d]);
    }
    ordMaps.push(m);
  }
  const n = ids.length;
  const fieldNames = (pick: (s: Segment) => Map<string, unknown>): Set<string> => {
    const s = new Set<string>();
    for (const v of views) for (const k of pick(v.segment).keys()) s.add(k);
    return s;
  };

  const inverted = new Map<string, InvertedField>();
  for (const name of fieldNames((s) => s.inverted)) {
    const parts = views.map((v, i) => ({ f: v.segment.inverted.get(name), m: ordMaps[i] }));
    const withPositions = parts.some((p) => p.f?.norms);
    const norms = withPositions ? new Uint8Array(n) : null;
    const has = new Uint8Array(n);
    let docCount = 0;
    for (const { f, m } of parts) {
      if (!f) continue;
      for (let d = 0; d < m.length; d++) {
        const nd = m[d];
        if (nd < 0) continue;
        if (norms && f.norms) norms[nd] = f.norms[d];
        if (f.has[d]) {
          has[nd] = 1;
          docCount++;
        }
      }
    }
    const allTerms = new Set<string>();
    for (const { f } of parts) if (f) for (const t of f.terms.keys()) allTerms.add(t);
    const terms = new Map<string, PostingList>();
    let sttf = 0;
    for (const term of allTerms) {
      const docs: number[] = [];
      const freqs: number[] = [];
      const posStarts: number[] = [];
      const positions: number[] = [];
      let ttf = 0;
      for (const { f, m } of parts) {
        const pl = f?.terms.get(term);
        if (!pl) continue;
        for (let i = 0; i < pl.docs.length; i++) {
          const nd = m[pl.docs[i]];
          if (nd < 0) continue;
          docs.push(nd);
          const fr = pl.freqs ? pl.freqs[i] : 1;
          ttf += fr;
          if (withPositions) {
            freqs.push(fr);
            posStarts.push(positions.length);
            if (pl.positions && pl.posStarts) for (let p = pl.posStarts[i]; p < pl.posStarts[i + 1]; p++) positions.push(pl.positions[p]);
          }
        }
      }
      if (docs.length === 0) continue;
      sttf += ttf;
      terms.set(term, {
        docs: Int32Array.from(docs),
        freqs: withPositions ? Int32Array.from(freqs) : null,
        posStarts: withPositions ? Int32Array.from([...posStarts, positions.length]) : null,
        positions: withPositions ? Int32Array.from(positions) : null,
        totalTermFreq: ttf,
      });
    }
    inverted.set(name, { terms, docCount, sumTotalTermFreq: sttf, norms, has });
  }

  const numeric = new Map<string, NumericField>();
  for (const name of fieldNames((s) => s.numeric)) {
    const nf: NumericField = { min: new Float64Array(n), max: new Float64Array(n), has: new Uint8Array(n), multi: new Map() };
    views.forEach((v, i) => {
      const f = v.segment.numeric.get(name);
      if (!f) return;
      const m = ordMaps[i];
      for (let d = 0; d < m.length; d++) {
        const nd = m[d];
        if (nd < 0 || !f.has[d]) continue;
        nf.min[nd] = f.min[d];
        nf.max[nd] = f.max[d];
        nf.has[nd] = 1;
        const mv = f.multi.get(d);
        if (mv) nf.multi.set(nd, mv);
      }
    });
    numeric.set(name, nf);
  }

  const strings = new Map<string, StringDocValues>();
  for (const name of fieldNames((s) => s.strings)) {
    const sv: StringDocValues = { min: new Array(n).fill(null), max: new Array(n).fill(null) };
    views.forEach((v, i) => {
      const f = v.segment.strings.get(name);
      if (!f) return;
      const m = ordMaps[i];
      for (let d = 0; d < m.length; d++) {
        if (m[d] >= 0) {
          sv.min[m[d]] = f.min[d];
          sv.max[m[d]] = f.max[d];
        }
      }
    });
    strings.set(name, sv);
  }

  const exists = new Map<string, Uint8Array>();
  for (const name of fieldNames((s) => s.exists)) {
    const b = new Uint8Array(n);
    views.forEach((v, i) => {
      const f = v.segment.exists.get(name);
      if (!f) return;
      const m = ordMaps[i];
      for (let d = 0; d < m.length; d++) if (m[d] >= 0 && f[d]) b[m[d]] = 1;
    });
    exists.set(name, b);
  }
  return { segment: new Segment({ ids, sources, inverted, numeric, strings, exists }), ordMaps };
}
