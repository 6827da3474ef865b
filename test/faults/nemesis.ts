/**
 * Runs a {@link Schedule} against a {@link FaultCluster}: each fault starts at its offset and is
 * undone after its duration (a killed process restarted on the same port and data directory, a
 * paused one continued, a link switched back to forwarding). Faults on one resource wait for the
 * previous one to be undone, so a late restart delays the next fault (the log has the real times).
 * Resolves once every fault is undone, with a log of what was done when.
 */
import type { FaultCluster } from './fault-cluster.ts';
import { formatFault, resourceOf, type Fault, type Schedule } from './schedule.ts';

/** One line of the nemesis log: ms since the schedule started, and what happened. */
export interface NemesisEvent {
  atMs: number;
  what: string;
}

/** Starts fault `f`. */
async function inject(cluster: FaultCluster, f: Fault): Promise<void> {
  switch (f.kind) {
    case 'kill-node':
      return cluster.nodes[f.node].kill();
    case 'pause-node':
      return cluster.nodes[f.node].pause();
    case 'partition':
      for (const c of f.coordinators) cluster.links[c][f.node].setMode(f.mode);
      return;
    case 'kill-etcd':
      return cluster.etcd.kill(f.member, 'SIGKILL');
    case 'kill-coordinator':
      return cluster.coordinators[f.coordinator].kill();
    case 'partition-nodes': {
      const link = cluster.nodeLinks.find((l) => l.from === f.from && l.to === f.to);
      if (!link) throw new Error(`no link shard-${f.from}→shard-${f.to}: shard nodes do not call each other in this cluster`);
      link.proxy.setMode(f.mode);
      return;
    }
  }
}

/** Undoes fault `f`. */
async function undo(cluster: FaultCluster, f: Fault): Promise<void> {
  switch (f.kind) {
    case 'kill-node':
      return cluster.nodes[f.node].start();
    case 'pause-node':
      return cluster.nodes[f.node].resume();
    case 'partition':
      for (const c of f.coordinators) cluster.links[c][f.node].setMode('forward');
      return;
    case 'kill-etcd':
      return cluster.etcd.restart(f.member);
    case 'kill-coordinator':
      return cluster.coordinators[f.coordinator].start();
    case 'partition-nodes':
      cluster.nodeLinks.find((l) => l.from === f.from && l.to === f.to)?.proxy.setMode('forward');
      return;
  }
}

/**
 * Plays `schedule` on `cluster` from now. Resolves with the log once every fault has been started
 * and undone (restarts waited for); rejects with the first error of an injection or an undo.
 */
export async function runNemesis(cluster: FaultCluster, schedule: Schedule): Promise<NemesisEvent[]> {
  const t0 = performance.now();
  const events: NemesisEvent[] = [];
  const note = (what: string) => events.push({ atMs: Math.round(performance.now() - t0), what });
  const sleepUntil = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms - (performance.now() - t0))));
  // Faults on one resource run one after the other even when a restart takes longer than the gap
  // the schedule left (a process is never killed while it is still starting).
  const chains = new Map<string, Promise<void>>();
  const runs = schedule.faults.map((f) => {
    const previous = chains.get(resourceOf(f)) ?? Promise.resolve();
    const run = previous.then(async () => {
      await sleepUntil(f.atMs);
      note(`start ${formatFault(f)}`);
      await inject(cluster, f);
      await sleepUntil(f.atMs + f.durationMs);
      await undo(cluster, f);
      note(`undone ${formatFault(f)}`);
    });
    chains.set(resourceOf(f), run);
    return run;
  });
  await Promise.all(runs);
  return events;
}
