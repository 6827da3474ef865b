/**
 * Presorted-order figures for one shard (not a test): loads the 135,233 `cities` into one shard
 * (apply + refresh every 5,000, as bench/engine.ts), times the cold build of `_id` ranks and of
 * several orders (per segment, then the generation's merge), then the query phase in process:
 * the first call of each query and the p50 of warm calls, for match_all with the default `_score` sort, `[population desc, _id]`
 * (top 10 and a `search_after` page of 1,000 deep in the order), and a `country` term with `_score`.
 * Run: `node --expose-gc bench/sort-order.ts`   Env: BENCH_RUNS (default 30 warm calls per row).
 */
import { citiesIndex, cities } from '../scripts/samples/cities.ts';
import type { Segment } from '../shard-node/engine/segment.ts';
import { Shard } from '../shard-node/engine/shard.ts';
import { searcherOf, type QueryInput } from '../shard-node/engine/searcher.ts';
import { mergeMappings } from '../shared/dynamic-mapping.ts';
import type { Mapping } from '../protocol/mapping.ts';
import type { Query } from '../protocol/query-ast.ts';
import { SCORE_SORT, type SortField } from '../protocol/sort.ts';
import { idKeys } from '../shard-node/engine/sort-keys.ts';
import { liveOrder, orderSpec } from '../shard-node/engine/sort-order.ts';

const runs = Number(process.env.BENCH_RUNS ?? 30);
let mapping = citiesIndex.mappings as Mapping;
const shard = new Shard({ index: 'cities', shard: 0, getMapping: () => mapping, updateMapping: (u) => (mapping = mergeMappings(mapping, u)) });
const docs = [...cities.docs()];
for (let i = 0; i < docs.length; i += 5000) {
  shard.apply(docs.slice(i, i + 5000).map((d) => ({ op: 'index' as const, _id: d._id, source: JSON.stringify(d.source), create: false })));
  shard.refresh();
}
const gen = shard.acquire();
console.log(`${gen.docCount} docs in ${gen.views.length} segments (${gen.views.map((v) => v.segment.maxDoc).join(', ')})`);

const all: Query = { kind: 'match_all', boost: 1 };
const popId: SortField[] = [
  { kind: 'field', field: 'population', order: 'desc', missing: '_last', mode: 'max' },
  { kind: 'field', field: '_id', order: 'asc', missing: '_last', mode: 'min' },
];
const country: Query = { kind: 'term', field: 'country', value: 'US', caseInsensitive: false, boost: 1 };
const countryFilter: Query = { kind: 'bool', must: [], should: [], filter: [country], mustNot: [], boost: 1 };
// Build costs in CPU ms, cold (median of 5): `_id` ranks per segment, then per spec each segment's order
// and the generation's merge of the live docs. Each repetition reads shallow copies of the
// segments, which the caches (keyed by segment and generation object) have never seen.
const fields = gen.fields();
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const coldViews = () =>
  gen.views.map((v) => ({ ...v, segment: Object.assign(Object.create(Object.getPrototypeOf(v.segment) as object | null), v.segment) as Segment }));
const median = (xs: number[]) => xs.sort((x, y) => x - y)[xs.length >> 1];
// CPU time of this thread's work (ms): steadier than wall time on a shared box.
const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const specs: [string, SortField[]][] = [
  ['[] (pure _id: default sort on constant scores)', []],
  ['[population desc]', popId.slice(0, 1)],
  ['[population desc, _id]', popId],
  ['[country asc, population desc]', [{ kind: 'field', field: 'country', order: 'asc', missing: '_last', mode: 'min' }, popId[0]]],
  ['[name.keyword desc]', [{ kind: 'field', field: 'name.keyword', order: 'desc', missing: '_last', mode: 'max' }]],
];
const idMs: number[] = [];
const build: number[][][] = specs.map(() => [[], [], []]);
for (let rep = 0; rep < 5; rep++) {
  const views = coldViews();
  gc();
  let t0 = cpuNow();
  for (const v of views) idKeys(v.segment);
  idMs.push(cpuNow() - t0);
  specs.forEach(([, sort], i) => {
    const spec = orderSpec(sort, true, fields)!;
    let largest = 0;
    gc();
    t0 = cpuNow();
    for (const v of views) {
      const t = cpuNow();
      liveOrder({}, [v], [0], spec, fields);
      largest = Math.max(largest, cpuNow() - t);
    }
    build[i][0].push(cpuNow() - t0);
    build[i][1].push(largest);
    t0 = cpuNow();
    liveOrder({}, views, gen.bases, spec, fields);
    build[i][2].push(cpuNow() - t0);
  });
}
console.log(`_id ranks, all ${gen.views.length} segments: ${median(idMs).toFixed(1)} CPU ms (id code scheme ${idKeys(gen.views[0].segment).scheme})`);
console.log('| order | all segments CPU ms (largest) | generation merge CPU ms |');
console.log('|---|---:|---:|');
specs.forEach(([name], i) =>
  console.log(`| ${name} | ${median(build[i][0]).toFixed(1)} (${median(build[i][1]).toFixed(1)}) | ${median(build[i][2]).toFixed(1)} |`),
);

const deep = searcherOf(gen).query({ query: all, sort: popId, k: 100_001, trackTotalHits: 1 }).hits[100_000];

const rows: [string, QueryInput][] = [
  ['match_all, default _score sort, k=10', { query: all, sort: SCORE_SORT, k: 10, trackTotalHits: 10_000 }],
  ['match_all, [population desc, _id], k=10', { query: all, sort: popId, k: 10, trackTotalHits: 10_000 }],
  ['same, search_after rank 100,000, k=1,000', { query: all, sort: popId, k: 1000, trackTotalHits: 10_000, searchAfter: { sort: deep.sort, _id: deep._id } }],
  ['term country:US, _score sort, k=10', { query: country, sort: SCORE_SORT, k: 10, trackTotalHits: 10_000 }],
  ['bool filter country:US, _score sort, k=10', { query: countryFilter, sort: SCORE_SORT, k: 10, trackTotalHits: 10_000 }],
  [
    'match name "san jose", _score sort, k=10',
    { query: { kind: 'match', field: 'name', query: 'san jose', operator: 'or', boost: 1 }, sort: SCORE_SORT, k: 10, trackTotalHits: 10_000 },
  ],
];

// Orders the rows need but the build table did not make are built by their first call.
const fresh = shard.acquire();
console.log('| query | first call ms | warm p50 ms | total | first hit |');
console.log('|---|---:|---:|---:|---|');
for (const [name, input] of rows) {
  let t = performance.now();
  let out = searcherOf(fresh).query(input);
  const first = performance.now() - t;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    t = performance.now();
    out = searcherOf(fresh).query(input);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const h = out.hits[0];
  console.log(
    `| ${name} | ${first.toFixed(1)} | ${times[runs >> 1].toFixed(2)} | ${out.total.value} | ${h ? `${h._id} ${JSON.stringify(h.sort)} ${h._score}` : '-'} |`,
  );
}
