import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TranslogOp } from '../engine/translog.ts';
import { SCHEMA } from './shard-store-schema.ts';
import { openDurableDatabase } from './sqlite.ts';
import { TranslogWriter, type TranslogWriterCounters } from './translog-writer.ts';

const dirs: string[] = [];
const dbs: DatabaseSync[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(commitSliceMs: number): { writer: TranslogWriter; counters: TranslogWriterCounters; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'folio-writer-'));
  dirs.push(dir);
  const path = join(dir, 'shard.sqlite');
  const db = openDurableDatabase(path);
  dbs.push(db);
  db.exec(SCHEMA);
  const counters: TranslogWriterCounters = { translogOps: 0, translogBytes: 0, commits: 0, committedOps: 0 };
  return { writer: new TranslogWriter({ db, path, commitSliceMs, onError: () => {}, counters }), counters, path };
}

function idx(id: string, seqNo: number): TranslogOp {
  return { op: 'index', _id: id, json: JSON.stringify({ id }), seqNo, version: 1 };
}

/** Rows committed to the translog, read through a second connection (what a restart would see). */
function committed(path: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM translog').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('sliced group commit', () => {
  it('writes a large batch in slices of one transaction, acknowledges once it is committed, and keeps later syncs waiting for it', async () => {
    const { writer: s, counters, path } = open(0);
    const ops = Array.from({ length: 1000 }, (_, i) => idx(`d${i}`, i));
    s.append(ops.slice(0, 900));
    const first = s.sync();
    let firstDone = false;
    void first.then(() => (firstDone = true));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(firstDone).toBe(false); // slices written inside one open transaction
    expect(committed(path)).toBe(0);
    const unwritten: number[] = [];
    s.forEachUnwritten((op) => unwritten.push(op.seqNo));
    expect(unwritten.length).toBeGreaterThan(0); // the batch's ops not written yet are visible to readers
    const second = s.sync(); // nothing pending: waits for the batch being written
    s.append(ops.slice(900));
    const third = s.sync();
    await Promise.all([first, second, third]);
    expect(counters).toMatchObject({ committedOps: 1000, commits: 2, translogOps: 1000 });
    expect(committed(path)).toBe(1000);
    s.forEachUnwritten(() => unwritten.push(-1));
    expect(unwritten).not.toContain(-1);
  });

  it('a closed writer commits what is pending and refuses appends', () => {
    const { writer: s, path } = open(10);
    s.append([idx('a', 0)]);
    s.close();
    expect(committed(path)).toBe(1);
    expect(() => s.append([idx('b', 1)])).toThrow(/is closed/);
  });
});
