import { describe, expect, it } from 'vitest';
import { decodeBatch, encodeBatch, type BatchFrame } from './wire-batch.ts';
import { WireDecodeError } from './wire-strings.ts';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('batch reply frames', () => {
  it('round-trips frames of any length, each body 8-aligned in the reply', () => {
    const frames: BatchFrame[] = [
      { status: 200, hits: true, body: Uint8Array.from({ length: 13 }, (_, i) => i) },
      { status: 404, hits: false, body: bytes('{"error":{"type":"index_not_found_exception"},"status":404}') },
      { status: 200, hits: false, body: new Uint8Array(0) },
      { status: 200, hits: true, body: new Uint8Array(16).fill(7) },
    ];
    const out = decodeBatch(encodeBatch(frames));
    expect(out.map((f) => [f.status, f.hits, [...f.body]])).toEqual(frames.map((f) => [f.status, f.hits, [...f.body]]));
    for (const f of out) expect(f.body.byteOffset % 8).toBe(0);
    expect(decodeBatch(encodeBatch([]))).toEqual([]);
  });

  it('rejects malformed replies', () => {
    const good = encodeBatch([{ status: 200, hits: false, body: bytes('{}') }]);
    expect(() => decodeBatch(good.subarray(0, 8))).toThrow(WireDecodeError);
    const badMagic = good.slice();
    badMagic[0] = 0;
    expect(() => decodeBatch(badMagic)).toThrow(/magic/);
    const overrun = good.slice();
    new DataView(overrun.buffer).setUint32(16 + 4, 1000, true);
    expect(() => decodeBatch(overrun)).toThrow(/overruns/);
    const extra = new Uint8Array(good.byteLength + 8);
    extra.set(good);
    expect(() => decodeBatch(extra)).toThrow(/trailing/);
  });
});
