/**
 * What a primary pins for one peer recovery and reads page by page (ES `RecoverySourceHandler`):
 * - `ops` mode: the translog's ops above the target's local checkpoint, up to the primary's max
 *   seq_no when the recovery started, kept by a retention hold (ES peer-recovery retention lease)
 *   and read in seq_no order a page at a time;
 * - `full` mode: every `_id`'s latest state at one instant (ES phase 1 copies the files of a pinned
 *   safe commit): the segments and their live-docs bitmaps as they were (segments are immutable,
 *   live bitmaps copy-on-write, so holding them is the pin), plus the unrefreshed writes and delete
 *   tombstones copied at that instant.
 * Either way the snapshot is read lazily, one op at a time, so memory stays at one page however
 * large the shard is, and released at the end, on failure, or after an idle timeout.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoverySourceHandler.java
 */
import type { Segment } from './segment.ts';
import type { Translog, TranslogOp } from './translog.ts';

/** A pinned, lazily read recovery source. */
export interface RecoverySnapshot {
  readonly mode: 'ops' | 'full';
  /** The primary's max seq_no when the snapshot was pinned: the target holds every op up to it once all is applied. */
  readonly upTo: number;
  /** The next op, or null when the snapshot is exhausted. */
  next(): TranslogOp | null;
  /** Unpins what the snapshot holds (idempotent). */
  release(): void;
}

/** Ops read from the translog per page of an ops-mode snapshot. */
const OPS_PAGE = 256;

/** An ops-mode snapshot: the translog's ops in (`fromSeqNo`, `upTo`], held by `release`. */
export class OpsSnapshot implements RecoverySnapshot {
  readonly mode = 'ops' as const;
  readonly upTo: number;
  private readonly translog: Translog;
  private cursor: number;
  private page: TranslogOp[] = [];
  private pos = 0;
  private done = false;
  private readonly unhold: () => void;

  constructor(translog: Translog, fromSeqNo: number, upTo: number, unhold: () => void) {
    this.translog = translog;
    this.cursor = fromSeqNo;
    this.upTo = upTo;
    this.unhold = unhold;
  }

  next(): TranslogOp | null {
    if (this.pos >= this.page.length) {
      if (this.done) return null;
      this.page = this.translog.readOps!(this.cursor, this.upTo, OPS_PAGE);
      this.pos = 0;
      if (this.page.length < OPS_PAGE) this.done = true;
      if (this.page.length === 0) return null;
      this.cursor = this.page[this.page.length - 1].seqNo;
    }
    return this.page[this.pos++];
  }

  release(): void {
    this.done = true;
    this.page = [];
    this.unhold();
  }
}

/** One pinned segment of a full snapshot: the segment and its live-docs bitmap at pin time (null: all live). */
export interface PinnedSegment {
  segment: Segment;
  live: Uint8Array | null;
}

/**
 * A full-mode snapshot: the live documents of the pinned segments, except the `_id`s in `superseded`
 * (they have an unrefreshed write or a tombstone), then `extra` (those writes and tombstones).
 */
export class FullSnapshot implements RecoverySnapshot {
  readonly mode = 'full' as const;
  readonly upTo: number;
  private segments: PinnedSegment[];
  private extra: TranslogOp[];
  private readonly superseded: ReadonlySet<string>;
  private seg = 0;
  private ord = 0;
  private extraPos = 0;

  constructor(segments: PinnedSegment[], extra: TranslogOp[], superseded: ReadonlySet<string>, upTo: number) {
    this.segments = segments;
    this.extra = extra;
    this.superseded = superseded;
    this.upTo = upTo;
  }

  next(): TranslogOp | null {
    while (this.seg < this.segments.length) {
      const { segment, live } = this.segments[this.seg];
      while (this.ord < segment.maxDoc) {
        const ord = this.ord++;
        if (live && !live[ord]) continue;
        const id = segment.ids.get(ord);
        if (this.superseded.has(id)) continue;
        const routing = segment.routings?.get(ord);
        return {
          op: 'index',
          _id: id,
          json: segment.source(ord),
          seqNo: segment.seqNos[ord],
          version: segment.versions[ord],
          ...(routing !== undefined ? { routing } : {}),
        };
      }
      this.seg++;
      this.ord = 0;
    }
    return this.extraPos < this.extra.length ? this.extra[this.extraPos++] : null;
  }

  release(): void {
    this.segments = [];
    this.extra = [];
  }
}
