/**
 * Where the memory of a loaded, committed shard lives, and what the fetch phase costs on it
 * (issue 16, "memory bounded by what is hot"; docs/performance.md, "On-demand blocks"). Builds the
 * bench corpus (bench/corpus.ts) into one shard engine (5,000-doc batches with a refresh each),
 * writes its commit as segment files (shard-node/storage/segment-commits.ts), then in a fresh
 * `node --expose-gc` process opens the commit as a restart does and measures:
 * - heap + external bytes and RSS growth of the opened shard per document (after a forced GC), and
 *   each structure's share by dropping it (`_source` slabs, inverted fields, doc values, `_id`s);
 * - the fetch phase (`Generation.fetch`, whole `_source`) for windows of a page of 10 random hits,
 *   a scroll batch of 1,000 consecutive docs and a `_reindex`-like walk of every doc: cold (the
 *   block cache emptied before each window; the OS page cache holds the file) and warm (the same
 *   window again);
 * - query latency (k 10 by score: `term` on `country`, a 2-word `match` on `name`, `prefix` on
 *   `name`), cold (the first run of each value, block cache and decoded-postings cache emptied
 *   before it) and warm (median of three repeats).
 * Prints one JSON object. Run: `node bench/committed-shard.ts [docs]` (default 250,000).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Mapping } from '../protocol/mapping.ts';
import * as slab from '../shard-node/engine/columns/block-cache.ts';
import * as decoded from '../shard-node/engine/columns/postings-cache.ts';
import type { Query } from '../protocol/query-ast.ts';
import { searcherOf } from '../shard-node/engine/searcher.ts';
import type { Generation } from '../shard-node/engine/generation.ts';
import type { Segment } from '../shard-node/engine/segment.ts';
import { SegmentCommits } from '../shard-node/storage/segment-commits.ts';
import { indexInBatches, newShard } from '../test/support/engine-shard.ts';
import { buildCorpus } from './corpus.ts';

const gc = (globalThis as { gc?: () => void }).gc;

function heap(): number {
  gc!();
  gc!();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Empties the block cache and the decoded-postings cache (when this checkout can), then collects the garbage. */
function coldCache(): void {
  const m = slab as Record<string, unknown>;
  if (typeof m.clearBlockCache !== 'function') throw new Error('no block cache clear hook');
  (m.clearBlockCache as () => void)();
  const p = decoded as Record<string, unknown>;
  if (typeof p.clearPostingsCache === 'function') (p.clearPostingsCache as () => void)();
  gc!(); // the dropped blocks' garbage is not collected inside the timed call
}

/** The block cache's counters per kind (none in a checkout without them). */
function blockCacheFigures(): Record<string, unknown> {
  const stats = (slab as unknown as { blockCacheStats?: (k: string) => unknown }).blockCacheStats;
  return stats ? Object.fromEntries(['source', 'postings'].map((k) => [k, stats(k)])) : {};
}

const COUNTRIES = ['US', 'DE', 'FR', 'IT', 'ES', 'GB', 'RU', 'CN', 'IN', 'BR', 'MX', 'JP', 'PL', 'NL', 'SE', 'AT', 'CH', 'CA', 'AU', 'NO'];
const NAMES = ['san jose', 'new york', 'saint louis', 'port said', 'la paz', 'santa cruz', 'villa nueva', 'puerto rico', 'fort worth', 'rio grande'];
const PREFIXES = ['sa', 'po', 'ne', 'be', 'ma', 'ka', 'ch', 'la', 'br', 'ro'];
/** Other values, run first to compile the code paths. */
const WARM_UP: Query[] = [
  ...['AR', 'CO', 'VE', 'PE'].map((value): Query => ({ kind: 'term', field: 'country', value, caseInsensitive: false, boost: 1 })),
  ...['bad ems', 'lake view'].map((query): Query => ({ kind: 'match', field: 'name', query, operator: 'or', boost: 1 })),
  ...['ta', 'ha'].map((value): Query => ({ kind: 'prefix', field: 'name', value, caseInsensitive: false, boost: 1 })),
];
/** The query shapes timed (k 10 by score), each value once cold (the first time it runs), then warm. */
const SHAPES: [string, Query[]][] = [
  ['term country', COUNTRIES.map((value) => ({ kind: 'term', field: 'country', value, caseInsensitive: false, boost: 1 }))],
  ['match name, 2 words', NAMES.map((query) => ({ kind: 'match', field: 'name', query, operator: 'or', boost: 1 }))],
  ['prefix name', PREFIXES.map((value) => ({ kind: 'prefix', field: 'name', value, caseInsensitive: false, boost: 1 }))],
];

/** A deterministic PRNG (mulberry32), so both checkouts fetch the same windows. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function build(dir: string, docs: number): Promise<number> {
  const corpus = buildCorpus(docs);
  const sample = corpus.sample(1, 2_000_000);
  const { shard } = newShard(sample.index.mappings as Mapping);
  indexInBatches(shard, sample.docs());
  await shard.mergesIdle();
  await new SegmentCommits(dir).write(shard.commit());
  return corpus.rawSourceBytesPerDoc;
}

/** Milliseconds `f` takes. */
function time(f: () => void): number {
  const t = performance.now();
  f();
  return performance.now() - t;
}

/** Median ms per query shape of {@link SHAPES}: each value's first run (cold), and the median of three repeats (warm). */
function queryCost(gen: Generation): Record<string, { coldMs: number; warmMs: number }> {
  const searcher = searcherOf(gen);
  const run = (query: Query) => searcher.query({ query, sort: [], k: 10, trackTotalHits: 10_000 });
  for (const x of WARM_UP) run(x); // compiles the code paths without caching the timed queries
  const queries: Record<string, { coldMs: number; warmMs: number }> = {};
  for (const [name, qs] of SHAPES) {
    const cold: number[] = [];
    const warm: number[] = [];
    for (const x of qs) {
      coldCache();
      cold.push(time(() => run(x))); // the first time this query runs: nothing cached
      warm.push(median([0, 1, 2].map(() => time(() => run(x)))));
    }
    queries[name] = { coldMs: +median(cold).toFixed(4), warmMs: +median(warm).toFixed(4) };
  }
  return queries;
}

function open(dir: string, docs: number): Record<string, unknown> {
  const rss0 = (gc!(), process.memoryUsage().rss);
  const before = heap();
  const commit = new SegmentCommits(dir).load()!;
  const { shard } = newShard(commit.mapping);
  shard.recoverFromStore([], commit.seqNo, -1, commit);
  shard.refresh();
  const total = heap() - before;
  const rssOpened = (gc!(), process.memoryUsage().rss) - rss0;
  const gen = shard.acquire();
  const segments: Segment[] = gen.views.map((v) => v.segment);
  const ids = segments.flatMap((s) => s.ids.toArray());
  if (ids.length !== docs) throw new Error(`opened ${ids.length} docs, not ${docs}`);
  const r = rng(16);
  const windowCost = (windows: string[][]) => {
    const cold: number[] = [];
    const warm: number[] = [];
    for (const w of windows) {
      coldCache();
      cold.push(time(() => gen.fetch(w)));
      warm.push(time(() => gen.fetch(w)));
    }
    return { coldMs: +median(cold).toFixed(4), warmMs: +median(warm).toFixed(4) };
  };
  const pages = Array.from({ length: 300 }, () => Array.from({ length: 10 }, () => ids[Math.floor(r() * ids.length)]));
  const batches = Array.from({ length: 30 }, () => {
    const at = Math.floor(r() * (ids.length - 1000));
    return ids.slice(at, at + 1000);
  });
  const page10 = windowCost(pages);
  const scroll1000 = windowCost(batches);
  coldCache();
  const reindexColdMs = time(() => {
    for (let at = 0; at < ids.length; at += 1000) gen.fetch(ids.slice(at, at + 1000));
  });
  const reindexWarmMs = time(() => {
    for (let at = 0; at < ids.length; at += 1000) gen.fetch(ids.slice(at, at + 1000));
  });
  const afterWalk = heap() - before;
  const rssAfterWalk = (gc!(), process.memoryUsage().rss) - rss0;
  const cacheAfterWalk = blockCacheFigures();
  const queries = queryCost(gen);
  coldCache();
  const drop = (f: (s: Segment) => void): number => {
    const a = heap();
    for (const s of segments) f(s);
    return a - heap();
  };
  const mutable = (s: Segment) => s as unknown as Record<string, unknown>;
  const source = drop((s) => (mutable(s).sources = null));
  const inverted = drop((s) => s.inverted.clear());
  const docValues = drop((s) => {
    s.strings.clear();
    s.numeric.clear();
    s.exists.clear();
  });
  const idBytes = drop((s) => {
    mutable(s).ids = null;
    mutable(s).idToOrd = null;
  });
  const per = (x: number) => +(x / docs).toFixed(1);
  return {
    docs,
    segments: segments.length,
    heapPerDoc: per(total),
    rssPerDoc: per(rssOpened),
    heapPerDocAfterReindexWalk: per(afterWalk),
    rssPerDocAfterReindexWalk: per(rssAfterWalk),
    sourcePerDoc: per(source),
    invertedPerDoc: per(inverted),
    docValuesPerDoc: per(docValues),
    idsPerDoc: per(idBytes),
    fetch: { page10, scroll1000, reindex: { coldMs: Math.round(reindexColdMs), warmMs: Math.round(reindexWarmMs) } },
    queries,
    blockCacheAfterReindexWalk: cacheAfterWalk,
    blockCacheAtEnd: blockCacheFigures(),
  };
}

if (process.argv[2] === '--open') {
  if (!gc) throw new Error('run with node --expose-gc');
  process.stdout.write(JSON.stringify(open(process.argv[3], Number(process.argv[4]))) + '\n');
  process.exit(0);
} else {
  const docs = Number(process.argv[2] ?? 250_000);
  const dir = mkdtempSync(join(tmpdir(), 'folio-committed-shard-'));
  try {
    const rawSourcePerDoc = await build(dir, docs);
    const res = spawnSync(process.execPath, ['--expose-gc', import.meta.filename, '--open', dir, String(docs)], { encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`open failed: ${res.stderr}`);
    const out = JSON.parse(res.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    process.stdout.write(JSON.stringify({ rawSourcePerDoc: +rawSourcePerDoc.toFixed(1), ...out }, null, 2) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
