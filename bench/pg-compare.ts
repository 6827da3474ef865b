/**
 * Issue 17's side-by-side run: the running bench cluster (already loaded with the corpus) against
 * PostgreSQL fed the same rows. For each task (bench/pg-tasks.ts) the bench first checks the page
 * (or count) of both engines against the corpus, then times them interleaved: Folio at 1 client
 * (bench/load-driver.ts), PostgreSQL at 1 client (pgbench), Folio at {@link PgShape.clients},
 * PostgreSQL at {@link PgShape.clients}, each run with the servers' CPU time per query (Folio's
 * shard nodes and coordinator; PostgreSQL's postmaster and backends; not the load clients). The many-client run is skipped for an engine whose 1-client
 * p50 is over {@link MANY_CLIENTS_LIMIT_MS}: higher than the main bench's limit, so that the OFFSET
 * pages get a figure at 16 clients as in issue 17's table (both engines' runs stay bounded: the
 * closed loops stop issuing after the duration and pgbench after `-T`). Memory: PostgreSQL's Pss summed over
 * its processes (idle after the load, sampled mid-run under the many-client load, after the runs)
 * and its relation sizes.
 */
import { loadavg } from 'node:os';
import { closedLoop } from './load-driver.ts';
import type { LoopResult } from './load-driver.ts';
import type { FolioClient, SearchReply } from './measure.ts';
import type { Corpus } from './corpus.ts';
import { startPostgres } from './peer-postgres.ts';
import type { PostgresServer } from './peer-postgres.ts';
import { loadPostgres, relationSizes } from './pg-schema.ts';
import type { LoadTimes, RelationSizes } from './pg-schema.ts';
import { countSql, pgTasks } from './pg-tasks.ts';
import type { PgTask } from './pg-tasks.ts';
import { pgbench } from './pgbench.ts';
import { cpuMs } from './process-cpu.ts';

/** Above this 1-client p50 an engine's many-client run is skipped (it would only queue). */
export const MANY_CLIENTS_LIMIT_MS = 2000;

/** Durations and concurrency of the comparison. */
export interface PgShape {
  durationMs: number;
  warmupMs: number;
  /** The many-client run's clients (issue 17: 16). */
  clients: number;
}

/** A measured run and the servers' CPU time per query during it (load client excluded). */
export type MeasuredRun = LoopResult & { cpuMsPerQuery: number };

/** One engine's figures on one task. */
export interface PgSide {
  one: MeasuredRun | null;
  many: MeasuredRun | null;
  /** Why `many` (or both) is missing. */
  note?: string;
  /** The servers' CPU ms per second with no query in flight, read just before the runs (subtracted from their CPU per query). */
  idleCpuMsPerS?: number;
}

/** One task on both engines. */
export interface PgRow {
  task: string;
  sql: string;
  folioBody: string;
  /** Result of the check before timing. */
  check: string;
  folio: PgSide;
  pg: PgSide;
}

/** What the comparison measured. */
export interface PgReport {
  version: string;
  docs: number;
  clients: number;
  durationMs: number;
  load: LoadTimes;
  sizes: RelationSizes;
  /** Pss of the server's processes, bytes: idle after the load, peak sampled under load, after the runs. */
  pss: { afterLoad: number; underLoadMax: number; afterRuns: number };
  rows: PgRow[];
  notes: string[];
  /** 1-minute load average (os.loadavg) before and after the timed runs: other work on the machine shows here. */
  loadAverage: { before: number; after: number };
}

/** Ids (first field) or the count of a psql result. */
function pgResult(task: PgTask, rows: string[][]): string[] | number {
  return task.count ? Number(rows[0][0]) : rows.map((r) => r[0]);
}

const same = (a: string[] | number, b: string[] | number) =>
  typeof a === 'number' || typeof b === 'number' ? a === b : a.length === b.length && a.every((x, i) => x === b[i]);
const show = (v: string[] | number) => (typeof v === 'number' ? String(v) : `[${v.slice(0, 3).join(', ')}…]`);

/** Checks both engines' answer to `task` against the corpus (or against each other when there is no oracle). */
async function check(task: PgTask, client: FolioClient, server: PostgresServer): Promise<string> {
  const reply = await client.search(task.folio);
  const folio = task.count ? reply.hits.total.value : reply.hits.hits.map((h) => h._id);
  const pg = pgResult(task, await server.sql(task.sql));
  const expected = task.expected ? ('ids' in task.expected ? task.expected.ids : task.expected.count) : null;
  if (expected !== null) {
    if (same(folio, expected) && same(pg, expected)) return task.count ? `equal (${expected as number}, oracle)` : 'equal (oracle)';
    return `DIFFERS: oracle ${show(expected)}, Folio ${show(folio)}, PostgreSQL ${show(pg)}`;
  }
  const folioCount = (await client.search<SearchReply>({ ...task.folio, size: 0, track_total_hits: true })).hits.total.value;
  const pgCount = Number((await server.sql(countSql(task)))[0][0]);
  if (same(folio, pg) && folioCount === pgCount) return `equal (Folio = PostgreSQL, ${pgCount} matches)`;
  return `DIFFERS: Folio ${show(folio)} of ${folioCount}, PostgreSQL ${show(pg)} of ${pgCount}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Length of the idle window in which each task first reads the servers' background CPU rate. */
const IDLE_WINDOW_MS = 1000;

/** CPU time per second of wall time that `cpu` uses with no query in flight. */
async function idleRate(cpu: () => number): Promise<number> {
  const before = cpu();
  await sleep(IDLE_WINDOW_MS);
  return ((cpu() - before) * 1000) / IDLE_WINDOW_MS;
}

/** One measured run with the servers' CPU per query around it, net of their idle rate (ms CPU per s). */
async function withCpu(cpu: () => number, idleMsPerS: number, measure: () => Promise<LoopResult>): Promise<MeasuredRun> {
  const before = cpu();
  const t0 = performance.now();
  const r = await measure();
  await sleep(100); // the postmaster reaps the ended backends
  const background = (idleMsPerS * (performance.now() - t0)) / 1000;
  return { ...r, cpuMsPerQuery: Math.max(0, cpu() - before - background) / Math.max(1, r.requests + r.errors) };
}

/** Times one task, Folio and PostgreSQL interleaved; `sample` is called mid-way through PostgreSQL's many-client run. */
async function timeTask(
  task: PgTask,
  client: FolioClient,
  server: PostgresServer,
  folioCpu: () => number,
  shape: PgShape,
  sample: () => void,
): Promise<{ folio: PgSide; pg: PgSide }> {
  const body = JSON.stringify(task.folio);
  const folioOp = () => client.searchRaw(body).then(() => {});
  const seconds = Math.max(1, Math.round(shape.durationMs / 1000));
  const target = { binDir: server.binDir, port: server.port, dir: server.dir };
  const warm = shape.warmupMs >= 500;
  // Both servers' background CPU (merges, GC, checkpoints) over an idle second, subtracted from each run.
  const idle = { folio: await idleRate(folioCpu), pg: await idleRate(() => server.cpuMs()) };
  // Warm-ups run apart from the measured runs, so the CPU read around a run is the run's own.
  const runFolio = async (clients: number) => {
    await closedLoop(folioOp, { clients, durationMs: shape.warmupMs, warmupMs: 0 });
    return withCpu(folioCpu, idle.folio, () => closedLoop(folioOp, { clients, durationMs: shape.durationMs, warmupMs: 0 }));
  };
  const runPg = async (clients: number, midway?: () => void) => {
    if (warm) await pgbench(target, task.sql, { clients, seconds: 1, log: false });
    return withCpu(
      () => server.cpuMs(),
      idle.pg,
      () => pgbench(target, task.sql, { clients, seconds, log: true, midway }),
    );
  };
  const folio: PgSide = { one: await runFolio(1), many: null, idleCpuMsPerS: idle.folio };
  const pg: PgSide = { one: await runPg(1), many: null, idleCpuMsPerS: idle.pg };
  const slow = (r: LoopResult) => r.requests === 0 || r.p50Ms > MANY_CLIENTS_LIMIT_MS;
  if (slow(folio.one!)) folio.note = `1-client p50 > ${MANY_CLIENTS_LIMIT_MS} ms`;
  else folio.many = await runFolio(shape.clients);
  if (slow(pg.one!)) pg.note = `1-client p50 > ${MANY_CLIENTS_LIMIT_MS} ms`;
  else pg.many = await runPg(shape.clients, sample);
  return { folio, pg };
}

/**
 * Starts PostgreSQL, loads the corpus, runs every task against the loaded Folio cluster behind
 * `client`, stops PostgreSQL. Resolves the report, or why the peer was skipped.
 */
export async function runPostgresPeer(
  client: FolioClient,
  corpus: Corpus,
  shape: PgShape,
  folioPids: number[],
  log: (line: string) => void,
): Promise<PgReport | { skipped: string }> {
  const server = await startPostgres(log);
  if ('skipped' in server) {
    log(`pg peer: SKIPPED (${server.skipped})`);
    return server;
  }
  try {
    let t0 = performance.now();
    const load = await loadPostgres(server, corpus);
    log(`pg peer: COPY ${load.copySeconds.toFixed(1)} s, indexes ${load.indexSeconds.toFixed(1)} s, VACUUM ANALYZE ${load.vacuumSeconds.toFixed(1)} s`);
    const sizes = await relationSizes(server);
    const pss = { afterLoad: server.pss(), underLoadMax: 0, afterRuns: 0 };
    const sample = () => (pss.underLoadMax = Math.max(pss.underLoadMax, server.pss()));
    const report: PgReport = {
      version: server.version,
      docs: corpus.size,
      clients: shape.clients,
      durationMs: shape.durationMs,
      load,
      sizes,
      pss,
      rows: [],
      notes: [],
      loadAverage: { before: loadavg()[0], after: NaN },
    };
    // search_after needs a unique last sort value: `_id` (sortable in Folio), else its keyword copy `uid`.
    const tieField = await client.search({ size: 0, sort: [{ _id: 'asc' }] }).then(
      () => '_id',
      () => 'uid',
    );
    for (const task of pgTasks(corpus, tieField)) {
      t0 = performance.now();
      const row: PgRow = {
        task: task.name,
        sql: task.sql,
        folioBody: JSON.stringify(task.folio),
        check: 'not run',
        folio: { one: null, many: null },
        pg: { one: null, many: null },
      };
      report.rows.push(row);
      if (task.skip) {
        row.check = `skipped: ${task.skip}`;
        continue;
      }
      try {
        row.check = await check(task, client, server);
        Object.assign(row, await timeTask(task, client, server, () => cpuMs(folioPids), shape, sample));
      } catch (err) {
        report.notes.push(`${task.name}: failed: ${(err as Error).message.slice(0, 300)}`);
      }
      const fmt = (s: PgSide) =>
        `p50 ${s.one?.p50Ms.toFixed(2) ?? '-'} ms, ${s.many?.rps.toFixed(0) ?? '-'} QPS at ${shape.clients}, CPU ${s.one?.cpuMsPerQuery.toFixed(3) ?? '-'}/${s.many?.cpuMsPerQuery.toFixed(3) ?? '-'} ms/query`;
      log(`pg compare ${task.name}: Folio ${fmt(row.folio)}; PostgreSQL ${fmt(row.pg)}; ${row.check} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    }
    pss.afterRuns = server.pss();
    report.loadAverage.after = loadavg()[0];
    return report;
  } catch (err) {
    return { skipped: `failed: ${(err as Error).message.split('\n').slice(0, 3).join(' | ')}` };
  } finally {
    await server.stop();
  }
}
