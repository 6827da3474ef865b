/**
 * `npm run faults`: the fault suite's long form. Runs many seeded schedules (default 200) with the
 * same cluster, nemesis and checker as the quick form in `npm test` (test/faults/faults.test.ts),
 * starting a fresh cluster every `--per-cluster` schedules, and prints each schedule's figures and a
 * total. Exits 1 if any schedule failed, after printing its failure message (seed, schedule,
 * nemesis log, examples).
 *
 * Usage: node test/faults/run.ts [--schedules 200] [--first-seed 1000] [--seed S] [--fault-ms 10000]
 *        [--per-cluster 20] [--nodes 3] [--verbose]
 * `--seed S` replays one schedule.
 */
import { parseArgs } from 'node:util';
import { startFaultCluster, type FaultCluster } from './fault-cluster.ts';
import { failureMessage, formatReport, runSchedule, type ScheduleReport } from './run-schedule.ts';
import { formatSchedule } from './schedule.ts';
import { createStableIndex } from './workload.ts';

const { values } = parseArgs({
  options: {
    schedules: { type: 'string', default: '200' },
    'first-seed': { type: 'string', default: '1000' },
    seed: { type: 'string' },
    'fault-ms': { type: 'string', default: '10000' },
    'per-cluster': { type: 'string', default: '20' },
    nodes: { type: 'string', default: '3' },
    verbose: { type: 'boolean', default: false },
  },
});
const seeds = values.seed !== undefined ? [Number(values.seed)] : Array.from({ length: Number(values.schedules) }, (_, i) => Number(values['first-seed']) + i);
const perCluster = Number(values['per-cluster']);
const faultMs = Number(values['fault-ms']);

const reports: ScheduleReport[] = [];
const started = performance.now();
let cluster: FaultCluster | undefined;
try {
  for (const [i, seed] of seeds.entries()) {
    if (i % perCluster === 0) {
      await cluster?.stop();
      cluster = await startFaultCluster({ shardNodes: Number(values.nodes) });
      await createStableIndex(cluster.coordinatorUrls[0]);
    }
    const report = await runSchedule(cluster!, seed, { faultMs, greenTimeoutMs: 60_000 });
    reports.push(report);
    process.stdout.write(`${formatReport(report)}\n`);
    if (values.verbose) process.stdout.write(`${formatSchedule(report.schedule)}\n${report.nemesis.map((e) => `  +${e.atMs}ms ${e.what}`).join('\n')}\n`);
    if (report.problems.length > 0) process.stdout.write(`${failureMessage(report)}\nprocess logs (tails) after seed ${seed}:\n${cluster!.logs(6_000)}\n`);
  }
} finally {
  await cluster?.stop();
}
const sum = (f: (r: ScheduleReport) => number) => reports.reduce((a, r) => a + f(r), 0);
const greens = reports
  .map((r) => r.greenMs)
  .filter((ms) => ms >= 0)
  .sort((a, b) => a - b);
const failed = reports.filter((r) => r.problems.length > 0);
process.stdout.write(
  `\n${reports.length} schedules in ${Math.round((performance.now() - started) / 1000)} s: ${sum((r) => r.ops)} ops, ${sum((r) => r.acknowledged)} acknowledged, ` +
    `lost ${sum((r) => r.check?.lost ?? 0)}, divergent copies ${sum((r) => r.check?.divergentCopies ?? 0)}, two primaries ${sum((r) => r.check?.dualPrimaries ?? 0)}, ` +
    `wrong searches ${sum((r) => r.searches.wrong.length)} of ${sum((r) => r.searches.total)} (${sum((r) => r.searches.partial)} with _shards.failures), ` +
    `stale reads ${sum((r) => r.staleReads.length)} of ${sum((r) => r.reads)}, checkpoints behind ${sum((r) => r.check?.checkpointsBehind ?? 0)}, ` +
    `green after healing median ${greens[Math.floor(greens.length / 2)] ?? '-'} ms, max ${greens.at(-1) ?? '-'} ms; failed schedules: ${failed.map((r) => r.seed).join(', ') || 'none'}\n`,
);
process.exit(failed.length > 0 ? 1 : 0);
