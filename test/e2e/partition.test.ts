/**
 * A network partition with real processes: three shard nodes of its own, a coordinator of its own
 * whose calls to shard-1 go through a fault-injecting TCP proxy (test/support/fault-proxy.ts), and
 * the proxy switched to a black hole (connections accepted and held, nothing forwarded: no refusal
 * the coordinator could react to). Searches must answer within their deadline: complete, from the
 * replicas, for an index with 1 replica; with `_shards.failures` for an index without replicas, or
 * ES's error with `allow_partial_search_results=false`. A write whose replica is in the hole is
 * acknowledged once that replica is out of sync, durably on the other nodes; after the partition
 * heals that copy recovers from its primary (with the write) before it is in sync again. Health
 * turns red (a primary unreachable without a replica to promote) or yellow (only a replica
 * unreachable, or out of sync), and green again once the partition heals and the recoveries finish.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRoutingNumShards, nodeForShard, shardForRouting } from '../../coordinator/cluster/routing.ts';
import { CLUSTER_SECRET_HEADER } from '../../shared/cluster-secret.ts';
import type { NodeIndexEntry, NodeIndicesResponse } from '../../protocol/metadata.ts';
import { startComposeCluster, type ComposeCluster } from '../support/compose-cluster.ts';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { startExtraCoordinator, type ExtraCoordinator } from './extra-coordinator.ts';
import { http } from './http.ts';

const CLUSTER_SECRET = randomBytes(32).toString('hex');
/** The coordinator's search deadline (FOLIO_SEARCH_TIMEOUT_MS). */
const DEADLINE_MS = 3_000;
/** What a search may take beyond its deadline (merge, respond, a loaded machine). */
const SLACK_MS = 2_000;
const DOCS = 600;
const WITH_REPLICA = 'part-r1';
const WITHOUT_REPLICA = 'part-r0';
/** 1-shard indices whose primary is on node 0 and replica on node 1 (the partitioned one): yellow, not red. */
const onNode0 = (prefix: string) => Array.from({ length: 50 }, (_, i) => `${prefix}${i}`).find((n) => nodeForShard(n, 0, 3) === 0)!;
const REPLICA_ONLY = onNode0('part-y');
/** The same layout, written to during the partition. */
const WRITTEN = onNode0('part-w');
/** The coordinator's deadline of writes and metadata calls (FOLIO_INTERNAL_TIMEOUT_MS). */
const INTERNAL_TIMEOUT_MS = 2_000;

let cluster: ComposeCluster;
let proxy: FaultProxy;
let coordinator: ExtraCoordinator;
let url: string;

const sorted = { size: 20, sort: [{ n: 'desc' }], track_total_hits: true };
const expectedIds = Array.from({ length: 20 }, (_, i) => `d${DOCS - 1 - i}`);

beforeAll(async () => {
  cluster = await startComposeCluster({ services: ['shard-0', 'shard-1', 'shard-2'], env: { FOLIO_LOG_LEVEL: 'warn', FOLIO_CLUSTER_SECRET: CLUSTER_SECRET } });
  proxy = await startFaultProxy(cluster.urls['shard-1']);
  const nodes = [cluster.urls['shard-0'], proxy.url, cluster.urls['shard-2']];
  coordinator = await startExtraCoordinator(
    { nodes, clusterSecret: CLUSTER_SECRET, etcd: cluster.urls.etcd },
    { FOLIO_SEARCH_TIMEOUT_MS: String(DEADLINE_MS), FOLIO_INTERNAL_TIMEOUT_MS: String(INTERNAL_TIMEOUT_MS) },
  );
  url = coordinator.url;
  for (const [index, shards, replicas] of [
    [WITH_REPLICA, 3, 1],
    [WITHOUT_REPLICA, 3, 0],
    [REPLICA_ONLY, 1, 1],
    [WRITTEN, 1, 1],
  ] as const) {
    const created = await http(url, 'PUT', `/${index}`, {
      settings: { number_of_shards: shards, number_of_replicas: replicas },
      mappings: { properties: { n: { type: 'integer' } } },
    });
    expect(created.status).toBe(200);
    const lines = Array.from({ length: DOCS }, (_, i) => [JSON.stringify({ index: { _index: index, _id: `d${i}` } }), JSON.stringify({ n: i })]).flat();
    const bulk = await http(url, 'POST', '/_bulk?refresh=true', lines.join('\n') + '\n', 'application/x-ndjson');
    expect(bulk.body.errors).toBe(false);
  }
  const health = await http(url, 'GET', '/_cluster/health?wait_for_status=green&timeout=20s');
  expect(health.body.status).toBe('green');
}, 240_000);

afterAll(async () => {
  coordinator?.stop();
  await proxy?.close();
  await cluster?.stop();
});

/** What a shard node holds about an index (`GET /_internal/v1/indices` with the cluster secret): its metadata and its own copies. */
async function nodeEntry(nodeUrl: string, index: string): Promise<NodeIndexEntry> {
  const res = await request(`${nodeUrl}/_internal/v1/indices`, { headers: { [CLUSTER_SECRET_HEADER]: CLUSTER_SECRET } });
  const body = (await res.body.json()) as NodeIndicesResponse;
  return body.indices.find((e) => e.metadata.name === index)!;
}

/** Runs a search and times it. */
async function timedSearch(index: string, body: unknown, query = ''): Promise<{ ms: number; status: number; body: any }> {
  const t0 = Date.now();
  const res = await http(url, 'POST', `/${index}/_search${query}`, body);
  return { ms: Date.now() - t0, status: res.status, body: res.body };
}

describe('partition: the coordinator’s link to one shard node becomes a black hole', () => {
  it('searches of an index with a replica answer complete within the deadline, from the other copies', async () => {
    proxy.setMode('blackhole');
    const latencies: number[] = [];
    // Sequential searches first (the first ones meet the black hole), then 4 at a time.
    for (let i = 0; i < 6; i++) {
      const res = await timedSearch(WITH_REPLICA, sorted);
      latencies.push(res.ms);
      expect(res.status).toBe(200);
      expect(res.body._shards).toEqual({ total: 3, successful: 3, skipped: 0, failed: 0 });
      expect(res.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(expectedIds);
      expect(res.ms).toBeLessThan(DEADLINE_MS + SLACK_MS);
    }
    for (let round = 0; round < 3; round++) {
      const batch = await Promise.all(Array.from({ length: 4 }, () => timedSearch(WITH_REPLICA, { ...sorted, from: 10 * round })));
      for (const res of batch) {
        latencies.push(res.ms);
        expect(res.body._shards.failed).toBe(0);
        expect(res.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(Array.from({ length: 20 }, (_, i) => `d${DOCS - 1 - 10 * round - i}`));
        expect(res.ms).toBeLessThan(DEADLINE_MS + SLACK_MS);
      }
    }
    expect(proxy.stats().droppedBytes).toBeGreaterThan(0); // the black hole really swallowed calls
    const sortedMs = [...latencies].sort((a, b) => a - b);
    process.stdout.write(
      `partition, 1 replica: ${latencies.length} searches, first ${latencies[0]} ms, median ${sortedMs[Math.floor(sortedMs.length / 2)]} ms, max ${sortedMs.at(-1)} ms (deadline ${DEADLINE_MS} ms)\n`,
    );
  });

  it('searches of an index without replicas answer at the deadline with the unreachable shard in _shards.failures', async () => {
    const res = await timedSearch(WITHOUT_REPLICA, sorted);
    expect(res.status).toBe(200);
    expect(res.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
    expect(res.ms).toBeLessThan(DEADLINE_MS + SLACK_MS);
    expect(res.body.timed_out).toBe(true);
    expect(res.body._shards).toMatchObject({ total: 3, successful: 2, skipped: 0, failed: 1 });
    expect(res.body._shards.failures).toEqual([
      {
        shard: expect.any(Number),
        index: WITHOUT_REPLICA,
        node: proxy.url,
        reason: { type: 'timeout_exception', reason: `shard node [${proxy.url}] did not answer in time` },
      },
    ]);
    // The shard on shard-1 is missing; the hits are the top 20 of the two other shards.
    const lost = res.body._shards.failures[0].shard;
    expect(nodeForShard(WITHOUT_REPLICA, lost, 3)).toBe(1);
    const kept = Array.from({ length: DOCS }, (_, i) => DOCS - 1 - i).filter((i) => shardForRouting(`d${i}`, 3, defaultRoutingNumShards(3)) !== lost);
    expect(res.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(kept.slice(0, 20).map((i) => `d${i}`));
    process.stdout.write(`partition, no replica: answered in ${res.ms} ms with 1 of 3 shards failed (deadline ${DEADLINE_MS} ms)\n`);

    const strict = await timedSearch(WITHOUT_REPLICA, sorted, '?allow_partial_search_results=false');
    expect(strict.ms).toBeLessThan(DEADLINE_MS + SLACK_MS);
    expect(strict.status).toBeGreaterThanOrEqual(500);
    expect(strict.body.error).toMatchObject({
      type: 'search_phase_execution_exception',
      reason: 'Partial shards failure (1 shards unavailable)',
      phase: 'query',
      grouped: true,
    });
    expect(strict.body.error.failed_shards[0]).toMatchObject({ index: WITHOUT_REPLICA, node: proxy.url, reason: { type: 'timeout_exception' } });
  });

  it('a write whose replica is in the hole is acknowledged once that replica is out of sync, durably on the other nodes', async () => {
    const t0 = Date.now();
    const res = await http(url, 'PUT', `/${WRITTEN}/_doc/late?refresh=true`, { n: 100_000 });
    const ms = Date.now() - t0;
    expect(res.status).toBe(201);
    expect(res.body._shards).toEqual({
      total: 2,
      successful: 1,
      failed: 1,
      failures: [
        {
          _index: WRITTEN,
          _shard: 0,
          _node: proxy.url,
          reason: { type: 'timeout_exception', reason: `shard node [${proxy.url}] did not answer in time` },
          status: 'GATEWAY_TIMEOUT',
          primary: false,
        },
      ],
    });
    // The primary's call to the replica times out (at 80 % of the internal deadline), then the in-sync
    // change is stored (it does not wait for the unreachable node).
    expect(ms).toBeGreaterThanOrEqual(0.8 * INTERNAL_TIMEOUT_MS);
    expect(ms).toBeLessThan(2 * INTERNAL_TIMEOUT_MS + SLACK_MS);
    process.stdout.write(`partition, write with its replica in the hole: acknowledged in ${ms} ms (internal deadline ${INTERNAL_TIMEOUT_MS} ms)\n`);
    // Stored before the acknowledgement, and pushed to the reachable nodes: their metadata has the replica out of sync.
    for (const node of ['shard-0', 'shard-2']) {
      expect((await nodeEntry(cluster.urls[node], WRITTEN)).metadata.shardCopies).toEqual([
        [
          { node: 0, primary: true, inSync: true },
          { node: 1, primary: false, inSync: false, failures: 1 },
        ],
      ]);
    }
  });

  it('health: red while a primary is unreachable, yellow where only a replica is; green once the partition heals', async () => {
    const res = await http(url, 'GET', '/_cluster/health?level=indices&timeout=1s');
    expect(res.body.status).toBe('red');
    expect(res.body.number_of_data_nodes).toBe(2);
    expect(res.body.indices[WITHOUT_REPLICA].status).toBe('red');
    expect(res.body.indices[REPLICA_ONLY]).toMatchObject({ status: 'yellow', active_primary_shards: 1, active_shards: 1, unassigned_shards: 1 });
    // No write failed on shard-1's copies of these indices during the partition: they are still in
    // sync, and serve again once it heals.
    proxy.setMode('forward');
    const healed = await http(url, 'GET', `/_cluster/health/${WITH_REPLICA},${WITHOUT_REPLICA},${REPLICA_ONLY}?wait_for_status=green&timeout=20s`);
    expect(healed.body).toMatchObject({ status: 'green', number_of_data_nodes: 3, unassigned_shards: 0 });
    const res2 = await timedSearch(WITHOUT_REPLICA, sorted);
    expect(res2.body._shards.failed).toBe(0);
    expect(res2.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(expectedIds);
  });

  it('a copy that missed a write recovers it from its primary once the partition heals, and only then is in sync', async () => {
    // Out of sync until its recovery has finished; then green, with the write on the healed copy.
    const healed = await http(url, 'GET', `/_cluster/health/${WRITTEN}?wait_for_status=green&timeout=30s`);
    expect(healed.body).toMatchObject({ status: 'green', active_shards: 2, unassigned_shards: 0 });
    const cat = await http(url, 'GET', `/_cat/shards/${WRITTEN}?format=json&h=prirep,state,unassigned.reason`);
    expect(cat.body).toEqual([
      { prirep: 'p', state: 'STARTED', 'unassigned.reason': null },
      { prirep: 'r', state: 'STARTED', 'unassigned.reason': null },
    ]);
    expect((await nodeEntry(cluster.urls['shard-1'], WRITTEN)).copies).toEqual([{ shard: 0, primary: false, inSync: true }]);
    // The healed copy itself holds the write (a real-time get on shard-1, not through the coordinator).
    const got = await request(`${cluster.urls['shard-1']}/_internal/v1/get`, {
      method: 'POST',
      headers: { [CLUSTER_SECRET_HEADER]: CLUSTER_SECRET, 'content-type': 'application/json' },
      body: JSON.stringify({ index: WRITTEN, shard: 0, _id: 'late' }),
    });
    expect(await got.body.json()).toMatchObject({ found: true, _version: 1, _source: '{"n":100000}' }); // the stored text, as indexed
    for (let i = 0; i < 20; i++) {
      const res = await http(url, 'POST', `/${WRITTEN}/_search`, { size: 1, sort: [{ n: 'desc' }], track_total_hits: true });
      expect([res.body.hits.total.value, res.body.hits.hits[0]._id]).toEqual([DOCS + 1, 'late']);
    }
  });
});
