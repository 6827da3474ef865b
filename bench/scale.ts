/**
 * `npm run bench:scale`: issue 16's scale run on the Rally `geonames` shape. Builds the bench corpus
 * (bench/corpus.ts: the cities copied to `FOLIO_BENCH_SCALE_DOCS` documents, default 10,000,000),
 * starts 4 shard nodes and a coordinator (bench/cluster.ts), and loads an index of 4 shards with 1
 * replica. It reports bulk docs/s; the shard nodes' RSS per document after a forced GC (both copies:
 * the target is ≤ 2 × the raw `_source`); disk bytes per document; the time from spawning the
 * restarted shard nodes to a green cluster (target ≤ 10 s); page 1 and deep pages of the paged
 * tasks cold (the first search after the restart) and warm (p50 over a run), each page checked
 * against the oracle where the task has one; then the same pages on the Sphinx peer over the same
 * documents, after Folio has stopped (both at once would not fit the machine's memory).
 *
 * Env: `FOLIO_BENCH_SCALE_DOCS` (default 10 M), `FOLIO_BENCH_SCALE_SPHINX=0` skips the peer.
 * Writes the "Scale run" section of docs/performance.md. Bounded: exits after
 * {@link SCALE_DEADLINE_MS}. Figures are never asserted (docs/performance.md reads them as ratios).
 */
import { join } from 'node:path';
import { loadSample } from '../scripts/samples/load.ts';
import { REPO_ROOT } from '../scripts/local-services.ts';
import { startBenchCluster, type BenchCluster } from './cluster.ts';
import { buildCorpus, type Corpus } from './corpus.ts';
import { FolioClient, measureFolioSearch, measureSphinx, type RunShape } from './measure.ts';
import { startSphinxPeer } from './peer-sphinx.ts';
import { waitForQuiet } from './process-cpu.ts';
import { writeSection } from './report.ts';
import { renderScaleSection, SCALE_HEADING, type ScalePage, type ScaleReport } from './scale-report.ts';
import { PAGE_SIZE, PAGED_TASKS } from './tasks.ts';

const DOCS = Number(process.env.FOLIO_BENCH_SCALE_DOCS ?? 10_000_000);
const WITH_SPHINX = process.env.FOLIO_BENCH_SCALE_SPHINX !== '0';
const SHARDS = 4;
const REPLICAS = 1;
const CLIENTS = 16;
const BULK_BATCH_DOCS = 5000;
/** The `from` values of the scale run: page 1, the 100,000, and a page past 9/10 of 1 M. */
const SCALE_FROMS = [0, 100_000, 900_000];
/** A graceful stop of a node holding millions of copies flushes them first. */
const STOP_GRACE_MS = 120_000;
const SCALE_DEADLINE_MS = 120 * 60_000;
const INDEX = 'bench-cities';
const shape: RunShape = { durationMs: 3000, warmupMs: 300, clients: CLIENTS, probeBudgetMs: 3000 };

const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);
const seconds = (t0: number) => (performance.now() - t0) / 1000;
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
setTimeout(() => {
  console.error(`bench:scale: still running after ${SCALE_DEADLINE_MS / 60_000} min, giving up`);
  process.exit(2);
}, SCALE_DEADLINE_MS).unref();

/** Polls `_cluster/health` until green; resolves `performance.now()` at green, or null after `deadlineMs` (the health and the unassigned or recovering copies are logged). */
async function waitGreen(url: string, deadlineMs: number): Promise<number | null> {
  const end = performance.now() + deadlineMs;
  while (performance.now() < end) {
    const res = await fetch(`${url}/_cluster/health?wait_for_status=green&timeout=1s`).catch(() => null);
    const body = res ? ((await res.json().catch(() => ({}))) as { status?: string }) : {};
    if (body.status === 'green') return performance.now();
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const path of ['/_cluster/health', '/_cat/shards?v', '/_cat/recovery?v&active_only=true']) {
    const text = await fetch(`${url}${path}`).then(
      (r) => r.text(),
      (err: Error) => err.message,
    );
    log(`not green after ${deadlineMs / 1000} s: GET ${path}\n${text.slice(0, 4000)}`);
  }
  return null;
}

/** Loads the corpus with one replica, flushes, waits for merges; fills bulk, memory and disk figures. */
async function load(cluster: BenchCluster, corpus: Corpus, report: ScaleReport): Promise<void> {
  const before = await cluster.shardMemory();
  const t0 = performance.now();
  const loaded = await loadSample(cluster.coordinatorUrl, corpus.sample(SHARDS, Math.max(2 * DOCS, 2_000_000)), {
    batchDocs: BULK_BATCH_DOCS,
    replicas: REPLICAS,
    onProgress: (done) => {
      if (done > 0 && done % 1_000_000 < BULK_BATCH_DOCS) log(`bulk: ${done.toLocaleString('en-US')} docs, ${(done / seconds(t0)).toFixed(0)} docs/s`);
    },
  });
  const loadedAt = performance.now();
  report.bulkDocsPerS = loaded.docs / seconds(t0);
  log(`bulk: ${loaded.docs} docs at ${report.bulkDocsPerS.toFixed(0)} docs/s`);
  const green = await waitGreen(cluster.coordinatorUrl, 600_000);
  report.greenAfterLoadS = green === null ? null : (green - loadedAt) / 1000;
  const flushed = await fetch(`${cluster.coordinatorUrl}/${INDEX}/_flush`, { method: 'POST' });
  if (flushed.status !== 200) throw new Error(`POST /${INDEX}/_flush: HTTP ${flushed.status} ${await flushed.text()}`);
  const { quiet, waitedMs } = await waitForQuiet(cluster.shardPids, { deadlineMs: 900_000 });
  log(`shard nodes ${quiet ? 'quiet' : 'still busy'} after ${(waitedMs / 1000).toFixed(0)} s`);
  const after = await cluster.shardMemory();
  report.rssPerDoc = (after.rss - before.rss) / DOCS;
  report.heapPerDoc = (after.heapUsed - before.heapUsed) / DOCS;
  report.externalPerDoc = (after.external - before.external) / DOCS;
  report.diskPerDoc = cluster.shardDataBytes() / DOCS;
  log(
    `memory: ${report.rssPerDoc.toFixed(0)} B/doc RSS for both copies (raw _source ${corpus.rawSourceBytesPerDoc.toFixed(0)}), disk ${report.diskPerDoc.toFixed(0)} B/doc`,
  );
}

/** The pages of the scale run: each paged task at each of {@link SCALE_FROMS} it has matches for. */
function scalePages(): ScalePage[] {
  return PAGED_TASKS.flatMap((task) =>
    SCALE_FROMS.map((from): ScalePage => ({ task: task.name, from, coldMs: null, warm: null, oracle: 'n/a', sphinx: null })),
  );
}

/** Restarts the shard nodes, times them to green, then runs each page once cold and checks it against the oracle. */
async function restartAndCold(cluster: BenchCluster, client: FolioClient, corpus: Corpus, report: ScaleReport): Promise<void> {
  const spawnedAt = await cluster.restartShardNodes(STOP_GRACE_MS);
  const green = await waitGreen(cluster.coordinatorUrl, 600_000);
  report.restartToGreenS = green === null ? NaN : (green - spawnedAt) / 1000;
  log(`restart: green ${report.restartToGreenS.toFixed(2)} s after the shard nodes were spawned`);
  const oracles = new Map<string, Int32Array | null>();
  for (const page of report.pages) {
    const task = PAGED_TASKS.find((t) => t.name === page.task)!;
    const t0 = performance.now();
    const reply = await client.search(task.body(page.from, PAGE_SIZE));
    page.coldMs = performance.now() - t0;
    if (reply.hits.hits.length === 0) {
      page.skipped = true;
      continue;
    }
    if (!oracles.has(task.name)) oracles.set(task.name, task.oracle(corpus));
    const order = oracles.get(task.name)!;
    if (order) {
      const expected = Array.from(order.subarray(page.from, page.from + PAGE_SIZE), (i) => corpus.ids[i]);
      const got = reply.hits.hits.map((h) => h._id);
      page.oracle = got.length === expected.length && got.every((id, i) => id === expected[i]) ? 'equal' : 'DIFFERS';
    }
    log(`cold ${page.task} from=${page.from}: ${page.coldMs.toFixed(1)} ms, oracle ${page.oracle}`);
  }
}

/** Warm p50 and throughput of every page. */
async function warmRuns(client: FolioClient, report: ScaleReport): Promise<void> {
  for (const page of report.pages) {
    if (page.skipped) continue;
    const task = PAGED_TASKS.find((t) => t.name === page.task)!;
    page.warm = (await measureFolioSearch(client, task.body(page.from, PAGE_SIZE), shape)).figures;
    log(`warm ${page.task} from=${page.from}: p50 ${page.warm.one.p50Ms.toFixed(2)} ms, ${page.warm.many?.rps.toFixed(0) ?? '-'} req/s at ${CLIENTS}`);
  }
}

/** The same pages on Sphinx over the same documents. */
async function sphinxRuns(corpus: Corpus, report: ScaleReport): Promise<void> {
  const t0 = performance.now();
  const peer = await startSphinxPeer(corpus, SHARDS, CLIENTS, log);
  if ('skipped' in peer) {
    report.sphinxNote = `skipped: ${peer.skipped}`;
    return;
  }
  report.sphinxNote = `${peer.version}, indexer ${peer.indexSeconds.toFixed(0)} s, up in ${seconds(t0).toFixed(0)} s`;
  try {
    for (const page of report.pages) {
      if (page.skipped) continue;
      const sql = PAGED_TASKS.find((t) => t.name === page.task)!.sphinx(page.from, PAGE_SIZE);
      if (!sql) continue;
      page.sphinx = await measureSphinx(peer, sql, shape);
      log(`sphinx ${page.task} from=${page.from}: p50 ${page.sphinx.one.p50Ms.toFixed(2)} ms`);
    }
    report.sphinxRssPerDoc = peer.agentRss() / corpus.size;
  } finally {
    await peer.stop();
  }
}

const started = performance.now();
const corpus = buildCorpus(DOCS);
log(`${corpus.statement} (built in ${seconds(started).toFixed(0)} s)`);
const report: ScaleReport = {
  date: new Date().toISOString(),
  docs: DOCS,
  shards: SHARDS,
  replicas: REPLICAS,
  clients: CLIENTS,
  rawSourcePerDoc: corpus.rawSourceBytesPerDoc,
  bulkDocsPerS: NaN,
  rssPerDoc: NaN,
  heapPerDoc: NaN,
  externalPerDoc: NaN,
  diskPerDoc: NaN,
  restartToGreenS: NaN,
  greenAfterLoadS: NaN,
  pages: scalePages(),
  sphinxNote: 'not run',
  sphinxRssPerDoc: null,
};
const cluster = await startBenchCluster(SHARDS);
console.log(`scale: the services' logs go to ${cluster.logDir}`);
const client = new FolioClient(cluster.coordinatorUrl, INDEX, CLIENTS + 2);
try {
  await load(cluster, corpus, report);
  await restartAndCold(cluster, client, corpus, report);
  await warmRuns(client, report);
} finally {
  await client.close();
  await cluster.stop();
}
if (WITH_SPHINX) await sphinxRuns(corpus, report);
const section = renderScaleSection(report);
console.log(`\n${section}`);
writeSection(join(REPO_ROOT, 'docs', 'performance.md'), section, SCALE_HEADING);
log(`bench:scale: done in ${seconds(started).toFixed(0)} s`);
