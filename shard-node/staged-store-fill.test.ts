import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../protocol/metadata.ts';
import { decodeCommitPoint } from './engine/segment-file/commit-point.ts';
import { IndexRegistry } from './index-registry.ts';
import { StagedStoreFill } from './staged-store-fill.ts';
import { ShardStore } from './storage/shard-store.ts';

const dirs: string[] = [];
const open: IndexRegistry[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'folio-fill-'));
  dirs.push(d);
  return d;
}

const meta: IndexMetadata = {
  name: 'cities',
  uuid: 'u1',
  numberOfShards: 1,
  numberOfReplicas: 0,
  routingNumShards: 1,
  maxResultWindow: 10_000,
  refreshIntervalMs: -1,
  mappings: { properties: { name: { type: 'text' } } },
  creationDate: 1,
  version: 1,
};

/** A primary with two segments (one with an overwritten and a deleted doc) and its recovery commit: files, seq_no, and a hold above it. */
async function primaryCommit() {
  const r = new IndexRegistry('n1', { dataDir: tempDir() });
  open.push(r);
  r.putIndex(meta, [0]);
  const s = r.shard('cities', 0);
  s.apply(Array.from({ length: 30 }, (_, i) => ({ op: 'index' as const, _id: `c${i}`, source: JSON.stringify({ name: `city ${i}` }), create: false })));
  s.refresh();
  s.apply([
    { op: 'index', _id: 'c1', source: JSON.stringify({ name: 'renamed' }), create: false },
    { op: 'delete', _id: 'c2' },
    { op: 'index', _id: 'c30', source: JSON.stringify({ name: 'new' }), create: false },
  ]);
  await s.sync();
  return r.snapshotCopy('cities', 0).acquireRecoveryCommit();
}

describe('StagedStoreFill', () => {
  it('writes each segment as it arrives, in any order, then the tombstones and checkpoints: the store equals the commit', async () => {
    const commit = await primaryCommit();
    try {
      expect(commit.files.at(-1)).toBe(commit.commit);
      expect(commit.files.length).toBeGreaterThanOrEqual(3); // two segments and the commit point
      const staging = join(tempDir(), '0.recovering');
      mkdirSync(staging);
      const fill = new StagedStoreFill(staging);
      // A segment before the commit point (waits for it), then the commit point, then the rest.
      const [first, ...rest] = commit.files.filter((f) => f !== commit.commit);
      for (const f of [first, commit.commit, ...rest]) {
        copyFileSync(join(commit.dir, f), join(staging, f));
        await fill.fileReady(f);
      }
      const point = decodeCommitPoint(readFileSync(join(staging, commit.commit)), commit.commit);
      await fill.finish(point, commit.seqNo, commit.globalCheckpoint);

      const store = ShardStore.open({ path: join(staging, 'shard.sqlite') });
      try {
        const rows = new Map([...store.recoveredOps()].map((op) => [op._id, op]));
        expect(point.tombstones.map((t) => t.id)).toEqual(['c2']);
        expect(rows.size).toBe(30 + 1); // c0..c30 but c2, and c2's tombstone
        expect(rows.get('c1')).toMatchObject({ op: 'index', json: '{"name":"renamed"}', version: 2 });
        expect(rows.get('c30')).toMatchObject({ op: 'index', json: '{"name":"new"}' });
        expect(rows.get('c2')).toMatchObject({ op: 'delete', version: 2 });
        expect(store.recordedLocalCheckpoint()).toBe(commit.seqNo);
      } finally {
        store.close();
      }
    } finally {
      commit.release();
    }
  });

  it('a segment file that fails its checks fails the finish; the store is closed', async () => {
    const commit = await primaryCommit();
    try {
      const staging = join(tempDir(), '0.recovering');
      mkdirSync(staging);
      const fill = new StagedStoreFill(staging);
      for (const f of commit.files) copyFileSync(join(commit.dir, f), join(staging, f));
      const segment = commit.files[0];
      const bytes = readFileSync(join(staging, segment));
      bytes[100] ^= 1;
      writeFileSync(join(staging, segment), bytes);
      await fill.fileReady(commit.commit);
      const point = decodeCommitPoint(readFileSync(join(staging, commit.commit)), commit.commit);
      await expect(fill.finish(point, commit.seqNo, commit.globalCheckpoint)).rejects.toThrow(/checksum|corrupt|CRC/i);
    } finally {
      commit.release();
    }
  });
});
