/**
 * Durability with real processes, on a cluster of its own (own ports, own temporary FOLIO_DATA
 * directories; the shared e2e cluster is not touched): a shard node killed with SIGKILL in the
 * middle of a stream of acknowledged `refresh=false` writes restarts with every acknowledged write
 * (GET and search, right version and `_source`) and with its index metadata and mappings; a write
 * that was not acknowledged is either wholly there or wholly absent. A SIGTERM restart flushes.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_SECRET_HEADER } from '../../shared/cluster-secret.ts';
import { AcknowledgedWrites, type SeenDoc } from '../support/acknowledged-writes.ts';
import { startComposeCluster, type ComposeCluster } from '../support/compose-cluster.ts';
import { http } from './http.ts';

/** This cluster's FOLIO_CLUSTER_SECRET (random per run), needed to read a shard node's internal API. */
const CLUSTER_SECRET = randomBytes(32).toString('hex');

/** `GET /_internal/v1/indices` of one shard node, with the cluster secret. */
async function shardIndices(nodeUrl: string): Promise<any> {
  const res = await request(`${nodeUrl}/_internal/v1/indices`, { headers: { [CLUSTER_SECRET_HEADER]: CLUSTER_SECRET } });
  return res.body.json();
}

const INDEX = 'durable';

let cluster: ComposeCluster;
/** Two writers' bulks of new docs, overwrites, partial updates and deletes, and what each reply acknowledged. */
const load = new AcknowledgedWrites({
  coordinatorUrl: () => cluster.coordinatorUrl,
  index: INDEX,
  bulkPath: '/_bulk?refresh=false',
  newDocsPerBulk: 30,
  newSource: (n, round) => ({ n, round, tag: `t${n % 7}`, body: `city number ${n}` }),
  rewrittenSource: (round) => ({ n: -1, round, tag: 'rewritten', body: `rewritten in ${round}` }),
});

beforeAll(async () => {
  cluster = await startComposeCluster({ env: { FOLIO_LOG_LEVEL: 'info', FOLIO_CLUSTER_SECRET: CLUSTER_SECRET } });
  // The check reads every `_id` in one page of `size` = ids + 1000, which passes ES's default window
  // (10,000) in a fast run: the index raises `max_result_window` so the page is allowed.
  const created = await http(cluster.coordinatorUrl, 'PUT', `/${INDEX}`, {
    settings: { number_of_shards: 3, number_of_replicas: 0, max_result_window: 1_000_000 },
  });
  expect(created.status).toBe(200);
});

afterAll(async () => {
  await cluster?.stop();
});

/** Retries a coordinator call while the restarted node's connections settle (bounded). */
async function settled<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let v = await fn();
  for (let i = 0; i < 20 && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 250));
    v = await fn();
  }
  return v;
}

/** Checks every known `_id` by GET (_mget) and by search after a refresh. */
async function checkEverythingAcknowledged(): Promise<void> {
  const url = cluster.coordinatorUrl;
  const refreshed = await settled(
    () => http(url, 'POST', `/${INDEX}/_refresh`),
    (r) => r.status === 200 && r.body._shards.failed === 0,
  );
  expect(refreshed.body._shards).toMatchObject({ total: 3, failed: 0 });
  const ids = [...load.known.keys()];
  const got = await settled(
    () => http(url, 'POST', `/${INDEX}/_mget`, { ids }),
    (r) => r.status === 200,
  );
  expect(got.status).toBe(200);
  const searched = await settled(
    () => http(url, 'POST', `/${INDEX}/_search`, { size: load.known.size + 1000, query: { match_all: {} }, _source: true }),
    (r) => r.status === 200 && r.body._shards.failed === 0,
  );
  expect(searched.status, JSON.stringify(searched.body).slice(0, 500)).toBe(200);
  expect(searched.body._shards.failed).toBe(0);
  const hits = new Map<string, Record<string, unknown>>(
    searched.body.hits.hits.map((h: { _id: string; _source: Record<string, unknown> }) => [h._id, h._source]),
  );
  let lost = 0;
  const problems: string[] = [];
  got.body.docs.forEach((d: SeenDoc & { _id: string }) => {
    const problem = load.problemOf(d._id, d);
    if (problem !== null) {
      lost++;
      problems.push(problem);
    }
    if (d.found !== hits.has(d._id)) problems.push(`${d._id}: GET found=${d.found} but search ${hits.has(d._id) ? 'finds' : 'misses'} it`);
  });
  expect(problems.slice(0, 5)).toEqual([]);
  expect(lost).toBe(0);
}

describe('durability of acknowledged writes across shard node restarts', () => {
  it('SIGKILL in the middle of acknowledged writes: every acknowledged write survives, metadata and mappings too', async () => {
    let round = 0;
    let stop = false;
    const writer = async () => {
      while (!stop) await load.writeBatch(round++);
    };
    const writers = [writer(), writer()];
    await new Promise((r) => setTimeout(r, 1500));
    const mappingBefore = (await shardIndices(cluster.urls['shard-1'])).indices.find((e: { metadata: { name: string } }) => e.metadata.name === INDEX);
    cluster.kill('shard-1', 'SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    stop = true;
    await Promise.all(writers);
    const started = Date.now();
    await cluster.restart('shard-1');
    const recoveryMs = Date.now() - started;
    const doubtful = load.doubtful;
    process.stdout.write(
      `durability: ${load.acked} writes acknowledged over ${round} bulks, ${doubtful} ids with unacknowledged writes, shard-1 restart ${recoveryMs} ms\n`,
    );
    expect(load.acked).toBeGreaterThan(200);
    expect(doubtful).toBeGreaterThan(0); // the kill really happened mid-stream

    const after = (await shardIndices(cluster.urls['shard-1'])).indices.find((e: { metadata: { name: string } }) => e.metadata.name === INDEX);
    expect(after.shards).toEqual(mappingBefore.shards);
    expect(after.metadata.uuid).toBe(mappingBefore.metadata.uuid);
    expect(after.metadata.mappings.properties).toMatchObject({ n: { type: 'long' }, tag: { type: 'text' }, body: { type: 'text' } });
    expect(cluster.logs('shard-1')).toContain('shard recovered');
    await checkEverythingAcknowledged();
  });

  it('SIGTERM flushes every shard; the graceful restart recovers from the snapshot with an empty translog', async () => {
    for (let i = 0; i < 3; i++) await load.writeBatch(1000 + i);
    const flushed = await settled(
      () => http(cluster.coordinatorUrl, 'POST', `/${INDEX}/_flush`),
      (r) => r.status === 200 && r.body._shards.failed === 0,
    );
    expect(flushed.body).toEqual({ _shards: { total: 3, successful: 3, failed: 0 } });
    for (let i = 3; i < 5; i++) await load.writeBatch(1000 + i);
    cluster.kill('shard-0', 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (!cluster.logs('shard-0').includes('flushed and closed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(cluster.logs('shard-0')).toContain('flushed and closed');
    await cluster.restart('shard-0');
    const recovered = cluster
      .logs('shard-0')
      .split('\n')
      .filter((l) => l.includes('"shard recovered"'))
      .map((l) => JSON.parse(l) as { index: string; ops: number; translogOps: number });
    const mine = recovered.filter((r) => r.index === INDEX);
    expect(mine.length).toBeGreaterThan(0);
    for (const r of mine) expect(r.translogOps).toBe(0);
    expect(mine.reduce((n, r) => n + r.ops, 0)).toBeGreaterThan(0);
    await checkEverythingAcknowledged();
  });
});
