/**
 * Where one shard node's resident memory goes, per document copy (issue 16, RSS ≤ 2 × raw
 * `_source`; docs/performance.md, "Resident memory per copy"). In one `node --expose-gc` process it
 * builds `copies` shards of a shard node's registry (shard-node/index-registry.ts: SQLite translog
 * and store, segment files, the process-wide block cache) over a fresh data directory, as a node of
 * the scale run holds a primary and a replica: the bench corpus (bench/corpus.ts) dealt round-robin,
 * bulks of 2,500 docs per shard with a refresh every 5,000 (a 1 s refresh interval at the scale
 * run's rate), then a flush, merges, and a flush. It then reads, after forced GCs:
 * - `process.memoryUsage()`, V8's committed heap, and `/proc/self/smaps_rollup` (`RssAnon`,
 *   `RssFile`, `RssShmem`), against the same read before the registry existed;
 * - each engine structure's share of heap + external, by dropping it from every segment and
 *   reading again (so every figure is a measured delta): the block cache, the decoded-postings
 *   cache, `_id`s and their hash, versions and seq_nos, `_source` offsets and CRCs, the inverted
 *   index, doc values, the live version map; and the SQLite connections' share of the RSS (closing
 *   them), with their `cache_size` and `mmap_size`;
 * - the same figures in a fresh process that opens the data directory as a restart does.
 * Prints one JSON object. Run: `node --expose-gc bench/node-memory.ts [docs per copy] [copies]`
 * (default 250,000 × 2).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import type { Mapping } from '../protocol/mapping.ts';
import type { IndexMetadata } from '../protocol/metadata.ts';
import { IndexRegistry } from '../shard-node/index-registry.ts';
import { blockCacheStats, clearBlockCache } from '../shard-node/engine/columns/block-cache.ts';
import { clearPostingsCache } from '../shard-node/engine/columns/postings-cache.ts';
import type { Segment } from '../shard-node/engine/segment.ts';
import type { Shard } from '../shard-node/engine/shard.ts';
import { searcherOf } from '../shard-node/engine/searcher.ts';
import { byField, q } from '../test/support/engine-shard.ts';
import { buildCorpus } from './corpus.ts';

const INDEX = 'node-memory';
const UUID = 'uuid-node-memory';
const PER_SHARD_BULK = 2_500;
const REFRESH_EVERY = 5_000;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

/** One reading of the process's memory, bytes. */
interface Reading {
  rss: number;
  heapUsed: number;
  heapCommitted: number;
  external: number;
  arrayBuffers: number;
  rssAnon: number;
  rssFile: number;
  rssShmem: number;
}

function smaps(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync('/proc/self/smaps_rollup', 'utf8').split('\n')) {
    const m = /^(\w+):\s+(\d+) kB/.exec(line);
    if (m) out[m[1]] = Number(m[2]) * 1024;
  }
  return out;
}

function read(): Reading {
  for (let i = 0; i < 3; i++) gc!();
  const m = process.memoryUsage();
  const s = smaps();
  return {
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapCommitted: getHeapStatistics().total_physical_size,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    rssAnon: s.Anonymous ?? 0,
    rssFile: s.Rss - (s.Anonymous ?? 0) - (s.Shared_Hugetlb ?? 0),
    rssShmem: s.Shared_Clean + s.Shared_Dirty,
  };
}

const heapAndExternal = (r: Reading) => r.heapUsed + r.external;

function metadata(mappings: Mapping, copies: number): IndexMetadata {
  return {
    name: INDEX,
    uuid: UUID,
    numberOfShards: copies,
    numberOfReplicas: 0,
    routingNumShards: copies,
    maxResultWindow: 10_000,
    refreshIntervalMs: -1,
    mappings,
    creationDate: 1,
    version: 1,
  };
}

type Op = { op: 'index'; _id: string; source: string; create: false };

async function load(r: IndexRegistry, docsPerCopy: number, copies: number): Promise<number> {
  const corpus = buildCorpus(docsPerCopy * copies);
  r.putIndex(metadata(corpus.sample(1, 10_000).index.mappings as Mapping, copies), [...Array(copies).keys()]);
  const shards = [...Array(copies).keys()].map((s) => r.shard(INDEX, s));
  const batches: Op[][] = shards.map(() => []);
  let n = 0;
  for (const d of corpus.docs()) {
    const s = n % copies;
    batches[s].push({ op: 'index', _id: d._id, source: JSON.stringify(d.source), create: false });
    if (batches[s].length === PER_SHARD_BULK) {
      await shards[s].applySliced(batches[s]);
      await shards[s].sync();
      batches[s] = [];
    }
    if (++n % (REFRESH_EVERY * copies) === 0) for (const sh of shards) await sh.refreshSliced();
  }
  for (let s = 0; s < copies; s++) if (batches[s].length > 0) await shards[s].applySliced(batches[s]);
  for (const sh of shards) await sh.sync();
  for (const sh of shards) await sh.refreshSliced();
  await r.flush(INDEX);
  for (const sh of shards) await sh.mergesIdle();
  await r.flush(INDEX);
  return corpus.rawSourceBytesPerDoc;
}

type Mutable = Record<string, unknown>;

/** Each structure's share of heap + external, bytes per document copy, measured by dropping it. */
function breakdown(shards: Shard[], docs: number): Record<string, number> {
  const segments: Segment[] = shards.flatMap((sh) => sh.acquire().views.map((v) => v.segment));
  const out: Record<string, number> = {};
  const drop = (name: string, f: () => void): void => {
    const a = heapAndExternal(read());
    f();
    out[name] = +((a - heapAndExternal(read())) / docs).toFixed(1);
  };
  out.blockCacheSourceBytes = +(blockCacheStats('source').bytes / docs).toFixed(1);
  out.blockCachePostingsBytes = +(blockCacheStats('postings').bytes / docs).toFixed(1);
  drop('blockCache', () => clearBlockCache());
  drop('postingsCache', () => clearPostingsCache());
  drop('idHash', () => segments.forEach((s) => ((s as unknown as Mutable).idToOrd = null)));
  drop('ids', () => segments.forEach((s) => ((s as unknown as Mutable).ids = null)));
  drop('versionsSeqNos', () =>
    segments.forEach((s) => {
      (s as unknown as Mutable).versions = null;
      (s as unknown as Mutable).seqNos = null;
    }),
  );
  drop('sourceOffsetsCrcs', () => segments.forEach((s) => ((s as unknown as Mutable).sources = null)));
  drop('norms', () => segments.forEach((s) => s.inverted.forEach((f) => ((f as unknown as Mutable).norms = null))));
  drop('keywordDocValues', () => segments.forEach((s) => s.strings.clear())); // the rank columns (the dictionaries are the inverted fields')
  drop('invertedIndex', () => segments.forEach((s) => s.inverted.clear()));
  drop('numericDocValues', () => segments.forEach((s) => s.numeric.clear()));
  drop('existsFlags', () => segments.forEach((s) => s.exists.clear()));
  drop('liveVersionMap', () =>
    shards.forEach((sh) => (sh as unknown as { state: { versions: { entries: Map<string, unknown> } } }).state.versions.entries.clear()),
  );
  return out;
}

function per(a: Reading, b: Reading, docs: number): Record<string, number> {
  return Object.fromEntries(Object.keys(a).map((k) => [k, +((b[k as keyof Reading] - a[k as keyof Reading]) / docs).toFixed(1)]));
}

/**
 * What the scale run's searches leave resident, heap + `external` per copy: the presorted orders of
 * `population` in both directions (a selection sample round each, as a deep page builds them), a
 * page 1 of each, and 200 fetches of 10 hits (the block cache's `_source` blocks).
 */
async function afterSearches(shards: Shard[], docs: number): Promise<Record<string, number>> {
  const a = read();
  for (const sh of shards) {
    const s = searcherOf(sh.acquire());
    for (const order of ['asc', 'desc'] as const) {
      const input = { query: q.all(), sort: [byField('population', order)] };
      await s.sample(input, 100);
      s.query({ ...input, k: 10, trackTotalHits: 10_000 });
    }
    const gen = sh.acquire();
    const ids = gen.views.flatMap((v) => Array.from({ length: 20 }, (_, i) => v.segment.ids.get(Math.floor((i * v.segment.maxDoc) / 20))));
    for (let i = 0; i < 200; i++) gen.fetch(ids.slice(i % ids.length, (i % ids.length) + 10));
  }
  const b = read();
  const per = (x: number) => +(x / docs).toFixed(1);
  return {
    heapAndExternal: per(heapAndExternal(b) - heapAndExternal(a)),
    rss: per(b.rss - a.rss),
    blockCacheSource: per(blockCacheStats('source').bytes),
    blockCachePostings: per(blockCacheStats('postings').bytes),
  };
}

/** Measures a registry at `dir` (built here, or opened as a restart does) against `base`. */
async function measure(r: IndexRegistry, base: Reading, docs: number, copies: number): Promise<Record<string, unknown>> {
  const loaded = read();
  const shards = [...Array(copies).keys()].map((s) => r.shard(INDEX, s));
  const total = per(base, loaded, docs);
  const searches = await afterSearches(shards, docs);
  const parts = breakdown(shards, docs);
  const afterDrops = read();
  const sqliteBefore = read();
  await r.close();
  const sqliteClosed = read();
  return {
    perCopy: total,
    v8HeapSlackPerCopy: +((loaded.heapCommitted - loaded.heapUsed - (base.heapCommitted - base.heapUsed)) / docs).toFixed(1),
    nativeOutsideV8PerCopy: +((loaded.rssAnon - loaded.heapCommitted - loaded.external - (base.rssAnon - base.heapCommitted - base.external)) / docs).toFixed(
      1,
    ),
    afterSearches: searches,
    parts,
    heapAndExternalLeftAfterDrops: +((heapAndExternal(afterDrops) - heapAndExternal(base)) / docs).toFixed(1),
    sqliteCloseRssPerCopy: +((sqliteBefore.rss - sqliteClosed.rss) / docs).toFixed(1),
    rssMiB: +(loaded.rss / 2 ** 20).toFixed(1),
  };
}

async function main(): Promise<void> {
  const docsPerCopy = Number(process.argv[2] ?? 250_000);
  const copies = Number(process.argv[3] ?? 2);
  const docs = docsPerCopy * copies;
  if (process.argv[4] === '--open') {
    const base = read();
    const r = new IndexRegistry('n1', { dataDir: process.argv[5] });
    r.recover();
    process.stdout.write(JSON.stringify(await measure(r, base, docs, copies)) + '\n');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'folio-node-memory-'));
  try {
    buildCorpus(1); // loads the cities sample the corpus is made from, so that the base reading holds it
    const base = read();
    const r = new IndexRegistry('n1', { dataDir: dir });
    const started = performance.now();
    const raw = await load(r, docsPerCopy, copies);
    const loadS = (performance.now() - started) / 1000;
    const live = await measure(r, base, docs, copies);
    const res = spawnSync(process.execPath, ['--expose-gc', import.meta.filename, String(docsPerCopy), String(copies), '--open', dir], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    if (res.status !== 0) throw new Error(`restart failed: ${res.stderr}`);
    const restarted = JSON.parse(res.stdout.trim().split('\n').pop()!) as unknown;
    const report = { docsPerCopy, copies, rawSourcePerDoc: +raw.toFixed(1), loadS: +loadS.toFixed(1), afterLoad: live, afterRestart: restarted };
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
