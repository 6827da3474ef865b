/**
 * The aggregation part of the bench report (issue 12): one row per aggregation task with Folio's
 * latency, throughput, shard bytes and calls per search and exactness, beside each SphinxQL
 * `GROUP BY` variant's figures and exactness; then the issue's targets. Rendered inside the
 * "Deep paging benchmark" section of docs/performance.md (bench/report.ts).
 */
import type { EngineFigures } from './measure.ts';

/** One SphinxQL variant of an aggregation task. */
export interface SphinxAggFigures {
  label: string;
  figures: EngineFigures | null;
  /** Counts (and sums) equal the oracle's, ties in any order; null when not checked. */
  exact: boolean | null;
  note?: string;
}

/** One aggregation task's figures. */
export interface AggRow {
  task: string;
  description: string;
  /** Distinct groups in the corpus. */
  groups: number;
  folio: EngineFigures | null;
  bytesPerSearch: number | null;
  callsPerSearch: number | null;
  /** Folio's buckets equal the oracle (keys, order, counts, sums); null when not checked. */
  exact: boolean | null;
  sphinx: SphinxAggFigures[];
}

const f1 = (n: number | null | undefined) =>
  n === null || n === undefined || !Number.isFinite(n) ? '—' : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0);
const kb = (n: number | null) => (n === null ? '—' : `${(n / 1000).toFixed(1)} KB`);
const yes = (b: boolean | null) => (b === null ? '—' : b ? 'exact' : '**not exact**');

/** The aggregation table, one line per task and Sphinx variant, in markdown. */
export function aggTable(rows: readonly AggRow[], clients: number, shards: number): string {
  const head = [
    'task',
    'groups',
    'p50 ms',
    'p99 ms',
    'req/s 1c',
    `req/s ${clients}c`,
    `shard bytes/search (calls; ${shards} = query round only)`,
    'Folio counts',
    'Sphinx statement',
    'Sphinx p50 ms',
    'Sphinx req/s 1c',
    `Sphinx req/s ${clients}c`,
    'p50 ÷ Sphinx',
    'Sphinx counts',
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 || i === 8 ? '---' : '---:')).join('|')}|`];
  for (const r of rows) {
    const f = r.folio;
    const variants = r.sphinx.length > 0 ? r.sphinx : [null];
    variants.forEach((s, i) => {
      const own =
        i === 0
          ? [
              `${r.task}: ${r.description}`,
              r.groups.toLocaleString('en-US'),
              f1(f?.one.p50Ms),
              f1(f?.one.p99Ms),
              f1(f?.one.rps),
              f?.many ? f1(f.many.rps) : `— (${f?.manySkipped ?? 'n/a'})`,
              r.bytesPerSearch === null ? '—' : `${kb(r.bytesPerSearch)} (${f1(r.callsPerSearch)})`,
              yes(r.exact),
            ]
          : ['〃', '', '', '', '', '', '', ''];
      const sp = s?.figures;
      const ratio = f && sp && sp.one.p50Ms > 0 ? `${(f.one.p50Ms / sp.one.p50Ms).toFixed(2)}×` : '—';
      lines.push(
        `| ${[...own, s ? `\`${s.label}\`` : '— (not run)', sp ? f1(sp.one.p50Ms) : `— (${s?.note ?? 'n/a'})`, f1(sp?.one.rps), sp?.many ? f1(sp.many.rps) : sp ? `— (${sp.manySkipped})` : '—', ratio, yes(s?.exact ?? null)].join(' | ')} |`,
      );
    });
  }
  return lines.join('\n');
}

/** The issue's aggregation targets on this run: [target, measured, met (null = not measured)]. */
export function aggTargets(rows: readonly AggRow[]): [string, string, boolean | null][] {
  const out: [string, string, boolean | null][] = [];
  const country = rows.find((r) => r.task === 'country_agg_uncached');
  const a = country?.folio?.one.p50Ms;
  const b = country?.sphinx[0]?.figures?.one.p50Ms;
  out.push([
    'country_agg_uncached p50 ≤ 1 × Sphinx `GROUP BY country` p50 (same run)',
    a !== undefined && b !== undefined ? `${(a / b).toFixed(2)}× (${f1(a)} vs ${f1(b)} ms)` : 'not measured',
    a !== undefined && b !== undefined ? a <= b : null,
  ]);
  const checked = rows.filter((r) => r.exact !== null);
  out.push([
    'exact counts (every Folio bucket equals the oracle)',
    `${checked.filter((r) => r.exact).length}/${checked.length} tasks exact`,
    checked.length === 0 ? null : checked.every((r) => r.exact),
  ]);
  const sized = rows.filter((r) => r.bytesPerSearch !== null);
  const worst = sized.reduce<AggRow | null>((m, r) => (m === null || r.bytesPerSearch! > m.bytesPerSearch! ? r : m), null);
  out.push([
    'shard bytes per search ≤ 100 KB at any cardinality',
    worst ? `max ${kb(worst.bytesPerSearch)} (${worst.task})` : 'not measured',
    worst ? worst.bytesPerSearch! <= 100_000 : null,
  ]);
  return out;
}

/** The aggregation subsection in markdown (empty when no task ran). */
export function aggSection(rows: readonly AggRow[], clients: number, shards: number): string[] {
  if (rows.length === 0) return [];
  return [
    '### Aggregations (issue 12)',
    '',
    aggTable(rows, clients, shards),
    '',
    '| target | measured | result |',
    '|---|---|---|',
    ...aggTargets(rows).map(([t, m, met]) => `| ${t} | ${m} | ${met === null ? 'not measured' : met ? 'met' : '**missed**'} |`),
    '',
  ];
}
