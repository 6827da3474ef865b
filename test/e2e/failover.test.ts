/**
 * Failover with real processes, on a cluster of its own (own ports, own data directories): an index
 * with 1 replica on 3 shard nodes, a bounded search load (8 clients for about 5 s), and one shard
 * node killed with SIGKILL in the middle of it. Every search must answer 200, complete (no
 * `_shards.failed`) and equal to its oracle: ids computed from the documents, or, for the scored
 * query, the answer of the healthy cluster. The queries cover the fused query-and-fetch, a separate
 * fetch round, the dfs round of scored searches and the deep-page selection rounds. Afterwards the
 * replicas of the killed node's primaries are promoted (writes succeed again, in term 2), and the
 * node, restarted, recovers its copies until the index is green.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startComposeCluster, type ComposeCluster } from '../support/compose-cluster.ts';
import { http } from './http.ts';

const CLUSTER_SECRET = randomBytes(32).toString('hex');
const INDEX = 'failover';
const DOCS = 3000;
const CLIENTS = 8;
const LOAD_MS = 5_000;
const KILL_AT_MS = 1_500;
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];

/** The indexed documents, by `_id`. */
const docs = Array.from({ length: DOCS }, (_, i) => ({
  _id: `d${String(i).padStart(5, '0')}`,
  n: i,
  tag: `t${i % 7}`,
  body: [WORDS[i % 8], WORDS[(i * 3) % 8], WORDS[(i * 5 + 1) % 8], i % 11 === 0 ? 'alpha alpha' : 'omega'].join(' '),
}));
const byN = [...docs].sort((a, b) => a.n - b.n);

/** A query of the load, with the ids (and total) its answer must have. */
interface Probe {
  name: string;
  body: Record<string, unknown>;
  ids: string[];
  total: number;
  /** Also compare `_source.n` of each hit (the documents come from the fetch). */
  checkSources?: boolean;
}

const probes: Probe[] = [
  {
    name: 'sorted page 1 (fused fetch)',
    body: { size: 20, sort: [{ n: 'desc' }], track_total_hits: true },
    ids: byN
      .slice(-20)
      .reverse()
      .map((d) => d._id),
    total: DOCS,
  },
  {
    name: 'filtered page 5',
    body: { from: 40, size: 10, query: { bool: { filter: [{ term: { tag: 't3' } }] } }, sort: [{ n: 'asc' }], track_total_hits: true },
    ids: byN
      .filter((d) => d.tag === 't3')
      .slice(40, 50)
      .map((d) => d._id),
    total: byN.filter((d) => d.tag === 't3').length,
  },
  {
    name: 'deep page (selection rounds)',
    body: { from: 600, size: 5, sort: [{ n: 'asc' }], track_total_hits: true },
    ids: byN.slice(600, 605).map((d) => d._id),
    total: DOCS,
  },
  {
    name: '100 hits (separate fetch round)',
    body: { size: 100, sort: [{ n: 'asc' }], track_total_hits: true },
    ids: byN.slice(0, 100).map((d) => d._id),
    total: DOCS,
    checkSources: true,
  },
];

let cluster: ComposeCluster;

beforeAll(async () => {
  cluster = await startComposeCluster({ env: { FOLIO_LOG_LEVEL: 'warn', FOLIO_CLUSTER_SECRET: CLUSTER_SECRET } });
  const url = cluster.coordinatorUrl;
  const created = await http(url, 'PUT', `/${INDEX}`, {
    settings: { number_of_shards: 3, number_of_replicas: 1 },
    mappings: { properties: { n: { type: 'integer' }, tag: { type: 'keyword' }, body: { type: 'text' } } },
  });
  expect(created.status).toBe(200);
  const lines = docs.flatMap(({ _id, ...source }) => [JSON.stringify({ index: { _index: INDEX, _id } }), JSON.stringify(source)]);
  const bulk = await http(url, 'POST', '/_bulk?refresh=true', lines.join('\n') + '\n', 'application/x-ndjson');
  expect(bulk.status).toBe(200);
  expect(bulk.body.errors).toBe(false);
  // Every write reached both copies of its shard.
  expect(bulk.body.items[0].index._shards).toEqual({ total: 2, successful: 2, failed: 0 });
  const health = await http(url, 'GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=20s`);
  expect(health.body.status).toBe('green');
  // The scored query's oracle: the healthy cluster's answer (both copies hold the same documents, so any copy scores alike).
  const scored = { size: 10, query: { match: { body: 'alpha' } }, track_total_hits: true };
  const before = await http(url, 'POST', `/${INDEX}/_search`, scored);
  expect(before.body._shards.failed).toBe(0);
  probes.push({ name: 'scored (dfs round)', body: scored, ids: before.body.hits.hits.map((h: { _id: string }) => h._id), total: before.body.hits.total.value });
  for (const p of probes) {
    const res = await http(url, 'POST', `/${INDEX}/_search`, p.body);
    expect(problemOf(p, res), p.name).toBeNull();
  }
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
});

/** Why an answer is not the complete and correct one, or null. */
function problemOf(p: Probe, res: { status: number; body: any }): string | null {
  if (res.status !== 200) return `HTTP ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`;
  const shards = res.body._shards;
  if (shards.failed > 0 || shards.successful !== shards.total) return `incomplete: ${JSON.stringify(shards).slice(0, 400)}`;
  const hits = res.body.hits.hits as { _id: string; _source?: { n: number } }[];
  const ids = hits.map((h) => h._id);
  if (JSON.stringify(ids) !== JSON.stringify(p.ids)) return `ids differ: ${ids.slice(0, 5).join(',')}… expected ${p.ids.slice(0, 5).join(',')}…`;
  if (res.body.hits.total.value !== p.total) return `total ${res.body.hits.total.value}, expected ${p.total}`;
  if (p.checkSources && hits.some((h) => `d${String(h._source?.n).padStart(5, '0')}` !== h._id)) return 'a _source does not belong to its hit';
  return null;
}

describe('failover: one of 3 shard nodes killed during a search load, 1 replica', () => {
  it('answers every search completely and correctly', async () => {
    const url = cluster.coordinatorUrl;
    const counts = { requests: 0, errors: 0, incomplete: 0, afterKill: 0 };
    const problems: string[] = [];
    const latencies: number[] = [];
    const started = Date.now();
    let killedAt = 0;
    let next = 0;
    const client = async () => {
      while (Date.now() - started < LOAD_MS) {
        const p = probes[next++ % probes.length];
        const t0 = Date.now();
        const res = await http(url, 'POST', `/${INDEX}/_search`, p.body).catch((err: Error) => ({ status: 0, body: err.message }));
        latencies.push(Date.now() - t0);
        counts.requests++;
        if (killedAt > 0 && t0 >= killedAt) counts.afterKill++;
        const problem = problemOf(p, res);
        if (problem === null) continue;
        if (res.status !== 200) counts.errors++;
        else counts.incomplete++;
        problems.push(`${p.name}: ${problem}`);
      }
    };
    const killer = (async () => {
      await new Promise((r) => setTimeout(r, KILL_AT_MS));
      cluster.kill('shard-1', 'SIGKILL');
      killedAt = Date.now();
    })();
    await Promise.all([killer, ...Array.from({ length: CLIENTS }, client)]);
    latencies.sort((a, b) => a - b);
    const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
    process.stdout.write(
      `failover: ${counts.requests} searches by ${CLIENTS} clients in ${Date.now() - started} ms (${counts.afterKill} started after the SIGKILL at ${KILL_AT_MS} ms), ` +
        `${counts.errors} errors, ${counts.incomplete} incomplete; latency p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${latencies.at(-1)} ms\n`,
    );
    expect(problems.slice(0, 5)).toEqual([]);
    expect(counts).toMatchObject({ errors: 0, incomplete: 0 });
    expect(counts.requests).toBeGreaterThan(50);
    expect(counts.afterKill).toBeGreaterThan(20);

    // The killed node held primaries: once it has missed two view reloads, an in-sync replica of
    // each of those shards is promoted (a new primary term), so no shard stays red; the killed
    // node's copies show as NODE_LEFT.
    const health = await http(url, 'GET', `/_cluster/health/${INDEX}?wait_for_status=yellow&timeout=20s`);
    const promotionMs = Date.now() - killedAt; // an upper bound: the load ran on meanwhile
    expect(health.body).toMatchObject({ status: 'yellow', active_primary_shards: 3, active_shards: 4, unassigned_shards: 2 });
    const cat = await http(url, 'GET', `/_cat/shards/${INDEX}?format=json&h=shard,prirep,state,node,unassigned.reason`);
    const down = cat.body.filter((r: { state: string }) => r.state === 'UNASSIGNED');
    expect(down.map((r: Record<string, string>) => [r.prirep, r['unassigned.reason']])).toEqual([
      ['r', 'NODE_LEFT'],
      ['r', 'NODE_LEFT'],
    ]);
    // Writes to every shard succeed again; the promoted shards write in term 2.
    const lines = Array.from({ length: 30 }, (_, i) => [
      JSON.stringify({ index: { _index: INDEX, _id: `after${i}` } }),
      JSON.stringify({ n: DOCS + i, tag: 'after', body: 'after' }),
    ]).flat();
    const written = await http(url, 'POST', '/_bulk', lines.join('\n') + '\n', 'application/x-ndjson');
    expect(written.body.errors).toBe(false);
    const terms = new Set(written.body.items.map((it: { index: { _primary_term: number } }) => it.index._primary_term));
    expect(terms).toEqual(new Set([1, 2]));

    // The killed node returns: its old primary copies are replicas now and recover (a full copy,
    // since they may hold ops of the old term), its other copies too; then every copy serves.
    const restartedAt = Date.now();
    await cluster.restart('shard-1');
    const green = await http(url, 'GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=30s`);
    const greenMs = Date.now() - restartedAt;
    expect(green.body).toMatchObject({ status: 'green', active_shards: 6 });
    const after = await http(url, 'GET', `/_cat/shards/${INDEX}?format=json&h=shard,prirep,docs&s=shard,prirep`);
    await http(url, 'POST', `/${INDEX}/_refresh`);
    const docs = await http(url, 'GET', `/_cat/shards/${INDEX}?format=json&h=shard,prirep,docs&s=shard,prirep`);
    for (let s = 0; s < 3; s++) {
      const rows = docs.body.filter((r: { shard: string }) => r.shard === String(s));
      expect(rows.map((r: { prirep: string }) => r.prirep)).toEqual(['p', 'r']);
      expect(rows[0].docs).toBe(rows[1].docs);
    }
    expect(after.body).toHaveLength(6);
    const total = await http(url, 'POST', `/${INDEX}/_search`, { size: 0, track_total_hits: true });
    expect([total.body.hits.total.value, total.body._shards.failed]).toEqual([DOCS + 30, 0]);
    process.stdout.write(`failover: replicas promoted ${promotionMs} ms after the SIGKILL; green ${greenMs} ms after the restart (recoveries included)\n`);
  });
});
