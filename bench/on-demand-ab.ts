/**
 * What reading `_source` blocks and postings from segment files on demand costs a search, measured
 * A/B in one process so that the machine's load moves both sides alike (docs/performance.md,
 * "On-demand `_source` and postings"). Builds the bench corpus (bench/corpus.ts) into one shard
 * engine, writes its commit as segment files, then opens the commit twice: once as a restart does
 * (`_source` blocks and postings read from the files through the block cache) and once with every
 * array copied into memory (`decodeSegment` without the file, the engine before on-demand reads).
 * Each measured call runs on both, alternating which goes first, with the block cache and the
 * decoded-postings cache emptied before a cold call and garbage collected:
 * - the fetch phase (`Generation.fetch`) of a page of 10 random hits and of a scroll batch of
 *   1,000 consecutive docs;
 * - queries (k 10 by score): `term` on `country`, a 2-word `match` on `name`, `prefix` on `name`,
 *   each value cold (its first run) and warm (run again).
 * Prints medians per side in µs. Run: `node --expose-gc bench/on-demand-ab.ts [docs]` (default 250,000).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Mapping } from '../protocol/mapping.ts';
import type { Query } from '../protocol/query-ast.ts';
import { clearBlockCache } from '../shard-node/engine/columns/block-cache.ts';
import { clearPostingsCache } from '../shard-node/engine/columns/postings-cache.ts';
import type { Generation } from '../shard-node/engine/generation.ts';
import { searcherOf } from '../shard-node/engine/searcher.ts';
import { decodeCommitPoint } from '../shard-node/engine/segment-file/commit-point.ts';
import { decodeSegment } from '../shard-node/engine/segment-file/segment-codec.ts';
import type { ShardCommit } from '../shard-node/engine/shard-commit.ts';
import { SegmentCommits } from '../shard-node/storage/segment-commits.ts';
import { indexInBatches, newShard } from '../test/support/engine-shard.ts';
import { buildCorpus } from './corpus.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const DOCS = Number(process.argv[2] ?? 250_000);

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function opened(commit: ShardCommit): Generation {
  const { shard } = newShard(commit.mapping);
  shard.recoverFromStore([], commit.seqNo, -1, commit);
  shard.refresh();
  return shard.acquire();
}

function cold(): void {
  clearBlockCache();
  clearPostingsCache();
  gc!();
}

function time(f: () => void): number {
  const t = performance.now();
  f();
  return (performance.now() - t) * 1000;
}

const COUNTRIES = ['US', 'DE', 'FR', 'IT', 'ES', 'GB', 'RU', 'CN', 'IN', 'BR', 'MX', 'JP', 'PL', 'NL', 'SE', 'AT', 'CH', 'CA', 'AU', 'NO'];
const NAMES = ['san jose', 'new york', 'saint louis', 'port said', 'la paz', 'santa cruz', 'villa nueva', 'puerto rico', 'fort worth', 'rio grande'];
const PREFIXES = ['sa', 'po', 'ne', 'be', 'ma', 'ka', 'ch', 'la', 'br', 'ro'];
const SHAPES: [string, Query[]][] = [
  ['term country', COUNTRIES.map((value): Query => ({ kind: 'term', field: 'country', value, caseInsensitive: false, boost: 1 }))],
  ['match name, 2 words', NAMES.map((query): Query => ({ kind: 'match', field: 'name', query, operator: 'or', boost: 1 }))],
  ['prefix name', PREFIXES.map((value): Query => ({ kind: 'prefix', field: 'name', value, caseInsensitive: false, boost: 1 }))],
];
const WARM_UP: Query[] = [
  ...['AR', 'CO'].map((value): Query => ({ kind: 'term', field: 'country', value, caseInsensitive: false, boost: 1 })),
  { kind: 'match', field: 'name', query: 'bad ems', operator: 'or', boost: 1 },
  { kind: 'prefix', field: 'name', value: 'ta', caseInsensitive: false, boost: 1 },
];

const dir = mkdtempSync(join(tmpdir(), 'folio-on-demand-ab-'));
try {
  const corpus = buildCorpus(DOCS);
  const sample = corpus.sample(1, 2_000_000);
  const built = newShard(sample.index.mappings as Mapping).shard;
  indexInBatches(built, sample.docs());
  await built.mergesIdle();
  await new SegmentCommits(dir).write(built.commit());
  const onDisk = new SegmentCommits(dir).load()!;
  const inMemory: ShardCommit = {
    ...onDisk,
    segments: onDisk.segments.map((c, i) => {
      const file = join(dir, committedFiles(dir)[i]);
      return { segment: decodeSegment(readFileSync(file), file), deleted: c.deleted };
    }),
  };
  const sides: Record<'memory' | 'files', Generation> = { memory: opened(inMemory), files: opened(onDisk) };
  const ids = sides.files.views.flatMap((v) => v.segment.ids.toArray());
  let seed = 16;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out: Record<string, Record<string, number>> = {};
  const record = (name: string, side: string, us: number[]) => ((out[name] ??= {})[side] = Math.round(median(us)));
  /** Runs `call` on both sides for each input, cold then warm, alternating which side goes first. */
  const ab = <T>(name: string, inputs: T[], call: (g: Generation, x: T) => void) => {
    const t: Record<string, number[]> = { 'memory cold': [], 'files cold': [], 'memory warm': [], 'files warm': [] };
    inputs.forEach((x, i) => {
      const order = i % 2 ? (['memory', 'files'] as const) : (['files', 'memory'] as const);
      for (const side of order) {
        cold();
        t[`${side} cold`].push(time(() => call(sides[side], x)));
        t[`${side} warm`].push(time(() => call(sides[side], x)));
      }
    });
    for (const [k, v] of Object.entries(t)) record(name, k, v);
  };
  for (const g of Object.values(sides)) for (const x of WARM_UP) searcherOf(g).query({ query: x, sort: [], k: 10, trackTotalHits: 10_000 });
  ab(
    'fetch, page of 10 random hits',
    Array.from({ length: 200 }, () => Array.from({ length: 10 }, () => ids[Math.floor(rand() * ids.length)])),
    (g, w) => g.fetch(w),
  );
  ab(
    'fetch, scroll batch of 1,000',
    Array.from({ length: 30 }, () => {
      const at = Math.floor(rand() * (ids.length - 1000));
      return ids.slice(at, at + 1000);
    }),
    (g, w) => g.fetch(w),
  );
  for (const [name, qs] of SHAPES) ab(name, qs, (g, x) => searcherOf(g).query({ query: x, sort: [], k: 10, trackTotalHits: 10_000 }));
  process.stdout.write(JSON.stringify({ docs: DOCS, microseconds: out }, null, 2) + '\n');
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** The segment files the newest commit point of `d` names, in its order. */
function committedFiles(d: string): string[] {
  const point = readdirSync(d)
    .filter((f) => /^segments_\d+$/.test(f))
    .sort((a, b) => Number(a.slice(9)) - Number(b.slice(9)))
    .pop()!;
  return decodeCommitPoint(readFileSync(join(d, point)), point).segments.map((s) => s.file);
}
