/**
 * The fault suite's cluster (issue 10, "How it is proven"): real processes on loopback, every one
 * of them under the nemesis's control.
 * - `etcdMembers` real etcd members (test/support/etcd-process.ts), the cluster-state store;
 * - `shardNodes` shard nodes (`node shard-node/main.ts`), each with its own port and data directory,
 *   and FOLIO_ETCD = every member (each keeps its membership key on a lease: shard-node/node-membership.ts);
 * - `coordinators` coordinators (`node coordinator/main.ts`), each with FOLIO_ETCD = every member and
 *   FOLIO_NODES = its own fault proxies: every coordinator→node link goes through a proxy
 *   (test/support/fault-proxy.ts) the nemesis can switch to blackhole, refuse, or drop one way.
 * - every shard node→shard node link (a primary forwarding its writes to a replica) goes through a
 *   proxy of its own too: each shard node's FOLIO_NODES names its proxies to the others
 *   ({@link FaultCluster.nodeLinks}), so a primary can be cut off from one replica alone.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/local-services.ts';
import { startEtcdCluster, type EtcdCluster } from '../support/etcd-process.ts';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { managedProcess, type ManagedProcess } from './managed-process.ts';

/** Sizes and timings of a fault cluster. */
export interface FaultClusterOptions {
  /** Shard nodes (default 3). */
  shardNodes?: number;
  /** Coordinators (default 2). */
  coordinators?: number;
  /** etcd members (default 3). */
  etcdMembers?: number;
  /** FOLIO_INTERNAL_TIMEOUT_MS of the coordinators: deadline of writes and metadata calls (default 2000). */
  internalTimeoutMs?: number;
  /** FOLIO_SEARCH_TIMEOUT_MS of the coordinators (default 3000). */
  searchTimeoutMs?: number;
}

/** A link between two shard nodes (a primary's forwarded writes): the proxy the caller's requests to the callee go through. */
export interface NodeLink {
  from: number;
  to: number;
  proxy: FaultProxy;
}

/** A running fault cluster. */
export interface FaultCluster {
  secret: string;
  etcd: EtcdCluster;
  /** Shard nodes by ordinal (FOLIO_NODES order). */
  nodes: ManagedProcess[];
  /** Each shard node's own URL (no proxy), for the checker's direct reads. */
  nodeUrls: string[];
  coordinators: ManagedProcess[];
  coordinatorUrls: string[];
  /** `links[c][n]`: the proxy coordinator c reaches shard node n through. */
  links: FaultProxy[][];
  /** Node↔node links, one per ordered pair of shard nodes. */
  nodeLinks: NodeLink[];
  /** Removes every fault: SIGCONT, restarts what is down (etcd, shard nodes, coordinators), every link forwarding. */
  heal(): Promise<void>;
  /** Stops everything and removes the data directories. */
  stop(): Promise<void>;
  /** The tail of every process's output, for a failure message. */
  logs(tailChars?: number): string;
}

/** Starts the cluster and resolves once every process is ready. Stops what started on failure. */
export async function startFaultCluster(opts: FaultClusterOptions = {}): Promise<FaultCluster> {
  const shardNodes = opts.shardNodes ?? 3;
  const coordinatorCount = opts.coordinators ?? 2;
  const secret = randomBytes(32).toString('hex');
  const root = await mkdtemp(join(tmpdir(), 'folio-faults-'));
  const etcd = await startEtcdCluster(opts.etcdMembers ?? 3);
  const nodes: ManagedProcess[] = [];
  const nodeUrls: string[] = [];
  const links: FaultProxy[][] = [];
  const coordinators: ManagedProcess[] = [];
  const coordinatorUrls: string[] = [];
  const nodeLinks: NodeLink[] = [];
  const stop = async () => {
    await Promise.all(coordinators.map((c) => c.stop()));
    await Promise.all(nodes.map((n) => n.stop()));
    await Promise.all([...links.flat(), ...nodeLinks.map((l) => l.proxy)].map((p) => p.close()));
    await etcd.stop();
    await rm(root, { recursive: true, force: true });
  };
  try {
    const ports: number[] = [];
    for (let i = 0; i < shardNodes; i++) {
      ports.push(await freePort());
      nodeUrls.push(`http://127.0.0.1:${ports[i]}`);
    }
    // Each shard node reaches every other one through a proxy of its own (its FOLIO_NODES), so the
    // nemesis can cut a primary off from one replica while every coordinator still reaches both.
    for (let from = 0; from < shardNodes; from++) {
      for (let to = 0; to < shardNodes; to++) if (to !== from) nodeLinks.push({ from, to, proxy: await startFaultProxy(nodeUrls[to]) });
    }
    for (let i = 0; i < shardNodes; i++) {
      const peers = nodeUrls.map((u, to) => (to === i ? u : nodeLinks.find((l) => l.from === i && l.to === to)!.proxy.url));
      nodes.push(
        managedProcess({
          name: `shard-${i}`,
          script: 'shard-node/main.ts',
          readyUrl: `${nodeUrls[i]}/_internal/v1/health`,
          env: {
            FOLIO_NODE_ID: `shard-${i}`,
            FOLIO_HOST: '127.0.0.1',
            FOLIO_PORT: String(ports[i]),
            FOLIO_DATA: join(root, `shard-${i}`),
            FOLIO_CLUSTER_SECRET: secret,
            FOLIO_LOG_LEVEL: 'warn',
            FOLIO_ETCD: etcd.endpoints.join(','),
            FOLIO_NODES: peers.join(','),
          },
        }),
      );
    }
    await Promise.all(nodes.map((n) => n.start()));
    for (let c = 0; c < coordinatorCount; c++) links.push(await Promise.all(nodeUrls.map((u) => startFaultProxy(u))));
    for (let c = 0; c < coordinatorCount; c++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      coordinatorUrls.push(url);
      coordinators.push(
        managedProcess({
          name: `coordinator-${c}`,
          script: 'coordinator/main.ts',
          readyUrl: `${url}/`,
          env: {
            FOLIO_HOST: '127.0.0.1',
            FOLIO_PORT: String(port),
            FOLIO_NODES: links[c].map((p) => p.url).join(','),
            FOLIO_ETCD: etcd.endpoints.join(','),
            FOLIO_CLUSTER_SECRET: secret,
            FOLIO_LOG_LEVEL: 'warn',
            FOLIO_INTERNAL_TIMEOUT_MS: String(opts.internalTimeoutMs ?? 2_000),
            FOLIO_SEARCH_TIMEOUT_MS: String(opts.searchTimeoutMs ?? 3_000),
            FOLIO_SHUTDOWN_DELAY_MS: '0',
            FOLIO_DRAIN_TIMEOUT_MS: '1000',
          },
        }),
      );
    }
    await Promise.all(coordinators.map((c) => c.start()));
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    secret,
    etcd,
    nodes,
    nodeUrls,
    coordinators,
    coordinatorUrls,
    links,
    nodeLinks,
    async heal() {
      for (const p of [...links.flat(), ...nodeLinks.map((l) => l.proxy)]) p.setMode('forward');
      for (const n of nodes) n.resume();
      await Promise.all(etcd.members.map((m, i) => (m.child ? Promise.resolve() : etcd.restart(i))));
      await Promise.all(nodes.map((n) => n.start()));
      await Promise.all(coordinators.map((c) => c.start()));
    },
    stop,
    logs(tailChars = 3_000) {
      const parts = [...nodes, ...coordinators].map((p) => `--- ${p.spec.name}\n${p.logs().slice(-tailChars)}`);
      parts.push(...etcd.members.map((m) => `--- etcd ${m.name}\n${m.logs().slice(-tailChars)}`));
      return parts.join('\n');
    },
  };
}
