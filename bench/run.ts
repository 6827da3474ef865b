/**
 * `npm run bench`: the deep-paging benchmark of issue 3. Builds the 1 M-document corpus, measures
 * the bare fan-out ceiling, starts 4 shard nodes + 1 coordinator, bulk-loads the corpus (docs/s,
 * memory per doc), runs the Rally-named tasks at every `from` on Folio and the aggregation tasks
 * of issue 12 (bench/agg-tasks.ts), issue 17's comparison with PostgreSQL on the same loaded
 * cluster (bench/pg-compare.ts), then the same tasks on the Sphinx peer, and prints the tables
 * that it also writes to docs/performance.md.
 *
 * Env: BENCH_QUICK=1 for a smoke run (200 k docs, 1 s per run, ≈ 3 min); BENCH_ONLY=aggs runs the
 * aggregation tasks alone and leaves docs/performance.md as it is; BENCH_ONLY=pg runs the
 * PostgreSQL comparison alone and writes only its section. Every run is bounded in
 * time and the whole bench exits by itself after {@link BENCH_DEADLINE_MS}. Figures are never
 * asserted: the machine is shared, so read them as ratios within one run.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadSample } from '../scripts/samples/load.ts';
import { REPO_ROOT } from '../scripts/local-services.ts';
import { measureFanOutCeiling } from './ceilings.ts';
import { waitForQuiet } from './process-cpu.ts';
import type { EngineMemory } from './engine-memory.ts';
import { startBenchCluster, type BenchCluster } from './cluster.ts';
import { buildCorpus } from './corpus.ts';
import type { Corpus } from './corpus.ts';
import type { AggRow, SphinxAggFigures } from './agg-report.ts';
import { AGG_SIZE, AGG_TASKS, allGroups, sameBuckets, sameCounts, type AggBucket, type AggTask } from './agg-tasks.ts';
import { FolioClient, folioScroll, measureFolioSearch, measureLoops, measureSphinx, probe, scrollShaping, sphinxScroll } from './measure.ts';
import type { EngineFigures } from './measure.ts';
import type { RunShape } from './measure.ts';
import { startSphinxPeer, type SphinxPeer } from './peer-sphinx.ts';
import { renderReport, writeSection } from './report.ts';
import { runPostgresPeer, type PgShape } from './pg-compare.ts';
import { PG_SECTION_HEADING, renderPgSection } from './pg-report.ts';
import type { BenchReport, ResultRow } from './report.ts';
import { FROMS, PAGE_SIZE, PAGED_TASKS, SCROLL_PAGES, SCROLL_PAGE_SIZE, TERM_COUNTRY, scrollBody } from './tasks.ts';

const QUICK = process.env.BENCH_QUICK === '1';
/** BENCH_ONLY=aggs: the aggregation tasks alone (a check while working on them; prints, writes nothing). */
const AGGS_ONLY = process.env.BENCH_ONLY === 'aggs';
/** BENCH_ONLY=pg: load Folio, then the PostgreSQL comparison alone (writes only its section). */
const PG_ONLY = process.env.BENCH_ONLY === 'pg';
const DOCS = QUICK ? 200_000 : 1_000_000;
const SHARDS = 4;
const CLIENTS = 32;
const MAX_RESULT_WINDOW = 2_000_000;
const BULK_BATCH_DOCS = 5000;
/** The bench gives up (and its exit hooks stop every child) after this long. */
const BENCH_DEADLINE_MS = (QUICK ? 10 : 35) * 60_000;
const shape: RunShape = { durationMs: QUICK ? 1000 : 5000, warmupMs: QUICK ? 100 : 500, clients: CLIENTS, probeBudgetMs: QUICK ? 500 : 3000 };
/** Issue 17 compares with PostgreSQL at 1 and at 16 clients. */
const pgShape: PgShape = { durationMs: shape.durationMs, warmupMs: shape.warmupMs, clients: 16 };
const INDEX = 'bench-cities';

const log = (line: string) => console.log(line);
const execFileAsync = promisify(execFile);
/** Docs of the in-process engine memory breakdown: one shard's share of the 1 M corpus. */
const ENGINE_MEMORY_DOCS = 250_000;

/** Runs bench/engine-memory.ts in its own process (it needs `--expose-gc`); null (and a note) when it fails. */
async function engineMemory(docs: number): Promise<EngineMemory | null> {
  try {
    const { stdout } = await execFileAsync(process.execPath, ['--expose-gc', join(REPO_ROOT, 'bench', 'engine-memory.ts'), String(docs)], {
      cwd: REPO_ROOT,
      maxBuffer: 1 << 20,
      timeout: 300_000,
    });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as EngineMemory;
  } catch (err) {
    console.error(`bench: engine memory breakdown failed: ${(err as Error).message.slice(0, 300)}`);
    return null;
  }
}
const elapsed = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // process.exit runs the 'exit' hooks of the cluster, the ceiling and the peer, which kill their children.
  process.once(signal, () => {
    console.error(`bench: ${signal}, stopping`);
    process.exit(130);
  });
}
setTimeout(() => {
  console.error(`bench: still running after ${BENCH_DEADLINE_MS / 60_000} min, giving up`);
  process.exit(2);
}, BENCH_DEADLINE_MS).unref();

/** Ids of the oracle page, or null when the task has no oracle. */
function oraclePage(order: Int32Array | null, corpus: Corpus, from: number): string[] | null {
  return order ? Array.from(order.subarray(from, from + PAGE_SIZE), (i) => corpus.ids[i]) : null;
}

/** Adds a note for a run that had failed operations (their figures count successes only). */
function noteErrors(report: BenchReport, label: string, figures: EngineFigures | null): void {
  for (const r of [figures?.one, figures?.many]) {
    if (r && r.errors > 0) report.notes.push(`${label} at ${r.clients} client(s): ${r.errors} failed operations (first: ${r.firstError?.slice(0, 200)})`);
  }
}

/** Creates the bench index, bulk-loads the corpus sample and flushes; records bulk speed and memory per document. */
async function loadFolio(cluster: BenchCluster, corpus: Corpus, report: BenchReport): Promise<void> {
  const sample = corpus.sample(SHARDS, MAX_RESULT_WINDOW);
  const put = await fetch(`${cluster.coordinatorUrl}/${INDEX}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sample.index),
  });
  if (put.status !== 200) throw new Error(`PUT /${INDEX}: HTTP ${put.status} ${await put.text()}`);
  const memBefore = await cluster.shardMemory();
  let t0 = performance.now();
  const loaded = await loadSample(cluster.coordinatorUrl, sample, { batchDocs: BULK_BATCH_DOCS });
  report.bulk = { docs: loaded.docs, seconds: (performance.now() - t0) / 1000, batchDocs: BULK_BATCH_DOCS };
  log(`bulk: ${loaded.docs} docs in ${report.bulk.seconds.toFixed(1)} s`);
  // As Rally's tracks do after indexing (refresh, force-merge, wait for merges), let the background
  // work of the load finish before measuring searches: a synchronous _flush folds every translog.
  t0 = performance.now();
  const flushed = await fetch(`${cluster.coordinatorUrl}/${INDEX}/_flush`, { method: 'POST' });
  if (flushed.status !== 200) throw new Error(`POST /${INDEX}/_flush: HTTP ${flushed.status} ${await flushed.text()}`);
  log(`flush after the load: ${elapsed(t0)} s`);
  // The flush does not wait for background merges, which go on for minutes after a 1 M-doc load and
  // made the measured tasks swing between runs (issue 17's exact count: 374-960 searches/s):
  // measure once the shard nodes are quiet (bench/process-cpu.ts).
  t0 = performance.now();
  const { quiet } = await waitForQuiet(cluster.shardPids);
  log(`shard nodes ${quiet ? 'quiet' : 'still busy (gave up waiting)'} after ${elapsed(t0)} s`);
  const memAfter = await cluster.shardMemory();
  report.memory = {
    rssPerDoc: (memAfter.rss - memBefore.rss) / loaded.docs,
    heapPerDoc: (memAfter.heapUsed - memBefore.heapUsed) / loaded.docs,
    externalPerDoc: (memAfter.external - memBefore.external) / loaded.docs,
    rawSourcePerDoc: corpus.rawSourceBytesPerDoc,
    gcForced: memBefore.gcForced && memAfter.gcForced,
  };
  log(`memory: ${report.memory.rssPerDoc.toFixed(0)} B/doc RSS (raw _source ${corpus.rawSourceBytesPerDoc.toFixed(0)} B/doc)`);
}

/** Runs every paged task at every `from`, each page checked against the oracle where there is one. */
async function runFolioPaged(client: FolioClient, corpus: Corpus, report: BenchReport): Promise<void> {
  let t0: number;
  for (const task of PAGED_TASKS) {
    let matches: number;
    try {
      matches = (await client.search({ ...task.body(0, 0), track_total_hits: true })).hits.total.value;
    } catch (err) {
      report.notes.push(`${task.name}: could not run on Folio: ${(err as Error).message.slice(0, 300)}`);
      continue;
    }
    const order = task.oracle(corpus);
    if (order && order.length !== matches) report.notes.push(`${task.name}: Folio counts ${matches} matches, the oracle ${order.length}`);
    for (const from of FROMS) {
      if (from >= matches) {
        report.skippedCombos.push(`${task.name} from=${from.toLocaleString('en-US')} (${matches.toLocaleString('en-US')} matches)`);
        continue;
      }
      t0 = performance.now();
      const row: ResultRow = { task: task.name, from, matches, folio: null, bytesPerSearch: null, callsPerSearch: null, sphinx: null, oracle: 'n/a' };
      report.rows.push(row);
      try {
        const expected = oraclePage(order, corpus, from);
        if (expected) {
          const got = (await client.search(task.body(from, PAGE_SIZE))).hits.hits.map((h) => h._id);
          row.oracle = got.length === expected.length && got.every((id, i) => id === expected[i]) ? 'equal' : 'DIFFERS';
        }
        const m = await measureFolioSearch(client, task.body(from, PAGE_SIZE), shape);
        Object.assign(row, { folio: m.figures, bytesPerSearch: m.bytesPerSearch, callsPerSearch: m.callsPerSearch });
        log(
          `folio ${task.name} from=${from}: p50 ${m.figures.one.p50Ms.toFixed(2)} ms, ${m.figures.many?.rps.toFixed(0) ?? '-'} req/s at ${CLIENTS}, ${(m.bytesPerSearch / 1000).toFixed(1)} KB/search, oracle ${row.oracle} (${elapsed(t0)} s)`,
        );
      } catch (err) {
        report.notes.push(`${task.name} from=${from}: Folio failed: ${(err as Error).message.slice(0, 300)}`);
      }
    }
  }
}

/** The scroll task: {@link SCROLL_PAGES} pages of {@link SCROLL_PAGE_SIZE} by `search_after`. */
async function runFolioScroll(client: FolioClient, corpus: Corpus, report: BenchReport): Promise<void> {
  // scroll: search_after needs a unique last sort value; try _id, else the indexed keyword copy `uid`.
  let tie = '_id';
  try {
    await client.search(scrollBody('_id', null));
  } catch {
    tie = 'uid';
    report.notes.push(
      'scroll: the coordinator does not accept `_id` in `sort`/`search_after`, so the scroll sorts on `uid`, an indexed keyword copy of `_id` (part of every document in the corpus).',
    );
  }
  const row: ResultRow = {
    task: 'scroll',
    from: 0,
    matches: corpus.size,
    folio: null,
    bytesPerSearch: null,
    callsPerSearch: null,
    sphinx: null,
    oracle: 'n/a',
    scroll: true,
  };
  report.rows.push(row);
  try {
    const before = await client.stats();
    const n = await probe(() => folioScroll(client, tie), shape.probeBudgetMs);
    const after = await client.stats();
    row.bytesPerSearch = (after.shard_response_bytes - before.shard_response_bytes) / (n * SCROLL_PAGES);
    row.callsPerSearch = (after.shard_calls - before.shard_calls) / (n * SCROLL_PAGES);
    row.folio = await measureLoops(() => folioScroll(client, tie), shape, scrollShaping(CLIENTS));
    log(`folio scroll: p50 ${row.folio.one.p50Ms.toFixed(1)} ms per ${SCROLL_PAGES}×${SCROLL_PAGE_SIZE}`);
  } catch (err) {
    report.notes.push(`scroll: Folio failed: ${(err as Error).message.slice(0, 300)}`);
  }
}

/** Runs every Folio task; returns the rows, the skipped combinations and notes. */
async function runFolio(corpus: Corpus, report: BenchReport): Promise<void> {
  const cluster = await startBenchCluster(SHARDS);
  const client = new FolioClient(cluster.coordinatorUrl, INDEX, CLIENTS + 2);
  try {
    await loadFolio(cluster, corpus, report);
    if (!AGGS_ONLY && !PG_ONLY) await runFolioPaged(client, corpus, report);
    if (!PG_ONLY) await runFolioAggs(client, corpus, report);
    if (AGGS_ONLY) return;
    if (!PG_ONLY) await runFolioScroll(client, corpus, report);
    report.postgres = await runPostgresPeer(client, corpus, pgShape, [...cluster.shardPids, cluster.coordinatorPid], log);
  } finally {
    await client.close();
    await cluster.stop();
  }
}

/** Every group of each aggregation task (computed once: the oracle and Sphinx's check read it). */
const aggGroups = new Map<string, AggBucket[]>();
function groupsOf(task: AggTask, corpus: Corpus): AggBucket[] {
  let g = aggGroups.get(task.name);
  if (!g) aggGroups.set(task.name, (g = allGroups(task, corpus)));
  return g;
}

/** Runs the aggregation tasks on Folio: checks the buckets against the oracle, then measures. */
async function runFolioAggs(client: FolioClient, corpus: Corpus, report: BenchReport): Promise<void> {
  for (const task of AGG_TASKS) {
    const t0 = performance.now();
    const groups = groupsOf(task, corpus);
    const row: AggRow = {
      task: task.name,
      description: task.description,
      groups: groups.length,
      folio: null,
      bytesPerSearch: null,
      callsPerSearch: null,
      exact: null,
      sphinx: [],
    };
    report.aggRows.push(row);
    try {
      const reply = await client.search<{ aggregations: Record<string, unknown> }>(task.body);
      row.exact = sameBuckets(task.folioBuckets(reply.aggregations), groups.slice(0, AGG_SIZE));
      const m = await measureFolioSearch(client, task.body, shape);
      Object.assign(row, { folio: m.figures, bytesPerSearch: m.bytesPerSearch, callsPerSearch: m.callsPerSearch });
      log(
        `folio ${task.name}: p50 ${m.figures.one.p50Ms.toFixed(2)} ms, ${m.figures.many?.rps.toFixed(0) ?? '-'} req/s at ${CLIENTS}, ${(m.bytesPerSearch / 1000).toFixed(1)} KB/search in ${m.callsPerSearch.toFixed(2)} calls, exact ${row.exact} (${elapsed(t0)} s)`,
      );
    } catch (err) {
      report.notes.push(`${task.name}: Folio failed: ${(err as Error).message.slice(0, 300)}`);
    }
  }
}

/** Runs the aggregation tasks' SphinxQL variants: checks the counts, then measures. */
async function runSphinxAggs(peer: SphinxPeer, corpus: Corpus, report: BenchReport): Promise<void> {
  for (const row of report.aggRows) {
    const task = AGG_TASKS.find((t) => t.name === row.task)!;
    for (const { label, sql } of task.sphinx) {
      const v: SphinxAggFigures = { label, figures: null, exact: null };
      row.sphinx.push(v);
      try {
        v.exact = sameCounts(task.sphinxBuckets(await peer.query(0, sql)), groupsOf(task, corpus));
        v.figures = await measureSphinx(peer, sql, shape);
        log(
          `sphinx ${task.name} (${label}): p50 ${v.figures.one.p50Ms.toFixed(2)} ms, ${v.figures.many?.rps.toFixed(0) ?? '-'} req/s at ${CLIENTS}, exact ${v.exact}`,
        );
      } catch (err) {
        v.note = 'failed';
        report.notes.push(`${task.name} (${label}): Sphinx failed: ${(err as Error).message.slice(0, 300)}`);
      }
    }
  }
}

/** Runs the Sphinx side of every row that has an equivalent. */
async function runSphinx(corpus: Corpus, report: BenchReport): Promise<void> {
  const t0 = performance.now();
  const peer = await startSphinxPeer(corpus, SHARDS, CLIENTS, log);
  if ('skipped' in peer) {
    report.sphinx = { skipped: peer.skipped };
    log(`peer: SKIPPED (${peer.skipped}); the Sphinx columns stay empty`);
    return;
  }
  log(`peer: ${peer.version} up in ${elapsed(t0)} s`);
  try {
    // Open every client connection (and the front's pooled agent connections) before measuring.
    for (let w = 0; w < CLIENTS; w++) await peer.query(w, 'SELECT id FROM cities LIMIT 0,1').catch(() => {});
    for (const row of report.rows) {
      try {
        if (row.scroll) {
          await probe(() => sphinxScroll(peer, 0), shape.probeBudgetMs);
          row.sphinx = await measureLoops((w) => sphinxScroll(peer, w), shape, scrollShaping(CLIENTS));
          continue;
        }
        const sql = PAGED_TASKS.find((t) => t.name === row.task)!.sphinx(row.from, PAGE_SIZE);
        if (!sql) continue;
        row.sphinx = await measureSphinx(peer, sql, shape);
        log(`sphinx ${row.task} from=${row.from}: p50 ${row.sphinx.one.p50Ms.toFixed(2)} ms, ${row.sphinx.many?.rps.toFixed(0) ?? '-'} req/s at ${CLIENTS}`);
      } catch (err) {
        row.sphinxNote = 'failed';
        report.notes.push(`${row.task} from=${row.from}: Sphinx failed: ${(err as Error).message.slice(0, 300)}`);
      }
    }
    await runSphinxAggs(peer, corpus, report);
    report.sphinx = { version: peer.version, indexSeconds: peer.indexSeconds, agentRssPerDoc: peer.agentRss() / corpus.size };
  } finally {
    await peer.stop();
  }
}

const started = performance.now();
log(`bench: ${QUICK ? 'QUICK smoke run' : 'full run'}, ${shape.durationMs / 1000} s per measured run, ${CLIENTS} clients for throughput`);
let t = performance.now();
const corpus = buildCorpus(DOCS);
log(`${corpus.statement} (built in ${elapsed(t)} s, raw _source ${corpus.rawSourceBytesPerDoc.toFixed(0)} B/doc)`);

t = performance.now();
const ceiling = await measureFanOutCeiling(SHARDS, CLIENTS, shape.durationMs);
log(`fan-out ceiling: p50 ${ceiling.one.p50Ms.toFixed(3)} ms at 1, ${ceiling.many.rps.toFixed(0)} fan-outs/s at ${CLIENTS} (${elapsed(t)} s)`);

const report: BenchReport = {
  date: new Date().toISOString(),
  command: `${QUICK ? 'BENCH_QUICK=1 ' : ''}${PG_ONLY ? 'BENCH_ONLY=pg ' : ''}npm run bench`,
  quick: QUICK,
  corpusStatement: corpus.statement,
  clients: CLIENTS,
  durationMs: shape.durationMs,
  bulk: { docs: 0, seconds: NaN, batchDocs: BULK_BATCH_DOCS },
  memory: { rssPerDoc: NaN, heapPerDoc: NaN, externalPerDoc: NaN, rawSourcePerDoc: corpus.rawSourceBytesPerDoc, gcForced: false },
  ceiling,
  sphinx: { skipped: 'not run' },
  rows: [],
  aggRows: [],
  skippedCombos: [],
  notes: [],
};
await runFolio(corpus, report);
if (!AGGS_ONLY && !PG_ONLY) report.memory.engine = await engineMemory(Math.min(DOCS, ENGINE_MEMORY_DOCS));
if (report.memory.engine)
  log(
    `engine memory: ${report.memory.engine.excludingInvertedPerDoc.toFixed(0)} B/doc excluding the inverted index (${report.memory.engine.totalPerDoc.toFixed(0)} in all)`,
  );
if (!PG_ONLY) await runSphinx(corpus, report);
report.notes.push(
  `the term task uses country ${TERM_COUNTRY} sorted by population desc (Rally: AT, score order) so that from = 100,000 exists; phrase and default are score-ordered (ties on _id, on id in Sphinx).`,
  `runs at ${CLIENTS} clients are skipped when one request already takes > 300 ms at 1 client (they would only queue; deep pages at ${CLIENTS} in flight cost GBs in either engine).`,
  'shard bytes/search = bytes of shard reply bodies counted by the coordinator (GET /_folio/stats) over the probes, divided by searches; for scroll, per page of 1,000.',
);
for (const row of report.rows) {
  const label = `${row.task}${row.scroll ? '' : ` from=${row.from}`}`;
  noteErrors(report, `${label} Folio`, row.folio);
  noteErrors(report, `${label} Sphinx`, row.sphinx);
}
for (const row of report.aggRows) {
  noteErrors(report, `${row.task} Folio`, row.folio);
  for (const v of row.sphinx) noteErrors(report, `${row.task} Sphinx (${v.label})`, v.figures);
}
const perfDoc = join(REPO_ROOT, 'docs', 'performance.md');
if (!PG_ONLY) {
  const section = renderReport(report);
  console.log(`\n${section}`);
  if (!AGGS_ONLY) writeSection(perfDoc, section);
}
if (report.postgres) {
  const folioContext = { rssPerDoc: report.memory.rssPerDoc, rawSourcePerDoc: corpus.rawSourceBytesPerDoc, shards: SHARDS };
  const pgSection = renderPgSection(report.postgres, folioContext, report.date, report.command);
  console.log(`\n${pgSection}`);
  writeSection(perfDoc, pgSection, PG_SECTION_HEADING);
}
log(`bench: done in ${elapsed(started)} s${AGGS_ONLY ? '' : '; tables written to docs/performance.md'}`);
