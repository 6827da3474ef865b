/**
 * The fault suite's quick form (issue 10, "How it is proven"; docs/reliability.md, "The fault
 * suite"): one cluster of its own (3 etcd members, 3 shard nodes, 2 coordinators whose every link to
 * a shard node goes through a fault proxy), then seeded schedules one after another on it, each
 * 8 s of faults (SIGKILL and restart of shard nodes, etcd members and coordinators, SIGSTOP/SIGCONT
 * of shard nodes, coordinator→node partitions: black hole, refused, one way) under 4 writers and
 * 2 searchers through both coordinators, then healing, green within a bound, and the checker: lost
 * 0, divergent copies 0, no two primaries in a term, no wrong search answer. Each failure message
 * has the seed, the schedule and the nemesis log; `node test/faults/run.ts --seed S` replays one.
 * The long form is `npm run faults` (test/faults/run.ts, 200 schedules).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultCluster, type FaultCluster } from './fault-cluster.ts';
import { failureMessage, formatReport, runSchedule, type ScheduleReport } from './run-schedule.ts';
import { createStableIndex } from './workload.ts';

/** The quick form's seeds: schedules 1–10 of `node test/faults/run.ts --first-seed 1`. */
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
/** How long each schedule injects faults (ms). */
const FAULT_MS = 8_000;
/** The bound on green after healing (ms). */
const GREEN_BOUND_MS = 30_000;

let cluster: FaultCluster;
const reports = new Map<number, ScheduleReport>();

beforeAll(async () => {
  cluster = await startFaultCluster({ shardNodes: 3, coordinators: 2, etcdMembers: 3 });
  await createStableIndex(cluster.coordinatorUrls[0]);
});

afterAll(async () => {
  const all = [...reports.values()];
  const sum = (f: (r: ScheduleReport) => number) => all.reduce((a, r) => a + f(r), 0);
  process.stdout.write(
    `fault suite: ${all.length} schedules, ${sum((r) => r.ops)} ops, ${sum((r) => r.acknowledged)} acknowledged, lost ${sum((r) => r.check?.lost ?? 0)}, ` +
      `divergent copies ${sum((r) => r.check?.divergentCopies ?? 0)}, green after healing max ${Math.max(...all.map((r) => r.greenMs))} ms\n`,
  );
  await cluster?.stop();
});

describe('fault suite: seeded nemesis on 3 etcd members, 3 shard nodes, 2 coordinators, 1 replica', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: green after healing; no acknowledged write or delete lost, every in-sync copy converged, no two primaries in a term, no wrong search`, async () => {
      const report = await runSchedule(cluster, seed, { faultMs: FAULT_MS, greenTimeoutMs: GREEN_BOUND_MS });
      reports.set(seed, report);
      process.stdout.write(`${formatReport(report)}\n`);
      expect(report.problems, failureMessage(report)).toEqual([]);
    });
  }
});
