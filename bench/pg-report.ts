/**
 * The "PostgreSQL peer" section of docs/performance.md (issue 17): one table of p50 and QPS at 1
 * and at many clients for Folio and PostgreSQL on the same tasks in the same run, with the ratios,
 * then memory per row of both and the statements each engine got.
 */
import { MANY_CLIENTS_LIMIT_MS } from './pg-compare.ts';
import type { PgReport, PgSide } from './pg-compare.ts';
import { machine } from './report.ts';

/** Heading of the section this report owns in docs/performance.md. */
export const PG_SECTION_HEADING = '## PostgreSQL peer';

/** Folio's figures from the same run that the PostgreSQL section quotes. */
export interface FolioContext {
  /** Shard nodes' RSS after the load minus before, per document (bench/run.ts). */
  rssPerDoc: number;
  /** Mean bytes of `_source` JSON per document. */
  rawSourcePerDoc: number;
  /** `number_of_shards` of the bench index. */
  shards: number;
}

const f2 = (n: number | null | undefined) =>
  n === null || n === undefined || !Number.isFinite(n) ? '—' : n < 1 ? n.toFixed(3) : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0);
const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a == null || b == null || !Number.isFinite(a) || !Number.isFinite(b) || b === 0 ? '—' : `${(a / b).toFixed(2)}×`;
const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
const many = (s: PgSide, pick: (r: NonNullable<PgSide['many']>) => number) => (s.many ? f2(pick(s.many)) : s.note ? `— (${s.note})` : '—');

/** The comparison table in markdown. */
export function pgTable(r: PgReport): string {
  const c = r.clients;
  const head = [
    'task',
    'rows checked',
    'Folio p50 ms 1c',
    'PG p50 ms 1c',
    'Folio QPS 1c',
    'PG QPS 1c',
    `Folio p50 ms ${c}c`,
    `PG p50 ms ${c}c`,
    `Folio p99 ms ${c}c`,
    `PG p99 ms ${c}c`,
    `Folio QPS ${c}c`,
    `PG QPS ${c}c`,
    `Folio CPU ms/query ${c}c`,
    `PG CPU ms/query ${c}c`,
    'p50 1c Folio ÷ PG',
    `QPS ${c}c Folio ÷ PG`,
    `CPU/query ${c}c Folio ÷ PG`,
    'idle CPU ms/s Folio / PG',
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`];
  for (const row of r.rows) {
    const { folio: f, pg: p } = row;
    lines.push(
      `| ${[
        row.task,
        row.check,
        f2(f.one?.p50Ms),
        f2(p.one?.p50Ms),
        f2(f.one?.rps),
        f2(p.one?.rps),
        many(f, (m) => m.p50Ms),
        many(p, (m) => m.p50Ms),
        many(f, (m) => m.p99Ms),
        many(p, (m) => m.p99Ms),
        many(f, (m) => m.rps),
        many(p, (m) => m.rps),
        many(f, (m) => m.cpuMsPerQuery),
        many(p, (m) => m.cpuMsPerQuery),
        ratio(f.one?.p50Ms, p.one?.p50Ms),
        ratio(f.many?.rps, p.many?.rps),
        ratio(f.many?.cpuMsPerQuery, p.many?.cpuMsPerQuery),
        `${f2(f.idleCpuMsPerS)} / ${f2(p.idleCpuMsPerS)}`,
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** Memory per row of both engines in markdown lines. */
function memoryLines(r: PgReport, folio: FolioContext): string[] {
  const per = (bytes: number) => `${(bytes / r.docs).toFixed(0)} B/row`;
  const idx = Object.entries(r.sizes.byIndex)
    .map(([name, b]) => `${name} ${mb(b)} (${per(b)})`)
    .join(', ');
  return [
    `- PostgreSQL relation sizes: table ${mb(r.sizes.table)} (${per(r.sizes.table)}) + indexes ${mb(r.sizes.indexes)} (${per(r.sizes.indexes)}) = **${mb(r.sizes.total)} (${per(r.sizes.total)})** (pg_total_relation_size); ${idx}`,
    `- PostgreSQL Pss (sum of /proc/<pid>/smaps_rollup over the postmaster and its children): idle after the load ${mb(r.pss.afterLoad)}, peak sampled mid-run under ${r.clients} clients ${mb(r.pss.underLoadMax)} (${per(r.pss.underLoadMax)}), after the runs ${mb(r.pss.afterRuns)}. Pss counts the shared buffers a process touched (shared_buffers is 128 MB by default); the rest of the table is served from the OS page cache, which no process's Pss shows, so the relation sizes are its footprint`,
    `- Folio: shard nodes' RSS after the load minus before: **${folio.rssPerDoc.toFixed(0)} B/doc** (raw _source ${folio.rawSourcePerDoc.toFixed(0)} B/doc; ${folio.shards} shards, with the inverted index and process overhead)`,
  ];
}

/** The whole section in markdown. */
export function renderPgSection(r: PgReport | { skipped: string }, folio: FolioContext, date: string, command: string): string {
  if ('skipped' in r) return [PG_SECTION_HEADING, '', `- date: ${date}; command: \`${command}\``, `- PostgreSQL peer skipped: ${r.skipped}`, ''].join('\n');
  return [
    PG_SECTION_HEADING,
    '',
    `- date: ${date}; command: \`${command}\``,
    `- machine: ${machine()}; shared with other work (1-minute load average ${r.loadAverage.before.toFixed(1)} before the timed runs, ${r.loadAverage.after.toFixed(1)} after; 2 means both cores busy), so read the ratios, not the absolute figures`,
    `- PostgreSQL: ${r.version} (Debian package), one server as the bench's child, settings at their defaults (shared_buffers 128 MB, work_mem 4 MB, JIT on; no plan here reaches jit_above_cost) but listen_addresses, port and the socket directory; ${r.docs.toLocaleString('en-US')} rows through COPY in ${r.load.copySeconds.toFixed(1)} s, indexes ${r.load.indexSeconds.toFixed(1)} s, VACUUM (ANALYZE) ${r.load.vacuumSeconds.toFixed(1)} s`,
    `- PostgreSQL's indexes: primary key (id), B-tree (population DESC, id COLLATE "C"), B-tree (country, population DESC, id COLLATE "C"), GIN (to_tsvector('simple', name)); \`id\` is COLLATE "C", the order of Folio's \`_id\` tie-break for these ASCII ids`,
    `- Folio: the bench cluster (${folio.shards} shards on ${folio.shards} shard-node processes + 1 coordinator), the same corpus`,
    `- load: PostgreSQL by pgbench (-M prepared, -c 1 and -c ${r.clients}, -j ≤ 2, -T ${Math.max(1, Math.round(r.durationMs / 1000))}, p50/p99 from its per-transaction logs -l, QPS = its tps without connection time); Folio by the bench's closed loop (undici keep-alive, ${r.durationMs / 1000} s per run after a warm-up). Interleaved per task: Folio 1c, PostgreSQL 1c, Folio ${r.clients}c, PostgreSQL ${r.clients}c; an engine's ${r.clients}-client run is skipped when its 1-client p50 is over ${MANY_CLIENTS_LIMIT_MS / 1000} s. Both clients run on the same 2 cores as the servers. CPU/query: the servers' CPU time (/proc/<pid>/stat utime + stime, and the reaped backends' via the postmaster's cutime + cstime) over the run, minus the servers' idle CPU rate read over 1 s just before the task's runs (last column: background work such as merges, GC, checkpoints), divided by the run's queries; Folio = 4 shard nodes + coordinator, PostgreSQL = postmaster + backends (pgbench's connection start-up included); the load clients are not counted`,
    '- run alone with `BENCH_ONLY=pg npm run bench` (`BENCH_QUICK=1`: 200,000 rows, 1 s runs); skipped, with the reason printed, when PostgreSQL cannot be installed or started',
    `- rows checked: before timing, the page (or count) of both engines is compared with the corpus sorted in memory (full text: Folio with PostgreSQL, ids and match counts)`,
    '',
    pgTable(r),
    '',
    ...memoryLines(r, folio),
    '',
    '| task | PostgreSQL statement | Folio body |',
    '|---|---|---|',
    ...r.rows.map((row) => `| ${row.task} | \`${row.sql}\` | \`${row.folioBody}\` |`),
    '',
    ...(r.notes.length ? [...r.notes.map((n) => `- ${n}`), ''] : []),
  ].join('\n');
}
