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
