/**
 * A flipped byte in a segment file, on a cluster of its own (3 shard nodes, 1 coordinator), 1 shard
 * with 1 replica (issue 16, docs/reliability.md "Corrupt copies"):
 * - found by a read: a byte inside a `_source` block of the primary's segment files is flipped
 *   while the node runs; GETs (which read the primary first) hit it. The read answers
 *   `corrupt_index_exception` to the coordinator, which fails over to the replica, so no client
 *   sees a 5xx; the node fails the copy and writes its corruption marker; the replica is promoted
 *   and the old primary's copy is emptied and recovered from it by a full copy; green again;
 * - found at start-up: the replica's node is stopped, a byte of its segment file flipped, and the
 *   node started: the copy is failed (not rebuilt from its SQLite snapshot, since another in-sync
 *   copy exists) and recovered from the primary;
 * - found by searches on the replica: after a flush, a byte of the replica's `_source` block is
 *   flipped and concurrent searches run (adaptive replica selection spreads them over both copies)
 *   until one's fetch round reads it: every search answers 200 with no shard failure (the fetch
 *   fails over to the primary), the replica is failed and recovered;
 * each time every document reads back byte-identical, through GET and search.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeIndicesResponse } from '../../protocol/metadata.ts';
import { CLUSTER_SECRET_HEADER } from '../../shared/cluster-secret.ts';
import { startComposeCluster, type ComposeCluster } from '../support/compose-cluster.ts';
import { coordinatorRecoveries } from '../support/cluster-calls.ts';
import { http } from './http.ts';
import { flipSourceByte } from '../support/flip-source-byte.ts';

const CLUSTER_SECRET = randomBytes(32).toString('hex');
const INDEX = 'corrupt-copy';
const DOCS = 1_500;
/** FOLIO_NODES order of the compose file: ordinal → service. */
const SERVICES = ['shard-0', 'shard-1', 'shard-2'];

let cluster: ComposeCluster;
let uuid: string;
/** Each document's `_source` exactly as indexed (non-ASCII text, numbers as written). */
const sources = new Map<string, string>();

/** The services of the shard's primary and replica, from a shard node's metadata. */
async function roles(): Promise<{ primary: string; replica: string }> {
  const res = await request(`${cluster.urls['shard-0']}/_internal/v1/indices`, { headers: { [CLUSTER_SECRET_HEADER]: CLUSTER_SECRET } });
  const body = (await res.body.json()) as NodeIndicesResponse;
  const copies = body.indices.find((e) => e.metadata.name === INDEX)!.metadata.shardCopies![0];
  return { primary: SERVICES[copies.find((c) => c.primary)!.node], replica: SERVICES[copies.find((c) => !c.primary)!.node] };
}

const shardDir = (service: string) => join(cluster.volumes[`${service}-data`], uuid, '0');
const segmentFiles = (service: string) => readdirSync(shardDir(service)).filter((f) => f.endsWith('.fseg'));

/**
 * Flips one byte inside the first `_source` block of each of the copy's segment files (but those in
 * `except`); answers how many files.
 */
function flipSourceBytes(service: string, except: readonly string[] = []): number {
  const files = segmentFiles(service).filter((f) => !except.includes(f));
  for (const f of files) {
    const path = join(shardDir(service), f);
    flipSourceByte(path);
  }
  return files.length;
}

/** GETs every document; each must answer 200 with its `_source` byte-identical (the raw body holds it verbatim). */
async function expectEveryGet(): Promise<void> {
  const ids = [...sources.keys()];
  for (let i = 0; i < ids.length; i += 50) {
    await Promise.all(
      ids.slice(i, i + 50).map(async (id) => {
        const res = await request(`${cluster.coordinatorUrl}/${INDEX}/_doc/${id}`);
        const text = await res.body.text();
        expect(res.statusCode, `GET ${id}: ${text}`).toBe(200);
        expect(text.endsWith(`"found":true,"_source":${sources.get(id)}}`), `GET ${id}: ${text}`).toBe(true);
      }),
    );
  }
}

/** One search for every document: 200, no shard failure, every `_source` byte-identical. */
async function expectEverySearchHit(): Promise<void> {
  const res = await request(`${cluster.coordinatorUrl}/${INDEX}/_search?size=${sources.size}&sort=i`, { method: 'GET' });
  const text = await res.body.text();
  expect(res.statusCode, text).toBe(200);
  const body = JSON.parse(text) as { _shards: { failed: number }; hits: { hits: { _id: string }[] } };
  expect(body._shards.failed).toBe(0);
  expect(body.hits.hits.map((h) => h._id)).toEqual([...sources.keys()]);
  for (const id of sources.keys()) expect(text.includes(`"_id":"${id}","_score":null,"_source":${sources.get(id)},`), id).toBe(true);
}

async function waitGreen(): Promise<void> {
  const health = await http(cluster.coordinatorUrl, 'GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=60s`);
  expect(health.body.status).toBe('green');
}

/** The coordinator's `shard copy recovered` log entries so far. */
const recoveries = () => coordinatorRecoveries<{ mode: string; reset: boolean; target: number }>(cluster);

beforeAll(async () => {
  cluster = await startComposeCluster({ env: { FOLIO_LOG_LEVEL: 'info', FOLIO_CLUSTER_SECRET: CLUSTER_SECRET, FOLIO_INTERNAL_TIMEOUT_MS: '5000' } });
  // No periodic refresh: one refresh makes the segments, and the flush puts them in files.
  const created = await http(cluster.coordinatorUrl, 'PUT', `/${INDEX}`, {
    settings: { number_of_shards: 1, number_of_replicas: 1, refresh_interval: '-1' },
    mappings: { properties: { i: { type: 'integer' } } },
  });
  expect(created.status).toBe(200);
  const lines: string[] = [];
  for (let i = 0; i < DOCS; i++) {
    const id = `d${String(i).padStart(5, '0')}`;
    const source = `{"i":${i},"name":"café ${i} \u00e9t\u00e9 😀","price":1.50,"big":1e3,"pad":"${'lorem ipsum '.repeat(8)}"}`;
    sources.set(id, source);
    lines.push(JSON.stringify({ index: { _index: INDEX, _id: id } }), source);
  }
  const bulk = await http(cluster.coordinatorUrl, 'POST', '/_bulk', lines.join('\n') + '\n', 'application/x-ndjson');
  expect(bulk.status).toBe(200);
  expect(bulk.body.errors).toBe(false);
  expect((await http(cluster.coordinatorUrl, 'POST', `/${INDEX}/_refresh`)).status).toBe(200);
  expect((await http(cluster.coordinatorUrl, 'POST', `/${INDEX}/_flush`)).status).toBe(200);
  const meta = await request(`${cluster.urls['shard-0']}/_internal/v1/indices`, { headers: { [CLUSTER_SECRET_HEADER]: CLUSTER_SECRET } });
  uuid = ((await meta.body.json()) as NodeIndicesResponse).indices.find((e) => e.metadata.name === INDEX)!.metadata.uuid;
  await waitGreen();
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('a corrupt segment file fails its copy, which is recovered from another copy (1 shard, 1 replica)', () => {
  it('found by a read on the primary: no 5xx reaches the client, the replica is promoted, the copy is recovered; green, every doc identical', async () => {
    const { primary, replica } = await roles();
    const seen = recoveries().length;
    expect(flipSourceBytes(primary)).toBeGreaterThan(0);
    // GETs read the primary first: the first one on the bad block fails over to the replica.
    await expectEveryGet();
    expect(cluster.logs(primary)).toContain('shard copy failed: a segment file is corrupt; it will be recovered from another copy');
    expect(cluster.logs(primary)).toContain('_source block 0 checksum failed');
    // The replica is promoted; the old primary's copy is emptied (its marker with it) and fully copied.
    await expect.poll(async () => (await roles()).primary, { timeout: 30_000 }).toBe(replica);
    // Green once the failed copy is recovered (the recovery is logged once its in-sync change is stored).
    await expect.poll(() => recoveries().length, { timeout: 30_000 }).toBeGreaterThan(seen);
    await waitGreen();
    expect(recoveries().at(-1)).toMatchObject({ mode: 'full', reset: true, target: SERVICES.indexOf(primary) });
    expect(readdirSync(shardDir(primary)).filter((f) => f.startsWith('corrupted_'))).toEqual([]);
    await expectEveryGet();
    await expectEverySearchHit();
  }, 120_000);

  it('found at start-up on the replica: the copy is failed, not rebuilt from its snapshot, and recovered from the primary', async () => {
    const { replica } = await roles();
    const seen = recoveries().length;
    await cluster.halt(replica, 'SIGTERM'); // the close flush writes the recovered copy's segment files
    expect(flipSourceBytes(replica)).toBeGreaterThan(0);
    await cluster.restart(replica);
    // Green once the failed copy is recovered (the recovery is logged once its in-sync change is stored).
    await expect.poll(() => recoveries().length, { timeout: 30_000 }).toBeGreaterThan(seen);
    await waitGreen();
    expect(recoveries().at(-1)).toMatchObject({ mode: 'full', reset: true, target: SERVICES.indexOf(replica) });
    const log = cluster.logs(replica);
    expect(log).toContain('shard copy failed: a segment file is corrupt; it will be recovered from another copy');
    expect(log).not.toContain('rebuilding the copy from its store snapshot');
    expect(existsSync(shardDir(replica)) && readdirSync(shardDir(replica)).filter((f) => f.startsWith('corrupted_'))).toEqual([]);
    await expectEveryGet();
    await expectEverySearchHit();
  }, 120_000);

  it('found by searches on the replica: every search answers 200 with every hit, the copy is failed and recovered', async () => {
    const { replica } = await roles();
    // New documents in a new segment file: blocks no search has read, so the block cache holds none of them.
    const lines: string[] = [];
    for (let i = DOCS; i < DOCS + 200; i++) {
      const id = `d${String(i).padStart(5, '0')}`;
      const source = `{"i":${i},"name":"neu ${i} ü","price":2.50}`;
      sources.set(id, source);
      lines.push(JSON.stringify({ index: { _index: INDEX, _id: id } }), source);
    }
    const bulk = await http(cluster.coordinatorUrl, 'POST', '/_bulk', lines.join('\n') + '\n', 'application/x-ndjson');
    expect(bulk.body.errors).toBe(false);
    const older = segmentFiles(replica);
    expect((await http(cluster.coordinatorUrl, 'POST', `/${INDEX}/_refresh`)).status).toBe(200);
    expect((await http(cluster.coordinatorUrl, 'POST', `/${INDEX}/_flush`)).status).toBe(200);
    const seen = recoveries().length;
    const failedLine = 'shard copy failed: a segment file is corrupt; it will be recovered from another copy';
    const before = cluster.logs(replica).split(failedLine).length;
    expect(flipSourceBytes(replica, older)).toBeGreaterThan(0);
    let rounds = 0;
    while (cluster.logs(replica).split(failedLine).length === before) {
      expect(++rounds, 'no search read the replica').toBeLessThanOrEqual(60);
      await Promise.all([0, 1, 2, 3].map(() => expectEverySearchHit()));
    }
    // Green once the failed copy is recovered (the recovery is logged once its in-sync change is stored).
    await expect.poll(() => recoveries().length, { timeout: 30_000 }).toBeGreaterThan(seen);
    await waitGreen();
    expect(recoveries().at(-1)).toMatchObject({ mode: 'full', reset: true, target: SERVICES.indexOf(replica) });
    await expectEverySearchHit();
    await expectEveryGet();
  }, 120_000);
});
