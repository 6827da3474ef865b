/**
 * One shard's share of a bulk as bytes (issue 11): its write ops as the UTF-8 of their JSON array,
 * the text the shard request carries (`ShardBulkRequest.ops`), and the positions of their items in
 * the request in a typed array. 50,000 ops were held as objects (and their `_id` strings) for the
 * whole write, promoted by the scavenger; as bytes they stay outside V8's heap, and the request body
 * is these bytes between its head and tail, never serialized again (docs/reliability.md).
 */
import type { WriteOp } from '../../protocol/write.ts';

const INITIAL_OPS = 64;
/**
 * Characters of op text gathered before they are encoded as one piece of bytes: under V8's
 * large-object size, so the text dies young; the pieces are never copied to grow, and are
 * concatenated once, into the request body.
 */
const PENDING_CHARS = 32 * 1024;

/** A shard's ops, built: their JSON array text as bytes, their count, and each op's `_id`. */
export interface ShardOps {
  /** The number of ops. */
  readonly count: number;
  /** `JSON.stringify(ops)` as UTF-8, in pieces (concatenated once, into the request body). */
  readonly json: readonly Buffer[];
  /** The `_id` of op `j` (undefined past the last), a string made on each call. */
  id(j: number): string | undefined;
}

/** Collects a shard's ops one at a time, in request order, with their items' positions. */
export class ShardOpsBuilder {
  /** The bytes written, in pieces of about {@link PENDING_CHARS} bytes. */
  #chunks: Buffer[] = [];
  #positions = new Int32Array(INITIAL_OPS);
  #count = 0;
  /** Ops' text not yet written into {@link ShardOpsBuilder.#bytes}. */
  #pending = '';

  /** The number of ops added. */
  get count(): number {
    return this.#count;
  }

  /** Adds `op`, the write of the item at `position` in the request. */
  add(position: number, op: WriteOp): void {
    this.#addText(position, JSON.stringify(op));
  }

  /** Adds a delete of `_id` `id` without conditions (`{op: 'delete', _id}`), the write of the item at `position`. */
  addDelete(position: number, id: string): void {
    this.#addText(position, `{"op":"delete","_id":${JSON.stringify(id)}}`);
  }

  /** The position in the request of op `j`'s item. */
  position(j: number): number {
    return this.#positions[j];
  }

  /** The ops added, their `_id`s read through `idOfPosition` (the item's `_id` at a request position). */
  build(idOfPosition: (position: number) => string): ShardOps {
    this.#flush();
    const count = this.#count;
    const json = count === 0 ? [Buffer.from('[]')] : [...this.#chunks, Buffer.from(']')];
    const positions = this.#positions;
    return { count, json, id: (j) => (j < count ? idOfPosition(positions[j]) : undefined) };
  }

  #addText(position: number, json: string): void {
    if (this.#count === this.#positions.length) {
      const grown = new Int32Array(this.#positions.length * 2);
      grown.set(this.#positions);
      this.#positions = grown;
    }
    this.#positions[this.#count] = position;
    this.#pending += this.#count === 0 ? `[${json}` : `,${json}`;
    this.#count++;
    if (this.#pending.length >= PENDING_CHARS) this.#flush();
  }

  /** Encodes the pending text as a piece of bytes (one per {@link PENDING_CHARS} characters, not one per op). */
  #flush(): void {
    const text = this.#pending;
    this.#pending = '';
    if (text !== '') this.#chunks.push(Buffer.from(text, 'utf8'));
  }
}

/** `ops` as {@link ShardOps} (a single document's write, a by-query batch). */
export function shardOpsOf(ops: readonly WriteOp[]): ShardOps {
  const builder = new ShardOpsBuilder();
  ops.forEach((op, j) => builder.add(j, op));
  return builder.build((j) => ops[j]._id);
}
