import { describe, expect, it } from 'vitest';
import type { TranslogOp } from './translog.ts';
import { newShard } from './test-helpers.ts';

const index = (id: string, n: number) => ({ op: 'index' as const, _id: id, source: JSON.stringify({ n }), create: false });

describe('shard: the two ends of a peer recovery', () => {
  it('snapshotOps: every _id once, refreshed or not, with its version and seq_no, tombstones included', () => {
    const { shard } = newShard();
    shard.apply([index('a', 1), index('b', 1), index('c', 1)]);
    shard.refresh();
    shard.apply([index('a', 2), { op: 'delete', _id: 'b' }, index('d', 1)]); // not refreshed
    const snap = shard.snapshotOps().map((o) => [o.op, o._id, o.seqNo, o.version, o.op === 'index' ? JSON.parse(o.json).n : null]);
    expect(snap).toEqual([['index', 'c', 2, 1, 1], ['index', 'a', 3, 2, 2], ['delete', 'b', 4, 2, null], ['index', 'd', 5, 1, 1]]);
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
