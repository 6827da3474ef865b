/**
 * The write-ahead log behind a shard: every accepted write, resolved to what must be replayed
 * (`update`s are logged as the resulting `index`), with its sequence number and version. Mirrors
 * ES's translog operations. The durable implementation is shard-node/storage/shard-store.ts; the
 * in-memory one here serves tests and stores without a data directory.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules-translog.html
 */

/**
 * One accepted operation as the translog records it. `json` is the document's `_source` text
 * exactly as it was indexed (the client's bytes, or an update's merged document serialized once), and
 * `routing` the custom routing it was indexed with (absent: none):
 * the durable store writes it as is, and recovery parses it to index it again.
 */
export type TranslogOp =
  { op: 'index'; _id: string; json: string; seqNo: number; version: number; routing?: string } | { op: 'delete'; _id: string; seqNo: number; version: number };

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
  /**
   * Keeps every op above `fromSeqNo` in the log until the returned release is called (ES's
   * peer-recovery retention lease: flushes and trims leave those ops for a paged ops-based
   * recovery, {@link Translog.readOps}); null when the log no longer holds them all.
   */
  retainOps?(fromSeqNo: number): (() => void) | null;
  /**
   * Up to `limit` ops with `afterSeqNo` < seq_no ≤ `upToSeqNo`, in seq_no order (one page of an
   * ops-based recovery; the range must be retained, {@link Translog.retainOps}).
   */
  readOps?(afterSeqNo: number, upToSeqNo: number, limit: number): TranslogOp[];
}

/**
 * Retention holds on a translog (ES retention leases): each hold keeps the ops above its seq_no.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules-history-retention.html
 */
export class RetentionHolds {
  private readonly holds = new Map<number, number>();
  private nextId = 0;

  /** Adds a hold of the ops above `fromSeqNo`; the returned function releases it (idempotent). */
  add(fromSeqNo: number): () => void {
    const id = this.nextId++;
    this.holds.set(id, fromSeqNo);
    return () => {
      this.holds.delete(id);
    };
  }

  /** The lowest held seq_no (ops above it must stay), or Infinity when nothing is held. */
  get floor(): number {
    let min = Infinity;
    for (const s of this.holds.values()) if (s < min) min = s;
    return min;
  }

  /** Holds in force. */
  get size(): number {
    return this.holds.size;
  }
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
  private readonly holds = new RetentionHolds();
  append(ops: readonly TranslogOp[]): void {
    for (const o of ops) this.ops.push(o);
  }
  trim(upToSeqNo: number): void {
    const upTo = Math.min(upToSeqNo, this.holds.floor); // a running recovery's ops stay
    if (upTo > this.trimmedTo) this.trimmedTo = upTo;
    if (this.ops.length > 0 && this.ops[0].seqNo <= upTo) this.ops = this.ops.filter((o) => o.seqNo > upTo);
  }
  retainOps(fromSeqNo: number): (() => void) | null {
    return fromSeqNo < this.trimmedTo ? null : this.holds.add(fromSeqNo);
  }
  readOps(afterSeqNo: number, upToSeqNo: number, limit: number): TranslogOp[] {
    const out: TranslogOp[] = [];
    for (const o of this.ops) if (o.seqNo > afterSeqNo && o.seqNo <= upToSeqNo) out.push(o);
    out.sort((a, b) => a.seqNo - b.seqNo);
    return out.length > limit ? out.slice(0, limit) : out;
  }
  opsSince(fromSeqNo: number): TranslogOp[] | null {
    if (fromSeqNo < this.trimmedTo) return null;
    return this.ops.filter((o) => o.seqNo > fromSeqNo).sort((a, b) => a.seqNo - b.seqNo);
  }
}
