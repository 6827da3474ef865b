/**
 * Restart time to searchable for one shard node holding one large shard, before and after issue
 * 16's segment files (docs/performance.md, "Segment files and restarts"). Builds the bench corpus
 * (bench/corpus.ts: cities copied to `FOLIO_BENCH_RESTART_DOCS` documents, default 300,000) into
 * one shard of a shard node's registry over a fresh data directory (bulks of 5,000, a refresh
 * every 50,000, as a 1 s refresh interval would), closes it gracefully (seal, flush: segment files,
 * a commit point, the SQLite snapshot), then measures, each in a fresh `node` process, the time
 * from the start of `IndexRegistry.recover()` to a searchable shard (recovered and refreshed, a
 * count answered) and the process's time from its start: from the segment files, and from the
 * SQLite snapshot (the commit point hidden, so the path that ran before them replays every
 * document). Also prints disk bytes per document (segment files; the SQLite store), the flush's
 * duration and the part of it spent writing segment files (the rest folds the translog into SQLite). Runs alternate, `FOLIO_BENCH_RESTART_RUNS` each (default 3); medians.
 *
 * Run: `node bench/restart.ts` (or `FOLIO_BENCH_RESTART_DOCS=1000000 node bench/restart.ts`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Mapping } from '../protocol/mapping.ts';
import type { IndexMetadata } from '../protocol/metadata.ts';
import { IndexRegistry } from '../shard-node/index-registry.ts';
import { SegmentCommits } from '../shard-node/storage/segment-commits.ts';
import { searcherOf } from '../shard-node/engine/searcher.ts';
import { buildCorpus } from './corpus.ts';

const DOCS = Number(process.env.FOLIO_BENCH_RESTART_DOCS ?? 300_000);
const RUNS = Number(process.env.FOLIO_BENCH_RESTART_RUNS ?? 3);
const BULK = 5_000;
const REFRESH_EVERY = 50_000;
const INDEX = 'restart-bench';
const UUID = 'uuid-restart';

/** One restart's figures (ms). */
interface Opened {
  recoverMs: number;
  processMs: number;
  docs: number;
  rssMiB: number;
}

function metadata(mappings: Mapping): IndexMetadata {
  return {
    name: INDEX,
    uuid: UUID,
    numberOfShards: 1,
    numberOfReplicas: 0,
    routingNumShards: 1,
    maxResultWindow: 10_000,
    refreshIntervalMs: -1,
    mappings,
    creationDate: 1,
    version: 1,
  };
}

/** Child mode: recover the registry at `dir`, answer a count, print the figures, exit without closing. */
function openChild(dir: string): void {
  const started = performance.now();
  const r = new IndexRegistry('n1', { dataDir: dir });
  r.recover();
  const shard = r.shard(INDEX, 0);
  const g = shard.acquire();
  const docs = searcherOf(g).count();
  const recoverMs = performance.now() - started;
  const out: Opened = {
    recoverMs,
    processMs: performance.now() + performance.timeOrigin - Number(process.env.FOLIO_SPAWNED_AT),
    docs,
    rssMiB: process.memoryUsage().rss / 2 ** 20,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(0);
}

/** Milliseconds spent writing segment files and commit points (wrapped around `SegmentCommits.write`). */
let segmentWriteMs = 0;
const segmentWrite = Object.getOwnPropertyDescriptor(SegmentCommits.prototype, 'write')!.value as SegmentCommits['write'];
SegmentCommits.prototype.write = async function (this: SegmentCommits, ...args: Parameters<SegmentCommits['write']>) {
  const started = performance.now();
  try {
    return await segmentWrite.apply(this, args);
  } finally {
    segmentWriteMs += performance.now() - started;
  }
};

async function build(dir: string): Promise<{ flushMs: number; rawSourceBytesPerDoc: number; loadMs: number }> {
  const corpus = buildCorpus(DOCS);
  const r = new IndexRegistry('n1', { dataDir: dir });
  r.putIndex(metadata(corpus.sample(1, 10_000).index.mappings as Mapping), [0]);
  const shard = r.shard(INDEX, 0);
  const loadStarted = performance.now();
  let batch: { op: 'index'; _id: string; source: string; create: false }[] = [];
  let n = 0;
  for (const d of corpus.docs()) {
    batch.push({ op: 'index', _id: d._id, source: JSON.stringify(d.source), create: false });
    if (batch.length === BULK) {
      await shard.applySliced(batch);
      await shard.sync();
      batch = [];
    }
    if (++n % REFRESH_EVERY === 0) await shard.refreshSliced();
  }
  if (batch.length > 0) await shard.applySliced(batch);
  await shard.sync();
  await shard.refreshSliced();
  await shard.mergesIdle();
  const loadMs = performance.now() - loadStarted;
  const flushStarted = performance.now();
  await r.flush(INDEX);
  const flushMs = performance.now() - flushStarted;
  await r.close();
  return { flushMs, rawSourceBytesPerDoc: corpus.rawSourceBytesPerDoc, loadMs };
}

function openIn(dir: string): Opened {
  const res = spawnSync(process.execPath, [import.meta.filename, '--open', dir], {
    encoding: 'utf8',
    env: { ...process.env, FOLIO_SPAWNED_AT: String(Date.now()) },
  });
  if (res.status !== 0) throw new Error(`restart failed: ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop()!) as Opened;
}

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'folio-restart-bench-'));
  try {
    const built = await build(dir);
    const shardDir = join(dir, UUID, '0');
    const files = readdirSync(shardDir);
    const size = (f: string) => statSync(join(shardDir, f)).size;
    const segmentBytes = files.filter((f) => f.endsWith('.fseg') || /^segments_\d+$/.test(f)).reduce((s, f) => s + size(f), 0);
    const sqliteBytes = files.filter((f) => f.startsWith('shard.sqlite')).reduce((s, f) => s + size(f), 0);
    const commit = files.find((f) => /^segments_\d+$/.test(f))!;
    const fromFiles: Opened[] = [];
    const fromSqlite: Opened[] = [];
    for (let i = 0; i < RUNS; i++) {
      fromFiles.push(openIn(dir));
      renameSync(join(shardDir, commit), join(shardDir, `${commit}.hidden`));
      fromSqlite.push(openIn(dir));
      renameSync(join(shardDir, `${commit}.hidden`), join(shardDir, commit));
    }
    for (const o of [...fromFiles, ...fromSqlite]) if (o.docs !== DOCS) throw new Error(`restart found ${o.docs} docs, not ${DOCS}`);
    const summary = (os: Opened[]) => ({
      recoverMs: Math.round(median(os.map((o) => o.recoverMs))),
      processMs: Math.round(median(os.map((o) => o.processMs))),
      docsPerSecond: Math.round(DOCS / (median(os.map((o) => o.recoverMs)) / 1000)),
      rssMiB: Math.round(median(os.map((o) => o.rssMiB))),
      runs: os.map((o) => Math.round(o.recoverMs)),
    });
    const report = {
      docs: DOCS,
      segmentFiles: files.filter((f) => f.endsWith('.fseg')).length,
      rawSourceBytesPerDoc: Math.round(built.rawSourceBytesPerDoc),
      segmentFileBytesPerDoc: Math.round(segmentBytes / DOCS),
      sqliteBytesPerDoc: Math.round(sqliteBytes / DOCS),
      loadMs: Math.round(built.loadMs),
      flushMs: Math.round(built.flushMs),
      segmentWriteMs: Math.round(segmentWriteMs),
      fromSegmentFiles: summary(fromFiles),
      fromSqliteSnapshot: summary(fromSqlite),
    };
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--open') openChild(process.argv[3]);
else await main();
