/**
 * The "Scale run" section of docs/performance.md (issue 16, bench/scale.ts): the run's figures
 * against the issue's two targets (RSS ≤ 2 × raw `_source` with the replicas' share, restart to
 * green ≤ 10 s), then one table of every page cold, warm and on Sphinx, with the deep page's cost
 * relative to page 1.
 */
import type { EngineFigures } from './measure.ts';
import { machine } from './report.ts';

/** Heading of the section this report owns in docs/performance.md. */
export const SCALE_HEADING = '## Scale run';
/** Issue 16's memory target: shard nodes' RSS per document, both copies, over raw `_source`. */
export const RSS_TARGET_RATIO = 2;
/** Issue 16's restart target, seconds from spawning the shard nodes to green. */
export const RESTART_TARGET_S = 10;

/** One page of one task in the scale run. */
export interface ScalePage {
  task: string;
  from: number;
  /** The first search of this page after the restart, ms (one request). */
  coldMs: number | null;
  /** The measured run (p50 at 1 client, throughput at many). */
  warm: EngineFigures | null;
  /** The cold page against the oracle: `equal`, `DIFFERS`, or `n/a` (no oracle). */
  oracle: 'equal' | 'DIFFERS' | 'n/a';
  sphinx: EngineFigures | null;
  /** True when the task has no hit at this `from` (nothing measured). */
  skipped?: boolean;
}

/** Everything bench/scale.ts measured. */
export interface ScaleReport {
  date: string;
  docs: number;
  shards: number;
  replicas: number;
  clients: number;
  rawSourcePerDoc: number;
  bulkDocsPerS: number;
  /** Shard nodes' RSS after the load (forced GC) minus before, per document: every copy. */
  rssPerDoc: number;
  heapPerDoc: number;
  externalPerDoc: number;
  /** Files in the shard nodes' data directories per document: every copy. */
  diskPerDoc: number;
  /** Seconds from the last bulk's reply to a green cluster (replicas in sync); null when it was not green within 10 min. */
  greenAfterLoadS: number | null;
  /** NaN when the restarted cluster was not green within 10 min. */
  restartToGreenS: number;
  pages: ScalePage[];
  sphinxNote: string;
  sphinxRssPerDoc: number | null;
}

const f2 = (n: number | null | undefined) =>
  n === null || n === undefined || !Number.isFinite(n) ? '—' : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0);
const met = (ok: boolean) => (ok ? 'met' : '**missed**');

/** The pages table: cold, warm p50 and QPS, the ratio to the task's page 1, Sphinx's p50 and QPS. */
function pagesTable(r: ScaleReport): string[] {
  const lines = [
    `| task | from | oracle | cold ms | warm p50 ms | ÷ page 1 | QPS at ${r.clients} | Sphinx p50 ms | Sphinx QPS at ${r.clients} |`,
    '|---|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const p of r.pages) {
    if (p.skipped) continue;
    const first = r.pages.find((q) => q.task === p.task && q.from === 0)?.warm?.one.p50Ms;
    const relative = p.warm && first ? `${(p.warm.one.p50Ms / first).toFixed(2)}×` : '—';
    const cells = [
      p.task,
      p.from.toLocaleString('en-US'),
      p.oracle,
      f2(p.coldMs),
      f2(p.warm?.one.p50Ms),
      relative,
      f2(p.warm?.many?.rps),
      f2(p.sphinx?.one.p50Ms),
      f2(p.sphinx?.many?.rps),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}

/** The section in markdown. */
export function renderScaleSection(r: ScaleReport): string {
  const rssRatio = r.rssPerDoc / r.rawSourcePerDoc;
  return [
    SCALE_HEADING,
    '',
    `Written by \`npm run bench:scale\` (bench/scale.ts) on ${r.date.slice(0, 16).replace('T', ' ')} UTC; ${machine()}.`,
    `${r.docs.toLocaleString('en-US')} documents (bench/corpus.ts), ${r.shards} shards on ${r.shards} shard nodes, ${r.replicas} replica; raw \`_source\` ${r.rawSourcePerDoc.toFixed(0)} B/doc.`,
    '',
    '| figure | measured | target |',
    '|---|---|---|',
    `| bulk (5,000 docs per \`_bulk\`, replicated) | ${f2(r.bulkDocsPerS)} docs/s | — |`,
    `| shard nodes' RSS per document, every copy, after a forced GC | ${f2(r.rssPerDoc)} B (${rssRatio.toFixed(2)}× raw; heap ${f2(r.heapPerDoc)}, external ${f2(r.externalPerDoc)}) | ≤ ${RSS_TARGET_RATIO}× raw: ${met(rssRatio <= RSS_TARGET_RATIO)} |`,
    `| disk per document, every copy (segment files, translog, SQLite) | ${f2(r.diskPerDoc)} B | — |`,
    `| the last bulk's reply → green | ${r.greenAfterLoadS === null ? '**not green within 600 s**' : `${f2(r.greenAfterLoadS)} s`} | — |`,
    `| spawning the restarted shard nodes → green | ${f2(r.restartToGreenS)} s | ≤ ${RESTART_TARGET_S} s: ${met(r.restartToGreenS <= RESTART_TARGET_S)} |`,
    '',
    ...pagesTable(r),
    '',
    `Cold is the first search of that page after the restart (one request); warm is the p50 of a ${r.clients > 1 ? 'measured run' : 'run'} at 1 client. Sphinx: ${r.sphinxNote}${r.sphinxRssPerDoc === null ? '' : `, agents' RSS ${f2(r.sphinxRssPerDoc)} B/doc`}.`,
    '',
  ].join('\n');
}
