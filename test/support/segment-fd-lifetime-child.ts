/**
 * Child process of the segment file descriptor lifetime test (shard-node/storage/on-demand-reads.test.ts),
 * run with `node --expose-gc`: a shard whose segments are in files, a generation held while a merge
 * and a flush delete the files, then dropped. Prints one JSON line: the `.fseg` descriptors open
 * (from `/proc/self/fd`) while the generation is held and after it is dropped and collected, and
 * whether the held generation read every `_source` after its files were deleted.
 */
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearBlockCache } from '../../shard-node/engine/columns/block-cache.ts';
import type { Generation } from '../../shard-node/engine/generation.ts';
import { SegmentCommits } from '../../shard-node/storage/segment-commits.ts';
import { newShard } from './engine-shard.ts';
import { cityDocs } from './segment-equality.ts';

const gc = (globalThis as { gc?: () => void }).gc!;

/** Descriptors of this process open on `.fseg` files under `dir` (deleted ones included). */
function segmentFds(dir: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir) && readlinkSync(`/proc/self/fd/${fd}`).includes('.fseg');
    } catch {
      return false; // closed meanwhile
    }
  }).length;
}

const dir = mkdtempSync(join(tmpdir(), 'folio-fd-lifetime-'));
const { shard } = newShard();
const docs = cityDocs(1200);
const index = (batch: typeof docs) => {
  shard.apply(batch.map((d) => ({ op: 'index' as const, _id: d._id, source: d.json, create: false })));
  shard.refresh();
};
for (let i = 0; i < 1200; i += 200) index(docs.slice(i, i + 200));
const commits = new SegmentCommits(dir);
await commits.write(shard.commit());
const firstFiles = readdirSync(dir).filter((f) => f.endsWith('.fseg'));
/** Holds a generation while merges and a flush delete its files, reads it, and lets it go. */
async function readWhileHeld(): Promise<{ deleted: number; readAfterDelete: boolean; whileHeld: number }> {
  const held: Generation = shard.acquire();
  // More segments: merges replace the first ones, and the next flush deletes their files.
  const more = cityDocs(1000, 1200);
  for (let i = 0; i < 1000; i += 100) index(more.slice(i, i + 100));
  await shard.mergesIdle();
  await commits.write(shard.commit());
  const deleted = firstFiles.filter((f) => !readdirSync(dir).includes(f)).length;
  clearBlockCache();
  const readAfterDelete = held.fetch(docs.map((d) => d._id)).every((f, i) => f?._source === docs[i].json);
  return { deleted, readAfterDelete, whileHeld: segmentFds(dir) };
}
const { deleted, readAfterDelete, whileHeld } = await readWhileHeld();
clearBlockCache();
for (let i = 0; i < 5; i++) {
  gc();
  await new Promise((r) => setTimeout(r, 20)); // finalization callbacks run after the collection
}
const afterRelease = segmentFds(dir);
const live = readdirSync(dir).filter((f) => f.endsWith('.fseg')).length;
process.stdout.write(JSON.stringify({ deleted, readAfterDelete, whileHeld, afterRelease, live }) + '\n');
rmSync(dir, { recursive: true, force: true });
process.exit(0);
