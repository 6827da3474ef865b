/**
 * Before/after figures of a change to the engine's inverted index (the "Compact postings" section
 * of docs/performance.md), paired in one run: `node bench/compact-postings.ts <before-root> [docs]
 * [rounds]` runs, alternately, one child process over the engine checked out at `<before-root>`
 * (e.g. a `git worktree add <dir> <commit>`) and one over this checkout. Each child indexes the
 * bench corpus (bench/corpus.ts, one shard, 5,000-doc batches with a refresh each, as
 * bench/engine-memory.ts), reads heap + external bytes and RSS after a forced GC, times a few
 * query shapes (each over ~20 distinct values, so the first pass is cold: no cached order or
 * plan; then three warm passes), and drops the inverted index and keyword doc values to measure
 * their share. Prints each child's JSON line, then the medians side by side.
 * `node bench/compact-postings.ts --latency <before-root> [docs]` instead loads both engines in one
 * process and times them query by query, interleaved (the fairer latency figure on a loaded machine).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import type { Sample } from '../scripts/samples/sample.ts';
import type { Mapping } from '../protocol/mapping.ts';
import { indexInBatches } from '../test/support/engine-shard.ts';
import type { Query } from '../protocol/query-ast.ts';
import type { SortField } from '../protocol/sort.ts';

interface Shape {
  name: string;
  k: number;
  sorted: boolean;
  queries: Query[];
}

const COUNTRIES = ['US', 'IN', 'BR', 'DE', 'FR', 'GB', 'IT', 'ES', 'MX', 'RU', 'CN', 'JP', 'PL', 'PH', 'ID', 'CA', 'AU', 'NL', 'TR', 'UA'];
const NAMES = [
  'san jose',
  'new york',
  'saint petersburg',
  'port louis',
  'los angeles',
  'santa cruz',
  'la paz',
  'san francisco',
  'mount pleasant',
  'springfield',
];
const WORDS = [
  'san',
  'santa',
  'saint',
  'port',
  'new',
  'north',
  'lake',
  'city',
  'de',
  'la',
  'el',
  'mount',
  'fort',
  'west',
  'east',
  'bad',
  'sankt',
  'villa',
  'puerto',
  'rio',
];
const PREFIXES = ['sa', 'po', 'ne', 'be', 'ma', 'ka', 'ch', 'la', 'br', 'ro'];
/** Other values, for a warm-up pass of every shape that compiles the code paths (JIT) without caching the timed queries' orders. */
const WARM_UP = { countries: ['AR', 'CO', 'VE', 'PE', 'CL', 'ZA', 'EG', 'NG'], names: ['bad ems', 'lake view', 'el paso'], prefixes: ['ta', 'pa', 'ha'] };

const term = (c: string): Query => ({ kind: 'term', field: 'country', value: c, caseInsensitive: false, boost: 1 });
const match = (text: string): Query => ({ kind: 'match', field: 'name', query: text, operator: 'or', boost: 1 });

/** The query shapes timed (k = hits asked of the shard: a deep page asks from + size). */
const SHAPES: Shape[] = [
  { name: 'term country (k 10, by score)', k: 10, sorted: false, queries: COUNTRIES.map(term) },
  { name: 'match name, 2 words (k 10, by score)', k: 10, sorted: false, queries: NAMES.map(match) },
  {
    name: 'match name, 4 words (k 10, by score)',
    k: 10,
    sorted: false,
    queries: WORDS.map((w, i) => match([w, WORDS[(i + 5) % 20], WORDS[(i + 11) % 20], WORDS[(i + 17) % 20]].join(' '))),
  },
  {
    name: 'prefix name (k 10)',
    k: 10,
    sorted: false,
    queries: PREFIXES.map((p) => ({ kind: 'prefix', field: 'name', value: p, caseInsensitive: false, boost: 1 })),
  },
  { name: 'term country sorted by population, page 1 (k 10)', k: 10, sorted: true, queries: COUNTRIES.map(term) },
  { name: 'term country sorted by population, deep page (k 10,010)', k: 10_010, sorted: true, queries: COUNTRIES.map(term) },
];

/** The shapes over the warm-up values. */
function warmUpShapes(): Shape[] {
  return SHAPES.map((s) => ({
    ...s,
    queries: s.queries.map((q, i) => {
      if (q.kind === 'term') return term(WARM_UP.countries[i % WARM_UP.countries.length]);
      if (q.kind === 'prefix') return { ...q, value: WARM_UP.prefixes[i % WARM_UP.prefixes.length] };
      return match(WARM_UP.names[i % WARM_UP.names.length]);
    }),
  }));
}

/** Population descending for the sorted shapes, else `_score`. */
function sortOf(sorted: boolean): SortField[] {
  return sorted
    ? [{ kind: 'field', field: 'population', order: 'desc', missing: '_last', mode: 'max' }]
    : [{ kind: 'score', field: '_score', order: 'desc', missing: '_last', mode: 'max' }];
}

/** One child's figures. */
interface ChildResult {
  root: string;
  docs: number;
  heapPerDoc: number;
  rssPerDoc: number;
  invertedPerDoc: number;
  keywordDocValuesPerDoc: number;
  indexMs: number;
  /** Per shape: median ms of the cold pass and of the warm passes. */
  latency: Record<string, { cold: number; warm: number }>;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Heap + external bytes and RSS after two forced GCs. */
function mem(): { heap: number; rss: number } {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed + m.external, rss: m.rss };
}

async function child(root: string, docs: number): Promise<ChildResult> {
  const { buildCorpus } = (await import(path.join(root, 'bench/corpus.ts'))) as typeof import('./corpus.ts');
  const sample = buildCorpus(docs).sample(1, 2_000_000);
  const m0 = mem();
  const r = await engineFigures(root, sample);
  // The whole engine's heap: what releasing the shard freed (the corpus stays referenced).
  const m2 = mem();
  return {
    root,
    docs,
    heapPerDoc: (r.loaded.heap - m2.heap + r.inverted + r.keywordDocValues) / docs,
    rssPerDoc: (r.loaded.rss - m0.rss) / docs,
    invertedPerDoc: r.inverted / docs,
    keywordDocValuesPerDoc: r.keywordDocValues / docs,
    indexMs: r.indexMs,
    latency: r.latency,
  };
}

/** Indexes `sample` into one shard, times the shapes, drops the inverted index and keyword doc values; the shard is released on return. */
async function engineFigures(root: string, sample: Sample) {
  // The other checkout has the same modules (their types are taken from this one).
  const { newShard } = (await import(path.join(root, 'test/support/engine-shard.ts'))) as typeof import('../test/support/engine-shard.ts');
  const { searcherOf } = (await import(path.join(root, 'shard-node/engine/searcher.ts'))) as typeof import('../shard-node/engine/searcher.ts');
  const { shard } = newShard(sample.index.mappings as Mapping);
  const t0 = performance.now();
  indexInBatches(shard, sample.docs());
  const indexMs = performance.now() - t0;
  const loaded = mem();
  const gen = shard.acquire();
  const searcher = searcherOf(gen);
  const run = (shape: Shape, query: Query) => searcher.query({ query, sort: sortOf(shape.sorted), k: shape.k, trackTotalHits: 10_000 });
  for (const shape of warmUpShapes()) for (const query of shape.queries) run(shape, query);
  const latency: ChildResult['latency'] = {};
  for (const shape of SHAPES) {
    const passes: number[][] = [];
    for (let pass = 0; pass < 4; pass++) {
      const times: number[] = [];
      for (const query of shape.queries) {
        const s = performance.now();
        run(shape, query);
        times.push(performance.now() - s);
      }
      passes.push(times);
    }
    latency[shape.name] = { cold: median(passes[0]), warm: median(passes.slice(1).flat()) };
  }
  const segments = gen.views.map((v) => v.segment);
  const drop = (f: (s: (typeof segments)[number]) => void): number => {
    const a = mem().heap;
    for (const s of segments) f(s);
    return a - mem().heap;
  };
  const inverted = drop((s) => s.inverted.clear());
  const keywordDocValues = drop((s) => s.strings.clear());
  return { loaded, indexMs, latency, inverted, keywordDocValues };
}

function driver(before: string, docs: number, rounds: number): void {
  const after = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const results: Record<'before' | 'after', ChildResult[]> = { before: [], after: [] };
  for (let r = 0; r < rounds; r++) {
    for (const [label, root] of [
      ['before', before],
      ['after', after],
    ] as const) {
      const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', root, String(docs)], {
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      });
      const res = JSON.parse(out.trim().split('\n').pop()!) as ChildResult;
      console.log(JSON.stringify({ label, round: r, ...res }));
      results[label].push(res);
    }
  }
  const med = (label: 'before' | 'after', f: (r: ChildResult) => number) => median(results[label].map(f));
  const row = (name: string, f: (r: ChildResult) => number, digits: number) =>
    console.log(`| ${name} | ${med('before', f).toFixed(digits)} | ${med('after', f).toFixed(digits)} |`);
  console.log(`\n${docs} docs, ${rounds} rounds (medians)\n| Figure | Before | After |\n| --- | --- | --- |`);
  row('Inverted index, B/doc', (r) => r.invertedPerDoc, 1);
  row('Keyword doc values, B/doc', (r) => r.keywordDocValuesPerDoc, 1);
  row('Heap + external, B/doc', (r) => r.heapPerDoc, 1);
  row('RSS, B/doc', (r) => r.rssPerDoc, 1);
  row('Indexing (apply + refresh), ms', (r) => r.indexMs, 0);
  for (const s of SHAPES) {
    row(`${s.name}: cold p50 ms`, (r) => r.latency[s.name].cold, 3);
    row(`${s.name}: warm p50 ms`, (r) => r.latency[s.name].warm, 3);
  }
}

/** Builds one shard over `sample` with the engine at `root`; returns its query function. */
async function shardAt(root: string, sample: Sample): Promise<(shape: Shape, query: Query) => void> {
  const { newShard } = (await import(path.join(root, 'test/support/engine-shard.ts'))) as typeof import('../test/support/engine-shard.ts');
  const { searcherOf } = (await import(path.join(root, 'shard-node/engine/searcher.ts'))) as typeof import('../shard-node/engine/searcher.ts');
  const { shard } = newShard(sample.index.mappings as Mapping);
  indexInBatches(shard, sample.docs());
  const searcher = searcherOf(shard.acquire());
  return (shape, query) => {
    searcher.query({ query, sort: sortOf(shape.sorted), k: shape.k, trackTotalHits: 10_000 });
  };
}

/**
 * Query latency of both engines in one process, interleaved query by query (before, after, then
 * after, before for the next query), so that the load of a shared machine falls on both alike.
 * Prints per shape the medians of the cold pass and of three warm passes.
 */
async function interleaved(before: string, docs: number): Promise<void> {
  const after = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const { buildCorpus } = (await import(path.join(after, 'bench/corpus.ts'))) as typeof import('./corpus.ts');
  const sample = buildCorpus(docs).sample(1, 2_000_000);
  const engines = [await shardAt(before, sample), await shardAt(after, sample)];
  for (const shape of warmUpShapes()) for (const query of shape.queries) for (const run of engines) run(shape, query);
  console.log(
    `${docs} docs, queries interleaved before/after in one process (p50 ms)\n| Shape | Before cold | After cold | Before warm | After warm |\n| --- | --- | --- | --- | --- |`,
  );
  for (const shape of SHAPES) {
    const times = [
      [[], []],
      [[], []],
    ] as number[][][]; // [engine][cold 0 | warm 1]
    for (let pass = 0; pass < 4; pass++) {
      shape.queries.forEach((query, i) => {
        const order = (i + pass) % 2 === 0 ? [0, 1] : [1, 0];
        for (const e of order) {
          const s = performance.now();
          engines[e](shape, query);
          times[e][pass === 0 ? 0 : 1].push(performance.now() - s);
        }
      });
    }
    const m = (e: number, w: number) => median(times[e][w]).toFixed(3);
    console.log(`| ${shape.name} | ${m(0, 0)} | ${m(1, 0)} | ${m(0, 1)} | ${m(1, 1)} |`);
  }
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  if (args[0] === '--latency') await interleaved(path.resolve(args[1]), Number(args[2] ?? 100_000));
  else if (args[0] === '--child') console.log(JSON.stringify(await child(path.resolve(args[1]), Number(args[2]))));
  else if (args[0]) driver(path.resolve(args[0]), Number(args[1] ?? 250_000), Number(args[2] ?? 2));
  else {
    console.error('usage: node bench/compact-postings.ts <before-root> [docs] [rounds] | --latency <before-root> [docs]');
    process.exitCode = 2;
  }
}
