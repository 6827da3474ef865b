/**
 * The write-ahead log behind a shard: every accepted write, resolved to what must be replayed
 * (`update`s are logged as the resulting `index`), with its sequence number and version. Mirrors
 * ES's translog operations. The durable implementation is shard-node/storage/shard-store.ts; the
 * in-memory one here serves tests and stores without a data directory.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules-translog.html
 */

/**
 * One accepted operation as the translog records it. `json` is the document's `_source` text
 * exactly as it was indexed (the client's bytes, or an update's merged document serialized once):
 * the durable store writes it as is, and recovery parses it to index it again.
 */
export type TranslogOp =
  | { op: 'index'; _id: string; json: string; seqNo: number; version: number }
  | { op: 'delete'; _id: string; seqNo: number; version: number };

/** Storage for accepted operations. */
export interface Translog {
  /** Records accepted ops (in seq_no order). Durable only once a later {@link sync} resolves. */
  append(ops: readonly TranslogOp[]): void;
  /**
   * Resolves when every op appended so far is durable (fsynced), as ES acknowledges a write only
   * after `index.translog.durability: request` synced it. Rejects when the store failed to write.
   * Absent for non-durable logs.
   */
  sync?(): Promise<void>;
  /**
   * Called after each refresh with the highest sequence number now held by sealed segments: ops up
   * to it need no replay from this log while the segments live (ES trims at a Lucene commit).
   * Durable stores ignore it (segments are not persisted): they trim at a flush instead.
   */
  trim?(upToSeqNo: number): void;
  /**
   * The ops above `fromSeqNo` in seq_no order, or null when the log no longer holds them all (an
   * ops-based peer recovery needs them; without them the recovery copies every document).
   */
  opsSince?(fromSeqNo: number): TranslogOp[] | null;
}

/**
 * A translog kept in memory (not durable): for tests and nodes without a data directory. It drops
 * the ops a refresh has sealed into segments, since in memory the segments are the store of record;
 * keeping every `_source` object here would cost more heap than the segments themselves.
 */
export class MemoryTranslog implements Translog {
  ops: TranslogOp[] = [];
  /** Ops up to this seq_no were trimmed (-1: none). */
  private trimmedTo = -1;
  append(ops: readonly TranslogOp[]): void {
    for (const o of ops) this.ops.push(o);
  }
  trim(upToSeqNo: number): void {
    if (upToSeqNo > this.trimmedTo) this.trimmedTo = upToSeqNo;
    if (this.ops.length > 0 && this.ops[0].seqNo <= upToSeqNo) this.ops = this.ops.filter((o) => o.seqNo > upToSeqNo);
  }
  opsSince(fromSeqNo: number): TranslogOp[] | null {
    if (fromSeqNo < this.trimmedTo) return null;
    return this.ops.filter((o) => o.seqNo > fromSeqNo).sort((a, b) => a.seqNo - b.seqNo);
  }
}
