/**
 * Merging segments into one, dropping deleted documents, and the merge policy that picks which
 * segments to merge. A simplified Lucene `TieredMergePolicy`: when a generation holds more than
 * {@link MAX_SEGMENTS} segments, the {@link MERGE_FACTOR} smallest (by live docs) are merged.
 * Because the smallest are always picked, equal-sized flushes form tiers of ×10 and each document
 * is rewritten about log₁₀(docs / docs per refresh) times, never in a cascade; a merge copies
 * `_source` bytes and typed-array postings without decoding, so it costs far less than indexing.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/TieredMergePolicy.java
 */
import type { InvertedField, NumericField, StringDocValues } from './segment.ts';
import { keywordDocValues, Segment } from './segment.ts';
import { narrowNumbers, PresencePool, rankColumn } from './columns/columns.ts';
import { PostingsBuilder } from './columns/postings-builder.ts';
import { mergeSortedTerms } from './columns/sorted-terms-merge.ts';
import { IdHash } from './columns/id-hash.ts';
import { IdColumn } from './columns/id-column.ts';
import { SourceSlabBuilder } from './columns/source-slab.ts';
import { runAtOnce, type SliceClock, type Steps } from '../../shared/sliced-work.ts';

/**
 * Segments one tier may hold before a merge is triggered (Lucene `TieredMergePolicy`
 * `segmentsPerTier`, 10): a tier with more merges {@link MERGE_FACTOR} of its smallest.
 */
export const MAX_SEGMENTS = 10;
/** How many segments of one tier one merge combines (Lucene `maxMergeAtOnce`, 10). */
export const MERGE_FACTOR = 10;
/**
 * Segments below this many live documents count as this size (Lucene's `floorSegmentMB`, 2 MB, is
 * about 10,000 documents of 200 B): the tiny segments of frequent refreshes share the lowest tier.
 */
export const FLOOR_SEGMENT_DOCS = 10_000;

/** A segment with its live-docs bitset (null = all live) and live count. */
export interface SegmentView {
  segment: Segment;
  live: Uint8Array | null;
  liveCount: number;
}

/**
 * The tier of a segment of `liveCount` documents: 0 up to {@link MERGE_FACTOR} × the floor, then one
 * more per factor of {@link MERGE_FACTOR} (Lucene's `LogMergePolicy` levels).
 */
export function mergeTier(liveCount: number): number {
  return Math.floor(Math.log(Math.max(liveCount, FLOOR_SEGMENT_DOCS) / FLOOR_SEGMENT_DOCS) / Math.log(MERGE_FACTOR) + 1e-9);
}

/**
 * Picks the segments to merge, as Lucene's tiered and log merge policies do: segments are grouped
 * in tiers of similar size ({@link mergeTier}); the lowest tier holding more than
 * {@link MAX_SEGMENTS} merges its {@link MERGE_FACTOR} smallest; none otherwise. A merge thus
 * combines segments of about one size, and each document is rewritten about once per tier
 * (log₁₀ of the shard's size): the earlier policy, the 10 smallest of all once there were more than
 * 10, rewrote every segment but the largest at each merge, and indexing slowed as a shard grew
 * (docs/performance.md, "Merge policy"). Returns indexes into `views`, ascending.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/index/TieredMergePolicy.html
 */
export function selectMerge(views: readonly SegmentView[]): number[] {
  if (views.length <= MAX_SEGMENTS) return [];
  const byTier = new Map<number, (readonly [number, number])[]>();
  for (const [i, v] of views.entries()) {
    const tier = mergeTier(v.liveCount);
    let members = byTier.get(tier);
    if (!members) byTier.set(tier, (members = []));
    members.push([v.liveCount, i]);
  }
  for (const tier of [...byTier.keys()].sort((a, b) => a - b)) {
    const members = byTier.get(tier)!;
    if (members.length <= MAX_SEGMENTS) continue;
    return members
      .sort((a, b) => a[0] - b[0] || a[1] - b[1])
      .slice(0, MERGE_FACTOR)
      .map(([, i]) => i)
      .sort((a, b) => a - b);
  }
  return [];
}

/** `a` cut to `n` entries (a copy only when a view's live count was stale). */
function fit(a: Float64Array, n: number): Float64Array {
  return a.length === n ? a : a.slice(0, n);
}

/**
 * Merges segments (in the given order) into one new segment holding only their live docs.
 * Returns the segment and, per input, the old-ordinal → new-ordinal map (-1 for dropped docs).
 * Sources are copied as bytes (decompressed block by block, never decoded to strings) and recompressed;
 * postings are re-accumulated into typed arrays.
 */
export function mergeSegments(views: readonly SegmentView[]): MergedSegment {
  return runAtOnce((clock) => mergeSteps(views, clock));
}

/** Output of {@link mergeSegments}. */
export interface MergedSegment {
  segment: Segment;
  /** Per input view, old ordinal → new ordinal (-1 for dropped docs). */
  ordMaps: Int32Array[];
}

/** Items of work (documents, postings) between two looks at the slice clock. */
const WORK_PER_CHECK = 4096;

/** Counts `w` items of work; true when the slice clock was asked and its slice is over. */
type WorkMeter = (w: number) => boolean;

/**
 * {@link mergeSegments} as pausable steps (shared/sliced-work.ts): a background merge runs them in
 * event-loop slices (Shard's background merges). The views must not change meanwhile (they are
 * a published generation's: copy-on-write live docs). The parts are merged as Lucene's
 * `SegmentMerger` does: the stored fields (which also number the live docs), then per field the
 * postings with their string doc values, the numeric doc values, and the `exists` bitsets.
 */
export function* mergeSteps(views: readonly SegmentView[], clock: SliceClock): Steps<MergedSegment> {
  let work = 0;
  const due: WorkMeter = (w) => {
    work += w;
    if (work < WORK_PER_CHECK) return false;
    work = 0;
    return clock.due();
  };
  const stored = yield* mergeStoredFields(views, due);
  const { ids, ordMaps } = stored;
  const n = ids.length;
  const pool = new PresencePool();
  const fieldNames = (pick: (s: Segment) => Map<string, unknown>): Set<string> => {
    const s = new Set<string>();
    for (const v of views) for (const k of pick(v.segment).keys()) s.add(k);
    return s;
  };

  const inverted = new Map<string, InvertedField>();
  const strings = new Map<string, StringDocValues>();
  for (const name of fieldNames((s) => s.inverted)) {
    const merged = yield* mergeInvertedField(name, views, ordMaps, n, pool, due, clock);
    inverted.set(name, merged.field);
    if (merged.strings) strings.set(name, merged.strings);
  }
  const numeric = new Map<string, NumericField>();
  for (const name of fieldNames((s) => s.numeric)) numeric.set(name, yield* mergeNumericField(name, views, ordMaps, n, pool, due));
  const exists = new Map<string, Uint8Array>();
  for (const name of fieldNames((s) => s.exists)) exists.set(name, yield* mergeExistsField(name, views, ordMaps, n, pool, due));
  const built = yield* stored.sources.buildSteps(clock);
  const idColumn = IdColumn.of(ids);
  const idToOrd = yield* IdHash.buildSteps(idColumn, clock);
  return {
    segment: new Segment({
      ids: idColumn,
      versions: fit(stored.versions, ids.length),
      seqNos: fit(stored.seqNos, ids.length),
      routings: stored.routings,
      sources: built,
      inverted,
      numeric,
      strings,
      exists,
      idToOrd,
    }),
    ordMaps,
  };
}

/** The live docs' stored fields, numbered in merge order, and per view the old → new ordinal map. */
interface MergedStoredFields {
  ordMaps: Int32Array[];
  ids: string[];
  versions: Float64Array;
  seqNos: Float64Array;
  sources: SourceSlabBuilder;
  routings: Map<number, string>;
}

/** Copies the live docs' `_id`, version, seq_no, `_routing` and `_source` bytes (Lucene's stored fields merge). */
function* mergeStoredFields(views: readonly SegmentView[], due: WorkMeter): Steps<MergedStoredFields> {
  const ordMaps: Int32Array[] = [];
  const ids: string[] = [];
  const total = views.reduce((sum, v) => sum + (v.live ? v.liveCount : v.segment.maxDoc), 0);
  const versions = new Float64Array(total);
  const seqNos = new Float64Array(total);
  const sources = new SourceSlabBuilder();
  const routings = new Map<number, string>();
  for (const v of views) {
    const seg = v.segment;
    const m = new Int32Array(seg.maxDoc).fill(-1);
    for (let d = 0; d < seg.maxDoc; d++) {
      if (v.live && !v.live[d]) continue;
      m[d] = ids.length;
      const routing = seg.routings?.get(d);
      if (routing !== undefined) routings.set(ids.length, routing);
      versions[ids.length] = seg.versions[d];
      seqNos[ids.length] = seg.seqNos[d];
      ids.push(seg.ids.get(d));
      sources.addBytes(seg.sources.bytesOf(d, false)); // a merge reads each block once: past the block cache
      if (due(1)) yield;
    }
    ordMaps.push(m);
  }
  return { ordMaps, ids, versions, seqNos, sources, routings };
}

/**
 * One inverted field over the merged docs: postings (with positions and norms on text fields)
 * re-accumulated for the live docs, and its string doc values (keyword ranks) remapped to the
 * merged term ranks when the field has them.
 */
function* mergeInvertedField(
  name: string,
  views: readonly SegmentView[],
  ordMaps: readonly Int32Array[],
  n: number,
  pool: PresencePool,
  due: WorkMeter,
  clock: SliceClock,
): Steps<{ field: InvertedField; strings?: StringDocValues }> {
  const parts = views.map((v, i) => ({ f: v.segment.inverted.get(name), sv: v.segment.strings.get(name), m: ordMaps[i] }));
  const withPositions = parts.some((p) => p.f?.norms);
  const norms = withPositions ? new Uint8Array(n) : null;
  const has = new Uint8Array(n);
  let docCount = 0;
  // The inputs' dictionaries are sorted: a k-way merge numbers the merged terms in order, so the
  // builder neither hashes nor sorts them (terms left without a live doc are dropped at build).
  const merged = mergeSortedTerms(parts.map((p) => (p.f ? p.f.terms.dictionary.toArray() : [])));
  const pb = PostingsBuilder.presorted(withPositions, merged.terms);
  for (const [i, { f, m }] of parts.entries()) {
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
    const ids = merged.maps[i];
    for (let ord = 0; ord < ids.length; ord++) {
      const tid = ids[ord];
      const { docs, posStarts, positions } = f.terms.postingsOnce(ord);
      for (let j = 0; j < docs.length; j++) {
        const nd = m[docs[j]];
        if (nd < 0) continue;
        if (withPositions && positions && posStarts) for (let p = posStarts[j]; p < posStarts[j + 1]; p++) pb.add(tid, nd, positions[p]);
        else pb.add(tid, nd, 0);
      }
      if (due(docs.length + 1)) yield;
    }
    if (due(m.length)) yield;
  }
  const hasStrings = parts.some((p) => p.sv);
  const built = yield* pb.buildSteps(false, clock);
  const field: InvertedField = { terms: built.terms, docCount, sumTotalTermFreq: built.occurrences, norms, has: pool.share(has) };
  if (!hasStrings) return { field };
  const rankOf = built.rankOf;
  const multiValued = parts.some((p) => p.sv && p.sv.max !== p.sv.min);
  const min = rankColumn(n, rankOf.length);
  const max = multiValued ? rankColumn(n, rankOf.length) : min;
  for (const [i, { f, sv, m }] of parts.entries()) {
    if (!sv || !f) continue;
    // Old rank + 1 → new rank + 1 (0 stays 0 and so does a term left without a live doc). A
    // segment's ranks are its dictionary's ordinals.
    const ids = merged.maps[i];
    const remap = new Int32Array(ids.length + 1);
    for (let r = 0; r < ids.length; r++) remap[r + 1] = rankOf[ids[r]] + 1;
    for (let d = 0; d < m.length; d++) {
      const nd = m[d];
      if (nd < 0) continue;
      min[nd] = remap[sv.min[d]];
      if (multiValued) max[nd] = remap[sv.max[d]];
    }
    if (due(m.length + f.terms.size)) yield;
  }
  return { field, strings: keywordDocValues(built.terms.dictionary, min, max) };
}

/** One numeric doc-values field over the merged docs (min/max columns narrowed, multi-values kept). */
function* mergeNumericField(
  name: string,
  views: readonly SegmentView[],
  ordMaps: readonly Int32Array[],
  n: number,
  pool: PresencePool,
  due: WorkMeter,
): Steps<NumericField> {
  const multiValued = views.some((v) => {
    const f = v.segment.numeric.get(name);
    return f !== undefined && f.max !== f.min;
  });
  const min = new Float64Array(n);
  const max = multiValued ? new Float64Array(n) : min;
  const has = new Uint8Array(n);
  const multi = new Map<number, number[]>();
  for (const [i, v] of views.entries()) {
    const f = v.segment.numeric.get(name);
    if (!f) continue;
    const m = ordMaps[i];
    for (let d = 0; d < m.length; d++) {
      const nd = m[d];
      if (nd < 0 || !f.has[d]) continue;
      min[nd] = f.min[d];
      if (multiValued) max[nd] = f.max[d];
      has[nd] = 1;
      const mv = f.multi.get(d);
      if (mv) multi.set(nd, mv);
    }
    if (due(m.length)) yield;
  }
  const nmin = narrowNumbers(min);
  return { min: nmin, max: multiValued ? narrowNumbers(max) : nmin, has: pool.share(has), multi };
}

/** One field's `exists` bitset over the merged docs. */
function* mergeExistsField(
  name: string,
  views: readonly SegmentView[],
  ordMaps: readonly Int32Array[],
  n: number,
  pool: PresencePool,
  due: WorkMeter,
): Steps<Uint8Array> {
  const b = new Uint8Array(n);
  for (const [i, v] of views.entries()) {
    const f = v.segment.exists.get(name);
    if (!f) continue;
    const m = ordMaps[i];
    for (let d = 0; d < m.length; d++) if (m[d] >= 0 && f[d]) b[m[d]] = 1;
    if (due(m.length)) yield;
  }
  return pool.share(b);
}
