/**
 * The bench report: one markdown table (each task × `from`: Folio latency and throughput, shard
 * bytes per search, ratios to the fan-out ceiling and to Sphinx), the issue's targets evaluated as
 * met/missed, and the run's context (date, machine, command). Printed, and written to
 * docs/performance.md as its "Deep paging benchmark" section (other sections are kept).
 */
import { aggSection, type AggRow } from './agg-report.ts';
import type { EngineMemory } from './engine-memory.ts';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { FanOutCeiling } from './ceilings.ts';
import type { EngineFigures } from './measure.ts';
import type { PgReport } from './pg-compare.ts';

/** Heading of the section this report owns in docs/performance.md. */
export const SECTION_HEADING = '## Deep paging benchmark';

/** One task at one `from`. */
export interface ResultRow {
  task: string;
  from: number;
  /** Exact match count, when known. */
  matches: number | null;
  folio: EngineFigures | null;
  bytesPerSearch: number | null;
  callsPerSearch: number | null;
  sphinx: EngineFigures | null;
  /** Why a Sphinx figure is missing, or a remark on it. */
  sphinxNote?: string;
  oracle: 'equal' | 'DIFFERS' | 'n/a';
  /** True for the scroll row (one operation = 25 searches of 1,000). */
  scroll?: boolean;
}

/** Everything the report shows. */
export interface BenchReport {
  date: string;
  command: string;
  quick: boolean;
  corpusStatement: string;
  clients: number;
  durationMs: number;
  bulk: { docs: number; seconds: number; batchDocs: number };
  memory: { rssPerDoc: number; heapPerDoc: number; externalPerDoc: number; rawSourcePerDoc: number; gcForced: boolean; engine?: EngineMemory | null };
  ceiling: FanOutCeiling;
  sphinx: { version: string; indexSeconds: number; agentRssPerDoc: number } | { skipped: string };
  rows: ResultRow[];
  /** The aggregation tasks (bench/agg-tasks.ts). */
  aggRows: AggRow[];
  skippedCombos: string[];
  notes: string[];
  /** Issue 17's PostgreSQL comparison (bench/pg-compare.ts), when it ran. */
  postgres?: PgReport | { skipped: string };
}

/** `nproc`, memory and CPU model of this machine. */
export function machine(): string {
  const mem = /MemTotal:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'));
  const gib = mem ? (Number(mem[1]) / 1024 / 1024).toFixed(1) : '?';
  return `nproc ${cpus().length}, MemTotal ${gib} GiB (/proc/meminfo), ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`;
}

const f1 = (n: number | null | undefined) =>
  n === null || n === undefined || !Number.isFinite(n) ? '—' : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0);
const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a == null || b == null || !Number.isFinite(a) || !Number.isFinite(b) || b === 0 ? '—' : `${(a / b).toFixed(2)}×`;
const kb = (n: number | null) => (n === null ? '—' : n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1000).toFixed(1)} KB`);

/** The results table in markdown. */
export function resultsTable(r: BenchReport): string {
  const c = r.clients;
  const head = [
    'task',
    'from',
    'hits',
    'p50 ms',
    'p99 ms',
    'req/s 1c',
    `req/s ${c}c`,
    `p99 ms ${c}c`,
    'shard bytes/search (calls)',
    'p50 ÷ fan-out p50',
    `req/s ${c}c ÷ fan-out`,
    'Sphinx p50 ms',
    'Sphinx req/s 1c',
    `Sphinx req/s ${c}c`,
    'p50 ÷ Sphinx',
    `req/s ${c}c ÷ Sphinx`,
    'oracle',
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`];
  const ceil = r.ceiling;
  for (const row of r.rows) {
    const f = row.folio;
    const s = row.sphinx;
    const task = row.scroll ? `${row.task} (per 25×1,000 scroll)` : row.task;
    lines.push(
      `| ${[
        task,
        row.scroll ? '—' : row.from.toLocaleString('en-US'),
        row.matches === null ? '—' : row.matches.toLocaleString('en-US'),
        f1(f?.one.p50Ms),
        f1(f?.one.p99Ms),
        f1(f?.one.rps),
        f?.many ? f1(f.many.rps) : `— (${f?.manySkipped ?? 'n/a'})`,
        f1(f?.many?.p99Ms),
        row.bytesPerSearch === null ? '—' : `${kb(row.bytesPerSearch)} (${f1(row.callsPerSearch)})`,
        ratio(f?.one.p50Ms, ceil.one.p50Ms),
        ratio(f?.many?.rps, ceil.many.rps),
        s ? f1(s.one.p50Ms) : `— (${row.sphinxNote ?? 'n/a'})`,
        f1(s?.one.rps),
        s?.many ? f1(s.many.rps) : s ? `— (${s.manySkipped})` : '—',
        ratio(f?.one.p50Ms, s?.one.p50Ms),
        ratio(f?.many?.rps, s?.many?.rps),
        row.oracle,
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** One evaluated target. */
export interface TargetResult {
  target: string;
  measured: string;
  met: boolean | null;
}

const find = (r: BenchReport, task: string, from: number) => r.rows.find((x) => x.task === task && x.from === from && !x.scroll);

/** The issue's targets, evaluated on this run (null = not measurable in this run). */
export function evaluateTargets(r: BenchReport): TargetResult[] {
  const out: TargetResult[] = [];
  const deep = (task: string, limit: number) => {
    const a = find(r, task, 100_000)?.folio?.one.p50Ms;
    const b = find(r, task, 0)?.folio?.one.p50Ms;
    const x = a !== undefined && b !== undefined ? a / b : null;
    out.push({
      target: `${task}: p50(from=100,000) ≤ ${limit} × p50(from=0)`,
      measured: x === null ? 'not measured' : `${x.toFixed(2)}× (${f1(a)} vs ${f1(b)} ms)`,
      met: x === null ? null : x <= limit,
    });
  };
  deep('desc_sort_population', 1.5);
  deep('asc_sort_population', 1.5);
  deep('term', 2);
  const sized = r.rows.filter((x) => !x.scroll && x.bytesPerSearch !== null);
  const worst = sized.reduce<ResultRow | null>((m, x) => (m === null || x.bytesPerSearch! > m.bytesPerSearch! ? x : m), null);
  out.push({
    target: 'shard bytes per search ≤ 100 KB at any from (size 10)',
    measured: worst ? `max ${kb(worst.bytesPerSearch)} (${worst.task} from=${worst.from.toLocaleString('en-US')})` : 'not measured',
    met: worst ? worst.bytesPerSearch! <= 100_000 : null,
  });
  const d0 = find(r, 'default', 0)?.folio;
  const share = d0?.many ? d0.many.rps / r.ceiling.many.rps : null;
  out.push({
    target: `default searches/s at ${r.clients} clients ≥ 0.35 × fan-out ceiling`,
    measured: share === null ? 'not measured' : `${share.toFixed(2)}× (${f1(d0!.many!.rps)} vs ${f1(r.ceiling.many.rps)} fan-outs/s)`,
    met: share === null ? null : share >= 0.35,
  });
  const tail = d0?.many ? d0.many.p99Ms / d0.many.p50Ms : null;
  out.push({
    target: `default p99 ≤ 5 × p50 (${r.clients} clients)`,
    measured: tail === null ? 'not measured' : `${tail.toFixed(2)}× (${f1(d0!.many!.p99Ms)} vs ${f1(d0!.many!.p50Ms)} ms)`,
    met: tail === null ? null : tail <= 5,
  });
  out.push({
    target: 'page-1 p50 at 1 client ≤ 1 ms (default, query + fetch)',
    measured: d0 ? `${f1(d0.one.p50Ms)} ms` : 'not measured',
    met: d0 ? d0.one.p50Ms <= 1 : null,
  });
  const dps = r.bulk.docs / r.bulk.seconds;
  out.push({ target: 'bulk indexing ≥ 50,000 docs/s', measured: `${Math.round(dps).toLocaleString('en-US')} docs/s`, met: dps >= 50_000 });
  const m = r.memory;
  const e = m.engine;
  out.push({
    target: 'memory ≤ 1.3 × raw _source bytes per doc (excl. inverted index)',
    measured: e
      ? `engine ${f1(e.excludingInvertedPerDoc)} B/doc = ${(e.excludingInvertedPerDoc / e.rawSourcePerDoc).toFixed(2)}× raw ${f1(e.rawSourcePerDoc)} B (in-process heap deltas, ${e.docs.toLocaleString('en-US')} docs in one shard); cluster RSS ${f1(m.rssPerDoc)} B/doc with the inverted index and process overhead`
      : `RSS ${f1(m.rssPerDoc)} B/doc = ${(m.rssPerDoc / m.rawSourcePerDoc).toFixed(2)}× raw ${f1(m.rawSourcePerDoc)} B (includes the inverted index; the engine breakdown did not run)`,
    met: e ? e.excludingInvertedPerDoc <= 1.3 * e.rawSourcePerDoc : m.rssPerDoc <= 1.3 * m.rawSourcePerDoc,
  });
  const checked = r.rows.filter((x) => x.oracle !== 'n/a');
  out.push({
    target: 'every deep page equals the oracle',
    measured: `${checked.filter((x) => x.oracle === 'equal').length}/${checked.length} checked pages equal (property tests: npm test)`,
    met: checked.length === 0 ? null : checked.every((x) => x.oracle === 'equal'),
  });
  return out;
}

/** The whole section in markdown. */
export function renderReport(r: BenchReport): string {
  const targets = evaluateTargets(r);
  const m = r.memory;
  const sphinx =
    'skipped' in r.sphinx
      ? `Sphinx peer skipped: ${r.sphinx.skipped}`
      : `Sphinx peer: ${r.sphinx.version}, indexer ${r.sphinx.indexSeconds.toFixed(1)} s for 4 agents, agents' RSS ${f1(r.sphinx.agentRssPerDoc)} B/doc after the queries`;
  return [
    SECTION_HEADING,
    '',
    `- date: ${r.date}${r.quick ? ' (BENCH_QUICK=1 smoke run: smaller corpus, shorter runs)' : ''}`,
    `- machine: ${machine()}`,
    `- command: \`${r.command}\``,
    `- ${r.corpusStatement}`,
    `- cluster: 4 shards on 4 shard-node processes + 1 coordinator, all on this machine; load client in the same machine`,
    `- each figure: closed loop of ${r.durationMs / 1000} s at 1 client and at ${r.clients} clients (after probes and a warm-up); req/s = completed searches/s; p50/p99 over every request`,
    `- bulk: ${r.bulk.docs.toLocaleString('en-US')} docs in ${r.bulk.seconds.toFixed(1)} s = **${Math.round(r.bulk.docs / r.bulk.seconds).toLocaleString('en-US')} docs/s** (NDJSON _bulk, ${r.bulk.batchDocs} docs/request, 2 in flight, refresh at the end)`,
    `- memory: shard nodes' RSS after load${m.gcForced ? ' and a forced GC' : ' (GC could not be forced)'} minus before: **${f1(m.rssPerDoc)} B/doc** (V8 heap ${f1(m.heapPerDoc)} + external ${f1(m.externalPerDoc)} B/doc) vs raw _source ${f1(m.rawSourcePerDoc)} B/doc = ${(m.rssPerDoc / m.rawSourcePerDoc).toFixed(2)}×`,
    ...(m.engine
      ? [
          `- engine memory (bench/engine-memory.ts: ${m.engine.docs.toLocaleString('en-US')} docs in one shard engine in process, heap + external after a forced GC, each part measured by dropping it): **${f1(m.engine.totalPerDoc)} B/doc** in all = inverted index ${f1(m.engine.invertedPerDoc)} + everything else **${f1(m.engine.excludingInvertedPerDoc)} B/doc** (LZ4 _source blocks ${f1(m.engine.sourcePerDoc)}, doc values ${f1(m.engine.docValuesPerDoc)}, _id strings + hash + live version map ${f1(m.engine.idsPerDoc)})`,
        ]
      : []),
    `- fan-out ceiling (4 trivial node:http processes, undici): 1 in flight p50 ${f1(r.ceiling.one.p50Ms)} ms / p99 ${f1(r.ceiling.one.p99Ms)} ms, ${f1(r.ceiling.one.rps)} fan-outs/s; ${r.clients} in flight ${f1(r.ceiling.many.rps)} fan-outs/s`,
    `- ${sphinx}`,
    '',
    resultsTable(r),
    '',
    ...(r.skippedCombos.length ? [`Skipped (from ≥ match count): ${r.skippedCombos.join(', ')}.`, ''] : []),
    '### Targets (issue 3)',
    '',
    '| target | measured | result |',
    '|---|---|---|',
    ...targets.map((t) => `| ${t.target} | ${t.measured} | ${t.met === null ? 'not measured' : t.met ? 'met' : '**missed**'} |`),
    '',
    ...aggSection(r.aggRows, r.clients, 4),
    ...(r.notes.length ? ['### Notes', '', ...r.notes.map((n) => `- ${n}`), ''] : []),
  ].join('\n');
}

/** Replaces (or appends) the section under `heading` (a `## ` line) in `file`, creating the file when absent. */
export function writeSection(file: string, section: string, heading: string = SECTION_HEADING): void {
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '# Performance\n';
  const start = old.indexOf(`${heading}\n`);
  let next: string;
  if (start < 0) next = `${old.trimEnd()}\n\n${section.trimEnd()}\n`;
  else {
    const rest = old.slice(start + heading.length);
    const end = rest.search(/\n## /);
    next = `${old.slice(0, start)}${section.trimEnd()}\n${end < 0 ? '' : rest.slice(end)}`;
  }
  writeFileSync(file, next);
}
