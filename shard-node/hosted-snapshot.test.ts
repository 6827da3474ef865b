import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../protocol/metadata.ts';
import { shardDir } from '../shared/snapshots/repository-layout.ts';
import { deleteShardSnapshot, readShardSnapshot, snapshotShardFiles } from '../shared/snapshots/shard-blobs.ts';
import { IndexRegistry } from './index-registry.ts';
import { stageRestoredCopy } from './hosted-snapshot.ts';
import { shardStorePath } from './storage/metadata-store.ts';

const dirs: string[] = [];
const open: IndexRegistry[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'folio-snap-'));
  dirs.push(d);
  return d;
}

function registry(dir: string): IndexRegistry {
  const r = new IndexRegistry('n1', { dataDir: dir });
  open.push(r);
  return r;
}

const meta = (uuid: string): IndexMetadata => ({
  name: 'cities',
  uuid,
  numberOfShards: 1,
  numberOfReplicas: 0,
  routingNumShards: 1,
  maxResultWindow: 10_000,
  refreshIntervalMs: -1,
  mappings: { properties: { name: { type: 'text' } } },
  creationDate: 1,
  version: 1,
});

/** Snapshots shard 0 of `r` into `repo` as `snapshot`. */
async function snapshot(r: IndexRegistry, repo: string, name: string) {
  const commit = await r.snapshotCopy('cities', 0).acquireCommit();
  try {
    return await snapshotShardFiles({ dir: shardDir(repo, 'idx', 0), sourceDir: commit.dir, snapshot: name, files: commit.files, commit: commit.commit });
  } finally {
    commit.release();
  }
}

/** Restores snapshot `name` into a new registry over a fresh data directory. */
async function restore(repo: string, name: string, data = tempDir()): Promise<IndexRegistry> {
  const r = registry(data);
  r.putIndex(meta('uuid-restored'), [0]);
  const staging = r.snapshotCopy('cities', 0).restoreStaging();
  const snap = (await readShardSnapshot(shardDir(repo, 'idx', 0), name))!;
  await stageRestoredCopy(shardDir(repo, 'idx', 0), snap, staging);
  r.snapshotCopy('cities', 0).install(staging);
  return r;
}

const blobs = (repo: string) => readdirSync(shardDir(repo, 'idx', 0)).filter((n) => n.startsWith('__'));

describe('shard snapshots and restores', () => {
  it('snapshots a commit with every acknowledged write, copies only new files the second time, and restores them whole', async () => {
    const repo = tempDir();
    const r = registry(tempDir());
    r.putIndex(meta('uuid-1'), [0]);
    const s = r.shard('cities', 0);
    s.apply(Array.from({ length: 40 }, (_, i) => ({ op: 'index' as const, _id: `c${i}`, source: JSON.stringify({ name: `city ${i}` }), create: false })));
    s.apply([
      { op: 'update', _id: 'c1', doc: { name: 'renamed' }, docAsUpsert: false },
      { op: 'delete', _id: 'c2' },
    ]);
    await s.sync(); // not refreshed: the snapshot's refresh puts them in a segment

    const first = await snapshot(r, repo, 'snap-a');
    expect(first.incrementalFileCount).toBe(first.totalFileCount);
    expect(first.incrementalSize).toBe(first.totalSize);
    const afterFirst = blobs(repo);

    s.apply([{ op: 'index', _id: 'c99', source: JSON.stringify({ name: 'new' }), create: false }]);
    await s.sync();
    const second = await snapshot(r, repo, 'snap-b');
    // One new segment and a new commit point: the first segment's bytes are not copied again.
    expect(second.incrementalFileCount).toBe(2);
    expect(second.totalFileCount).toBe(first.totalFileCount + 1);
    const newBlobs = blobs(repo).filter((b) => !afterFirst.includes(b));
    expect(newBlobs).toHaveLength(2);
    expect(second.incrementalSize).toBe(newBlobs.reduce((n, b) => n + statSync(join(shardDir(repo, 'idx', 0), b)).size, 0));
    expect(second.incrementalSize).toBeLessThan(first.totalSize);

    const restored = await restore(repo, 'snap-a');
    const copy = restored.shard('cities', 0);
    expect(copy.stats().docs).toBe(39);
    expect(copy.get('c1')).toMatchObject({ found: true, _version: 2, _source: '{"name":"renamed"}' });
    expect(copy.get('c2').found).toBe(false);
    expect(copy.get('c99').found).toBe(false);
    expect(copy.localCheckpoint).toBe(41);
    expect(copy.maxSeqNo).toBe(41);
    // Seq_nos and versions go on from the snapshot's.
    const [res] = copy.apply([{ op: 'index', _id: 'c1', source: JSON.stringify({ name: 'again' }), create: false }]);
    expect(res).toMatchObject({ _seq_no: 42, _version: 3, result: 'updated' });
  });

  it('a restored copy survives a restart, and its SQLite snapshot alone rebuilds it', async () => {
    const repo = tempDir();
    const r = registry(tempDir());
    r.putIndex(meta('uuid-1'), [0]);
    const s = r.shard('cities', 0);
    s.apply(
      Array.from({ length: 10 }, (_, i) => ({
        op: 'index' as const,
        _id: `c${i}`,
        source: JSON.stringify({ name: `city ${i}` }),
        create: false,
        ...(i === 3 ? { routing: 'r3' } : {}),
      })),
    );
    s.apply([{ op: 'delete', _id: 'c0' }]);
    await s.sync();
    await snapshot(r, repo, 'snap-a');

    const data = tempDir();
    const restored = await restore(repo, 'snap-a', data);
    await restored.close();
    open.splice(open.indexOf(restored), 1);
    const again = registry(data);
    again.recover();
    expect(again.shard('cities', 0).stats().docs).toBe(9);
    expect(again.shard('cities', 0).get('c3')).toMatchObject({ found: true, _routing: 'r3' });
    await again.close();
    open.splice(open.indexOf(again), 1);

    // Without its segment files the copy rebuilds from the SQLite snapshot the restore wrote.
    const dir = dirname(shardStorePath(data, 'uuid-restored', 0));
    for (const f of readdirSync(dir)) if (f.endsWith('.fseg') || f.startsWith('segments_')) rmSync(join(dir, f));
    const rebuilt = registry(data);
    rebuilt.recover();
    expect(rebuilt.shard('cities', 0).stats().docs).toBe(9);
    expect(rebuilt.shard('cities', 0).get('c5')).toMatchObject({ found: true, _source: '{"name":"city 5"}', _seq_no: 5 });
    expect(rebuilt.shard('cities', 0).get('c0').found).toBe(false);
  });

  it('deleting a snapshot drops only the blobs no other snapshot references', async () => {
    const repo = tempDir();
    const r = registry(tempDir());
    r.putIndex(meta('uuid-1'), [0]);
    const s = r.shard('cities', 0);
    s.apply([{ op: 'index', _id: 'a', source: '{"name":"a"}', create: false }]);
    await s.sync();
    await snapshot(r, repo, 'snap-a');
    s.apply([{ op: 'index', _id: 'b', source: '{"name":"b"}', create: false }]);
    await s.sync();
    await snapshot(r, repo, 'snap-b');
    expect(blobs(repo)).toHaveLength(4); // two segments, two commit points

    expect(await deleteShardSnapshot(shardDir(repo, 'idx', 0), 'snap-a')).toBe(1); // its commit point only
    expect(blobs(repo)).toHaveLength(3);
    const restored = await restore(repo, 'snap-b');
    expect(restored.shard('cities', 0).stats().docs).toBe(2);
    expect(await deleteShardSnapshot(shardDir(repo, 'idx', 0), 'snap-b')).toBe(3);
    expect(blobs(repo)).toHaveLength(0);
  });

  it('a damaged blob fails the restore: nothing is installed and the empty copy is failed, not served', async () => {
    const repo = tempDir();
    const r = registry(tempDir());
    r.putIndex(meta('uuid-1'), [0]);
    r.shard('cities', 0).apply([{ op: 'index', _id: 'a', source: '{"name":"a"}', create: false }]);
    await r.shard('cities', 0).sync();
    await snapshot(r, repo, 'snap-a');
    const snap = (await readShardSnapshot(shardDir(repo, 'idx', 0), 'snap-a'))!;
    const segment = snap.files.find((f) => f.physical_name.endsWith('.fseg'))!;
    writeFileSync(join(shardDir(repo, 'idx', 0), segment.name), 'not the segment'); // a damaged blob

    const target = registry(tempDir());
    target.putIndex(meta('uuid-restored'), [0]);
    const staging = target.snapshotCopy('cities', 0).restoreStaging();
    const failure = await stageRestoredCopy(shardDir(repo, 'idx', 0), snap, staging).catch((e: Error) => e);
    expect(failure).toBeInstanceOf(Error);
    expect(existsSync(staging)).toBe(false);
    target.snapshotCopy('cities', 0).fail(failure as Error);
    expect(target.failedCopies()).toEqual(['cities/0']);
  });

  it('refuses to restore into a copy that holds operations', () => {
    const r = registry(tempDir());
    r.putIndex(meta('uuid-1'), [0]);
    r.shard('cities', 0).apply([{ op: 'index', _id: 'a', source: '{}', create: false }]);
    expect(() => r.snapshotCopy('cities', 0).restoreStaging()).toThrow(/cannot be restored/);
  });
});
