/**
 * Wire-format bench (prints figures, asserts nothing but page equality):
 *   1. codec: bytes, encode and decode ms of a query-phase reply with 10, 10,000 and 100,000
 *      entries (cities-like: numeric `_id`, `_score` null, one long sort value), JSON (stringify;
 *      Buffer → string → JSON.parse, as the shard client does) vs binary (protocol/wire.ts);
 *   2. eager vs lazy materialization: 4 shard replies of k entries decoded, then merged for the
 *      page at from = k − size (eager ShardHit arrays vs a Proxy that builds entries on access);
 *   3. end to end: p50 of `GET /cities/_search?sort=population:desc&size=100` at from = 400
 *      (query-then-fetch, k = 500) and from = 10,000 (selection), and shard reply bytes per search,
 *      on a local cluster (test/support/compose-cluster.ts, `cities` loaded): its coordinator uses
 *      the default binary wire, a second coordinator on the same shard nodes `FOLIO_WIRE=json`.
 *
 * Run: node bench/wire.ts   Env: BENCH_RUNS (default 200 end-to-end searches per point),
 * BENCH_SKIP_CLUSTER=1 (codec figures only).
 */
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'undici';
import { freePort, REPO_ROOT } from '../scripts/local-services.ts';
import { cities } from '../scripts/samples/cities.ts';
import { loadSample } from '../scripts/samples/load.ts';
import { startComposeCluster } from '../test/support/compose-cluster.ts';
import { mergeTopHits, type ShardTopHits } from '../coordinator/search/merge.ts';
import type { QueryPhaseResponse, ShardHit } from '../protocol/search.ts';
import { parseSortParam } from '../coordinator/rest/sort-parse.ts';
import { decodeHits, encodeHits, readHits } from '../protocol/wire.ts';

const runs = Number(process.env.BENCH_RUNS ?? 200);

/** Median ms of `fn` over enough repetitions (≥ 7, ≈ 300 ms total). */
function timeIt(fn: () => unknown): number {
  for (let i = 0; i < 3; i++) fn();
  const t0 = performance.now();
  fn();
  const once = Math.max(performance.now() - t0, 0.001);
  const reps = Math.max(7, Math.min(2000, Math.round(300 / once)));
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** A cities-like query-phase reply of `n` entries, sorted by population desc then `_id`. */
function reply(n: number, shard: number): QueryPhaseResponse {
  const hits: ShardHit[] = Array.from({ length: n }, (_, i) => ({ _id: String(1_000_000 + i * 4 + shard), _score: null, sort: [Math.floor(5e7 / (i + 1))] }));
  return { node: `shard-${shard}`, index: 'cities', shard, generation: 3, total: { value: 135_233, relation: 'eq' }, max_score: null, hits };
}

const fmtBytes = (b: number): string => (b >= 1e6 ? `${(b / 1e6).toFixed(2)} MB` : b >= 1e3 ? `${(b / 1e3).toFixed(1)} KB` : `${b} B`);
const ms = (x: number): string => (x < 0.1 ? x.toFixed(4) : x.toFixed(2));
const table = (rows: string[][]): void => {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
  console.log();
};

function codecTable(): void {
  console.log('1. codec, one query-phase reply (cities-like entries: _id, _score null, [population])');
  const rows = [['entries', 'JSON bytes', 'JSON enc ms', 'JSON dec ms', 'binary bytes', 'bin enc ms', 'bin dec ms', 'B/entry bin', 'dec ratio']];
  for (const n of [10, 10_000, 100_000]) {
    const res = reply(n, 0);
    const json = Buffer.from(JSON.stringify(res));
    const bin = encodeHits(res, 'hits');
    const back = decodeHits<QueryPhaseResponse>(bin);
    if (JSON.stringify(back) !== JSON.stringify(JSON.parse(json.toString()))) throw new Error('binary decode differs from JSON');
    const jEnc = timeIt(() => Buffer.from(JSON.stringify(res)));
    const jDec = timeIt(() => JSON.parse(json.toString('utf8')));
    const bEnc = timeIt(() => encodeHits(res, 'hits'));
    const bDec = timeIt(() => decodeHits(bin));
    rows.push([
      String(n),
      fmtBytes(json.byteLength),
      ms(jEnc),
      ms(jDec),
      fmtBytes(bin.byteLength),
      ms(bEnc),
      ms(bDec),
      (bin.byteLength / Math.max(n, 1)).toFixed(1),
      `${((bDec / jDec) * 100).toFixed(0)} %`,
    ]);
  }
  table(rows);
}

/** A ShardHit[] look-alike that builds entry i on first access (Proxy over a sparse cache). */
function lazyHits(body: Uint8Array): ShardHit[] {
  const r = readHits(body);
  const cache = new Array<ShardHit | undefined>(r.count);
  return new Proxy(cache as ShardHit[], {
    get(target, prop, receiver) {
      if (typeof prop === 'string') {
        const i = Number(prop);
        if (Number.isInteger(i) && i >= 0 && i < r.count) return (target[i] ??= r.entry(i) as ShardHit);
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

function lazyTable(): void {
  console.log('2. decode + merge of 4 shard replies of k entries, page at from = k − size (size = min(k, 100))');
  const sort = parseSortParam('population:desc');
  const rows = [['k', 'eager ms', 'lazy (Proxy) ms', 'JSON ms']];
  for (const k of [10, 100_000]) {
    const size = Math.min(k, 100);
    const bodies = [0, 1, 2, 3].map((s) => encodeHits(reply(k, s), 'hits'));
    const jsons = [0, 1, 2, 3].map((s) => Buffer.from(JSON.stringify(reply(k, s))));
    const merge = (lists: ShardHit[][]) =>
      mergeTopHits(
        lists.map((hits, i): ShardTopHits => ({ shardIndex: i, index: 'cities', hits })),
        sort,
        k - size,
        size,
      );
    const eager = merge(bodies.map((b) => decodeHits<QueryPhaseResponse>(b).hits));
    const lazy = merge(bodies.map(lazyHits));
    if (JSON.stringify(eager) !== JSON.stringify(lazy)) throw new Error('lazy merge differs');
    rows.push([
      String(k),
      ms(timeIt(() => merge(bodies.map((b) => decodeHits<QueryPhaseResponse>(b).hits)))),
      ms(timeIt(() => merge(bodies.map(lazyHits)))),
      ms(timeIt(() => merge(jsons.map((j) => (JSON.parse(j.toString('utf8')) as QueryPhaseResponse).hits)))),
    ]);
  }
  table(rows);
}

/** Shard reply bytes the coordinator at `base` has received so far (`GET /_folio/stats`). */
async function shardBytes(base: string): Promise<number> {
  return ((await (await request(`${base}/_folio/stats`)).body.json()) as { shard_response_bytes: number }).shard_response_bytes;
}

/** One search; returns its latency (ms) and the page's ids. */
async function searchOnce(base: string, path: string): Promise<{ ms: number; ids: string[] }> {
  const t = performance.now();
  const res = await request(`${base}${path}`);
  const body = (await res.body.json()) as { hits: { hits: { _id: string }[] } };
  const elapsed = performance.now() - t;
  if (res.statusCode !== 200) throw new Error(`${path}: HTTP ${res.statusCode} ${JSON.stringify(body)}`);
  return { ms: elapsed, ids: body.hits.hits.map((h) => h._id) };
}

/** Starts a coordinator on the same shard nodes with `env` added, and waits for it. */
async function startCoordinator(nodeUrls: string[], env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['coordinator/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, FOLIO_HOST: '127.0.0.1', FOLIO_PORT: String(port), FOLIO_NODES: nodeUrls.join(','), FOLIO_LOG_LEVEL: 'warn', ...env },
    stdio: 'ignore',
  });
  for (let i = 0; i < 200; i++) {
    if (
      await request(`${url}/`).then(
        (r) => (r.body.dump(), r.statusCode === 200),
        () => false,
      )
    )
      return { url, child };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGTERM');
  throw new Error('json coordinator did not start');
}

/**
 * JSON vs binary on one cluster: the compose coordinator (binary, the default) and a second one
 * with FOLIO_WIRE=json on the same shard nodes, measured in alternating blocks so that the load of
 * this shared machine affects both alike.
 */
async function endToEnd(): Promise<void> {
  const paths = ['/cities/_search?sort=population:desc&from=400&size=100', '/cities/_search?sort=population:desc&from=10000&size=100'];
  const clusterSecret = randomBytes(32).toString('hex');
  const cluster = await startComposeCluster({ env: { FOLIO_LOG_LEVEL: 'warn', FOLIO_CLUSTER_SECRET: clusterSecret } });
  let json: ChildProcess | undefined;
  try {
    const t = performance.now();
    await loadSample(cluster.coordinatorUrl, cities, { replicas: 0 }); // benches measure one copy per shard
    console.error(`cluster up, cities loaded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const nodeUrls = Object.keys(cluster.urls)
      .filter((n) => n.startsWith('shard'))
      .sort()
      .map((n) => cluster.urls[n]);
    const started = await startCoordinator(nodeUrls, { FOLIO_WIRE: 'json', FOLIO_CLUSTER_SECRET: clusterSecret, FOLIO_ETCD: cluster.urls.etcd });
    json = started.child;
    const bases = { json: started.url, binary: cluster.coordinatorUrl };
    const rows = [['search', 'JSON p50 ms', 'binary p50 ms', 'JSON p90', 'binary p90', 'JSON shard bytes', 'binary shard bytes', 'same page']];
    const block = 25;
    for (const p of paths) {
      const times: Record<string, number[]> = { json: [], binary: [] };
      const bytes: Record<string, number> = { json: 0, binary: 0 };
      const ids: Record<string, string[]> = {};
      for (const mode of ['json', 'binary'] as const) for (let i = 0; i < 20; i++) await searchOnce(bases[mode], p);
      for (let done = 0; done < runs; done += block) {
        for (const mode of done % (2 * block) === 0 ? (['json', 'binary'] as const) : (['binary', 'json'] as const)) {
          const before = await shardBytes(bases[mode]);
          for (let i = 0; i < block; i++) {
            const r = await searchOnce(bases[mode], p);
            times[mode].push(r.ms);
            ids[mode] = r.ids;
          }
          bytes[mode] += (await shardBytes(bases[mode])) - before;
        }
      }
      const q = (xs: number[], f: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * f)];
      const n = times.json.length;
      rows.push([
        p.replace('/cities/_search?', ''),
        ms(q(times.json, 0.5)),
        ms(q(times.binary, 0.5)),
        ms(q(times.json, 0.9)),
        ms(q(times.binary, 0.9)),
        fmtBytes(bytes.json / n),
        fmtBytes(bytes.binary / n),
        String(JSON.stringify(ids.json) === JSON.stringify(ids.binary)),
      ]);
    }
    console.log(`3. end to end, cities (135,233 docs, 3 shards), 1 client, ${runs} searches per point and wire, alternating blocks of ${block}`);
    table(rows);
  } finally {
    json?.kill('SIGTERM');
    await cluster.stop();
  }
}

codecTable();
lazyTable();
if (!process.env.BENCH_SKIP_CLUSTER) await endToEnd();
