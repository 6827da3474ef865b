import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { IndexRegistry } from '../index-registry.ts';
import { indexDataDir } from './metadata-store.ts';

const dirs: string[] = [];
const open: IndexRegistry[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'folio-recovery-'));
  dirs.push(d);
  return d;
}

function registry(dir: string): IndexRegistry {
  const r = new IndexRegistry('n1', { dataDir: dir });
  open.push(r);
  return r;
}

const meta = (over: Partial<IndexMetadata> = {}): IndexMetadata => ({
  name: 'cities',
  uuid: 'uuid-1',
  numberOfShards: 2,
  numberOfReplicas: 0,
  routingNumShards: 2,
  maxResultWindow: 10_000,
  refreshIntervalMs: -1,
  mappings: { properties: { name: { type: 'text' } } },
  creationDate: 1,
  version: 1,
  ...over,
});

/** Ids among `candidates` live in the shard; checks the searchable doc count agrees (refreshed). */
function liveIds(r: IndexRegistry, shard: number, candidates: string[]): string[] {
  const s = r.shard('cities', shard);
  const ids = candidates.filter((id) => s.get(id).found);
  expect(s.hasPendingWrites).toBe(false);
  expect(s.stats().docs).toBe(ids.length);
  return ids;
}
const ALL = ['paris', 'lyon', 'nice', 'rome', 'ghost'];

describe('recovery of a shard node from its data directory', () => {
  it('brings back metadata, mappings, placement and every acknowledged write; not the unacknowledged ones', async () => {
    const dir = dataDir();
    const before = registry(dir);
    before.putIndex(meta(), [0, 1]);
    const s0 = before.shard('cities', 0);
    s0.apply([
      { op: 'index', _id: 'paris', source: JSON.stringify({ name: 'Paris', pop: 2100000 }), create: false },
      { op: 'index', _id: 'lyon', source: JSON.stringify({ name: 'Lyon' }), create: false },
      { op: 'index', _id: 'nice', source: JSON.stringify({ name: 'Nice' }), create: false },
    ]);
    s0.apply([
      { op: 'update', _id: 'paris', doc: { pop: 2200000 }, docAsUpsert: false },
      { op: 'delete', _id: 'nice' },
    ]);
    await s0.sync();
    before.shard('cities', 1).apply([{ op: 'index', _id: 'rome', source: JSON.stringify({ name: 'Roma' }), create: false }]);
    await before.shard('cities', 1).sync();
    // Not acknowledged: applied in memory, the process dies before the group commit runs.
    s0.apply([{ op: 'index', _id: 'ghost', source: JSON.stringify({ name: 'Ghost' }), create: false }]);

    // "Crash": open the same directory from a fresh registry without closing the first one.
    const after = registry(dir);
    const report = after.recover();
    expect(report).toMatchObject({ indices: 1, shards: 2, ops: 6 });
    const [entry] = after.list();
    expect(entry.shards).toEqual([0, 1]);
    expect(entry.metadata.uuid).toBe('uuid-1');
    expect(entry.metadata.mappings.properties.pop).toBeDefined(); // dynamic mapping survived
    expect(liveIds(after, 0, ALL)).toEqual(['paris', 'lyon']);
    expect(liveIds(after, 1, ALL)).toEqual(['rome']);
    expect(after.shard('cities', 0).get('paris')).toMatchObject({ found: true, _version: 2, _seq_no: 3, _source: '{"name":"Paris","pop":2200000}' });
    expect(after.shard('cities', 0).get('ghost').found).toBe(false);

    // Counters continue from the recovered maximum: seq_no 5 (after the delete's 4), nice's version 3.
    const [res] = after.shard('cities', 0).apply([{ op: 'index', _id: 'nice', source: JSON.stringify({ name: 'Nice again' }), create: false }]);
    expect(res).toMatchObject({ _seq_no: 5, _version: 3, result: 'created' });
  });

  it('recovers from a flush snapshot plus the translog written after it, and a graceful close flushes', async () => {
    const dir = dataDir();
    const first = registry(dir);
    first.putIndex(meta({ numberOfShards: 1 }), [0]);
    const s = first.shard('cities', 0);
    s.apply(Array.from({ length: 50 }, (_, i) => ({ op: 'index' as const, _id: `c${i}`, source: JSON.stringify({ name: `city ${i}` }), create: false })));
    await s.sync();
    await first.flush('cities');
    s.apply([
      { op: 'delete', _id: 'c0' },
      { op: 'index', _id: 'c1', source: JSON.stringify({ name: 'renamed' }), create: false },
    ]);
    await s.sync();

    const second = registry(dir);
    expect(second.recover().ops).toBe(52);
    expect(second.shard('cities', 0).stats().docs).toBe(49);
    expect(second.shard('cities', 0).get('c1')).toMatchObject({ _version: 2, _source: '{"name":"renamed"}' });
    await second.close();
    open.splice(open.indexOf(second), 1);

    const third = registry(dir);
    // The close flushed: the snapshot holds one row per _id (49 live + the c0 tombstone), no translog left.
    expect(third.recover().ops).toBe(50);
    expect(third.shard('cities', 0).get('c0').found).toBe(false);
    expect(third.shard('cities', 0).apply([{ op: 'index', _id: 'c0', source: JSON.stringify({}), create: false }])[0]).toMatchObject({
      _version: 3,
      _seq_no: 52,
    });
  });

  it('restores the local checkpoint (recorded at flush, moved on by the translog), so restored tombstones can be collected', async () => {
    const dir = dataDir();
    const first = registry(dir);
    first.putIndex(meta({ numberOfShards: 1, gcDeletesMs: -1 }), [0]);
    const s = first.shard('cities', 0);
    s.apply([0, 1, 2].map((i) => ({ op: 'index' as const, _id: `c${i}`, source: '{}', create: false })));
    s.apply([{ op: 'index', _id: 'c0', source: '{"v":2}', create: false }]); // seq 3 supersedes seq 0 in the snapshot
    await s.sync();
    await first.flush('cities'); // the snapshot lacks seq 0: only the recorded checkpoint says it was processed
    s.apply([
      { op: 'delete', _id: 'c1' },
      { op: 'delete', _id: 'never' },
    ]);
    await s.sync();

    const second = registry(dir);
    second.recover();
    const r = second.shard('cities', 0);
    expect([r.localCheckpoint, r.maxSeqNo]).toEqual([5, 5]);
    expect(r.versionMapStats().tombstones).toBe(0); // gc_deletes -1: collected at the recovery's refresh
    expect(r.apply([{ op: 'index', _id: 'c1', source: '{}', create: false }])[0]).toMatchObject({ _version: 1, _seq_no: 6 });
    expect(r.localCheckpoint).toBe(6); // the checkpoint keeps moving (no gap left by the restart)
  });

  for (const how of ['graceful', 'kill'] as const) {
    it(`a replica's local checkpoint survives a ${how} restart, gaps included: the translog above the checkpoint is kept, not folded`, async () => {
      const dir = dataDir();
      const first = registry(dir);
      first.putIndex(meta({ numberOfShards: 1 }), [0]);
      const s = first.shard('cities', 0);
      const op = (id: string, seqNo: number) => ({ op: 'index' as const, _id: id, json: `{"s":${seqNo}}`, seqNo, version: 1 + Math.floor(seqNo / 10) });
      // Replicated ops out of order: 0..9 and 11..15 arrived, 10 did not (yet); 15 overwrites 11's
      // document, so a snapshot folded past the checkpoint would lose seq_no 11 and the gap would never close.
      s.applyReplicated([...Array.from({ length: 10 }, (_, i) => op(`c${i}`, i)), ...[11, 12, 13, 14].map((n) => op(`c${n % 10}`, n)), op('c1', 15)]);
      await s.sync();
      expect([s.localCheckpoint, s.maxSeqNo]).toEqual([9, 15]);
      await first.flush('cities'); // folds up to the checkpoint only
      if (how === 'graceful') await first.close(); // (a kill leaves the store as the last commit did)

      const second = registry(dir);
      second.recover();
      const r = second.shard('cities', 0);
      expect([r.localCheckpoint, r.maxSeqNo]).toEqual([9, 15]);
      // Ops-based recovery from the primary fills the gap; the checkpoint then moves past what was replayed.
      r.applyReplicated([op('c0', 10)]);
      expect(r.localCheckpoint).toBe(15);
      expect((r as unknown as { checkpoints: { pending: number } }).checkpoints.pending).toBe(0);
      r.refresh();
      expect(r.get('c1')).toMatchObject({ _seq_no: 15, _source: '{"s":15}' });
      expect(r.get('c0')).toMatchObject({ _seq_no: 10 });
    });
  }

  it('metadata updates and deletes are durable; a deleted index leaves no files', async () => {
    const dir = dataDir();
    const first = registry(dir);
    first.putIndex(meta(), [1]);
    first.putIndex(meta({ name: 'other', uuid: 'uuid-2' }), []);
    first.putIndex(meta({ maxResultWindow: 50, version: 2 }), [1]);
    expect(first.list().find((e) => e.metadata.name === 'cities')!.metadata).toMatchObject({ maxResultWindow: 50, version: 2 });
    first.shard('cities', 1).apply([{ op: 'index', _id: 'x', source: JSON.stringify({ name: 'x' }), create: false }]);
    await first.shard('cities', 1).sync();
    first.deleteIndex('other');
    expect(existsSync(indexDataDir(dir, 'uuid-1'))).toBe(true);

    const second = registry(dir);
    second.recover();
    expect(second.list().map((e) => [e.metadata.name, e.metadata.maxResultWindow, e.shards])).toEqual([['cities', 50, [1]]]);
    second.deleteIndex('cities');
    expect(existsSync(indexDataDir(dir, 'uuid-1'))).toBe(false);
    const third = registry(dir);
    expect(third.recover()).toMatchObject({ indices: 0, shards: 0 });
  });
});
