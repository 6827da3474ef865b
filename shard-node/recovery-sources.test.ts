import { describe, expect, it } from 'vitest';
import type { RecoverySnapshot } from './engine/recovery-snapshot.ts';
import type { TranslogOp } from './engine/translog.ts';
import { RecoverySources } from './recovery-sources.ts';
import { decodeRecoveryOps } from './recovery-wire.ts';

/** A snapshot over `ops` that records its release. */
function snapshotOf(ops: TranslogOp[]): RecoverySnapshot & { released: boolean } {
  let i = 0;
  const s = {
    mode: 'full' as const,
    upTo: ops.length - 1,
    released: false,
    next: () => (i < ops.length ? ops[i++] : null),
    release: () => void (s.released = true),
  };
  return s;
}
const doc = (n: number, size = 100): TranslogOp => ({ op: 'index', _id: `d${n}`, json: JSON.stringify({ pad: 'x'.repeat(size) }), seqNo: n, version: 1 });

describe('RecoverySources: pinned recovery snapshots read in bounded chunks', () => {
  it('chunks are bounded by bytes and ops, every op once in order, and the last one releases the pin', async () => {
    const sources = new RecoverySources();
    const ops = Array.from({ length: 50 }, (_, n) => doc(n));
    const snap = snapshotOf(ops);
    const id = sources.open('i', 0, 1, snap);
    const seen: TranslogOp[] = [];
    let chunks = 0;
    for (;;) {
      const c = await sources.chunk(id, 'i', 0, 1_000, 7);
      chunks++;
      expect(c.body.byteLength).toBeLessThanOrEqual(1_000);
      expect(c.ops).toBeLessThanOrEqual(7);
      seen.push(...(await decodeRecoveryOps(c.body)));
      if (c.done) break;
      expect(snap.released).toBe(false);
    }
    expect(seen).toEqual(ops);
    expect(chunks).toBeGreaterThanOrEqual(50 / 7);
    expect([snap.released, sources.size]).toEqual([true, 0]);
    await expect(sources.chunk(id, 'i', 0, 1_000, 7)).rejects.toMatchObject({ status: 404, type: 'resource_not_found_exception' });
  });

  it('an op larger than the byte bound still goes, alone', async () => {
    const sources = new RecoverySources();
    const id = sources.open('i', 0, 1, snapshotOf([doc(0, 5_000), doc(1)]));
    const first = await sources.chunk(id, 'i', 0, 1_000, 100);
    expect([first.ops, first.done]).toEqual([1, false]);
    expect((await sources.chunk(id, 'i', 0, 1_000, 100)).done).toBe(true);
  });

  it('releases a pin when the same copy starts again, on release, and after the idle timeout', async () => {
    let now = 0;
    const sources = new RecoverySources(1_000, () => now);
    const a = snapshotOf([doc(0)]);
    sources.open('i', 0, 1, a);
    const b = snapshotOf([doc(0)]);
    const idB = sources.open('i', 0, 1, b);
    expect([a.released, b.released]).toEqual([true, false]);
    const c = snapshotOf([doc(0), doc(1)]);
    const idC = sources.open('i', 0, 2, c);
    now = 500;
    await sources.chunk(idC, 'i', 0, 1, 100); // reading renews C
    now = 999;
    expect(sources.sweep()).toBe(0);
    now = 1_000;
    expect(sources.sweep()).toBe(1); // B idle since 0
    expect([b.released, c.released]).toEqual([true, false]);
    now = 1_499;
    expect(sources.sweep()).toBe(0);
    sources.release(idB); // idempotent
    await expect(sources.chunk(idC, 'j', 0, 1, 100)).rejects.toMatchObject({ status: 409 });
    sources.release(idC);
    expect([c.released, sources.size]).toEqual([true, 0]);
  });
});
