/**
 * Batched shard calls (`POST /_internal/v1/batch`): when several searches on the coordinator ask
 * the same shard node for search rounds in the same event-loop turn, they travel as one HTTP
 * request and one reply instead of one each (coordinator/transport/shard-batcher.ts). The request is JSON
 * ({@link BatchRequest}); the reply is a sequence of frames, one per call in order, each holding
 * exactly the body (and status) the single call would have answered: a binary hits body
 * (protocol/wire.ts) or a JSON body, error bodies included.
 *
 * Reply layout (little-endian; every frame body starts at a multiple of 8 so the hits decoder
 * reads its typed arrays without copying):
 * ```
 *  0 "FOLB" magic   4 u8 version (1)   5 pad 3   8 u32 count   12 u32 0
 * 16 per frame:  u16 status, u8 kind (0 JSON, 1 hits), u8 0, u32 bodyBytes, body, pad 8
 * ```
 */
import { pad8, WireDecodeError } from './wire-strings.ts';

/** Media type of the batch reply. */
export const BATCH_CONTENT_TYPE = 'application/x-folio-batch';

/** One call of a batch: the internal endpoint's tail (`query`, `fetch`, …), its JSON body, and whether it accepts the hits format. */
export interface BatchCall {
  path: string;
  body: unknown;
  hits: boolean;
}

/** Body of `POST /_internal/v1/batch`. */
export interface BatchRequest {
  calls: BatchCall[];
}

/** One frame of a batch reply: what the single call would have answered. */
export interface BatchFrame {
  status: number;
  /** True: `body` is an `application/x-folio-hits` body; false: JSON (UTF-8). */
  hits: boolean;
  body: Uint8Array;
}

const MAGIC = 0x424c4f46; // "FOLB" read as little-endian u32
const VERSION = 1;
const HEADER_BYTES = 16;
const FRAME_HEADER_BYTES = 8;

/** Encodes the frames of a batch reply (over its own ArrayBuffer, so 8-aligned). */
export function encodeBatch(frames: readonly BatchFrame[]): Uint8Array<ArrayBuffer> {
  let size = HEADER_BYTES;
  for (const f of frames) size += FRAME_HEADER_BYTES + pad8(f.body.byteLength);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint8(4, VERSION);
  view.setUint32(8, frames.length, true);
  let pos = HEADER_BYTES;
  for (const f of frames) {
    view.setUint16(pos, f.status, true);
    view.setUint8(pos + 2, f.hits ? 1 : 0);
    view.setUint32(pos + 4, f.body.byteLength, true);
    out.set(f.body, pos + FRAME_HEADER_BYTES);
    pos += FRAME_HEADER_BYTES + pad8(f.body.byteLength);
  }
  return out;
}

/**
 * Splits a batch reply into its frames (views into `body`, no copies).
 * @throws WireDecodeError on a bad magic or version, or frames that overrun the body
 */
export function decodeBatch(body: Uint8Array): BatchFrame[] {
  if (body.byteLength < HEADER_BYTES) throw new WireDecodeError(`batch reply of ${body.byteLength} bytes is shorter than its header`);
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new WireDecodeError('bad magic (not an x-folio-batch body)');
  const version = view.getUint8(4);
  if (version !== VERSION) throw new WireDecodeError(`unsupported batch version ${version}`);
  const count = view.getUint32(8, true);
  const frames: BatchFrame[] = [];
  let pos = HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    if (pos + FRAME_HEADER_BYTES > body.byteLength) throw new WireDecodeError(`frame ${i} starts past the end`);
    const status = view.getUint16(pos, true);
    const hits = view.getUint8(pos + 2) === 1;
    const len = view.getUint32(pos + 4, true);
    const start = pos + FRAME_HEADER_BYTES;
    if (start + len > body.byteLength) throw new WireDecodeError(`frame ${i} overruns the body`);
    frames.push({ status, hits, body: body.subarray(start, start + len) });
    pos = start + pad8(len);
  }
  if (pos !== body.byteLength) throw new WireDecodeError(`${body.byteLength - pos} trailing bytes`);
  return frames;
}
