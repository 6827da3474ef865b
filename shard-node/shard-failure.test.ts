// Issue 10, scenario 6: a copy whose translog commit fails must not go on serving what its disk
// lacks. The fault is real: a second SQLite connection holds the shard's translog database locked,
// so the store's next commit fails (SQLITE_BUSY after the store's 5 s busy timeout).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../protocol/metadata.ts';
import { promoted } from '../shared/cluster-state/shard-copies.ts';
import { IndexRegistry } from './index-registry.ts';
import { notReadyReason } from './probes.ts';
import { shardStorePath } from './storage/metadata-store.ts';

const meta = (over: Partial<IndexMetadata> = {}): IndexMetadata => ({
  name: 'idx',
  uuid: 'u1',
  numberOfShards: 1,
  numberOfReplicas: 1,
  routingNumShards: 1,
  maxResultWindow: 10_000,
  refreshIntervalMs: -1,
  mappings: { properties: {} },
  creationDate: 1,
  version: 1,
  shardCopies: [
    [
      { node: 0, primary: true, inSync: true },
      { node: 1, primary: false, inSync: true },
    ],
  ],
  ...over,
});

const dirs: string[] = [];
const registries: IndexRegistry[] = [];
afterEach(async () => {
  for (const r of registries.splice(0)) await r.close().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh data directory, removed after the test. */
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'folio-shard-failure-'));
  dirs.push(d);
  return d;
}

/** A registry of node `nodeId` on data directory `dir` (durable writes), closed after the test. */
function nodeOn(dir: string, nodeId = 'n'): IndexRegistry {
  const r = new IndexRegistry(nodeId, { dataDir: dir, durability: 'request' });
  registries.push(r);
  return r;
}

describe('a copy whose translog commit fails', () => {
  it('refuses reads and writes, is reported failed and not ready, and serves again once emptied by a recovery', async () => {
    const dir = tempDir();
    const r = nodeOn(dir, 'n0');
    r.putIndex(meta(), [], 0); // node 0: the primary
    const shard = r.primaryShard('idx', 0);
    shard.apply([{ op: 'index', _id: 'kept', source: '{"n":1}', create: false }]);
    await shard.sync();

    const locker = new DatabaseSync(shardStorePath(dir, 'u1', 0));
    locker.exec('BEGIN EXCLUSIVE');
    try {
      shard.apply([{ op: 'index', _id: 'lost', source: '{"n":2}', create: false }]);
      await expect(shard.sync()).rejects.toThrow(/translog commit failed/);
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }

    // The write was not acknowledged, and nothing is served from the copy's memory any more.
    expect(() => r.shard('idx', 0)).toThrow(expect.objectContaining({ status: 503, type: 'no_shard_available_action_exception' }));
    expect(() => r.primaryShard('idx', 0)).toThrow(/failed: translog commit failed/);
    expect(r.list()[0]).toMatchObject({ shards: [], failed: [0] });
    expect(r.failedCopies()).toEqual(['idx/0']);
    expect(notReadyReason({ recovering: false, draining: false, failedCopies: () => r.failedCopies() })).toBe('shard_failed');

    // The cluster state promotes the replica; this copy, now a replica to resync, is emptied by its recovery.
    r.putIndex(meta({ version: 2, shardCopies: promoted(meta().shardCopies!, 0, 1), primaryTerms: [2] }), [], 0);
    const fresh = r.resetCopy('idx', 0);
    expect(r.shard('idx', 0)).toBe(fresh);
    expect(r.failedCopies()).toEqual([]);
    expect(r.list()[0]).toMatchObject({ shards: [0] });
    expect(notReadyReason({ recovering: false, draining: false, failedCopies: () => r.failedCopies() })).toBeUndefined();
  }, 20_000);
});

describe('a copy whose files are lost', () => {
  it('is failed, not served as in sync, when its node comes back without its files; a restart with them serves it', async () => {
    const dir = tempDir();
    const before = nodeOn(dir);
    before.putIndex(meta(), [], 1); // node 1: the in-sync replica, created with the index (empty, legitimately)
    expect(before.list()[0]).toMatchObject({ shards: [0] });
    before.shard('idx', 0).applyReplicated([{ op: 'index', seqNo: 0, _id: 'a', version: 1, json: '{"n":1}' }]);
    await before.shard('idx', 0).sync();
    before.putIndex(meta({ version: 3, maxResultWindow: 5 }), [], 1);
    await before.close();

    // A restart with its files: the copy is served as it was.
    const again = nodeOn(dir);
    again.recover();
    expect(again.list()[0]).toMatchObject({ shards: [0] });
    expect(again.shard('idx', 0).get('a')).toMatchObject({ found: true });
    await again.close();

    // Its shard files deleted: the copy would start empty while the metadata has it in sync.
    rmSync(shardStorePath(dir, 'u1', 0));
    const wiped = nodeOn(dir);
    wiped.recover();
    expect(wiped.list()[0]).toMatchObject({ shards: [], failed: [0] });
    expect(() => wiped.shard('idx', 0)).toThrow(/files are missing/);
    expect(notReadyReason({ recovering: false, draining: false, failedCopies: () => wiped.failedCopies() })).toBe('shard_failed');

    // A whole data directory lost: the metadata comes back from a push, the copy does not.
    const empty = nodeOn(tempDir());
    empty.putIndex(meta({ version: 3 }), [], 1);
    expect(empty.list()[0]).toMatchObject({ shards: [], failed: [0] });
    // Out of sync (the cluster manager failed it), the copy is emptied and recovered as any other.
    empty.putIndex(
      meta({
        version: 4,
        shardCopies: [
          [
            { node: 0, primary: true, inSync: true },
            { node: 1, primary: false, inSync: false, failures: 1 },
          ],
        ],
      }),
      [],
      1,
    );
    expect(empty.resetCopy('idx', 0)).toBe(empty.shard('idx', 0));
    expect(empty.failedCopies()).toEqual([]);
  });

  it('an out-of-sync copy (a new replica, a recovering one) may start empty', () => {
    const r = nodeOn(tempDir());
    r.putIndex(
      meta({
        version: 7,
        shardCopies: [
          [
            { node: 0, primary: true, inSync: true },
            { node: 1, primary: false, inSync: false },
          ],
        ],
      }),
      [],
      1,
    );
    expect(r.list()[0]).toMatchObject({ shards: [0] });
    expect(r.list()[0].failed).toBeUndefined();
  });
});

describe('a primary reopened after its node stopped', () => {
  it('reports its in-sync replicas for recovery (ops it made durable may never have been forwarded); a replica or a lone primary reports nothing', async () => {
    const dir = tempDir();
    const first = nodeOn(dir, 'p');
    first.putIndex(
      meta({
        shardCopies: [
          [
            { node: 0, primary: true, inSync: true },
            { node: 1, primary: false, inSync: true, failures: 2 },
          ],
        ],
      }),
      [],
      0,
    );
    const shard = first.primaryShard('idx', 0);
    shard.apply([{ op: 'index', _id: 'durable-not-forwarded', source: '{"n":1}', create: false }]);
    await shard.sync();
    expect(first.list()[0].pendingFailures).toBeUndefined();
    await first.close();

    const restarted = nodeOn(dir, 'p');
    restarted.recover();
    expect(restarted.list()[0].pendingFailures).toEqual([{ shard: 0, node: 1, failures: 2 }]);
    // Once the cluster state has the replica out of sync (a higher failure count), it is no longer pending.
    restarted.putIndex(
      meta({
        version: 2,
        shardCopies: [
          [
            { node: 0, primary: true, inSync: true },
            { node: 1, primary: false, inSync: false, failures: 3 },
          ],
        ],
      }),
      [],
      0,
    );
    expect(restarted.list()[0].pendingFailures).toBeUndefined();
    await restarted.close();

    // The replica's node, restarted, reports nothing.
    const replicaDir = tempDir();
    const replica = nodeOn(replicaDir, 'r');
    replica.putIndex(meta(), [], 1);
    await replica.close();
    const replicaAgain = nodeOn(replicaDir, 'r');
    replicaAgain.recover();
    expect(replicaAgain.list()[0].pendingFailures).toBeUndefined();
  });
});
