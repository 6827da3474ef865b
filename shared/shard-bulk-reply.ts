/**
 * The shard node's bulk reply ({@link ShardBulkResponse}) as NDJSON, so that the coordinator reads a
 * reply of 50,000 items line by line in slices that yield to the event loop, where one
 * `JSON.parse` of the whole reply held its event loop for tens of milliseconds (docs/reliability.md,
 * the abuse suite). A coordinator asks for it with `accept: application/x-ndjson`; without that
 * header the node answers the same reply as one JSON object.
 *
 * The lines: first a head, the reply without its arrays and with their lengths instead,
 * `{"node":…,"index":…,"shard":…,"forcedRefresh":…,"replicationGroup":[…],"items":N,"replicaOps":M}`
 * (`replicaOps` and `replicationGroup` only when the reply has them), then the N items
 * ({@link WriteResult}) one per line, then the M replica ops ({@link ReplicaOp}) one per line. Each
 * line is the `JSON.stringify` of its value, so every item field (`_seq_no`, `_primary_term`,
 * `_version`, `result`, `status`, `error`) comes back exactly.
 * @see https://github.com/ndjson/ndjson-spec
 */
import type { ReplicaOp, ShardBulkResponse, WriteResult } from './protocol.ts';
import { NDJSON_CONTENT_TYPE, ndjsonSliced } from './sliced-json.ts';

/** Whether a bulk call's `accept` header asks for the NDJSON reply. */
export function acceptsNdjson(accept: string | undefined): boolean {
  return accept !== undefined && accept.toLowerCase().includes(NDJSON_CONTENT_TYPE);
}

/** The first line of the NDJSON bulk reply: the reply's scalars and the lengths of its arrays. */
interface ShardBulkReplyHead extends Omit<ShardBulkResponse, 'items' | 'replicaOps'> {
  items: number;
  replicaOps?: number;
}

/** The NDJSON text of `reply` (see the module comment), built in slices. */
export async function encodeShardBulkReply(reply: ShardBulkResponse): Promise<string> {
  const { items, replicaOps, ...rest } = reply;
  const head: ShardBulkReplyHead = { ...rest, items: items.length, ...(replicaOps !== undefined ? { replicaOps: replicaOps.length } : {}) };
  return ndjsonSliced(lines(head, items, replicaOps ?? []));
}

function* lines(head: ShardBulkReplyHead, items: readonly WriteResult[], replicaOps: readonly ReplicaOp[]): Generator<unknown> {
  yield head;
  yield* items;
  yield* replicaOps;
}

/**
 * The reply that {@link encodeShardBulkReply} encoded, from its parsed lines.
 * @throws Error when the lines do not match the head's counts (a cut or mis-encoded reply)
 */
export function decodeShardBulkReply(values: readonly unknown[]): ShardBulkResponse {
  const head = values[0] as ShardBulkReplyHead | undefined;
  if (head === undefined || typeof head !== 'object' || typeof head.items !== 'number') throw new Error('the shard bulk reply has no head line');
  const ops = head.replicaOps ?? 0;
  if (values.length !== 1 + head.items + ops) throw new Error(`the shard bulk reply has ${values.length - 1} lines after its head, ${head.items + ops} announced`);
  const { items, replicaOps, ...rest } = head;
  return {
    ...rest,
    items: values.slice(1, 1 + items) as WriteResult[],
    ...(replicaOps !== undefined ? { replicaOps: values.slice(1 + items) as ReplicaOp[] } : {}),
  };
}
