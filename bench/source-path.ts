/**
 * `node bench/source-path.ts`: the cost of the `_source` write and read paths on the `cities` sample
 * (135,233 docs, 3 shards, no replica): bulk load in docs/s, then the latency of sequential
 * `match_all` searches with pages of 10 (fused fetch) and of 1,000 hits (fetch phase). Used to
 * compare a change against its parent commit on one machine; read the figures as ratios.
 *
 * Env: BENCH_ROUNDS_10 (default 300 requests), BENCH_ROUNDS_1000 (default 60 requests).
 */
import { cities } from '../scripts/samples/cities.ts';
import { loadSample } from '../scripts/samples/load.ts';
import { startComposeCluster } from '../test/support/compose-cluster.ts';

const rounds10 = Number(process.env.BENCH_ROUNDS_10 ?? 300);
const rounds1000 = Number(process.env.BENCH_ROUNDS_1000 ?? 60);

/** Sends `n` sequential GETs to `url` (after 10% warm-up) and returns p50 and mean in ms, and the reply size. */
async function latency(url: string, n: number): Promise<{ p50: number; mean: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n + Math.ceil(n / 10); i++) {
    const t0 = performance.now();
    const res = await fetch(url);
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    if (i >= Math.ceil(n / 10)) times.push(performance.now() - t0);
    bytes = body.byteLength;
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)], mean: times.reduce((a, b) => a + b, 0) / times.length, bytes };
}

const cluster = await startComposeCluster({ env: { FOLIO_LOG_LEVEL: 'warn' } });
try {
  const t0 = Date.now();
  const loaded = await loadSample(cluster.coordinatorUrl, cities, { replicas: 0 });
  const loadMs = Date.now() - t0;
  console.log(`bulk load: ${loaded.docs} docs in ${loadMs} ms = ${Math.round(loaded.docs / (loadMs / 1000))} docs/s`);
  for (const [size, n] of [
    [10, rounds10],
    [1000, rounds1000],
  ] as const) {
    const r = await latency(`${cluster.coordinatorUrl}/cities/_search?size=${size}`, n);
    console.log(`page of ${size}: p50 ${r.p50.toFixed(2)} ms, mean ${r.mean.toFixed(2)} ms, ${r.bytes} bytes (${n} requests)`);
  }
} finally {
  await cluster.stop();
}
