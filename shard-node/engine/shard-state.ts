/**
 * The state of one shard copy that its write path (shard-writes.ts), refresh (shard-refresh.ts),
 * background merges (merge-scheduler.ts) and recovery (shard-recovery.ts) share, as ES's
 * `InternalEngine` holds it for its parts: the segments with copy-on-write live docs, the
 * unrefreshed buffer, the live version map, the published generations, the sequence numbers and
 * checkpoints, and the translog. It also answers where the newest copy of an `_id` is
 * ({@link ShardState.lookup}) and removes a live copy ({@link ShardState.removeLive}).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/engine/InternalEngine.java
 */
import { EsError } from '../../protocol/errors.ts';
import type { Mapping } from '../../protocol/mapping.ts';
import { hashId } from './columns/id-hash.ts';
import { LiveVersionMap, type DocEntry, type PendingBuffer } from './live-version-map.ts';
import { LocalCheckpointTracker } from './local-checkpoint.ts';
import { newShardCounters } from './shard-counters.ts';
import type { ShardCounters } from '../../protocol/metadata.ts';
import { ReaderManager } from './reader-manager.ts';
import type { Segment } from './segment.ts';
import { SegmentBuilder } from './segment-builder.ts';
import type { SegmentView } from './segment-merge.ts';
import { PRUNE_SLICE_MS } from './tombstone-gc.ts';
import type { Translog } from './translog.ts';

/** A segment of the shard with its live docs. */
export interface SegState {
  segment: Segment;
  /** null = all live. Shared with a published generation when `shared`: copy before writing. */
  live: Uint8Array | null;
  shared: boolean;
  liveCount: number;
}

/** What a shard's state is made from (shard.ts `ShardOptions`, defaults applied). */
export interface ShardStateOptions {
  index: string;
  shard: number;
  getMapping: () => Mapping;
  updateMapping: (update: Mapping) => void;
  translog: Translog;
  now: () => number;
  gcDeletesMs: number;
}

/** One shard copy's shared state. */
export class ShardState {
  readonly index: string;
  readonly shard: number;
  readonly getMapping: () => Mapping;
  readonly updateMapping: (update: Mapping) => void;
  readonly translog: Translog;
  readonly now: () => number;
  /** Unrefreshed writes and delete tombstones (ES `LiveVersionMap`). */
  readonly versions: LiveVersionMap;
  /** The published generation and the retained ones. */
  readonly readers: ReaderManager;
  /** Processed seq_nos of this copy (ES local checkpoint); a peer recovery waits for it (local-checkpoint.ts). */
  readonly checkpoints = new LocalCheckpointTracker();
  /** Operation counters since the node started (`GET /_stats`, shard-counters.ts). */
  readonly counters: ShardCounters = newShardCounters();
  /** Unrefreshed docs (Lucene's in-memory segment); null when empty. */
  buffer: PendingBuffer | null = null;
  /** Buffers whose sealing failed, sealed first by the next refreshes (one each). */
  readonly unsealed: PendingBuffer[] = [];
  /** The segments, oldest first. */
  segs: SegState[] = [];
  /** True when some writes are not in the latest generation (nor in a refresh running). */
  dirty = false;
  /** True between the start and the end of a refresh (sealing in slices). */
  sealing = false;
  /** The highest sequence number assigned (-1 before the first write). */
  seqNo = -1;
  /** The global checkpoint as this copy knows it (shard.ts `globalCheckpoint`). */
  globalCp = -1;
  /** The shard's primary term (shard.ts `primaryTerm`). */
  primaryTerm = 1;
  /** Called after the global checkpoint moved on, or a recovery fast-forwarded the local checkpoint. */
  onCheckpointsMoved: (() => void) | null = null;

  constructor(opts: ShardStateOptions) {
    this.index = opts.index;
    this.shard = opts.shard;
    this.getMapping = opts.getMapping;
    this.updateMapping = opts.updateMapping;
    this.translog = opts.translog;
    this.now = opts.now;
    this.readers = new ReaderManager(opts.getMapping, opts.now);
    this.versions = new LiveVersionMap(opts.now, opts.gcDeletesMs, {
      localCheckpoint: () => this.checkpoints.checkpoint,
      currentGeneration: () => this.readers.latest.id,
    });
  }

  /** Throws an {@link EsError} (a write's failure, reported per op). */
  fail(status: number, type: string, reason: string): never {
    throw new EsError(status, type, reason);
  }

  /**
   * The newest state of `id`: its live-version-map entry (an unrefreshed write or a tombstone),
   * else its live copy in the newest segment holding one (version and seq_no from the segment's
   * columns, as ES resolves a version from the index when the live version map has none).
   */
  lookup(id: string): DocEntry | undefined {
    const e = this.versions.entries.get(id);
    if (e !== undefined) return e;
    const hash = hashId(id);
    for (let i = this.segs.length - 1; i >= 0; i--) {
      const st = this.segs[i];
      const ord = st.segment.idToOrd.get(id, hash);
      if (ord >= 0 && (!st.live || st.live[ord]))
        return { version: st.segment.versions[ord], seqNo: st.segment.seqNos[ord], deleted: false, seg: st.segment, buf: null, ord };
    }
    return undefined;
  }

  /** Removes the live copy of a doc: from the buffer, or from its segment's live docs (copy-on-write). */
  removeLive(e: DocEntry): void {
    this.dirty = true;
    if (e.buf) {
      e.buf.dead.add(e.ord); // a buffer being sealed: its refresh carries the death over (shard-refresh.ts)
      return;
    }
    const st = this.segs.find((s) => s.segment === e.seg);
    if (!st) return;
    if (!st.live) {
      st.live = new Uint8Array(st.segment.maxDoc).fill(1);
      st.shared = false;
    } else if (st.shared) {
      st.live = st.live.slice();
      st.shared = false;
    }
    if (st.live[e.ord]) {
      st.live[e.ord] = 0;
      st.liveCount--;
    }
  }

  /** The buffer new writes go to (a new one while the previous is being sealed). */
  writeBuffer(): PendingBuffer {
    this.buffer ??= { builder: new SegmentBuilder(), dead: new Set() };
    return this.buffer;
  }

  /**
   * The generation a new tombstone counts as made under: while a refresh runs, the one it will
   * publish (which may still show the deleted doc), so that the tombstone counts as refreshed only
   * once the next refresh is published (tombstone-gc.ts).
   */
  tombstoneGeneration(): number {
    return this.sealing ? this.readers.latest.id + 1 : this.readers.latest.id;
  }

  /** A segment as a generation holds it. */
  view(s: SegState): SegmentView {
    return { segment: s.segment, live: s.live, liveCount: s.liveCount };
  }

  /** Puts `merged` where the first of `chosen` was and drops the others (the merge policy's picks, in order). */
  replaceMerged(chosen: readonly SegState[], merged: SegState): void {
    const set = new Set(chosen);
    const at = this.segs.indexOf(chosen[0]);
    this.segs = this.segs.flatMap((s, i) => (i === at ? [merged] : set.has(s) ? [] : [s]));
  }

  /**
   * Publishes `views` as the new current generation (the end of a refresh, or a merge swapped in);
   * ops up to `seqNo` are in it. Writes made after the refresh started stay pending (`dirty`).
   */
  publish(views: SegmentView[], seqNo: number): void {
    this.translog.trim?.(seqNo);
    for (const s of this.segs) s.shared = true;
    this.readers.publish(views);
    this.versions.maybePrune(PRUNE_SLICE_MS);
  }
}
