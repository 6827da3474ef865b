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
}

/** A translog kept in memory (not durable): for tests and until the durable one lands. */
export class MemoryTranslog implements Translog {
  readonly ops: TranslogOp[] = [];
  append(ops: readonly TranslogOp[]): void {
    for (const o of ops) this.ops.push(o);
  }
}
