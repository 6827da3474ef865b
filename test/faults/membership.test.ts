/**
 * Node liveness from the store (issue 10: "Node liveness comes from etcd leases";
 * shard-node/node-membership.ts): a shard node whose lease ends has left the cluster, and the cluster
 * manager fails its primaries over even though every coordinator still reaches the node, as ES's
 * master removes a node whose checks fail. The node then registers again with a new lease, and its
 * copy comes back as an in-sync replica. Real processes: 1 etcd member, 2 shard nodes, 1 coordinator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexKey, nodeKey } from '../../shared/cluster-state/keys.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { EtcdStore } from '../../shared/state-store/etcd-store.ts';
import { startFaultCluster, type FaultCluster } from './fault-cluster.ts';

let cluster: FaultCluster;
let store: EtcdStore;

beforeAll(async () => {
  cluster = await startFaultCluster({ shardNodes: 2, coordinators: 1, etcdMembers: 1 });
  store = new EtcdStore({ endpoints: cluster.etcd.endpoints });
});

afterAll(async () => {
  await store?.close();
  await cluster?.stop();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(cluster.coordinatorUrls[0] + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function stored(name: string): Promise<IndexMetadata> {
  return JSON.parse((await store.get(indexKey(name)))!.value) as IndexMetadata;
}

/** Polls `check` until it resolves true, or fails after `ms` saying `what`. */
async function eventually(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms\n${cluster.logs(3_000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('node membership on etcd leases', () => {
  it('a node whose lease ends is failed over while reachable, then registers again and its copy recovers in sync', async () => {
    expect((await call('PUT', '/m', { settings: { number_of_shards: 1, number_of_replicas: 1 } })).status).toBe(200);
    await eventually('green after create', async () => (await call('GET', '/_cluster/health/m')).body.status === 'green');
    const docs = Array.from({ length: 50 }, (_, i) => `{"index":{"_id":"${i}"}}\n{"n":${i}}\n`).join('');
    const bulk = await fetch(`${cluster.coordinatorUrls[0]}/m/_bulk?refresh=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: docs,
    });
    expect(((await bulk.json()) as { errors: boolean }).errors).toBe(false);
    await eventually(
      'both nodes registered',
      async () => (await store.get(nodeKey('shard-0'))) !== undefined && (await store.get(nodeKey('shard-1'))) !== undefined,
    );

    const before = await stored('m');
    const primary = before.shardCopies![0].find((c) => c.primary)!.node;
    const term = before.primaryTerms?.[0] ?? 1; // absent: every shard still in term 1
    const key = (await store.get(nodeKey(`shard-${primary}`)))!;
    // The primary's node keeps running and answering; only its lease ends (as when it expires while
    // the node is cut off from etcd).
    await store.revokeLease(key.lease!);

    await eventually('replica promoted', async () => {
      const m = await stored('m');
      return (m.primaryTerms?.[0] ?? 1) > term && m.shardCopies![0].find((c) => c.primary)!.node !== primary;
    });
    const after = await stored('m');
    expect(after.shardCopies![0].find((c) => c.node === primary)).toMatchObject({ primary: false });
    // The node registers again with a new lease, and its copy is recovered back in sync.
    await eventually('registered again', async () => {
      const kv = await store.get(nodeKey(`shard-${primary}`));
      return kv !== undefined && kv.lease !== key.lease;
    });
    await eventually('green again', async () => (await call('GET', '/_cluster/health/m')).body.status === 'green');
    expect((await call('GET', '/m/_count')).body.count).toBe(50);
    expect(cluster.nodes[primary].running()).toBe(true);
  });
});
