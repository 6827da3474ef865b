import { describe, expect, it } from 'vitest';
import type { TranslogOp } from './translog.ts';
import { newShard } from '../../test/support/engine-shard.ts';

const index = (id: string, n: number) => ({ op: 'index' as const, _id: id, source: JSON.stringify({ n }), create: false });

describe('shard: the two ends of a peer recovery', () => {
  it('snapshotOps: every _id once, refreshed or not, with its version and seq_no, tombstones included', () => {
    const { shard } = newShard();
    shard.apply([index('a', 1), index('b', 1), index('c', 1)]);
    shard.refresh();
    shard.apply([index('a', 2), { op: 'delete', _id: 'b' }, index('d', 1)]); // not refreshed
    const snap = shard.snapshotOps().map((o) => [o.op, o._id, o.seqNo, o.version, o.op === 'index' ? JSON.parse(o.json).n : null]);
    expect(snap).toEqual([
      ['index', 'c', 2, 1, 1],
      ['index', 'a', 3, 2, 2],
      ['delete', 'b', 4, 2, null],
      ['index', 'd', 5, 1, 1],
    ]);
  });

  it('a full copy applied to an empty copy reproduces the primary, and live writes that overtook it win', () => {
    const { shard: primary } = newShard();
    primary.apply([index('a', 1), index('b', 1)]);
    primary.refresh();
    primary.apply([index('b', 2), { op: 'delete', _id: 'a' }]);
    const snap = primary.snapshotOps();
    const upTo = primary.maxSeqNo;
    const live = primary.apply([index('b', 3)]); // after the snapshot: reaches the target live, before the copy
    const { shard: target } = newShard();
    target.applyReplicated([{ op: 'index', _id: 'b', json: '{"n":3}', seqNo: live[0]._seq_no!, version: live[0]._version! }]);
    expect(target.localCheckpoint).toBe(-1); // a gap below the live op
    target.applyRecovery(snap, upTo);
    expect(target.localCheckpoint).toBe(primary.maxSeqNo);
    target.refresh();
    expect(target.get('a').found).toBe(false);
    expect(target.get('b')).toMatchObject({ found: true, _version: 3, _source: '{"n":3}' });
    // A later index of the deleted id continues its version sequence on the copy as on the primary.
    expect(target.get('a')).toEqual(primary.get('a'));
  });

  it('opsSince: the ops above a seq_no while the translog holds them; null once trimmed by a refresh (in memory)', () => {
    const { shard } = newShard();
    shard.apply([index('a', 1), index('b', 1)]);
    expect(shard.opsSince(0)!.map((o: TranslogOp) => o.seqNo)).toEqual([1]);
    expect(shard.opsSince(1)).toEqual([]);
    shard.refresh();
    shard.apply([index('c', 1)]);
    expect(shard.opsSince(-1)).toBeNull();
    expect(shard.opsSince(1)!.map((o) => o._id)).toEqual(['c']);
  });

  it('the local checkpoint of a replica waits for gaps and counts superseded ops as processed', () => {
    const { shard } = newShard();
    const op = (id: string, seqNo: number): TranslogOp => ({ op: 'index', _id: id, json: '{}', seqNo, version: seqNo + 1 });
    shard.applyReplicated([op('a', 0), op('a', 2)]);
    expect(shard.localCheckpoint).toBe(0);
    shard.applyReplicated([op('a', 1)]); // older than what it holds for `a`: skipped, still processed
    expect([shard.localCheckpoint, shard.get('a')._version]).toEqual([2, 3]);
  });
});

describe('shard: a recovery snapshot pinned on the primary', () => {
  const drain = (snap: { next(): TranslogOp | null }) => {
    const out: TranslogOp[] = [];
    for (let op = snap.next(); op !== null; op = snap.next()) out.push(op);
    return out;
  };

  it('full: the state at the pin, whatever writes, deletes, refreshes and merges come after it', () => {
    const { shard } = newShard();
    shard.apply(Array.from({ length: 20 }, (_, i) => index(`d${i}`, i)));
    shard.refresh();
    shard.apply([index('d1', 100), { op: 'delete', _id: 'd2' }, index('u', 1)]); // unrefreshed at the pin
    const expected = shard.snapshotOps();
    const snap = shard.openRecoverySnapshot(null);
    expect([snap.mode, snap.upTo]).toEqual(['full', 22]);
    shard.apply([{ op: 'delete', _id: 'd3' }, index('d4', 400), index('late', 1), { op: 'delete', _id: 'u' }]);
    for (let i = 0; i < 5; i++) {
      shard.apply([index(`m${i}`, i)]);
      shard.refresh(); // new segments, merges: the pinned ones stay as they were
    }
    expect(drain(snap).sort((a, b) => a.seqNo - b.seqNo)).toEqual(expected);
    snap.release();
    expect(snap.next()).toBeNull();
  });

  it('ops: the translog above the target checkpoint up to the pin, held against trimming until released', () => {
    const { shard } = newShard();
    shard.apply([index('a', 1), index('b', 1), index('a', 2)]);
    const snap = shard.openRecoverySnapshot(0);
    expect([snap.mode, snap.upTo]).toEqual(['ops', 2]);
    shard.apply([index('c', 1)]);
    shard.refresh(); // would trim the in-memory translog: the hold keeps seq_nos 1 and 2
    expect(drain(snap).map((o) => [o._id, o.seqNo])).toEqual([
      ['b', 1],
      ['a', 2],
    ]);
    snap.release();
    shard.apply([index('d', 1)]);
    shard.refresh();
    expect(shard.openRecoverySnapshot(0).mode).toBe('full'); // released: trimmed since
    expect(shard.openRecoverySnapshot(shard.maxSeqNo)).toMatchObject({ mode: 'ops', upTo: shard.maxSeqNo });
  });

  it('a recovery applied in chunks does not keep every copied seq_no in the checkpoint tracker', async () => {
    const { shard: primary } = newShard();
    for (let r = 0; r < 3; r++) primary.apply(Array.from({ length: 100 }, (_, i) => index(`d${i}`, r))); // overwrites: gaps in the copy's seq_nos
    primary.refresh();
    const snap = primary.openRecoverySnapshot(null);
    const ops = drain(snap);
    const { shard: target } = newShard();
    const id = 'full-1';
    await target.applyRecoverySliced(ops.slice(0, 50), undefined, id);
    expect([target.localCheckpoint, (target as unknown as { checkpoints: { pending: number } }).checkpoints.pending]).toEqual([-1, 0]);
    await target.applyRecoverySliced(ops.slice(50), snap.upTo, id);
    expect(target.localCheckpoint).toBe(299);
    target.refresh();
    for (let i = 0; i < 100; i++) expect(target.get(`d${i}`)).toEqual(primary.get(`d${i}`));
  });

  it('promotion fills seq_no gaps: the checkpoint reaches the max seq_no and later writes do not pile up above a gap', () => {
    const { shard } = newShard();
    const op = (id: string, seqNo: number): TranslogOp => ({ op: 'index', _id: id, json: '{}', seqNo, version: 1 });
    shard.applyReplicated([op('a', 0), op('c', 2), op('d', 3)]); // seq_no 1 never arrived
    expect(shard.localCheckpoint).toBe(0);
    expect(shard.fillSeqNoGaps()).toBe(1);
    expect(shard.localCheckpoint).toBe(3);
    shard.apply([index('e', 1)]);
    expect(shard.localCheckpoint).toBe(4);
    expect((shard as unknown as { checkpoints: { pending: number } }).checkpoints.pending).toBe(0);
    expect(shard.fillSeqNoGaps()).toBe(0);
  });
});
