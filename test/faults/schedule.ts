/**
 * Nemesis schedules: a seeded, reproducible list of faults in time, in the spirit of Jepsen's
 * combined nemesis (`:kill`, `:pause`, `:partition`; jepsen-io/jepsen
 * `jepsen/src/jepsen/nemesis/combined.clj`). The same seed and shape always give the same schedule,
 * and {@link formatSchedule} prints it for failure messages so a run can be replayed with its seed.
 */
import type { ProxyMode } from '../support/fault-proxy.ts';
import { createPrng, type Prng } from './prng.ts';

/** One fault: what, on which process or link, from when and for how long (ms after the schedule starts). */
export type Fault =
  | { kind: 'kill-node'; node: number; atMs: number; durationMs: number }
  | { kind: 'pause-node'; node: number; atMs: number; durationMs: number }
  | { kind: 'partition'; coordinators: number[]; node: number; mode: Exclude<ProxyMode, 'forward'>; atMs: number; durationMs: number }
  | { kind: 'kill-etcd'; member: number; atMs: number; durationMs: number }
  | { kind: 'kill-coordinator'; coordinator: number; atMs: number; durationMs: number }
  | { kind: 'partition-nodes'; from: number; to: number; mode: Exclude<ProxyMode, 'forward'>; atMs: number; durationMs: number };

/** The cluster a schedule is made for, and how long it lasts. */
export interface ScheduleShape {
  shardNodes: number;
  coordinators: number;
  etcdMembers: number;
  /** How long faults are injected (ms); every fault ends by then. */
  faultMs: number;
  /** Node↔node links the cluster can cut (0 today: shard nodes never call each other). */
  nodeLinks: number;
}

/** A seeded schedule: the faults in start order. */
export interface Schedule {
  seed: number;
  shape: ScheduleShape;
  faults: Fault[];
}

const LINK_MODES: Exclude<ProxyMode, 'forward'>[] = ['blackhole', 'refuse', 'drop-requests', 'drop-replies'];

/** What a fault holds while it runs (e.g. `node:1`, `etcd`): two faults on one resource never overlap. */
export function resourceOf(f: Fault): string {
  switch (f.kind) {
    case 'kill-node':
    case 'pause-node':
      return `node:${f.node}`;
    case 'partition':
      return `link:${f.node}`;
    case 'kill-etcd':
      return 'etcd'; // one member at a time: the other two keep the quorum
    case 'kill-coordinator':
      return 'coordinator'; // one at a time: the other keeps serving the clients
    case 'partition-nodes':
      return `node-link:${f.from}:${f.to}`;
  }
}

/** Draws one fault of a random kind (weights: node kills and partitions most, etcd and coordinator kills less). */
function drawFault(rng: Prng, shape: ScheduleShape): Fault {
  const atMs = rng.int(0, Math.max(0, shape.faultMs - 1_500));
  const durationMs = Math.min(rng.int(1_200, 4_000), shape.faultMs - atMs);
  const kinds: Fault['kind'][] = ['kill-node', 'kill-node', 'pause-node', 'pause-node', 'partition', 'partition', 'partition', 'kill-etcd', 'kill-coordinator'];
  if (shape.nodeLinks > 0) kinds.push('partition-nodes');
  const kind = rng.pick(kinds);
  const node = rng.int(0, shape.shardNodes - 1);
  switch (kind) {
    case 'kill-node':
    case 'pause-node':
      return { kind, node, atMs, durationMs };
    case 'partition': {
      // One coordinator's link, or the node cut off from every coordinator.
      const all = rng.chance(0.35);
      const coordinators = all ? Array.from({ length: shape.coordinators }, (_, i) => i) : [rng.int(0, shape.coordinators - 1)];
      return { kind, coordinators, node, mode: rng.pick(LINK_MODES), atMs, durationMs };
    }
    case 'kill-etcd':
      return { kind, member: rng.int(0, shape.etcdMembers - 1), atMs, durationMs };
    case 'kill-coordinator':
      return { kind, coordinator: rng.int(0, shape.coordinators - 1), atMs, durationMs };
    case 'partition-nodes': {
      const to = (node + rng.int(1, shape.shardNodes - 1)) % shape.shardNodes;
      return { kind, from: node, to, mode: rng.pick(LINK_MODES), atMs, durationMs };
    }
  }
}

/**
 * The schedule of `seed`: 3 to 5 faults within `shape.faultMs`, none overlapping another on the same
 * resource (a node, a node's links, the etcd members, the coordinators). Deterministic.
 */
export function makeSchedule(seed: number, shape: ScheduleShape): Schedule {
  const rng = createPrng(seed);
  const wanted = rng.int(3, 5);
  const faults: Fault[] = [];
  for (let attempt = 0; faults.length < wanted && attempt < 50; attempt++) {
    const f = drawFault(rng, shape);
    const clash = faults.some((g) => resourceOf(g) === resourceOf(f) && f.atMs < g.atMs + g.durationMs + 300 && g.atMs < f.atMs + f.durationMs + 300);
    if (!clash) faults.push(f);
  }
  faults.sort((a, b) => a.atMs - b.atMs);
  return { seed, shape, faults };
}

/** A fault in one line, e.g. `+1.2s partition c0→shard-2 drop-replies 2.5s`. */
export function formatFault(f: Fault): string {
  const at = `+${(f.atMs / 1000).toFixed(1)}s`;
  const dur = `${(f.durationMs / 1000).toFixed(1)}s`;
  switch (f.kind) {
    case 'kill-node':
      return `${at} SIGKILL shard-${f.node}, restart after ${dur}`;
    case 'pause-node':
      return `${at} SIGSTOP shard-${f.node}, SIGCONT after ${dur}`;
    case 'partition':
      return `${at} partition ${f.coordinators.map((c) => `c${c}`).join('+')}→shard-${f.node} ${f.mode} for ${dur}`;
    case 'kill-etcd':
      return `${at} SIGKILL etcd m${f.member}, restart after ${dur}`;
    case 'kill-coordinator':
      return `${at} SIGKILL coordinator c${f.coordinator}, restart after ${dur}`;
    case 'partition-nodes':
      return `${at} partition shard-${f.from}→shard-${f.to} ${f.mode} for ${dur}`;
  }
}

/** The whole schedule, one fault per line, with the seed to replay it. */
export function formatSchedule(s: Schedule): string {
  return [
    `seed ${s.seed} (replay: node test/faults/run.ts --seed ${s.seed}), ${s.shape.faultMs} ms of faults:`,
    ...s.faults.map((f) => `  ${formatFault(f)}`),
  ].join('\n');
}
