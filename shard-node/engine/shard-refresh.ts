/**
 * The refresh of one shard copy (ES near-real-time search, Lucene's `DirectoryReader.openIfChanged`
 * after `IndexWriter` flushes its in-memory segment): the unrefreshed buffer is sealed into a
 * segment, documents that died meanwhile are deleted in it, the live version map forgets the docs
 * the segment now holds, and a new generation is published. It runs in one task or in event-loop
 * slices; searches meanwhile read the last published generation and writes go to a new buffer.
 * Without background merges the merge policy runs at the end of a refresh; with them, the merge
 * scheduler (merge-scheduler.ts) is asked to start one.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/near-real-time.html
 */
import { DEFAULT_SLICE_MS, yieldToEventLoop } from '../../shared/event-loop-slices.ts';
import { runAtOnce, type SliceClock, type Steps } from '../../shared/sliced-work.ts';
import type { PendingBuffer } from './live-version-map.ts';
import type { MergeScheduler } from './merge-scheduler.ts';
import type { Segment } from './segment.ts';
import type { SegmentBuilder } from './segment-builder.ts';
import { mergeSegments, mergeSteps, selectMerge, type SegmentView } from './segment-merge.ts';
import type { ShardState } from './shard-state.ts';

/** What a refresh took at its start ({@link Refresher.refreshSteps}). */
interface RefreshStart {
  /** The buffer being sealed (writes from now on go to a new one), or null. */
  buffer: PendingBuffer | null;
  /** Its dead ordinals at the start (compacted away while sealing). */
  dead: Set<number>;
  /** The segments as they were at the start: what the new generation publishes beside the sealed one. */
  views: SegmentView[];
  /** The highest seq_no at the start (what the new generation holds). */
  seqNo: number;
}

/** A sealed buffer: its segment (dead docs compacted away), and buffer ordinal → segment ordinal when compacted (-1: dropped). */
interface SealedBuffer {
  segment: Segment;
  ordMap: Int32Array | null;
}

/**
 * Seals a buffer into a segment, as steps: the docs in `dead` (overwritten or deleted before this
 * refresh) never reach a published segment, nor its term statistics: they are compacted away, as
 * if they had never been buffered.
 */
function* sealSteps(builder: SegmentBuilder, dead: ReadonlySet<number>, clock: SliceClock): Steps<SealedBuffer> {
  const segment = yield* builder.buildSteps(clock);
  if (dead.size === 0) return { segment, ordMap: null };
  const live = new Uint8Array(segment.maxDoc).fill(1);
  for (const d of dead) live[d] = 0;
  const merged = yield* mergeSteps([{ segment, live, liveCount: segment.maxDoc - dead.size }], clock);
  return { segment: merged.segment, ordMap: merged.ordMaps[0] };
}

/** A refresh running in event-loop slices ({@link Refresher.refreshSliced}). */
interface RefreshJob {
  steps: Steps<number>;
  /** Set once the steps ran to the end (in slices, or drained by a synchronous refresh). */
  result: { id: number } | { error: unknown } | null;
  done: Promise<number>;
  settle: () => void;
}

/** Runs a shard's refreshes, one at a time (shard.ts documents `refresh` and `refreshSliced`). */
export class Refresher {
  private readonly s: ShardState;
  private readonly merges: MergeScheduler;
  /** See shard.ts `ShardOptions.backgroundMerges`. */
  private readonly backgroundMerges: boolean;
  /** The refresh running in slices, if any (one at a time). */
  private job: RefreshJob | null = null;

  constructor(state: ShardState, merges: MergeScheduler, backgroundMerges: boolean) {
    this.s = state;
    this.merges = merges;
    this.backgroundMerges = backgroundMerges;
  }

  /** A refresh in one task, after the sliced one in flight (if any) ran to its end. @returns the current generation id */
  refresh(): number {
    this.drain();
    return runAtOnce((clock) => this.refreshSteps(clock));
  }

  /**
   * shard.ts `Shard.refresh` in event-loop slices of about `sliceMs` (what the shard node runs: sealing
   * a 45k-document buffer took 130-220 ms in one task, docs/reliability.md). Meanwhile searches read
   * the last published generation, and writes go to a new buffer (Lucene's DocumentsWriter swaps in
   * a new in-memory segment at a flush): the new generation holds the writes made before the
   * refresh started, as they were then (a delete or update made while sealing shows in the next
   * one). Resolves with the generation id once every write made before the call is searchable: a
   * call while another sliced refresh runs waits for it, then refreshes again when writes are
   * pending. A synchronous shard.ts `Shard.refresh` meanwhile finishes the running one first.
   */
  async refreshSliced(sliceMs = DEFAULT_SLICE_MS): Promise<number> {
    while (this.job) await this.job.done.catch(() => undefined);
    if (!this.s.dirty) return this.s.readers.latest.id;
    let started = performance.now();
    const clock: SliceClock = { due: () => performance.now() - started >= sliceMs };
    let settle!: () => void;
    const job: RefreshJob = { steps: this.refreshSteps(clock), result: null, done: new Promise<void>((r) => (settle = r)).then(() => jobResult(job)), settle };
    this.job = job;
    void job.done.catch(() => undefined);
    while (job.result === null) {
      this.step(job);
      if (job.result !== null) break;
      await yieldToEventLoop();
      started = performance.now();
    }
    return job.done;
  }

  /** True while a sliced refresh runs. */
  get running(): boolean {
    return this.job !== null;
  }

  /** Runs one slice of `job` (until its clock is due); records its end. */
  private step(job: RefreshJob): void {
    try {
      const r = job.steps.next();
      if (!r.done) return;
      job.result = { id: r.value };
    } catch (error) {
      job.result = { error };
    }
    this.job = null;
    job.settle();
  }

  /** Runs the sliced refresh in flight, if any, to its end in this task. */
  private drain(): void {
    const job = this.job;
    while (job && job.result === null) this.step(job);
  }

  /**
   * The refresh, as steps (shared/sliced-work.ts): {@link Refresher.begin} and
   * {@link Refresher.finish} run synchronously; sealing the buffer (inverting postings, ranking
   * terms, compressing `_source` blocks, compacting dead docs away) may pause between them.
   */
  private *refreshSteps(clock: SliceClock): Steps<number> {
    if (!this.s.dirty) return this.s.readers.latest.id;
    this.s.counters.refreshTotal++;
    const start = this.begin();
    let sealed: SealedBuffer | null = null;
    try {
      if (start.buffer) sealed = yield* sealSteps(start.buffer.builder, start.dead, clock);
    } catch (err) {
      // Kept for the next refresh, which seals it first (its docs stay readable by real-time get).
      this.s.unsealed.push(start.buffer!);
      this.s.sealing = false;
      this.s.dirty = true;
      throw err;
    }
    return this.finish(start, sealed);
  }

  /**
   * The start of a refresh: detaches the buffer (one whose sealing failed first) and freezes the
   * segments' live docs (copy-on-write).
   */
  private begin(): RefreshStart {
    const s = this.s;
    let buffer = s.unsealed.shift() ?? null;
    if (!buffer) {
      buffer = s.buffer;
      s.buffer = null;
    }
    for (const st of s.segs) st.shared = true;
    const views = s.segs.filter((st) => st.liveCount > 0).map((st) => s.view(st));
    s.dirty = s.unsealed.length > 0 || s.buffer !== null;
    s.sealing = true;
    return { buffer, dead: new Set(buffer?.dead), views, seqNo: s.seqNo };
  }

  /**
   * The end of a refresh (synchronous): the sealed segment joins the segments, the docs of the
   * buffer that died while it was sealed are deleted in it, the live version map forgets the docs
   * it now holds, and the new generation is published: the segments as they were at the start plus
   * the sealed one. When nothing was written meanwhile, that is the segments as they are now, and
   * (without background merges) the merge policy runs first.
   */
  private finish(start: RefreshStart, sealed: SealedBuffer | null): number {
    const s = this.s;
    s.sealing = false;
    const views = start.views;
    if (sealed && sealed.segment.maxDoc > 0) {
      const { segment, ordMap } = sealed;
      let live: Uint8Array | null = null;
      let liveCount = segment.maxDoc;
      for (const d of start.buffer!.dead) {
        if (start.dead.has(d)) continue;
        const nd = ordMap ? ordMap[d] : d;
        if (nd < 0) continue;
        live ??= new Uint8Array(segment.maxDoc).fill(1);
        if (live[nd]) {
          live[nd] = 0;
          liveCount--;
        }
      }
      s.segs.push({ segment, live, shared: false, liveCount });
      views.push({ segment, live: null, liveCount: segment.maxDoc });
      // Refreshed: these docs' versions are now read from the segment (lookup); tombstones and
      // writes made since the start (entries of the next buffer) stay.
      const entries = s.versions.entries;
      for (let ord = 0; ord < segment.maxDoc; ord++) {
        const id = segment.ids.get(ord);
        if (entries.get(id)?.buf === start.buffer) entries.delete(id);
      }
    }
    s.segs = s.segs.filter((st) => st.liveCount > 0);
    const unchanged = !s.dirty;
    while (unchanged && !this.backgroundMerges) {
      const pick = selectMerge(s.segs.map((st) => s.view(st)));
      if (pick.length < 2) break;
      const chosen = pick.map((i) => s.segs[i]);
      const { segment } = mergeSegments(chosen.map((st) => s.view(st)));
      s.replaceMerged(chosen, { segment, live: null, shared: false, liveCount: segment.maxDoc });
    }
    s.publish(unchanged ? s.segs.map((st) => s.view(st)) : views.filter((v) => v.liveCount > 0), start.seqNo);
    if (this.backgroundMerges) this.merges.maybeMerge();
    return s.readers.latest.id;
  }
}

/** The id a finished job refreshed to, or its error thrown. */
function jobResult(job: RefreshJob): number {
  const r = job.result!;
  if ('error' in r) throw r.error;
  return r.id;
}
