/**
 * The body of one peer-recovery chunk (`application/x-folio-recovery-ops`): ops back to back, each
 * `kind` (u8: 0 index, 1 delete, 2 index with a custom routing), `seqNo` and `version` (f64 LE), `_id`
 * (u32 LE byte length + UTF-8), for an index op its `_source` text (u32 LE byte length + UTF-8, byte
 * for byte as stored), and for kind 2 its `_routing` (u32 LE byte length + UTF-8).
 * The primary writes it, the coordinator relays it untouched, the target reads it: no JSON escaping
 * of every `_source` and no JSON parse of megabytes in one event-loop task (ES sends recovery chunks
 * as binary transport messages too). Both ends work in slices that yield to the event loop.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoveryTranslogOperationsRequest.java
 */
import { EsError } from '../protocol/errors.ts';
import { EventLoopSlices } from '../shared/event-loop-slices.ts';
import type { TranslogOp } from './engine/translog.ts';

/** Content type of a recovery chunk body. */
export const RECOVERY_OPS_CONTENT_TYPE = 'application/x-folio-recovery-ops';

const HEAD_BYTES = 1 + 8 + 8 + 4;

/** Bytes `op` takes in a chunk. */
export function encodedSize(op: TranslogOp): number {
  if (op.op !== 'index') return HEAD_BYTES + Buffer.byteLength(op._id, 'utf8');
  return (
    HEAD_BYTES +
    Buffer.byteLength(op._id, 'utf8') +
    4 +
    Buffer.byteLength(op.json, 'utf8') +
    (op.routing !== undefined ? 4 + Buffer.byteLength(op.routing, 'utf8') : 0)
  );
}

/** Writes `ops` (whose {@link encodedSize}s add up to `total`) into one buffer, yielding between slices. */
export async function encodeRecoveryOps(ops: readonly TranslogOp[], total: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(total);
  const slices = new EventLoopSlices();
  let at = 0;
  for (const op of ops) {
    buf.writeUInt8(op.op === 'delete' ? 1 : op.routing !== undefined ? 2 : 0, at);
    buf.writeDoubleLE(op.seqNo, at + 1);
    buf.writeDoubleLE(op.version, at + 9);
    const idBytes = buf.write(op._id, at + HEAD_BYTES, 'utf8');
    buf.writeUInt32LE(idBytes, at + 17);
    at += HEAD_BYTES + idBytes;
    if (op.op === 'index') {
      const srcBytes = buf.write(op.json, at + 4, 'utf8');
      buf.writeUInt32LE(srcBytes, at);
      at += 4 + srcBytes;
      if (op.routing !== undefined) {
        const routingBytes = buf.write(op.routing, at + 4, 'utf8');
        buf.writeUInt32LE(routingBytes, at);
        at += 4 + routingBytes;
      }
    }
    await slices.tick();
  }
  if (at !== total) throw new Error(`recovery chunk: wrote ${at} bytes, sized ${total}`);
  return buf;
}

/**
 * Reads a chunk body back into translog ops, yielding between slices.
 * @throws EsError 400 `illegal_argument_exception` for a truncated or malformed body
 */
export async function decodeRecoveryOps(bytes: Uint8Array): Promise<TranslogOp[]> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const slices = new EventLoopSlices();
  const ops: TranslogOp[] = [];
  const bad = (): never => {
    throw new EsError(400, 'illegal_argument_exception', `malformed recovery chunk at byte [${at}] of [${buf.length}]`);
  };
  let at = 0;
  while (at < buf.length) {
    if (at + HEAD_BYTES > buf.length) bad();
    const kind = buf.readUInt8(at);
    const seqNo = buf.readDoubleLE(at + 1);
    const version = buf.readDoubleLE(at + 9);
    const idBytes = buf.readUInt32LE(at + 17);
    const idEnd = at + HEAD_BYTES + idBytes;
    if (idEnd > buf.length || kind > 2) bad();
    const _id = buf.toString('utf8', at + HEAD_BYTES, idEnd);
    at = idEnd;
    if (kind === 1) ops.push({ op: 'delete', _id, seqNo, version });
    else {
      if (at + 4 > buf.length) bad();
      const end = at + 4 + buf.readUInt32LE(at);
      if (end > buf.length) bad();
      const json = buf.toString('utf8', at + 4, end);
      at = end;
      if (kind === 2) {
        if (at + 4 > buf.length) bad();
        const routingEnd = at + 4 + buf.readUInt32LE(at);
        if (routingEnd > buf.length) bad();
        ops.push({ op: 'index', _id, json, seqNo, version, routing: buf.toString('utf8', at + 4, routingEnd) });
        at = routingEnd;
      } else ops.push({ op: 'index', _id, json, seqNo, version });
    }
    await slices.tick();
  }
  return ops;
}
