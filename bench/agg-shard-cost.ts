/**
 * The shard side of Rally's `country_agg_uncached` in one process (not a test): one engine shard
 * holding the cities corpus `COPIES` times over (2 → 270,466 docs, about a quarter of the 1 M-doc
 * bench corpus, as one of its 4 shards holds), then the shard's work for one search, as
 * shard-node/search-actions.ts `query` does it: the query phase (`size: 0`, match_all, exact total)
 * and the `terms` country + `sum` population partials. Prints wall and CPU ms per search, 6 rounds
 * of 50. Compare builds by running it from two checkouts one after the other (the machine's load
 * moves absolute figures by a third or more).
 * Run: `node bench/agg-shard-cost.ts [all|query|aggs]`.
 * @see docs/performance.md (Aggregations)
 */
import { newShard, load, q } from '../test/support/engine-shard.ts';
import { cities, citiesIndex } from '../scripts/samples/cities.ts';
import { searcherOf } from '../shard-node/engine/searcher.ts';
import { parseAggregations } from '../coordinator/rest/aggs/agg-parse.ts';
import type { QueryInput } from '../shard-node/engine/searcher.ts';
import type { Mapping } from '../protocol/mapping.ts';

const COPIES = Number(process.env.COPIES ?? 2);
const ROUNDS = 6;
const SEARCHES = 50;
const mode = process.argv[2] ?? 'all';

const { shard } = newShard(citiesIndex.mappings as Mapping);
const base = [...cities.docs()];
for (let c = 0; c < COPIES; c++) {
  for (let i = 0; i < base.length; i += 20_000)
    load(
      shard,
      base.slice(i, i + 20_000).map((d) => ({ ...d.source, _id: `${c}-${d._id}` })),
    );
}
const gen = shard.acquire();
const nodes = parseAggregations({ c: { terms: { field: 'country' }, aggs: { p: { sum: { field: 'population' } } } } });
console.log(`${gen.views.length} segments, ${COPIES * base.length} docs; mode ${mode}`);
for (let r = 0; r < ROUNDS; r++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let i = 0; i < SEARCHES; i++) {
    const searcher = searcherOf(gen);
    const input: QueryInput = { query: q.all(), sort: [], k: 0, trackTotalHits: Number.MAX_SAFE_INTEGER, stats: undefined };
    if (mode !== 'aggs') {
      await searcher.prepareQuery(input);
      searcher.query(input);
    }
    if (mode !== 'query') searcher.aggs(nodes, input.query, undefined, 'cities');
  }
  const c = process.cpuUsage(c0);
  console.log(`ms per search: wall ${((performance.now() - t0) / SEARCHES).toFixed(3)}, cpu ${((c.user + c.system) / 1000 / SEARCHES).toFixed(3)}`);
}
