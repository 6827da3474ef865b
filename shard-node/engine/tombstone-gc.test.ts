import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { newShard } from '../../test/support/engine-shard.ts';
import { canPruneTombstone, DEFAULT_GC_DELETES_MS, pruneDue } from './tombstone-gc.ts';
import type { TranslogOp } from './translog.ts';

const index = (id: string, n = 1) => ({ op: 'index' as const, _id: id, source: JSON.stringify({ n }), create: false });
const del = (id: string) => ({ op: 'delete' as const, _id: id });

/** A shard on a hand-driven clock (epoch ms). */
function clocked(gcDeletesMs?: number) {
  let t = 1_000_000;
  const { shard } = newShard(undefined, () => t);
  if (gcDeletesMs !== undefined) shard.gcDeletesMs = gcDeletesMs;
  return { shard, advance: (ms: number) => (t += ms) };
}

describe('canPruneTombstone / pruneDue (ES LiveVersionMap.canRemoveTombstone, maybePruneDeletes)', () => {
  const bounds = { maxTimestampMs: 100, maxSeqNo: 10, currentGeneration: 5 };
  it('needs all three: older than gc_deletes, at or below the local checkpoint, refreshed', () => {
    expect(canPruneTombstone({ deletedAt: 99, seqNo: 10, generation: 4 }, bounds)).toBe(true);
    expect(canPruneTombstone({ deletedAt: 100, seqNo: 10, generation: 4 }, bounds)).toBe(false);
    expect(canPruneTombstone({ deletedAt: 99, seqNo: 11, generation: 4 }, bounds)).toBe(false);
    expect(canPruneTombstone({ deletedAt: 99, seqNo: 10, generation: 5 }, bounds)).toBe(false);
  });
  it('a pass is due after a quarter of gc_deletes, always with gc_deletes -1 or 0', () => {
    expect(pruneDue(15_000, 0, 60_000)).toBe(false);
    expect(pruneDue(15_001, 0, 60_000)).toBe(true);
    expect(pruneDue(0, 0, -1)).toBe(true);
    expect(pruneDue(0, 0, 0)).toBe(false);
    expect(pruneDue(1, 0, 0)).toBe(true);
  });
});

describe('shard: delete tombstones after index.gc_deletes', () => {
  it('defaults to 60 s; a tombstone goes once older than that and refreshed, and the id then has no record', () => {
    const { shard, advance } = clocked();
    expect(shard.gcDeletesMs).toBe(DEFAULT_GC_DELETES_MS);
    shard.apply([index('a'), index('a')]);
    expect(shard.apply([del('a'), del('never')]).map((r) => [r.result, r._version])).toEqual([
      ['deleted', 3],
      ['not_found', 1],
    ]);
    expect(shard.versionMapStats()).toEqual({ entries: 2, tombstones: 2 });
    advance(DEFAULT_GC_DELETES_MS + 1);
    expect(shard.pruneTombstones()).toBe(0); // old enough, but not refreshed yet
    shard.refresh();
    expect(shard.pruneTombstones()).toBe(2);
    expect(shard.versionMapStats()).toEqual({ entries: 0, tombstones: 0 });
    // ES after the tombstone is collected: the version sequence starts over, a delete is not_found at 1.
    expect(shard.apply([index('a')])[0]).toMatchObject({ status: 201, result: 'created', _version: 1 });
    expect(shard.apply([del('never')])[0]).toMatchObject({ status: 404, result: 'not_found', _version: 1 });
  });

  it('keeps a tombstone younger than gc_deletes: the version sequence continues', () => {
    const { shard, advance } = clocked(30_000);
    shard.apply([index('a'), del('a')]);
    shard.refresh();
    advance(29_000);
    expect(shard.pruneTombstones()).toBe(0);
    expect(shard.apply([index('a')])[0]).toMatchObject({ result: 'created', _version: 3 });
  });

  it('gc_deletes is dynamic; -1 collects a tombstone as soon as it is refreshed', () => {
    const { shard } = clocked();
    shard.apply([del('x')]);
    shard.refresh();
    expect(shard.versionMapStats().tombstones).toBe(1);
    shard.gcDeletesMs = -1;
    expect(shard.maybePruneTombstones()).toBe(1);
  });

  it('a refresh runs the due pass; a delete of a missing id is a change to refresh', () => {
    const { shard, advance } = clocked();
    shard.apply([del('never')]);
    expect(shard.hasPendingWrites).toBe(true);
    advance(DEFAULT_GC_DELETES_MS + 1);
    shard.refresh();
    expect(shard.versionMapStats().tombstones).toBe(0);
  });

  it('an idle shard prunes on the next due pass (maybePruneTombstones, as the refresh timer calls it)', () => {
    const { shard, advance } = clocked(1_000);
    shard.apply([del('x')]);
    shard.refresh();
    advance(200);
    expect(shard.maybePruneTombstones()).toBe(0); // not due: less than gc_deletes / 4 since the last pass
    advance(1_000);
    expect(shard.maybePruneTombstones()).toBe(1);
  });

  it('a replica keeps a tombstone above its local checkpoint, and a late older op never resurrects the doc', () => {
    const { shard, advance } = clocked(1_000);
    const op = (o: 'index' | 'delete', id: string, seqNo: number): TranslogOp =>
      o === 'index' ? { op: 'index', _id: id, json: `{"seqNo":${seqNo}}`, seqNo, version: seqNo + 1 } : { op: 'delete', _id: id, seqNo, version: seqNo + 1 };
    // seq 0 arrives; the delete (seq 2) overtakes the index (seq 1) of the same id.
    shard.applyReplicated([op('index', 'other', 0), op('delete', 'd', 2)]);
    expect(shard.localCheckpoint).toBe(0); // a gap at 1
    shard.refresh();
    advance(5_000);
    expect(shard.pruneTombstones()).toBe(0); // seq 2 > checkpoint 0: the tombstone must stay
    expect(shard.applyReplicated([op('index', 'd', 1)])).toEqual([]); // stale: the tombstone says so
    expect(shard.localCheckpoint).toBe(2);
    expect(shard.pruneTombstones()).toBe(1);
    // The tombstone is gone; the same late op (a duplicate delivery) is still stale by the checkpoint.
    expect(shard.applyReplicated([op('index', 'd', 1)])).toEqual([]);
    shard.refresh();
    expect(shard.get('d').found).toBe(false);
    // Newer ops on the id apply as usual.
    expect(shard.applyReplicated([op('index', 'd', 3)]).map((o) => o.seqNo)).toEqual([3]);
    expect(shard.get('d')).toMatchObject({ found: true, _seq_no: 3 });
  });

  it('a full recovery drops what the primary no longer has, even when its tombstone was collected', () => {
    const { shard: primary, advance } = clocked(1_000);
    const { shard: target } = newShard();
    primary.apply([index('keep'), index('gone'), index('late')]);
    target.applyRecovery(primary.snapshotOps(), primary.maxSeqNo, 'r1'); // an earlier full copy
    primary.apply([del('gone')]); // the target misses this delete (out of sync)
    primary.refresh();
    advance(5_000);
    expect(primary.pruneTombstones()).toBe(1); // no trace of `gone` left on the primary
    const snap = primary.snapshotOps();
    const upTo = primary.maxSeqNo;
    expect(snap.map((o) => o._id).sort()).toEqual(['keep', 'late']);
    // A live write that reaches the target during the copy (above upTo) must survive the sweep.
    const live = primary.apply([index('fresh')])[0];
    target.applyReplicated([{ op: 'index', _id: 'fresh', json: '{"n":1}', seqNo: live._seq_no!, version: live._version! }]);
    target.applyRecovery(snap.slice(0, 1), undefined, 'r2');
    target.applyRecovery(snap.slice(1), upTo, 'r2');
    target.refresh();
    expect(['keep', 'gone', 'late', 'fresh'].map((id) => target.get(id).found)).toEqual([true, false, true, true]);
    expect(target.stats().docs).toBe(3);
  });

  it('an ops-based recovery chunk (no fullRecoveryId) drops nothing', () => {
    const { shard: target } = newShard();
    target.apply([index('mine')]);
    target.applyRecovery([], 5);
    target.refresh();
    expect(target.get('mine').found).toBe(true);
  });

  it('a pass cut in pieces (maybePruneTombstones with maxMs) goes on at the next calls and prunes exactly what a full pass prunes', () => {
    const { shard, advance } = clocked();
    shard.apply([...Array.from({ length: 20_000 }, (_, i) => del(`old-${i}`)), index('live')]);
    shard.refresh(); // no pass due yet: less than gc_deletes / 4 since the shard opened
    advance(DEFAULT_GC_DELETES_MS + 1);
    let pruned = shard.maybePruneTombstones(0);
    expect([pruned, shard.pruneRunning]).toEqual([1024, true]); // one clock check's worth
    let calls = 1;
    while (shard.pruneRunning && calls < 5) {
      pruned += shard.maybePruneTombstones(0);
      calls++;
    }
    expect([pruned, shard.versionMapStats().tombstones]).toEqual([5 * 1024, 20_000 - 5 * 1024]);
    shard.apply([del('young')]); // a write goes on with the pass too (for up to PRUNE_SLICE_MS); its tombstone is not refreshed
    while (shard.pruneRunning) shard.maybePruneTombstones(0);
    expect(shard.versionMapStats()).toEqual({ entries: 1, tombstones: 1 });
    expect(shard.maybePruneTombstones(0)).toBe(0); // not due again yet
  });

  it('heap: 200k deletes of never-existing ids, before and after the tombstones are collected', () => {
    setFlagsFromString('--expose_gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const { shard, advance } = clocked();
    const base = heap();
    const DELETES = 200_000;
    const BATCH = 1_000;
    for (let i = 0; i < DELETES; i += BATCH) {
      const ops = Array.from({ length: BATCH }, (_, j) => del(`${(i + j).toString(36)}-${Math.random().toString(36).slice(2)}`));
      shard.apply(ops);
    }
    shard.refresh();
    const withTombstones = heap();
    expect(shard.versionMapStats().tombstones).toBe(DELETES);
    advance(DEFAULT_GC_DELETES_MS + 1);
    expect(shard.maybePruneTombstones()).toBe(DELETES);
    const afterGc = heap();
    const grew = withTombstones - base;
    const left = afterGc - base;
    console.info(
      `tombstone heap: base ${(base / 2 ** 20).toFixed(1)} MiB, after ${DELETES} deletes +${(grew / 2 ** 20).toFixed(1)} MiB (${Math.round(grew / DELETES)} B/tombstone), after gc_deletes +${(left / 2 ** 20).toFixed(1)} MiB`,
    );
    expect(grew).toBeGreaterThan(DELETES * 50); // the tombstones were really held (≥ 50 B each)
    expect(left).toBeLessThan(grew * 0.2); // and are really gone
  });
});
