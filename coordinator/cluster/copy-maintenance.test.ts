import { describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import type { CopyView, IndexView } from './index-view.ts';
import { PROMOTE_AFTER_MISSED_LOADS, plannedActions } from './copy-maintenance.ts';

const copy = (node: number, primary: boolean, inSync = true, hosted = true): CopyView => ({ node, primary, inSync, hosted });
const view = (copies: CopyView[][]): IndexView => ({
  metadata: { name: 'i', numberOfShards: copies.length, numberOfReplicas: 1, shardCopies: copies } as unknown as IndexMetadata,
  placement: copies.map((l) => l.find((c) => c.primary)!.node),
  copies,
});

describe('plannedActions', () => {
  it('recovers out-of-sync replicas whose node answers and hosts them, while the primary answers', () => {
    const v = view([
      [copy(0, true), copy(1, false, false)],
      [copy(1, true), copy(2, false, false, false)],
      [copy(2, true), copy(0, false)],
    ]);
    expect(plannedActions([v], [0, 0, 0])).toEqual([{ kind: 'recover', index: 'i', shard: 0, node: 1 }]);
    // The target's node missed the last load, or the primary's: nothing to recover from or to.
    expect(plannedActions([v], [0, 1, 0])).toEqual([]);
    expect(plannedActions([v], [1, 0, 0])).toEqual([]);
  });

  it(`promotes the first in-sync replica that answers once the primary's node missed ${PROMOTE_AFTER_MISSED_LOADS} loads`, () => {
    const v = view([
      [copy(0, true), copy(1, false, false), copy(2, false)],
      [copy(1, true), copy(0, false)],
    ]);
    expect(plannedActions([v], [PROMOTE_AFTER_MISSED_LOADS - 1, 0, 0])).toEqual([]);
    expect(plannedActions([v], [PROMOTE_AFTER_MISSED_LOADS, 0, 0])).toEqual([{ kind: 'promote', index: 'i', shard: 0, node: 2 }]);
    // No in-sync replica reachable: the shard stays red.
    expect(plannedActions([v], [PROMOTE_AFTER_MISSED_LOADS, 0, 3])).toEqual([]);
  });

  it("promotes at once when the primary's node departed (its membership lease ended), and recovers nothing to or from a departed node", () => {
    const v = view([
      [copy(0, true), copy(1, false), copy(2, false, false)],
      [copy(1, true), copy(2, false, false)],
    ]);
    // Node 0 answered the last load, but its key is gone from the store: it left the cluster.
    expect(plannedActions([v], [0, 0, 0], [true, false, false])).toEqual([
      { kind: 'promote', index: 'i', shard: 0, node: 1 },
      { kind: 'recover', index: 'i', shard: 1, node: 2 },
    ]);
    // A departed replica is neither promoted nor recovered into, however its loads went.
    expect(plannedActions([v], [PROMOTE_AFTER_MISSED_LOADS, 0, 0], [false, true, false])).toEqual([]);
    expect(plannedActions([v], [0, 0, 0], [false, false, true])).toEqual([]);
  });

  it('fails over from a copy its node reports failed (a translog commit failed: issue 10, scenario 6)', () => {
    const failed = (c: CopyView): CopyView => ({ ...c, hosted: false, failed: true });
    // A failed primary whose node answers: its in-sync replica is promoted at once.
    const primaryFailed = view([[failed(copy(0, true)), copy(1, false)]]);
    expect(plannedActions([primaryFailed], [0, 0])).toEqual([{ kind: 'promote', index: 'i', shard: 0, node: 1 }]);
    // A failed in-sync replica leaves the in-sync set; once out of sync, it is recovered (emptied first).
    expect(plannedActions([view([[copy(0, true), failed(copy(1, false))]])], [0, 0])).toEqual([{ kind: 'fail', index: 'i', shard: 0, node: 1 }]);
    expect(plannedActions([view([[copy(0, true), failed(copy(1, false, false))]])], [0, 0])).toEqual([{ kind: 'recover', index: 'i', shard: 0, node: 1 }]);
    // A replica the primary's forwarded write failed on leaves the in-sync set, even while its node is down.
    expect(plannedActions([view([[copy(0, true), { ...copy(1, false), pendingFailure: true }]])], [0, 3])).toEqual([
      { kind: 'fail', index: 'i', shard: 0, node: 1 },
    ]);
    // A failed replica is never the heir.
    expect(plannedActions([view([[failed(copy(0, true)), failed(copy(1, false))]])], [0, 0])).toEqual([]);
  });

  it('ignores indices from before replicas (no copy list)', () => {
    const v = view([[copy(0, true)]]);
    delete v.metadata.shardCopies;
    expect(plannedActions([v], [5])).toEqual([]);
  });
});
