/**
 * File-based peer recovery with real processes (docs/recovery.md), on a cluster of its own
 * (3 shard nodes, 1 coordinator), 1 shard: 40,000 documents (with overwrites and deletes) on the
 * primary, then `number_of_replicas: 1`. The new replica misses more than FOLIO_RECOVERY_FILE_MIN_OPS
 * ops, so it gets the primary's segment files, throttled (FOLIO_RECOVERY_MAX_BYTES_PER_SEC) in
 * 256 KiB chunks; its node is SIGKILLed once a file has arrived whole, and the recovery that follows
 * its restart reuses the files it received (`_recovery` files.reused). Then both copies hold every
 * document with the same `_version`, `_seq_no` and `_source` bytes, and `_cat/recovery` shows the
 * replica's peer recovery with its files and bytes.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeIndicesResponse } from '../../protocol/metadata.ts';
import { startComposeCluster, type ComposeCluster } from '../support/compose-cluster.ts';
import { bulkOk, coordinatorRecoveries, internalCall } from '../support/cluster-calls.ts';
import { http } from './http.ts';

const CLUSTER_SECRET = randomBytes(32).toString('hex');
const INDEX = 'file-recovery';
const DOCS = 40_000;
const SERVICES = ['shard-0', 'shard-1', 'shard-2'];

let cluster: ComposeCluster;

/** A shard node's internal call (cluster secret), JSON in and out. */
const internal = <T>(service: string, path: string, body?: unknown): Promise<T> => internalCall<T>(cluster, CLUSTER_SECRET, service, path, body);

/** Bulk-indexes NDJSON action + source pairs and checks no item failed. */
const bulk = (lines: string[]): Promise<void> => bulkOk(cluster, lines);

/** The replica's entry of `GET /{index}/_recovery` (null when none is reported yet). */
async function replicaRecovery(activeOnly: boolean): Promise<Record<string, any> | null> {
  const res = await http(cluster.coordinatorUrl, 'GET', `/${INDEX}/_recovery${activeOnly ? '?active_only' : ''}`);
  expect(res.status).toBe(200);
  const shards = ((res.body as Record<string, { shards: Record<string, any>[] }>)[INDEX]?.shards ?? []).filter((s) => s.primary === false);
  return shards[0] ?? null;
}

/** The coordinator's `shard copy recovered` log entries so far. */
const recoveries = () =>
  coordinatorRecoveries<{ mode: string; files?: { files: number; reusedFiles: number; bytes: number; tookMs: number }; tookMs: number }>(cluster);

beforeAll(async () => {
  cluster = await startComposeCluster({
    env: {
      FOLIO_LOG_LEVEL: 'info',
      FOLIO_CLUSTER_SECRET: CLUSTER_SECRET,
      FOLIO_INTERNAL_TIMEOUT_MS: '20000',
      FOLIO_RECOVERY_FILE_CHUNK_BYTES: String(256 * 1024),
      FOLIO_RECOVERY_MAX_BYTES_PER_SEC: '2mb',
    },
  });
  const created = await http(cluster.coordinatorUrl, 'PUT', `/${INDEX}`, { settings: { number_of_shards: 1, number_of_replicas: 0 } });
  expect(created.status).toBe(200);
  const pad = 'lorem ipsum dolor sit amet '.repeat(4);
  for (let b = 0; b < DOCS; b += 4000) {
    const lines: string[] = [];
    for (let i = b; i < b + 4000; i++) lines.push(JSON.stringify({ index: { _index: INDEX, _id: `d${i}` } }), JSON.stringify({ i, pad, t: `w${i % 97}` }));
    await bulk(lines);
    // Several segments (and so several files), as a steadily indexed shard has.
    await http(cluster.coordinatorUrl, 'POST', `/${INDEX}/_refresh`);
  }
  await bulk(Array.from({ length: 500 }, (_, i) => [JSON.stringify({ index: { _index: INDEX, _id: `d${i}` } }), JSON.stringify({ i, v: 2 })]).flat());
  await bulk(Array.from({ length: 100 }, (_, i) => JSON.stringify({ delete: { _index: INDEX, _id: `d${DOCS - 1 - i}` } })));
}, 300_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('file-based peer recovery (40,000 documents, 1 shard)', () => {
  it('a new replica gets the files; interrupted by a SIGKILL of its node, it resumes reusing the files received; both copies equal', async () => {
    expect((await http(cluster.coordinatorUrl, 'PUT', `/${INDEX}/_settings`, { index: { number_of_replicas: 1 } })).status).toBe(200);
    // Wait until the replica has received at least one file whole, then kill its node.
    let running: Record<string, any> | null = null;
    await expect
      .poll(
        async () => {
          running = await replicaRecovery(true);
          return running?.stage === 'INDEX' ? running.index.files.recovered : 0;
        },
        { timeout: 60_000, interval: 50 },
      )
      .toBeGreaterThan(0);
    expect(running!.type).toBe('PEER');
    const meta = await internal<NodeIndicesResponse>('shard-0', '/indices');
    const copies = meta.indices.find((e) => e.metadata.name === INDEX)!.metadata.shardCopies![0];
    const primary = SERVICES[copies.find((c) => c.primary)!.node];
    const replica = SERVICES[copies.find((c) => !c.primary)!.node];
    await cluster.halt(replica, 'SIGKILL');
    await cluster.restart(replica);
    const health = await http(cluster.coordinatorUrl, 'GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=120s`);
    expect(health.body.status).toBe('green');

    // The recovery after the restart: by files, reusing those received before the kill.
    const done = await replicaRecovery(false);
    expect(done!.type).toBe('PEER');
    expect(done!.stage).toBe('DONE');
    expect(done!.index.files.reused).toBeGreaterThan(0);
    expect(done!.index.files.total).toBeGreaterThan(done!.index.files.reused);
    expect(done!.index.size.total_in_bytes).toBeGreaterThan(done!.index.size.reused_in_bytes);
    expect(done!.index.size.percent).toBe('100.0%');
    await expect.poll(() => recoveries().filter((r) => r.mode === 'files').length, { timeout: 10_000 }).toBeGreaterThan(0);
    const outcome = recoveries()
      .filter((r) => r.mode === 'files')
      .at(-1)!;
    expect(outcome.files!.reusedFiles).toBeGreaterThan(0);

    const cat = await http(
      cluster.coordinatorUrl,
      'GET',
      `/_cat/recovery/${INDEX}?format=json&h=shard,type,stage,files,files_recovered,files_total,bytes,bytes_total,bytes_percent,target_node&bytes=b`,
    );
    expect(cat.status).toBe(200);
    const rows = cat.body as Record<string, string>[];
    const peer = rows.find((r) => r.type === 'peer')!;
    expect(peer).toMatchObject({ shard: '0', stage: 'done', bytes_percent: '100.0%' });
    expect(peer.target_node).not.toBe('n/a');
    expect(Number(peer.files_total)).toBeGreaterThan(Number(peer.files));
    expect(Number(peer.files_recovered)).toBe(Number(peer.files));
    expect(Number(peer.bytes_total)).toBeGreaterThan(0);
    expect(rows.find((r) => r.type === 'existing_store' || r.type === 'empty_store')).toBeDefined();

    // Every document: the same _version, _seq_no and _source bytes on both copies.
    for (let i = 0; i < DOCS; i += 250) {
      const ids = Array.from({ length: 250 }, (_, k) => `d${i + k}`);
      const read = (service: string) => Promise.all(ids.map((id) => internal<Record<string, unknown>>(service, '/get', { index: INDEX, shard: 0, _id: id })));
      const [p, r] = await Promise.all([read(primary), read(replica)]);
      const strip = (g: Record<string, unknown>) => ({ found: g.found, _version: g._version, _seq_no: g._seq_no, _source: g._source });
      expect(r.map(strip)).toEqual(p.map(strip));
    }
  }, 400_000);
});
