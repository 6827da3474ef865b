/**
 * Writes under a node kill, with real processes, on a cluster of its own (own ports, own data
 * directories): an index with 1 replica on 3 shard nodes, two writers sending bulks (new documents,
 * overwrites, partial updates, deletes) for a bounded time, one shard node killed with SIGKILL in
 * the middle and restarted while the writes go on. The killed node's primaries are promoted on the
 * other nodes, and its copies recover when it returns. Afterwards every acknowledged write must be
 * there with its acknowledged version and `_source` (lost = 0), on every copy of its shard, and no
 * unacknowledged write may be half-applied. Reports acknowledged, lost and the time to green.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_SECRET_HEADER } from '../../shared/cluster-secret.ts';
import type { NodeIndicesResponse, ShardCopy } from '../../protocol/metadata.ts';
import { defaultRoutingNumShards, shardForRouting } from '../../coordinator/cluster/routing.ts';
import { AcknowledgedWrites, type SeenDoc } from '../support/acknowledged-writes.ts';
import { startComposeCluster, type ComposeCluster } from '../support/compose-cluster.ts';
import { http } from './http.ts';

const CLUSTER_SECRET = randomBytes(32).toString('hex');
const INDEX = 'write-kill';
const SHARDS = 3;
/** When the SIGKILL comes, after the writes start (ms). */
const KILL_AT_MS = 1_500;
/** How long the node stays down, writes going on (ms): long enough for the promotion. */
const DOWN_MS = 4_000;
/** How long the writes go on after the restart (ms): they meet the recoveries. */
const AFTER_RESTART_MS = 2_000;
/** FOLIO_NODES order of the compose file: ordinal → service. */
const SERVICES = ['shard-0', 'shard-1', 'shard-2'];

let cluster: ComposeCluster;
/** When the first write in primary term 2 (on a promoted replica) was acknowledged (epoch ms; 0: none yet). */
let firstPromotedWriteAt = 0;
/** Two writers' bulks of new docs, overwrites, partial updates and deletes, and what each reply acknowledged. */
const load = new AcknowledgedWrites({
  coordinatorUrl: () => cluster.coordinatorUrl,
  index: INDEX,
  bulkPath: '/_bulk',
  newDocsPerBulk: 20,
  newSource: (n, round) => ({ n, round, tag: `t${n % 5}` }),
  rewrittenSource: (round) => ({ n: -round, round, tag: 'rewritten' }),
  onAcknowledged: (item) => {
    if (item._primary_term === 2 && firstPromotedWriteAt === 0) firstPromotedWriteAt = Date.now();
  },
});

beforeAll(async () => {
  cluster = await startComposeCluster({ env: { FOLIO_LOG_LEVEL: 'warn', FOLIO_CLUSTER_SECRET: CLUSTER_SECRET, FOLIO_INTERNAL_TIMEOUT_MS: '5000' } });
  const created = await http(cluster.coordinatorUrl, 'PUT', `/${INDEX}`, {
    settings: { number_of_shards: SHARDS, number_of_replicas: 1 },
    mappings: { properties: { n: { type: 'integer' }, round: { type: 'integer' }, tag: { type: 'keyword' } } },
  });
  expect(created.status).toBe(200);
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
});

/** The copies of each shard by the metadata of a node. */
async function shardCopies(nodeUrl: string): Promise<ShardCopy[][]> {
  const res = await request(`${nodeUrl}/_internal/v1/indices`, { headers: { [CLUSTER_SECRET_HEADER]: CLUSTER_SECRET } });
  const body = (await res.body.json()) as NodeIndicesResponse;
  return body.indices.find((e) => e.metadata.name === INDEX)!.metadata.shardCopies!;
}

/** A real-time get of `id` on one copy (a shard node's internal API, not through the coordinator). */
async function getOnCopy(nodeUrl: string, shard: number, id: string): Promise<SeenDoc> {
  const res = await request(`${nodeUrl}/_internal/v1/get`, {
    method: 'POST',
    headers: { [CLUSTER_SECRET_HEADER]: CLUSTER_SECRET, 'content-type': 'application/json' },
    body: JSON.stringify({ index: INDEX, shard, _id: id }),
  });
  // The internal get answers `_source` as the stored text (exact bytes); the model compares parsed documents.
  const seen = (await res.body.json()) as Omit<SeenDoc, '_source'> & { _source?: string };
  return { ...seen, _source: seen._source === undefined ? undefined : (JSON.parse(seen._source) as Record<string, unknown>) };
}

describe('writes while a shard node is killed and restarted (1 replica, 3 nodes)', () => {
  it('loses no acknowledged write: every copy holds each with its version', async () => {
    const url = cluster.coordinatorUrl;
    let round = 0;
    let stop = false;
    const writer = async () => {
      while (!stop) await load.writeBatch(round++);
    };
    const started = Date.now();
    const writers = [writer(), writer()];
    await new Promise((r) => setTimeout(r, KILL_AT_MS));
    const ackedBeforeKill = load.acked;
    cluster.kill('shard-1', 'SIGKILL');
    const killedAt = Date.now();
    await new Promise((r) => setTimeout(r, DOWN_MS));
    const ackedWhileDown = load.acked - ackedBeforeKill;
    const restartAt = Date.now();
    await cluster.restart('shard-1');
    const restartMs = Date.now() - restartAt;
    // Time to green from the moment the restarted node is healthy, with the writes still going on.
    const upAt = Date.now();
    const green = http(url, 'GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=60s`).then((res) => ({ res, ms: Date.now() - upAt }));
    await new Promise((r) => setTimeout(r, AFTER_RESTART_MS));
    stop = true;
    await Promise.all(writers);
    const writesMs = Date.now() - started;
    const { res: health, ms: greenMs } = await green;
    expect(health.body).toMatchObject({ status: 'green', active_shards: 2 * SHARDS });
    expect(load.acked).toBeGreaterThan(500);
    expect(ackedWhileDown).toBeGreaterThan(0); // writes went on while the node was down
    // The killed node's primaries were promoted elsewhere while it was down (term 2).
    expect(firstPromotedWriteAt).toBeGreaterThan(killedAt);
    expect(firstPromotedWriteAt).toBeLessThan(restartAt);
    const promotedMs = firstPromotedWriteAt - killedAt;
    expect(load.failed).toBeGreaterThan(0); // the kill really hit writes in flight or a primary

    // Every copy of every shard, read directly on its node.
    const copies = await shardCopies(cluster.urls['shard-0']);
    const ids = [...load.known.keys()];
    const problems: string[] = [];
    let lost = 0;
    const checks = ids.flatMap((id) => {
      const shard = shardForRouting(id, SHARDS, defaultRoutingNumShards(SHARDS));
      return copies[shard].map((c) => ({ id, shard, node: cluster.urls[SERVICES[c.node]] }));
    });
    for (let i = 0; i < checks.length; i += 32) {
      const batch = checks.slice(i, i + 32);
      const seen = await Promise.all(batch.map((c) => getOnCopy(c.node, c.shard, c.id)));
      batch.forEach((c, j) => {
        const problem = load.problemOf(c.id, seen[j]);
        if (problem === null) return;
        lost++;
        problems.push(`[${c.shard}] on ${c.node}: ${problem}`);
      });
    }
    // And through the coordinator: the search sees exactly the live acknowledged documents.
    await http(url, 'POST', `/${INDEX}/_refresh`);
    const live = [...load.known.values()].filter((k) => k.source !== null && k.doubt.length === 0).length;
    const maybe = load.doubtful;
    const total = await http(url, 'POST', `/${INDEX}/_search`, { size: 0, track_total_hits: true });
    expect(total.body._shards.failed).toBe(0);
    expect(total.body.hits.total.value).toBeGreaterThanOrEqual(live);
    expect(total.body.hits.total.value).toBeLessThanOrEqual(live + maybe);
    process.stdout.write(
      `write-kill: ${load.acked} writes acknowledged (${ackedWhileDown} while shard-1 was down), ${load.failed} not acknowledged, ${round} bulks in ${writesMs} ms; ` +
        `first write in term 2 (promoted replica) acknowledged ${promotedMs} ms after the SIGKILL; ` +
        `lost ${lost} (checked on all ${checks.length} copies); shard-1 restart ${restartMs} ms, then green in ${greenMs} ms (recoveries under the write load)\n`,
    );
    expect(problems.slice(0, 5)).toEqual([]);
    expect(lost).toBe(0);
  });
});
