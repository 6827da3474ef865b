import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { byField, q } from '../../test/support/engine-shard.ts';
import { cityDocs, loadCitiesWithEdgeCases } from '../../test/support/segment-equality.ts';
import { oneShardCitiesMetadata } from '../../test/support/segment-crash-docs.ts';
import type { Shard } from '../engine/shard.ts';
import { searcherOf } from '../engine/searcher.ts';
import { IndexRegistry } from '../index-registry.ts';
import type { Logger } from '../../shared/logger.ts';

const dirs: string[] = [];
const open: IndexRegistry[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'folio-segfiles-'));
  dirs.push(d);
  return d;
}

/** A registry over `dir`; `errors` collects the messages it logs at error level. */
function registry(dir: string, errors: string[] = []): IndexRegistry {
  const log = { info: () => {}, warn: () => {}, debug: () => {}, error: (_o: unknown, msg: string) => errors.push(msg) } as unknown as Logger;
  const r = new IndexRegistry('n1', { dataDir: dir }, log);
  open.push(r);
  return r;
}

const meta: IndexMetadata = oneShardCitiesMetadata('cities', 'uuid-seg');
const shardDir = (dir: string) => join(dir, 'uuid-seg', '0');
const filesIn = (dir: string) => readdirSync(shardDir(dir)).filter((f) => f.endsWith('.fseg') || f.startsWith('segments_'));

/** Everything a restart must bring back: every `_id`'s latest state, the checkpoints, and a few searches (after a refresh). */
function observe(s: Shard) {
  s.refresh();
  const g = s.acquire();
  const searcher = searcherOf(g);
  const top = (sort: ReturnType<typeof byField>[]) => searcher.query({ query: q.all(), sort, k: 25, trackTotalHits: 1e9 }).hits.map((h) => [h._id, h.sort]);
  const state = {
    ops: s.snapshotOps(),
    checkpoints: [s.localCheckpoint, s.maxSeqNo, s.globalCheckpoint],
    docs: s.stats().docs,
    counts: [searcher.count(), searcher.count(q.match('name', 'san')), searcher.count(q.term('country', 'FR')), searcher.count(q.match('name', 'Zürich 😀'))],
    byPopulation: top([byField('population', 'desc'), byField('name.keyword')]),
    byName: top([byField('name.keyword', 'asc')]),
    scored: searcher.query({ query: q.match('name', 'san jose'), sort: [], k: 10, trackTotalHits: 1e9 }).hits.map((h) => [h._id, h._score]),
  };
  s.release(g.id);
  return state;
}

/** An observation without its BM25 scores (term statistics count deleted docs until a merge drops them). */
const unscored = ({ scored: _s, ...rest }: ReturnType<typeof observe>) => rest;

/** A shard with cities and edge cases, flushed, then written to again (refreshed, unrefreshed, deletes). */
async function writeAndFlush(r: IndexRegistry): Promise<Shard> {
  r.putIndex(meta, [0]);
  const s = r.shard('cities', 0);
  // No lone surrogate in an `_id`: the SQLite store keeps text as UTF-8 and would not give it back
  // (the segment files do: segment-codec.test.ts), and these tests compare both restarts.
  loadCitiesWithEdgeCases(s, 4000, false);
  await s.sync();
  await r.flush('cities');
  const more = cityDocs(300, 4000);
  s.apply(more.slice(0, 200).map((d) => ({ op: 'index' as const, _id: d._id, source: d.json, create: false })));
  s.refresh();
  s.apply([
    ...more.slice(200).map((d) => ({ op: 'index' as const, _id: d._id, source: d.json, create: false })),
    { op: 'delete', _id: more[0]._id },
    { op: 'update', _id: 'routed', doc: { population: 8 }, docAsUpsert: false, routing: 'r1' },
  ]);
  await s.sync();
  return s;
}

describe('restarts from segment files', () => {
  it('bring back every doc, version, seq_no, checkpoint and search result, replaying only the translog above the commit', async () => {
    const dir = dataDir();
    const first = registry(dir);
    const before = observe(await writeAndFlush(first));
    expect(filesIn(dir).some((f) => f.endsWith('.fseg'))).toBe(true);

    const second = registry(dir); // a crash: the first registry is never closed
    const report = second.recover();
    const s = second.shard('cities', 0);
    expect(observe(s)).toEqual(before);
    expect(before.ops.length).toBeGreaterThan(4000);
    // Live docs and tombstones of the commit count one op each, then the 302 ops written after the
    // flush (300 new _ids, one of them deleted again, and one update).
    expect(report.ops).toBe(before.ops.length - 300 + 302);

    // The same directory without its commit point runs the SQLite rebuild, and agrees.
    await second.close();
    open.splice(open.indexOf(second), 1);
    for (const f of filesIn(dir)) rmSync(join(shardDir(dir), f));
    // (BM25 scores aside: a rebuild has no deleted docs left in its term statistics, the files do.)
    const third = registry(dir);
    third.recover();
    expect(unscored(observe(third.shard('cities', 0)))).toEqual(unscored(before));
  });

  it('never rewrites a segment file; a commit point deletes the files it no longer names', async () => {
    const dir = dataDir();
    const r = registry(dir);
    const s = await writeAndFlush(r);
    const first = filesIn(dir);
    const stamps = new Map(first.filter((f) => f.endsWith('.fseg')).map((f) => [f, statSync(join(shardDir(dir), f)).mtimeMs]));
    s.refresh();
    await r.flush('cities');
    const second = filesIn(dir);
    expect(second.filter((f) => f.startsWith('segments_'))).toEqual(['segments_2']);
    for (const [f, mtime] of stamps) if (second.includes(f)) expect(statSync(join(shardDir(dir), f)).mtimeMs).toBe(mtime);
    // A flush with nothing new to commit writes no commit point.
    await r.flush('cities');
    expect(filesIn(dir)).toEqual(second);
    // The two segments refreshed after the first flush are new files beside the first two.
    expect(second.filter((f) => f.endsWith('.fseg')).length).toBe(first.filter((f) => f.endsWith('.fseg')).length + 2);
  });

  it('a flipped byte in a segment file is detected and never served: the copy is rebuilt from its SQLite snapshot, and the next flush replaces the file', async () => {
    const dir = dataDir();
    const first = registry(dir);
    const before = observe(await writeAndFlush(first));
    const victim = filesIn(dir).find((f) => f.endsWith('.fseg'))!;
    const path = join(shardDir(dir), victim);
    const bytes = readFileSync(path);
    bytes[Math.floor(bytes.length / 2)] ^= 0x10;
    writeFileSync(path, bytes);

    const errors: string[] = [];
    const second = registry(dir, errors);
    second.recover();
    expect(errors).toEqual(['segment files failed their checks: rebuilding the copy from its store snapshot']);
    expect(unscored(observe(second.shard('cities', 0)))).toEqual(unscored(before));
    second.shard('cities', 0).refresh();
    await second.flush('cities');
    expect(filesIn(dir)).not.toContain(victim);
    const third = registry(dir, errors);
    third.recover();
    expect(errors).toHaveLength(1);
    expect(unscored(observe(third.shard('cities', 0)))).toEqual(unscored(before));
  });
});
