import { describe, expect, it } from 'vitest';
import { EsError } from '../protocol/errors.ts';
import type { TranslogOp } from './engine/translog.ts';
import { decodeRecoveryOps, encodedSize, encodeRecoveryOps } from './recovery-wire.ts';

describe('recovery chunk wire format', () => {
  it('round-trips index and delete ops byte for byte, multi-byte text and large numbers included', async () => {
    const ops: TranslogOp[] = [
      { op: 'index', _id: 'é-1', json: '{"name":"Zürich 東京 🙂","q":"a\\"b"}', seqNo: 0, version: 1 },
      { op: 'delete', _id: 'gone', seqNo: 1, version: 7 },
      { op: 'index', _id: '', json: '{}', seqNo: 2 ** 40, version: 2 ** 31 + 5 },
      { op: 'index', _id: 'r', json: '{"n":2}', seqNo: 2 ** 40 + 1, version: 1, routing: 'user-ü' },
    ];
    const total = ops.reduce((n, o) => n + encodedSize(o), 0);
    const bytes = await encodeRecoveryOps(ops, total);
    expect(bytes.byteLength).toBe(total);
    expect(await decodeRecoveryOps(bytes)).toEqual(ops);
    expect(await decodeRecoveryOps(new Uint8Array())).toEqual([]);
  });

  it('refuses a truncated body with a 400', async () => {
    const op: TranslogOp = { op: 'index', _id: 'a', json: '{"n":1}', seqNo: 3, version: 1 };
    const bytes = await encodeRecoveryOps([op], encodedSize(op));
    for (const cut of [5, bytes.byteLength - 1]) {
      const err = await decodeRecoveryOps(bytes.subarray(0, cut)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EsError);
      expect((err as EsError).status).toBe(400);
    }
  });
});
