/**
 * Aggregation latency on a running cluster with the cities sample (not a test): p50 and p90 over 50
 * sequential searches (after 10 to warm up) of a `size: 0` search without aggregations, Rally's
 * `country_agg_uncached` shape (`terms` on country + `sum` of population), and a high-cardinality
 * `terms` on the city name; each response's `aggregations` is checked once against the previous run.
 * Run: `FOLIO_URL=http://127.0.0.1:9200 node bench/aggs-latency.ts` (e.g. after `FOLIO_SAMPLE=cities npm start`).
 * @see docs/performance.md (Aggregations)
 */
import { request } from 'undici';

const url = process.env.FOLIO_URL ?? 'http://127.0.0.1:9200';
const RUNS = 50;
const WARMUP = 10;

const cases: [string, unknown][] = [
  ['size 0, no aggregations', { size: 0 }],
  [
    'terms country + sum population (country_agg_uncached)',
    { size: 0, aggs: { c: { terms: { field: 'country' }, aggs: { p: { sum: { field: 'population' } } } } } },
  ],
  ['terms name.keyword, size 10', { size: 0, aggs: { n: { terms: { field: 'name.keyword' } } } }],
  [
    'stats + histogram of population',
    { size: 0, aggs: { s: { stats: { field: 'population' } }, h: { histogram: { field: 'population', interval: 1000000 } } } },
  ],
];

async function once(body: unknown): Promise<number> {
  const t0 = performance.now();
  const res = await request(`${url}/cities/_search?request_cache=false`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(text.slice(0, 500));
  return performance.now() - t0;
}

console.log(`| search | p50 ms | p90 ms |`);
console.log('| --- | ---: | ---: |');
for (const [label, body] of cases) {
  for (let i = 0; i < WARMUP; i++) await once(body);
  const t: number[] = [];
  for (let i = 0; i < RUNS; i++) t.push(await once(body));
  t.sort((a, b) => a - b);
  console.log(`| ${label} | ${t[Math.floor(RUNS / 2)].toFixed(1)} | ${t[Math.floor(RUNS * 0.9)].toFixed(1)} |`);
}
