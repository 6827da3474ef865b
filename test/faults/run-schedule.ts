/**
 * One schedule of the fault suite, start to finish, on a running {@link FaultCluster}: a fresh index
 * (one shard per node, 1 replica), the clients, the nemesis; then healing, waiting for green (with a
 * bound), stopping the clients, the checker, and deleting the index so the next schedule starts
 * from the same cluster. Returns the figures and every problem found, each with the seed.
 */
import { call, startWorkload } from './workload.ts';
import type { FaultCluster } from './fault-cluster.ts';
import { checkHistory, unsettledCopies, storedMetadata, type CheckResult } from './checker.ts';
import { runNemesis, type NemesisEvent } from './nemesis.ts';
import { formatSchedule, makeSchedule, type Schedule } from './schedule.ts';
import { recordState } from './state-log.ts';

/** Lengths of one schedule. */
export interface ScheduleOptions {
  /** How long faults are injected (ms). */
  faultMs: number;
  /** The bound on green after healing (ms): past it the schedule fails. */
  greenTimeoutMs: number;
}

/** Which check a problem comes from. */
export type CheckName = 'nemesis' | 'green' | 'lost' | 'divergent' | 'two-primaries' | 'order' | 'not-in-sync' | 'searches' | 'no-writes';

/** One problem of a schedule. */
export interface Problem {
  check: CheckName;
  text: string;
}

/** What one schedule did and found. */
export interface ScheduleReport {
  seed: number;
  schedule: Schedule;
  nemesis: NemesisEvent[];
  /** Writes sent (bulk items counted one by one) and reads. */
  ops: number;
  /** Writes acknowledged. */
  acknowledged: number;
  doubtful: number;
  refused: number;
  reads: number;
  staleReads: string[];
  searches: { total: number; complete: number; partial: number; errors: number; wrong: string[] };
  /** From healing to green (ms); -1 when the bound passed. */
  greenMs: number;
  check?: CheckResult;
  /** Per shard with a problem: how its metadata changed in the store during the schedule. */
  stateHistory: string[];
  /** Problems that fail the schedule (lost, divergent, two primaries, wrong searches, no green). */
  problems: Problem[];
}

/** Waits until `index` is green through `coordinatorUrl`, at most `boundMs`; resolves with the ms taken or -1. */
async function waitGreen(coordinatorUrl: string, index: string, boundMs: number): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < boundMs) {
    const left = Math.max(1, Math.floor((boundMs - (performance.now() - t0)) / 1000));
    const o = await call(coordinatorUrl, 'GET', `/_cluster/health/${index}?wait_for_status=green&timeout=${Math.min(left, 10)}s`);
    if ('status' in o && o.status === 200 && o.body?.status === 'green') return Math.round(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 100));
  }
  return -1;
}

/** The figures of a report in one line. */
export function formatReport(r: ScheduleReport): string {
  const c = r.check;
  return (
    `seed ${r.seed}: ${r.ops} ops, ${r.acknowledged} acknowledged (${r.doubtful} unknown, ${r.refused} refused), ` +
    `lost ${c?.lost ?? '?'}, divergent copies ${c?.divergentCopies ?? '?'}, two primaries in a term ${c?.dualPrimaries ?? '?'}, ` +
    `searches ${r.searches.total} (${r.searches.partial} with _shards.failures, ${r.searches.errors} errors, ${r.searches.wrong.length} wrong), ` +
    `reads ${r.reads} (${r.staleReads.length} stale), checkpoints behind ${c?.checkpointsBehind ?? '?'}, ` +
    `green ${r.greenMs < 0 ? 'NOT REACHED' : `${r.greenMs} ms`} after healing`
  );
}

/** A failure message: the problems, the schedule (with the seed to replay it) and what the nemesis did. */
export function failureMessage(r: ScheduleReport): string {
  return [
    `fault schedule failed: ${formatReport(r)}`,
    ...r.problems.map((p) => `  ${p.check}: ${p.text}`),
    ...(r.check?.examples ?? []).map((e) => `  ${e}`),
    ...r.staleReads.slice(0, 5).map((e) => `  stale read: ${e}`),
    formatSchedule(r.schedule),
    'nemesis log:',
    ...r.nemesis.map((e) => `  +${e.atMs}ms ${e.what}`),
    ...r.stateHistory,
  ].join('\n');
}

/** Runs schedule `seed` on `cluster`. Throws only when the cluster cannot be driven (e.g. the index cannot be created). */
export async function runSchedule(cluster: FaultCluster, seed: number, opts: ScheduleOptions): Promise<ScheduleReport> {
  const shape = {
    shardNodes: cluster.nodes.length,
    coordinators: cluster.coordinators.length,
    etcdMembers: cluster.etcd.members.length,
    faultMs: opts.faultMs,
    nodeLinks: cluster.nodeLinks.length,
  };
  const schedule = makeSchedule(seed, shape);
  const index = `faults-${seed}`;
  const numberOfShards = cluster.nodes.length;
  const c0 = cluster.coordinatorUrls[0];
  const created = await call(c0, 'PUT', `/${index}`, {
    settings: { number_of_shards: numberOfShards, number_of_replicas: 1 },
    mappings: { properties: { owner: { type: 'integer' }, n: { type: 'integer' }, v: { type: 'integer' }, tag: { type: 'keyword' } } },
  });
  if (!('status' in created) || created.status !== 200) throw new Error(`seed ${seed}: creating ${index}: ${JSON.stringify(created).slice(0, 500)}`);
  if ((await waitGreen(c0, index, 20_000)) < 0) throw new Error(`seed ${seed}: ${index} not green after creation`);

  const t0 = performance.now();
  const now = () => Math.round(performance.now() - t0);
  const stateLog = await recordState(cluster.etcd.endpoints, index, now);
  const workload = startWorkload({ index, numberOfShards, coordinatorUrls: cluster.coordinatorUrls, now }, seed);
  const problems: Problem[] = [];
  const problem = (check: CheckName, text: string) => problems.push({ check, text });
  let nemesis: NemesisEvent[] = [];
  try {
    nemesis = await runNemesis(cluster, schedule);
  } catch (err) {
    problem('nemesis', `the nemesis failed: ${(err as Error).message.slice(0, 2000)}`);
  }
  await cluster.heal();
  // Green with the clients still writing (recoveries meet live writes), then again once they stopped.
  const greenMs = await waitGreen(c0, index, opts.greenTimeoutMs);
  await workload.stop();
  const h = workload.history;
  const report: ScheduleReport = {
    seed,
    schedule,
    nemesis,
    ops: h.writes + h.reads,
    acknowledged: h.acks.length,
    doubtful: h.doubtful,
    refused: h.refused,
    reads: h.reads,
    staleReads: h.staleReads,
    searches: h.searches,
    greenMs,
    problems,
    stateHistory: [],
  };
  const shardHistory = (shards: Iterable<number>) => {
    for (const s of [...new Set(shards)].sort())
      report.stateHistory.push(`cluster state of [${index}][${s}] (ms since the schedule started):`, ...stateLog.format(s).map((l) => `  ${l}`));
  };
  if (greenMs < 0) {
    problem('green', `${index} not green within ${opts.greenTimeoutMs} ms of healing`);
    return report;
  }
  for (const url of cluster.coordinatorUrls) {
    const again = await waitGreen(url, index, opts.greenTimeoutMs);
    if (again < 0) problem('green', `${index} not green through ${url} once the clients stopped`);
  }
  // Green is computed by the coordinators; a failed replica that the primary reports late can still be
  // taken out of sync in the stored state (and then recovered). As in ES, a replica that a write failed
  // on, whose primary has not had the failure stored yet (a write whose coordinator died or timed out:
  // it was never acknowledged; the cluster manager stores it from the primary's report, after its own
  // failover when the manager was the coordinator that died), still counts in sync and green, and so
  // does a copy its own node reports failed until the manager fails it; and a write whose client gave
  // up can still be in progress on its primary, and fail on a replica, after the clients stopped (the
  // likely cause of seed 1002's late failure, docs/reliability.md). Wait, within the bound, until no node reports such a copy or write and the stored state has
  // every copy in sync, so the checker reads a cluster that has converged.
  const syncedBy = performance.now() + opts.greenTimeoutMs;
  let unsettled: string[] = [];
  while (performance.now() < syncedBy) {
    const meta = await storedMetadata(cluster.etcd.endpoints, index).catch(() => undefined);
    unsettled = await unsettledCopies(cluster.nodeUrls, cluster.secret, index);
    if (!meta?.shardCopies?.every((copies) => copies.every((c) => c.inSync))) unsettled.push('a copy is out of sync in the stored state');
    if (unsettled.length === 0) break;
    await new Promise((r) => setTimeout(r, 200));
    await waitGreen(c0, index, Math.max(1, syncedBy - performance.now()));
  }
  if (unsettled.length > 0) problem('green', `not converged within ${opts.greenTimeoutMs} ms of healing: ${unsettled.slice(0, 5).join('; ')}`);
  await call(c0, 'POST', `/${index}/_refresh`);
  report.check = await checkHistory({ index, nodeUrls: cluster.nodeUrls, etcdEndpoints: cluster.etcd.endpoints, secret: cluster.secret }, h);
  await stateLog.stop();
  const c = report.check;
  shardHistory(c.problemShards);
  if (c.lost > 0) problem('lost', `${c.lost} acknowledged writes or deletes missing or wrong on in-sync copies`);
  if (c.divergentCopies > 0) problem('divergent', `${c.divergentCopies} copies differ from their primary`);
  if (c.dualPrimaries > 0) problem('two-primaries', `${c.dualPrimaries} (shard, term, seq_no) acknowledged twice`);
  if (c.orderViolations > 0) problem('order', `${c.orderViolations} acknowledged writes went back in version, seq_no or term`);
  if (c.notInSync > 0) problem('not-in-sync', `${c.notInSync} copies out of the in-sync set although green`);
  if (h.searches.wrong.length > 0) problem('searches', `${h.searches.wrong.length} wrong answers, e.g. ${h.searches.wrong.slice(0, 3).join(' | ')}`);
  if (h.acks.length === 0) problem('no-writes', 'no write was acknowledged: the schedule proves nothing');
  await call(c0, 'DELETE', `/${index}`);
  return report;
}
