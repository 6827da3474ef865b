/**
 * The write-ahead log behind a shard: every accepted write, resolved to what must be replayed
 * (`update`s are logged as the resulting `index`), with its sequence number and version. Mirrors
 * ES's translog operations; the in-memory implementation is a stand-in for a durable one.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules-translog.html
 */

/** One accepted operation as the translog records it. */
export type TranslogOp =
  | { op: 'index'; _id: string; source: Record<string, unknown>; seqNo: number; version: number }
  | { op: 'delete'; _id: string; seqNo: number; version: number };

/** Storage for accepted operations. `append` must be durable when it returns (for durable impls). */
export interface Translog {
  append(ops: readonly TranslogOp[]): void;
  /**
   * Called after each refresh with the highest sequence number now held by sealed segments: ops up
   * to it need no replay from this log while the segments live (ES trims at a Lucene commit).
   */
  trim?(upToSeqNo: number): void;
}

/**
 * A translog kept in memory (not durable): for tests and until the durable one lands. It drops the
 * ops a refresh has sealed into segments, since in memory the segments are the store of record;
 * keeping every `_source` object here would cost more heap than the segments themselves.
 */
export class MemoryTranslog implements Translog {
  ops: TranslogOp[] = [];
  append(ops: readonly TranslogOp[]): void {
    for (const o of ops) this.ops.push(o);
  }
  trim(upToSeqNo: number): void {
    if (this.ops.length > 0 && this.ops[0].seqNo <= upToSeqNo) this.ops = this.ops.filter((o) => o.seqNo > upToSeqNo);
  }
}
