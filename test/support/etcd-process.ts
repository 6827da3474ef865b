/**
 * Starts real etcd members as local processes for tests: Debian's `etcd-server` binary
 * (`/usr/bin/etcd`, which .ci/run installs when it is missing; `FOLIO_ETCD_BIN` overrides), on free
 * loopback ports, each with a temporary data directory that {@link EtcdCluster.stop} removes.
 *
 * Timings are shortened for tests (heartbeat 50 ms, election timeout 500 ms) so a lost leader is
 * replaced in about a second; with them etcd's minimum lease TTL is 1 s.
 * @see https://etcd.io/docs/v3.4/op-guide/configuration/
 * @see https://etcd.io/docs/v3.4/dev-guide/local_cluster/
 * @example
 * const cluster = await startEtcdCluster(3);
 * try { const store = new EtcdStore({ endpoints: cluster.endpoints }); … } finally { await cluster.stop(); }
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/local-services.ts';

/** The etcd binary: `FOLIO_ETCD_BIN`, else Debian's. */
export const ETCD_BIN = process.env.FOLIO_ETCD_BIN ?? '/usr/bin/etcd';
/** How long a member may take to report healthy. */
const HEALTHY_DEADLINE_MS = 15_000;
/** Grace between SIGTERM and SIGKILL when stopping. */
const STOP_GRACE_MS = 3_000;
/** Raft timings for tests (etcd's defaults are 100 ms and 1000 ms). */
const HEARTBEAT_INTERVAL_MS = 50;
const ELECTION_TIMEOUT_MS = 500;
/** Output kept per member for failure messages. */
const MAX_LOG_CHARS = 64 * 1024;

/** Every member process still running, killed if the test process exits without stopping them. */
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of liveChildren) c.kill('SIGKILL');
  });
}

/** One etcd member. */
export interface EtcdMember {
  name: string;
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
  /** The running process, or undefined after {@link EtcdCluster.kill}. */
  child: ChildProcess | undefined;
  /** The tail of its output. */
  logs(): string;
}

/** A running etcd cluster. */
export interface EtcdCluster {
  members: EtcdMember[];
  /** Client URLs of every member. */
  endpoints: string[];
  /** Sends `signal` (default SIGKILL) to member `index` and waits for it to exit. */
  kill(index: number, signal?: NodeJS.Signals): Promise<void>;
  /**
   * Starts member `index` again on its ports with its data directory (after {@link kill}; a running
   * member is killed first) and resolves once it reports healthy (a leader and a quorum read).
   */
  restart(index: number): Promise<void>;
  /** Stops every member (SIGTERM, then SIGKILL) and removes the data directories. */
  stop(): Promise<void>;
}

/**
 * Starts `size` members forming one new cluster and resolves once every member is healthy (has a
 * leader and answers a quorum read). Throws, with the members' output, if that takes longer than
 * 15 s or the binary is missing.
 */
export async function startEtcdCluster(size = 1): Promise<EtcdCluster> {
  if (!existsSync(ETCD_BIN)) {
    throw new Error(`${ETCD_BIN} not found: install Debian's etcd-server (apt-get install etcd-server), as .ci/run does, or set FOLIO_ETCD_BIN`);
  }
  const root = await mkdtemp(join(tmpdir(), 'folio-etcd-'));
  const members: EtcdMember[] = [];
  for (let i = 0; i < size; i++) {
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    members.push({
      name: `m${i}`,
      clientUrl: `http://127.0.0.1:${clientPort}`,
      peerUrl: `http://127.0.0.1:${peerPort}`,
      dataDir: join(root, `m${i}`),
      child: undefined,
      logs: () => '',
    });
  }
  const initialCluster = members.map((m) => `${m.name}=${m.peerUrl}`).join(',');
  for (const m of members) spawnMember(m, initialCluster);
  const cluster: EtcdCluster = {
    members,
    endpoints: members.map((m) => m.clientUrl),
    async kill(index, signal = 'SIGKILL') {
      const child = members[index].child;
      if (!child) return;
      members[index].child = undefined;
      await stopChild(child, signal, STOP_GRACE_MS);
    },
    async restart(index) {
      const m = members[index];
      if (m.child) await stopChild(m.child, 'SIGKILL', STOP_GRACE_MS);
      // With its data directory in place the member rejoins as itself; the initial-cluster flags are ignored.
      spawnMember(m, initialCluster);
      await waitHealthy(m);
    },
    async stop() {
      await Promise.all(
        members.map(async (m) => {
          const child = m.child;
          m.child = undefined;
          if (child) await stopChild(child, 'SIGTERM', STOP_GRACE_MS);
        }),
      );
      await rm(root, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(members.map((m) => waitHealthy(m)));
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/** Spawns member `m` of the cluster `initialCluster` (`name=peerUrl,…`), its output kept for failure messages. */
function spawnMember(m: EtcdMember, initialCluster: string): void {
  const child = spawn(
    ETCD_BIN,
    [
      '--name',
      m.name,
      '--data-dir',
      m.dataDir,
      '--listen-client-urls',
      m.clientUrl,
      '--advertise-client-urls',
      m.clientUrl,
      '--listen-peer-urls',
      m.peerUrl,
      '--initial-advertise-peer-urls',
      m.peerUrl,
      '--initial-cluster',
      initialCluster,
      '--initial-cluster-state',
      'new',
      '--initial-cluster-token',
      `folio-test-${process.pid}`,
      '--heartbeat-interval',
      String(HEARTBEAT_INTERVAL_MS),
      '--election-timeout',
      String(ELECTION_TIMEOUT_MS),
      '--logger',
      'zap',
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const append = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-MAX_LOG_CHARS);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  track(child);
  m.child = child;
  m.logs = () => log;
}

/** Polls `/health` until it answers `{"health":"true"}`. */
async function waitHealthy(m: EtcdMember): Promise<void> {
  const deadline = performance.now() + HEALTHY_DEADLINE_MS;
  let last = '';
  while (performance.now() < deadline) {
    if (m.child?.exitCode !== null) throw new Error(`etcd ${m.name} exited (${m.child?.exitCode}):\n${m.logs()}`);
    try {
      const res = await fetch(`${m.clientUrl}/health`, { signal: AbortSignal.timeout(1_000) });
      last = await res.text();
      if (res.ok && JSON.parse(last).health === 'true') return;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`etcd ${m.name} not healthy within ${HEALTHY_DEADLINE_MS} ms (last: ${last}):\n${m.logs()}`);
}

/** Signals a child and waits for its exit, with SIGKILL after `graceMs`. */
async function stopChild(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
