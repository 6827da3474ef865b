import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IndexMetadata, ShardCopy } from '../protocol/metadata.ts';
import { IndexRegistry } from './index-registry.ts';
import { hostedCopies, promoted, shardsOnNode, withInSync, withoutInSync } from '../shared/cluster-state/shard-copies.ts';
import { shardStorePath } from './storage/metadata-store.ts';

const copy = (node: number, primary = false, inSync = true): ShardCopy => ({ node, primary, inSync });
/** Two shards on three nodes: shard 0 on 0 (p) and 1, shard 1 on 1 (p) and 2. */
const COPIES = [
  [copy(0, true), copy(1)],
  [copy(1, true), copy(2)],
];

const meta = (over: Partial<IndexMetadata> = {}): IndexMetadata => ({
  name: 'idx',
  uuid: 'u1',
  numberOfShards: 2,
  numberOfReplicas: 1,
  routingNumShards: 2,
  maxResultWindow: 10_000,
  refreshIntervalMs: -1,
  mappings: { properties: {} },
  creationDate: 1,
  version: 1,
  shardCopies: COPIES,
  ...over,
});

describe('shard copies in the metadata', () => {
  it('finds the copies of a node, with role and in-sync state', () => {
    expect(shardsOnNode(meta(), 1)).toEqual([0, 1]);
    expect(shardsOnNode(meta(), 2)).toEqual([1]);
    expect(shardsOnNode(meta(), null)).toBeNull();
    expect(shardsOnNode(meta({ shardCopies: undefined }), 0)).toBeNull();
    expect(hostedCopies(meta(), 1, [0, 1])).toEqual([
      { shard: 0, primary: false, inSync: true },
      { shard: 1, primary: true, inSync: true },
    ]);
    // An index from before replicas: every hosted shard is its primary.
    expect(hostedCopies(meta({ shardCopies: undefined }), null, [1])).toEqual([{ shard: 1, primary: true, inSync: true }]);
  });

  it('marks replicas out of sync, counting every failure (also of a copy out already), never the primary', () => {
    const once = withoutInSync(COPIES, 1, [2]);
    expect(once[1]).toEqual([copy(1, true), { ...copy(2, false, false), failures: 1 }]);
    expect(withoutInSync(once, 1, [2])[1][1]).toEqual({ ...copy(2, false, false), failures: 2 });
    expect(withoutInSync(once, 1, [7])).toBe(once); // no copy of the shard there
    expect(() => withoutInSync(COPIES, 0, [0])).toThrow(/primary/);
  });

  it('puts a recovered copy back in sync, clearing its resync mark, idempotently', () => {
    const out = withoutInSync(COPIES, 1, [2]);
    const back = withInSync(out, 1, [2]);
    expect(back).toEqual([COPIES[0], [copy(1, true), { ...copy(2), failures: 1 }]]); // the count stays
    expect(withInSync(back, 1, [2])).toBe(back);
    expect(withInSync([[copy(0, true), { ...copy(1, false, false), resync: true }]], 0, [1])).toEqual([[copy(0, true), copy(1)]]);
    expect(() => withInSync(COPIES, 0, [2])).toThrow(/no copy on node \[2\]/);
  });

  it('promotes an in-sync replica: every other copy, the old primary too, is out of sync and must resync', () => {
    const three = [[copy(0, true), copy(1), copy(2)]];
    expect(promoted(three, 0, 2)).toEqual([
      [copy(2, true), { ...copy(0, false, false), resync: true, failures: 1 }, { ...copy(1, false, false), resync: true, failures: 1 }],
    ]);
    expect(() => promoted(withoutInSync(three, 0, [1]), 0, 1)).toThrow(/no in-sync copy on node \[1\]/);
  });
});

describe('registry: replica copies on a node', () => {
  const dirs: string[] = [];
  const open: IndexRegistry[] = [];
  afterEach(async () => {
    for (const r of open.splice(0)) await r.close().catch(() => {});
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const registry = (dir: string) => {
    const r = new IndexRegistry('n1', { dataDir: dir });
    open.push(r);
    return r;
  };

  it('opens the copies the metadata places on it, reports their roles, and keeps an in-sync mark across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-copies-'));
    dirs.push(dir);
    const first = registry(dir);
    first.putIndex(meta(), [], 1);
    expect(first.list()[0]).toMatchObject({
      shards: [0, 1],
      node: 1,
      copies: [
        { shard: 0, primary: false, inSync: true },
        { shard: 1, primary: true, inSync: true },
      ],
    });
    // Primary writes only on the primary copy (a mis-addressed bulk must not assign seq_nos on a replica).
    expect(first.primaryShard('idx', 1).shard).toBe(1);
    expect(() => first.primaryShard('idx', 0)).toThrow('CurrentState[STARTED] shard is not in primary mode');
    // The cluster state's next value (a coordinator pushes it) takes the replica out of sync.
    first.putIndex(meta({ version: 2, shardCopies: withoutInSync(COPIES, 0, [1]) }), [], 1);
    // A late push of an older value changes nothing.
    first.putIndex(meta(), [], 1);
    expect(first.list()[0].metadata.version).toBe(2);
    await first.close();
    open.splice(open.indexOf(first), 1);

    const second = registry(dir);
    second.recover();
    expect(second.list()[0]).toMatchObject({
      node: 1,
      copies: [
        { shard: 0, primary: false, inSync: false },
        { shard: 1, primary: true, inSync: true },
      ],
    });
  });

  it('a replicas change opens new copies here and removes dropped ones with their files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-copies-'));
    dirs.push(dir);
    const r = registry(dir);
    r.putIndex(meta(), [], 2);
    expect(r.list()[0].shards).toEqual([1]);
    r.putIndex(
      meta({
        version: 2,
        numberOfReplicas: 2,
        shardCopies: [
          [copy(0, true), copy(1), copy(2, false, false)],
          [copy(1, true), copy(2), copy(0, false, false)],
        ],
      }),
      [],
      2,
    );
    expect(r.list()[0].metadata).toMatchObject({ numberOfReplicas: 2, version: 2 });
    expect(r.list()[0].copies).toEqual([
      { shard: 0, primary: false, inSync: false },
      { shard: 1, primary: false, inSync: true },
    ]);
    r.shard('idx', 0);
    expect(existsSync(shardStorePath(dir, 'u1', 0))).toBe(true);
    r.putIndex(meta({ version: 3, numberOfReplicas: 1, shardCopies: COPIES }), [], 2);
    expect(r.list()[0].shards).toEqual([1]);
    expect(() => r.shard('idx', 0)).toThrow(/no such shard/);
    expect(existsSync(shardStorePath(dir, 'u1', 0))).toBe(false);
  });

  it('promotion: a new primary term, the promoted copy takes primary writes in it, stale terms are refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-copies-'));
    dirs.push(dir);
    const r = registry(dir);
    r.putIndex(meta(), [], 1); // node 1: replica of shard 0, primary of shard 1
    expect(r.termOf('idx', 0)).toBe(1);
    expect(() => r.checkTerm('idx', 0, 1, 'replica')).not.toThrow();
    // The cluster state promotes node 1's replica of shard 0 in term 2 (coordinator/cluster/cluster-view.ts).
    const m = meta({ version: 2, shardCopies: promoted(COPIES, 0, 1), primaryTerms: [2, 1] });
    r.putIndex(m, [], 1);
    expect(r.list()[0].metadata.shardCopies![0]).toEqual([copy(1, true), { ...copy(0, false, false), resync: true, failures: 1 }]);
    expect(r.primaryShard('idx', 0).primaryTerm).toBe(2);
    expect(r.shard('idx', 0).apply([{ op: 'index', _id: 'a', source: JSON.stringify({}), create: false }])[0]._primary_term).toBe(2);
    expect(() => r.checkTerm('idx', 0, 1, 'primary')).toThrow(/operation primary term \[1\] is too old, current \[2\]/);
    expect(() => r.checkTerm('idx', 0, 1, 'replica')).toThrow(/too old/);
    expect(() => r.checkTerm('idx', 0, 3, 'primary')).toThrow(/newer/);
    expect(() => r.checkTerm('idx', 0, 3, 'replica')).not.toThrow();
    // Its replication group: the demoted copy is out of sync, so only a recovery brings it back in.
    expect(r.replicationGroup('idx', 0)).toEqual([]);
    r.recoveries.track('idx', 0, 0);
    expect(r.replicationGroup('idx', 0)).toEqual([{ node: 0, inSync: false }]);
    const finalized = r.markInSync('idx', 0, [0]);
    expect(finalized.shardCopies![0]).toEqual([copy(1, true), { ...copy(0), failures: 1 }]);
    expect(finalized.version).toBe(m.version); // versions belong to the cluster state
    expect(r.replicationGroup('idx', 0)).toEqual([{ node: 0, inSync: true }]);
    // Still tracked until the cluster state's value with the copy in sync arrives.
    expect(r.recoveries.nodes('idx', 0)).toEqual([0]);
    r.putIndex({ ...m, shardCopies: [[copy(1, true), copy(0, false, false)]], version: m.version + 1 }, [], 1);
    expect(r.recoveries.nodes('idx', 0)).toEqual([0]); // a value with it out of sync: still tracked
    r.putIndex({ ...m, shardCopies: [[copy(1, true), copy(0)]], version: m.version + 2 }, [], 1);
    expect(r.recoveries.nodes('idx', 0)).toEqual([]);
  });

  it('empties only a recovering replica for a full recovery', () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-copies-'));
    dirs.push(dir);
    const r = registry(dir);
    r.putIndex(meta(), [], 1);
    r.shard('idx', 0).applyReplicated([{ op: 'index', _id: 'x', json: '{}', seqNo: 0, version: 1 }]);
    expect(() => r.resetCopy('idx', 0)).toThrow(/cannot be emptied/); // in sync
    expect(() => r.resetCopy('idx', 1)).toThrow(/cannot be emptied/); // primary
    r.putIndex(meta({ version: 2, shardCopies: withoutInSync(COPIES, 0, [1]) }), [], 1);
    const fresh = r.resetCopy('idx', 0);
    expect([fresh.maxSeqNo, fresh.get('x').found, r.shard('idx', 0) === fresh]).toEqual([-1, false, true]);
  });

  it('refuses to be addressed by another ordinal than it holds its copies by (a reordered node list would drop them)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-copies-'));
    dirs.push(dir);
    const r = registry(dir);
    r.putIndex(meta(), [], 2);
    expect(() => r.putIndex(meta({ version: 2 }), [], 0)).toThrow(/FOLIO_NODES\[2\] but was addressed as FOLIO_NODES\[0\]/);
    expect(() => r.putIndex(meta({ version: 3, maxResultWindow: 5 }), [], 1)).toThrow(/FOLIO_NODES\[2\] but was addressed as FOLIO_NODES\[1\]/);
    expect(r.list()[0]).toMatchObject({ shards: [1], metadata: { version: 1 } });
  });
});
