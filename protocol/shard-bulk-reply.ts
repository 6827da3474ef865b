/**
 * The shard node's bulk reply ({@link ShardBulkResponse}) as NDJSON, so that the coordinator reads a
 * reply of 50,000 items line by line in slices that yield to the event loop, where one
 * `JSON.parse` of the whole reply held its event loop for tens of milliseconds (docs/reliability.md,
 * the abuse suite). A coordinator asks for it with `accept: application/x-ndjson`; without that
 * header the node answers the same reply as one JSON object.
 *
 * The lines: first a head, the reply without its items and with their count instead,
 * `{"node":…,"index":…,"shard":…,"forcedRefresh":…,"replicas":{…},"items":N}` (`replicas` only
 * when the primary forwarded the ops), then the N items ({@link WriteResult}) one per line. Each
 * line is the `JSON.stringify` of its value, so every item field (`_seq_no`, `_primary_term`,
 * `_version`, `result`, `status`, `error`) comes back exactly.
 * @see https://github.com/ndjson/ndjson-spec
 */
import type { ShardBulkResponse, WriteResult } from './write.ts';
import { NDJSON_CONTENT_TYPE, ndjsonSliced } from '../shared/sliced-json.ts';
import { WriteResultColumns, type OpIds } from './write-result-columns.ts';

/** Whether a bulk call's `accept` header asks for the NDJSON reply. */
export function acceptsNdjson(accept: string | undefined): boolean {
  return accept !== undefined && accept.toLowerCase().includes(NDJSON_CONTENT_TYPE);
}

/** The first line of the NDJSON bulk reply: the reply without its items, and their count. */
interface ShardBulkReplyHead extends Omit<ShardBulkResponse, 'items'> {
  items: number;
}

/** The NDJSON text of `reply` (see the module comment), built in slices. */
export async function encodeShardBulkReply(reply: ShardBulkResponse): Promise<string> {
  const { items, ...rest } = reply;
  return ndjsonSliced(lines({ ...rest, items: items.length }, items));
}

function* lines(head: ShardBulkReplyHead, items: readonly WriteResult[]): Generator<unknown> {
  yield head;
  yield* items;
}

/**
 * The reply that {@link encodeShardBulkReply} encoded, from its parsed lines.
 * @throws Error when the lines do not match the head's counts (a cut or mis-encoded reply)
 */
export function decodeShardBulkReply(values: readonly unknown[]): ShardBulkResponse {
  const head = values[0] as ShardBulkReplyHead | undefined;
  if (head === undefined || typeof head !== 'object' || typeof head.items !== 'number') throw new Error('the shard bulk reply has no head line');
  if (values.length !== 1 + head.items) throw new Error(`the shard bulk reply has ${values.length - 1} lines after its head, ${head.items} announced`);
  const { items, ...rest } = head;
  return { ...rest, items: values.slice(1) as WriteResult[] };
}

/** A shard bulk reply whose items are held as columns (protocol/write-result-columns.ts). */
export interface CompactShardBulkReply extends Omit<ShardBulkResponse, 'items'> {
  items: WriteResultColumns;
}

/**
 * Reads the NDJSON reply of {@link encodeShardBulkReply} line by line as it arrives
 * ({@link ShardBulkReplyReader.line}, e.g. a shard call's `onNdjsonLine`), each item stored in
 * columns and its parsed line dropped: a reply of 50,000 items is never held as 50,000 objects.
 * The same reply as {@link decodeShardBulkReply}, items aside.
 */
export class ShardBulkReplyReader {
  private readonly ids: OpIds;
  private head: ShardBulkReplyHead | undefined;
  private items: WriteResultColumns | undefined;
  private lines = 0;
  private noHead = false;

  /** A reader of the reply to ops whose `_id`s are `ids`, in order (a list, or op `j`'s `_id`). */
  constructor(ids: OpIds) {
    this.ids = ids;
  }

  /** Takes the next parsed line. */
  line(value: unknown): void {
    if (this.head === undefined && !this.noHead) {
      const head = value as ShardBulkReplyHead | undefined;
      if (head === undefined || head === null || typeof head !== 'object' || typeof head.items !== 'number') this.noHead = true;
      else {
        this.head = head;
        this.items = new WriteResultColumns(head.items, this.ids);
      }
      return;
    }
    if (this.items !== undefined && this.lines < this.items.length) this.items.set(this.lines, value as WriteResult);
    this.lines++;
  }

  /**
   * The reply read.
   * @throws Error when the lines do not match the head's counts (a cut or mis-encoded reply), as {@link decodeShardBulkReply}
   */
  reply(): CompactShardBulkReply {
    const head = this.head;
    if (head === undefined) throw new Error('the shard bulk reply has no head line');
    if (this.lines !== head.items) throw new Error(`the shard bulk reply has ${this.lines} lines after its head, ${head.items} announced`);
    const { items, ...rest } = head;
    return { ...rest, items: this.items! };
  }
}
