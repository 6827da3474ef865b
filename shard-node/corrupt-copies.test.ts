// A segment file found corrupt, at start-up or by a read: the copy is failed with a corruption
// marker when another in-sync copy exists (peer recovery rebuilds it), else it is rebuilt from its
// SQLite snapshot (start-up) or stays in service (a read).
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../protocol/metadata.ts';
import type { Logger } from '../shared/logger.ts';
import { createLogger } from '../shared/logger.ts';
import { oneShardCitiesMetadata } from '../test/support/segment-crash-docs.ts';
import { cityDocs } from '../test/support/segment-equality.ts';
import { createShardNodeApp } from './app.ts';
import { loadShardNodeConfig } from './config.ts';
import { hasOtherInSyncCopy } from './corrupt-copies.ts';
import { clearBlockCache } from './engine/columns/block-cache.ts';
import { IndexRegistry } from './index-registry.ts';
import { CORRUPTION_MARKER_PREFIX, writeCorruptionMarker } from './storage/corruption-marker.ts';
import { flipSourceByte } from '../test/support/flip-source-byte.ts';

const dirs: string[] = [];
const open: IndexRegistry[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'folio-corrupt-'));
  dirs.push(d);
  return d;
}

/** A registry over `dir`; `errors` collects the messages it logs at error level. */
function registry(dir: string, errors: string[] = []): IndexRegistry {
  const log = { info: () => {}, warn: () => {}, debug: () => {}, error: (_o: unknown, msg: string) => errors.push(msg) } as unknown as Logger;
  const r = new IndexRegistry('n0', { dataDir: dir }, log);
  open.push(r);
  return r;
}

const UUID = 'uuid-corrupt';
const DOCS = cityDocs(600);
/** One shard; with `replica`, a second in-sync copy on node 1 (this node is 0, the primary). */
function metadata(replica: boolean): IndexMetadata {
  const m = oneShardCitiesMetadata('cities', UUID);
  if (!replica) return { ...m, shardCopies: [[{ node: 0, primary: true, inSync: true }]] };
  return {
    ...m,
    numberOfReplicas: 1,
    shardCopies: [
      [
        { node: 0, primary: true, inSync: true },
        { node: 1, primary: false, inSync: true },
      ],
    ],
  };
}
const shardDir = (dir: string) => join(dir, UUID, '0');
const markers = (dir: string) => readdirSync(shardDir(dir)).filter((f) => f.startsWith(CORRUPTION_MARKER_PREFIX));

/** Indexes the docs into a new copy on `r`, refreshes and flushes: the `_source` blocks are read from the segment files from then on. */
async function written(r: IndexRegistry, replica: boolean): Promise<void> {
  r.putIndex(metadata(replica), [0], 0);
  const s = r.shard('cities', 0);
  for (let i = 0; i < DOCS.length; i += 200) s.apply(DOCS.slice(i, i + 200).map((d) => ({ op: 'index' as const, _id: d._id, source: d.json, create: false })));
  s.refresh();
  await s.sync();
  await r.flush('cities');
}

/** Flips one byte inside the first `_source` block of every segment file of the copy; answers how many. */
function flipSourceBytes(dir: string): number {
  const files = readdirSync(shardDir(dir)).filter((f) => f.endsWith('.fseg'));
  for (const f of files) {
    const path = join(shardDir(dir), f);
    flipSourceByte(path);
  }
  clearBlockCache();
  return files.length;
}

describe('the decision', () => {
  const copies = (...c: [number, boolean][]): IndexMetadata => ({
    ...metadata(false),
    shardCopies: [c.map(([node, inSync], i) => ({ node, primary: i === 0, inSync }))],
  });
  it('fails a corrupt copy only when another in-sync copy exists, on another node than its own', () => {
    expect(hasOtherInSyncCopy(copies([0, true], [1, true]), 0, 0)).toBe(true);
    expect(hasOtherInSyncCopy(copies([0, true], [1, true]), 1, 0)).toBe(true);
    expect(hasOtherInSyncCopy(copies([0, true], [1, false]), 0, 0)).toBe(false); // the other copy is recovering
    expect(hasOtherInSyncCopy(copies([0, true]), 0, 0)).toBe(false); // no replica
    expect(hasOtherInSyncCopy(copies([0, true], [1, true]), null, 0)).toBe(false); // which copy is its own is unknown
    expect(hasOtherInSyncCopy(copies([0, true], [1, true]), 0, 1)).toBe(false); // no such shard
  });
});

describe('a _source block found corrupt by a read', () => {
  const config = loadShardNodeConfig({ FOLIO_NODE_ID: 'n0', FOLIO_LOG_LEVEL: 'silent', FOLIO_INSECURE: 'true' });
  /** GETs every doc through the node's internal API until one fails; answers the statuses and error types seen. */
  async function readAll(r: IndexRegistry): Promise<{ status: number; type?: string }[]> {
    const app = createShardNodeApp(config, r, createLogger('shard-node', 'silent', {}));
    const seen: { status: number; type?: string }[] = [];
    for (const d of DOCS) {
      const res = await app.request('/_internal/v1/get', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ index: 'cities', shard: 0, _id: d._id }),
      });
      const body = (await res.json()) as { error?: { type: string }; _source?: string };
      seen.push({ status: res.status, ...(body.error ? { type: body.error.type } : {}) });
      if (res.status === 200) expect(body._source).toBe(d.json);
      if (res.status !== 200 && seen.filter((s) => s.status !== 200).length === 2) break;
    }
    return seen;
  }

  it('with another in-sync copy: fails the copy (reported failed, then refused) and writes its marker', async () => {
    const dir = dataDir();
    const errors: string[] = [];
    const r = registry(dir, errors);
    await written(r, true);
    expect(flipSourceBytes(dir)).toBeGreaterThan(0);
    const failures = (await readAll(r)).filter((s) => s.status !== 200);
    // The read that found it answers the corruption (the coordinator fails over on a 5xx); the next is refused.
    expect(failures).toEqual([
      { status: 500, type: 'corrupt_index_exception' },
      { status: 503, type: 'no_shard_available_action_exception' },
    ]);
    expect(r.failedCopies()).toEqual(['cities/0']);
    expect(r.list()[0]).toMatchObject({ shards: [], failed: [0] });
    expect(markers(dir)).toHaveLength(1);
    expect(errors).toContain('shard copy failed: a segment file is corrupt; it will be recovered from another copy');

    // A restart does not reopen it: the marker fails it again, though every file would load.
    await r.close();
    open.splice(open.indexOf(r), 1);
    const again: string[] = [];
    const second = registry(dir, again);
    second.recover();
    expect(second.failedCopies()).toEqual(['cities/0']);
    expect(again).toEqual(['shard copy failed: a segment file is corrupt; it will be recovered from another copy']);
    expect(markers(dir)).toHaveLength(1);
  });

  it('as the only in-sync copy: each read of the bad block fails, and the copy stays in service with no marker', async () => {
    const dir = dataDir();
    const r = registry(dir);
    await written(r, false);
    flipSourceBytes(dir);
    const failures = (await readAll(r)).filter((s) => s.status !== 200);
    expect(failures).toEqual([
      { status: 500, type: 'corrupt_index_exception' },
      { status: 500, type: 'corrupt_index_exception' },
    ]);
    expect(r.failedCopies()).toEqual([]);
    expect(markers(dir)).toEqual([]);
  });
});

describe('a segment file found corrupt by a background merge', () => {
  it('with another in-sync copy: the merge is dropped and the copy failed with its marker', async () => {
    const dir = dataDir();
    const errors: string[] = [];
    const r = registry(dir, errors);
    r.putIndex(metadata(true), [0], 0);
    const s = r.shard('cities', 0);
    // Ten segments in files (at most ten are never merged), then an eleventh: the merge reads the ten.
    for (let k = 0; k < 10; k++) {
      s.apply(DOCS.slice(k * 20, k * 20 + 20).map((d) => ({ op: 'index' as const, _id: d._id, source: d.json, create: false })));
      s.refresh();
    }
    await s.sync();
    await r.flush('cities');
    expect(flipSourceBytes(dir)).toBe(10);
    s.apply([{ op: 'index', _id: DOCS[500]._id, source: DOCS[500].json, create: false }]);
    s.refresh();
    await s.mergesIdle();
    expect(s.lastMergeError).toMatchObject({ type: 'corrupt_index_exception' });
    expect(r.failedCopies()).toEqual(['cities/0']);
    expect(markers(dir)).toHaveLength(1);
    expect(errors).toEqual(['shard copy failed: a segment file is corrupt; it will be recovered from another copy']);
  });
});

describe('a segment file found corrupt at start-up', () => {
  it('with another in-sync copy: the copy is failed with a marker, serves nothing, and the flush on close leaves its files alone', async () => {
    const dir = dataDir();
    const first = registry(dir);
    await written(first, true);
    await first.close();
    open.splice(open.indexOf(first), 1);
    flipSourceBytes(dir);
    const files = readdirSync(shardDir(dir)).sort();

    const errors: string[] = [];
    const second = registry(dir, errors);
    expect(second.recover().ops).toBe(0);
    expect(errors).toEqual(['shard copy failed: a segment file is corrupt; it will be recovered from another copy']);
    expect(second.failedCopies()).toEqual(['cities/0']);
    expect(() => second.shard('cities', 0)).toThrow(expect.objectContaining({ status: 503, type: 'no_shard_available_action_exception' }));
    expect(markers(dir)).toHaveLength(1);
    await expect(second.flush('cities')).rejects.toMatchObject({ status: 503 });
    await second.close();
    open.splice(open.indexOf(second), 1);
    expect(
      readdirSync(shardDir(dir))
        .filter((f) => !f.startsWith(CORRUPTION_MARKER_PREFIX))
        .sort(),
    ).toEqual(files);
  });

  it('with a marker and no other in-sync copy: rebuilt from the SQLite snapshot, every doc back, the marker removed', async () => {
    const dir = dataDir();
    const first = registry(dir);
    await written(first, false);
    await first.close();
    open.splice(open.indexOf(first), 1);
    writeCorruptionMarker(shardDir(dir), 'checksum failed', join(shardDir(dir), '_0.fseg'));

    const errors: string[] = [];
    const second = registry(dir, errors);
    expect(second.recover().ops).toBe(DOCS.length);
    expect(errors).toEqual(['segment files failed their checks: rebuilding the copy from its store snapshot']);
    expect(second.failedCopies()).toEqual([]);
    expect(existsSync(shardDir(dir)) && markers(dir)).toEqual([]);
    const s = second.shard('cities', 0);
    for (const d of DOCS) expect(s.get(d._id)?._source).toBe(d.json);
  });
});
