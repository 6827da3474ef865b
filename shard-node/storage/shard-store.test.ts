import { copyFileSync, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TranslogOp } from '../engine/translog.ts';
import { CHECKPOINTS_RECORD_MS, ShardStore, type ShardStoreOptions } from './shard-store.ts';
import { FlushPolicy, shouldFlush } from './flush-policy.ts';

const dirs: string[] = [];
const stores: ShardStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(opts: Partial<ShardStoreOptions> = {}, path?: string): ShardStore {
  if (!path) {
    const dir = mkdtempSync(join(tmpdir(), 'folio-store-'));
    dirs.push(dir);
    path = join(dir, 'a', '0', 'shard.sqlite');
  }
  const s = ShardStore.open({ path, ...opts });
  stores.push(s);
  return s;
}

function idx(id: string, seqNo: number, version = 1, source: Record<string, unknown> = { id }): TranslogOp {
  return { op: 'index', _id: id, json: JSON.stringify(source), seqNo, version };
}

/** Rows committed to the file, read through a second connection (what a restart would see). */
function committed(path: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const a = db.prepare('SELECT count(*) AS n FROM translog').get() as { n: number };
    const b = db.prepare('SELECT count(*) AS n FROM docs').get() as { n: number };
    return a.n + b.n;
  } finally {
    db.close();
  }
}

describe('ShardStore translog', () => {
  it('acknowledges (sync resolves) only after the ops are committed to disk', async () => {
    const s = open();
    s.append([idx('a', 0), idx('b', 1)]);
    const acked = s.sync();
    expect(committed(s.path)).toBe(0);
    await acked;
    expect(committed(s.path)).toBe(2);
    expect(s.stats()).toMatchObject({ translogOps: 2, commits: 1, committedOps: 2 });
  });

  it('group commit: bulks appended in the same event-loop turn share one fsynced transaction', async () => {
    const s = open();
    const acks: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      s.append([idx(`d${i}`, i)]);
      acks.push(s.sync());
    }
    await Promise.all(acks);
    expect(s.stats()).toMatchObject({ commits: 1, committedOps: 20 });
    s.append([idx('late', 20)]);
    await s.sync();
    expect(s.stats().commits).toBe(2);
  });

  it('replays recorded ops in seq_no order with their versions, deletes as tombstones', async () => {
    const s = open();
    s.append([idx('a', 0), idx('a', 1, 2, { n: 2 }), { op: 'delete', _id: 'b', seqNo: 2, version: 1 }]);
    await s.sync();
    const again = open({}, s.path);
    expect([...again.recoveredOps()].map((o) => [o.op, o._id, o.seqNo, o.version, o.op === 'index' ? JSON.parse(o.json) : null])).toEqual([
      ['index', 'a', 0, 1, { id: 'a' }],
      ['index', 'a', 1, 2, { n: 2 }],
      ['delete', 'b', 2, 1, null],
    ]);
  });

  it('drops a torn last transaction whole (WAL checksum), keeping the ones before it', async () => {
    const s = open();
    s.append([idx('first', 0)]);
    await s.sync();
    const walBefore = statSync(`${s.path}-wal`).size;
    s.append(Array.from({ length: 50 }, (_, i) => idx(`torn${i}`, i + 1, 1, { text: 'x'.repeat(1000) })));
    await s.sync();
    const walAfter = statSync(`${s.path}-wal`).size;
    expect(walAfter).toBeGreaterThan(walBefore + 8192);
    // A crash mid-write: copy the files as they are on disk and cut the WAL in the middle of the last transaction.
    const crashed = join(dirs[0], 'crashed.sqlite');
    copyFileSync(s.path, crashed);
    copyFileSync(`${s.path}-wal`, `${crashed}-wal`);
    truncateSync(`${crashed}-wal`, walBefore + Math.floor((walAfter - walBefore) / 2));
    const recovered = open({}, crashed);
    expect([...recovered.recoveredOps()].map((o) => o._id)).toEqual(['first']);
  });

  it('async durability acknowledges at once and commits every sync interval', async () => {
    const s = open({ durability: 'async', syncIntervalMs: 30 });
    s.append([idx('a', 0)]);
    await s.sync();
    expect(committed(s.path)).toBe(0);
    await new Promise((r) => setTimeout(r, 120));
    expect(committed(s.path)).toBe(1);
  });

  it('flush folds the translog into the snapshot in chunks and trims it; later ops stay in the translog', async () => {
    const s = open({ flushChunkOps: 7 });
    const ops: TranslogOp[] = [];
    for (let i = 0; i < 30; i++) ops.push(idx(`d${i % 10}`, i, Math.floor(i / 10) + 1, { i }));
    ops.push({ op: 'delete', _id: 'd3', seqNo: 30, version: 4 });
    s.append(ops);
    await s.sync();
    expect(await s.flush()).toBe(31);
    expect(s.stats()).toMatchObject({ translogOps: 0, translogBytes: 0, flushedSeqNo: 30 });
    s.append([idx('d0', 31, 4, { i: 'after' })]);
    await s.sync();
    const again = open({}, s.path);
    const rec = [...again.recoveredOps()];
    // 10 snapshot rows (d3 a tombstone), then the one translog op.
    expect(rec).toHaveLength(11);
    expect(rec.find((o) => o._id === 'd3')).toMatchObject({ op: 'delete', version: 4, seqNo: 30 });
    expect(rec.find((o) => o._id === 'd5')).toMatchObject({ op: 'index', version: 3, seqNo: 25, json: '{"i":25}' });
    expect(rec.at(-1)).toMatchObject({ _id: 'd0', seqNo: 31, json: '{"i":"after"}' });
    expect(again.stats()).toMatchObject({ translogOps: 1, flushedSeqNo: 30 });
  });

  it('flush folds only up to the local checkpoint and below retention holds; readOps pages the held ops, written or pending', async () => {
    const s = open({ flushChunkOps: 3 });
    let checkpoint = 5;
    s.checkpointSource = () => ({ local: checkpoint, global: checkpoint - 2 });
    expect(s.recordedGlobalCheckpoint()).toBe(-1);
    s.append(Array.from({ length: 10 }, (_, i) => idx(`d${i}`, i)));
    await s.sync();
    await s.flush();
    expect(s.stats()).toMatchObject({ flushedSeqNo: 5, translogOps: 4 }); // 6..9 stay: above the checkpoint
    expect([s.recordedLocalCheckpoint(), s.recordedGlobalCheckpoint()]).toEqual([5, 3]);
    checkpoint = 9;
    const release = s.retainOps(6)!;
    expect(s.retainOps(4)).toBeNull(); // folded already
    await s.flush();
    expect(s.stats()).toMatchObject({ flushedSeqNo: 6, translogOps: 3 }); // held above 6
    s.append([idx('p', 10)]); // pending, not committed yet
    expect(s.readOps(6, 10, 2).map((o) => o.seqNo)).toEqual([7, 8]);
    expect(s.readOps(8, 10, 5).map((o) => o.seqNo)).toEqual([9, 10]);
    expect(s.readOps(8, 9, 5).map((o) => o.seqNo)).toEqual([9]);
    release();
    checkpoint = 10;
    await s.flush();
    expect(s.stats()).toMatchObject({ flushedSeqNo: 10, translogOps: 0 });
  });

  it('records moved checkpoints within a second, after the ops pending by then are committed', async () => {
    const s = open();
    let global = 4;
    s.checkpointSource = () => ({ local: 9, global });
    s.append(Array.from({ length: 10 }, (_, i) => idx(`g${i}`, i)));
    s.recordCheckpointsSoon();
    s.recordCheckpointsSoon(); // shares the pending one
    expect(s.recordedGlobalCheckpoint()).toBe(-1);
    await new Promise((r) => setTimeout(r, CHECKPOINTS_RECORD_MS + 200));
    expect(s.recordedGlobalCheckpoint()).toBe(4);
    expect(s.recordedLocalCheckpoint()).toBe(9);
    global = 9;
    s.recordCheckpointsSoon();
    await new Promise((r) => setTimeout(r, CHECKPOINTS_RECORD_MS + 200));
    expect(s.recordedGlobalCheckpoint()).toBe(9);
  });

  it('rejects acknowledgements once a commit failed', async () => {
    const s = open();
    s.append([idx('a', 0)]);
    await s.sync();
    s.append([idx('dup', 0)]); // same seq_no: the commit fails (primary key)
    await expect(s.sync()).rejects.toThrow(/translog commit failed/);
    s.append([idx('b', 1)]);
    await expect(s.sync()).rejects.toThrow(/translog commit failed/);
  });
});

describe('flush policy', () => {
  it('flushes past the size threshold or the age limit, never an empty translog', () => {
    const now = 1_000_000;
    expect(shouldFlush({ translogOps: 0, translogBytes: 0, lastFlushAt: 0 }, {}, now)).toBe(false);
    expect(shouldFlush({ translogOps: 1, translogBytes: 100, lastFlushAt: now }, { flushThresholdBytes: 100 }, now)).toBe(true);
    expect(shouldFlush({ translogOps: 1, translogBytes: 99, lastFlushAt: now - 10 }, { flushThresholdBytes: 100, flushIntervalMs: 10 }, now)).toBe(true);
    expect(shouldFlush({ translogOps: 1, translogBytes: 99, lastFlushAt: now - 9 }, { flushThresholdBytes: 100, flushIntervalMs: 10 }, now)).toBe(false);
  });

  it('reports each automatic flush with its duration', async () => {
    const store = open();
    store.append([idx('a', 0), idx('b', 1)]);
    await store.sync();
    const timed: [ShardStore, number][] = [];
    const policy = new FlushPolicy(
      { flushThresholdBytes: 1 },
      () => [store],
      undefined,
      (s, seconds) => timed.push([s, seconds]),
    );
    policy.check();
    await vi.waitFor(() => expect(timed).toHaveLength(1));
    expect(timed[0][0]).toBe(store);
    expect(timed[0][1]).toBeGreaterThan(0);
    expect(store.stats().translogOps).toBe(0);
  });
});

describe('sliced group commit', () => {
  it('commitNow (flush, close) finishes the batch being written, in seq_no order', async () => {
    const s = open({ commitSliceMs: 0 });
    s.append(Array.from({ length: 500 }, (_, i) => idx(`d${i}`, i)));
    const done = s.sync();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    await s.flush();
    await done;
    expect(committed(s.path)).toBe(500);
    expect([...s.recoveredOps()].map((o) => o.seqNo)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });
});

describe('sliced group commit and readers', () => {
  it('opsSince sees the ops of a batch being committed; a flush while it is open finishes it first', async () => {
    const s = open({ commitSliceMs: 0 });
    s.append(Array.from({ length: 600 }, (_, i) => idx(`d${i}`, i)));
    const done = s.sync();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(s.opsSince(-1)!.map((o) => o.seqNo)).toEqual(Array.from({ length: 600 }, (_, i) => i));
    s.append([idx('late', 600)]);
    const late = s.sync();
    expect(await s.flush()).toBeGreaterThanOrEqual(600);
    await Promise.all([done, late]);
    expect(committed(s.path)).toBe(601);
  });
});

describe('ShardStore custom routing', () => {
  it("keeps each document's routing through the translog, a flush and a reopen", async () => {
    const s = open();
    s.append([{ ...idx('a', 0), routing: 'u1' } as TranslogOp, idx('b', 1)]);
    await s.sync();
    await s.flush();
    s.append([{ ...idx('c', 2), routing: 'u3' } as TranslogOp]);
    await s.sync();
    const path = s.path;
    s.close();
    stores.splice(stores.indexOf(s), 1);
    const reopened = open({}, path);
    const ops = [...reopened.recoveredOps()];
    expect(ops.map((o) => [o._id, o.op === 'index' ? o.routing : null])).toEqual([
      ['a', 'u1'],
      ['b', undefined],
      ['c', 'u3'],
    ]);
  });

  it('opens a store written before routings were kept (no routing column) and adds the column', () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-store-'));
    dirs.push(dir);
    const path = join(dir, 'old.sqlite');
    const db = new DatabaseSync(path);
    db.exec(`CREATE TABLE translog (seq_no INTEGER PRIMARY KEY, id TEXT NOT NULL, version INTEGER NOT NULL, source TEXT);
      CREATE TABLE docs (id TEXT PRIMARY KEY, seq_no INTEGER NOT NULL, version INTEGER NOT NULL, source TEXT);
      CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
      INSERT INTO translog VALUES (0, 'old', 1, '{"n":1}');`);
    db.close();
    const s = open({}, path);
    expect([...s.recoveredOps()]).toEqual([{ op: 'index', _id: 'old', json: '{"n":1}', seqNo: 0, version: 1 }]);
  });
});
