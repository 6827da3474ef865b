/**
 * Peer recovery with real processes, on a cluster of its own (3 shard nodes, 1 coordinator, its
 * own data directories), 1 shard with 1 replica, and a recovery chunk of 16 KiB
 * (FOLIO_RECOVERY_CHUNK_BYTES), so that every copy travels in many chunks:
 * - after a graceful stop and after a SIGKILL of the replica's node, with writes while it was
 *   down, the restarted copy comes back with the local checkpoint its store recorded (flush
 *   checkpoint + translog replay) and recovers by ops above it: only the writes it missed;
 * - after its shard files are wiped (and the primary flushed, so its translog no longer has the
 *   whole history), it recovers by a full copy streamed in many chunks;
 * - after a graceful stop of the primary's node (the replica is promoted), the old primary holds
 *   nothing above the global checkpoint, so it is not emptied: it recovers by ops above its checkpoint;
 *   so does the old primary after a SIGKILL a while after the last write (its store recorded the
 *   global checkpoint within a second);
 * and every time both copies end with the same documents, each with the same `_version` and
 * `_seq_no`. The coordinator's log line of each recovery (coordinator/cluster/copy-maintenance.ts) gives
 * its mode, starting checkpoint, ops and chunks.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeIndicesResponse } from '../../protocol/metadata.ts';
import type { RecoveryStateResponse } from '../../protocol/recovery.ts';
import { startComposeCluster, type ComposeCluster } from '../support/compose-cluster.ts';
import { bulkOk, coordinatorRecoveries, internalCall } from '../support/cluster-calls.ts';
import { http } from './http.ts';

const CLUSTER_SECRET = randomBytes(32).toString('hex');
const INDEX = 'recovery-chunks';
const CHUNK_BYTES = 16 * 1024;
const DOCS = 3_000;
/** FOLIO_NODES order of the compose file: ordinal → service. */
const SERVICES = ['shard-0', 'shard-1', 'shard-2'];

let cluster: ComposeCluster;
let replica: string;
let primary: string;
let uuid: string;

/** A shard node's internal call (cluster secret), JSON in and out. */
const internal = <T>(service: string, path: string, body?: unknown): Promise<T> => internalCall<T>(cluster, CLUSTER_SECRET, service, path, body);

/** Bulk-indexes NDJSON action + source pairs and checks no item failed. */
const bulk = (lines: string[]): Promise<void> => bulkOk(cluster, lines);

const indexLine = (id: string, source: Record<string, unknown>) => [JSON.stringify({ index: { _index: INDEX, _id: id } }), JSON.stringify(source)];
const pad = 'lorem ipsum dolor sit amet '.repeat(6);

/** The coordinator's `shard copy recovered` log entries so far. */
const recoveries = () =>
  coordinatorRecoveries<{ mode: string; reset: boolean; fromSeqNo: number; upTo: number; ops: number; chunks: number; bytes: number; target: number }>(cluster);

async function waitGreen(): Promise<void> {
  const health = await http(cluster.coordinatorUrl, 'GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=60s`);
  expect(health.body.status).toBe('green');
}

/** Every `_id` of the shard on both copies: same `_version`, `_seq_no` and `_source`; and the same live count. */
async function expectSameCopies(ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 200) {
    const batch = ids.slice(i, i + 200);
    const read = (service: string) => Promise.all(batch.map((id) => internal<Record<string, unknown>>(service, '/get', { index: INDEX, shard: 0, _id: id })));
    const [p, r] = await Promise.all([read(primary), read(replica)]);
    const strip = (g: Record<string, unknown>) => ({ found: g.found, _version: g._version, _seq_no: g._seq_no, _source: g._source });
    expect(r.map(strip)).toEqual(p.map(strip));
  }
  await http(cluster.coordinatorUrl, 'POST', `/${INDEX}/_refresh`);
  const docs = await http(cluster.coordinatorUrl, 'GET', `/_cat/shards/${INDEX}?format=json&h=prirep,docs`);
  const counts = (docs.body as { prirep: string; docs: string }[]).map((d) => d.docs);
  expect(counts).toHaveLength(2);
  expect(counts[0]).toBe(counts[1]);
}

const allIds = new Set<string>();

beforeAll(async () => {
  cluster = await startComposeCluster({
    env: { FOLIO_LOG_LEVEL: 'info', FOLIO_CLUSTER_SECRET: CLUSTER_SECRET, FOLIO_INTERNAL_TIMEOUT_MS: '5000', FOLIO_RECOVERY_CHUNK_BYTES: String(CHUNK_BYTES) },
  });
  const created = await http(cluster.coordinatorUrl, 'PUT', `/${INDEX}`, { settings: { number_of_shards: 1, number_of_replicas: 1 } });
  expect(created.status).toBe(200);
  // History: new documents, overwrites (versions), deletes (tombstones).
  for (let b = 0; b < DOCS; b += 500) {
    const lines: string[] = [];
    for (let i = b; i < b + 500; i++) lines.push(...indexLine(`d${i}`, { i, pad }));
    await bulk(lines);
  }
  for (let i = 0; i < DOCS; i++) allIds.add(`d${i}`);
  await bulk(Array.from({ length: 300 }, (_, i) => indexLine(`d${i}`, { i, pad, v: 2 })).flat());
  await bulk(Array.from({ length: 50 }, (_, i) => JSON.stringify({ delete: { _index: INDEX, _id: `d${DOCS - 1 - i}` } })));
  const meta = await internal<NodeIndicesResponse>('shard-0', '/indices');
  const m = meta.indices.find((e) => e.metadata.name === INDEX)!.metadata;
  uuid = m.uuid;
  const copies = m.shardCopies![0];
  primary = SERVICES[copies.find((c) => c.primary)!.node];
  replica = SERVICES[copies.find((c) => !c.primary)!.node];
  await waitGreen();
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
});

/** Stops the replica's node with `signal`, writes while it is down, runs `whileDown`, restarts it; answers the recovery that followed. */
async function downAndBack(signal: NodeJS.Signals, round: number, whileDown: () => void | Promise<void> = () => {}) {
  const before = await internal<RecoveryStateResponse>(replica, '/recovery/state', { index: INDEX, shard: 0 });
  const seen = recoveries().length;
  await cluster.halt(replica, signal);
  // Missed writes: the copy leaves the in-sync set (a quorum of the other nodes records it).
  const lines: string[] = [];
  for (let i = 0; i < 40; i++) {
    const id = `r${round}-${i}`;
    allIds.add(id);
    lines.push(...indexLine(id, { round, i, pad }));
  }
  lines.push(...indexLine('d1', { i: 1, round }));
  lines.push(JSON.stringify({ delete: { _index: INDEX, _id: `d${100 + round}` } }));
  await bulk(lines);
  await whileDown();
  await cluster.restart(replica);
  await waitGreen();
  // Green can be seen before the coordinator's log line of the recovery reaches us (it is written
  // after the in-sync change is stored, and read through a pipe).
  await expect.poll(() => recoveries().length, { timeout: 10_000 }).toBeGreaterThan(seen);
  const after = recoveries();
  return { before, outcome: after.at(-1)! };
}

/**
 * Stops the primary's node with `signal` (its replica is promoted: at once for a graceful stop, when
 * its lease ends for a SIGKILL), writes 40 documents `${prefix}-*` to the new primary, restarts the old
 * one; answers the recovery of its copy that followed. `primary` and `replica` swap.
 */
async function primaryDownAndBack(signal: NodeJS.Signals, prefix: string) {
  const seen = recoveries().length;
  await cluster.halt(primary, signal);
  [primary, replica] = [replica, primary];
  // Red until the replica is promoted, then yellow.
  const health = await http(cluster.coordinatorUrl, 'GET', `/_cluster/health/${INDEX}?wait_for_status=yellow&timeout=30s`);
  expect(health.body.status).toBe('yellow');
  const lines: string[] = [];
  for (let i = 0; i < 40; i++) {
    allIds.add(`${prefix}-${i}`);
    lines.push(...indexLine(`${prefix}-${i}`, { i, pad }));
  }
  await bulk(lines);
  await cluster.restart(replica);
  await waitGreen();
  await expect.poll(() => recoveries().length, { timeout: 10_000 }).toBeGreaterThan(seen);
  return recoveries().at(-1)!;
}

describe('peer recovery of a restarted copy, in chunks (1 shard, 1 replica, 16 KiB chunks)', () => {
  it('graceful restart: the copy keeps its checkpoint and recovers by ops above it', async () => {
    const { before, outcome } = await downAndBack('SIGTERM', 1);
    expect(outcome.mode).toBe('ops');
    expect(outcome.fromSeqNo).toBe(before.checkpoint);
    expect(outcome.ops).toBe(42); // the 42 ops it missed, nothing more
    await expectSameCopies([...allIds]);
  }, 120_000);

  it('SIGKILL restart: the checkpoint comes back from the translog replay; recovery by ops above it', async () => {
    const { before, outcome } = await downAndBack('SIGKILL', 2);
    expect(outcome.mode).toBe('ops');
    expect(outcome.fromSeqNo).toBe(before.checkpoint);
    expect(outcome.ops).toBe(42);
    await expectSameCopies([...allIds]);
  }, 120_000);

  it('wiped shard files, primary flushed: a full copy in many chunks; every document with the same _version and _seq_no', async () => {
    const { outcome } = await downAndBack('SIGTERM', 3, async () => {
      expect((await http(cluster.coordinatorUrl, 'POST', `/${INDEX}/_flush`)).status).toBe(200);
      rmSync(join(cluster.volumes[`${replica}-data`], uuid, '0'), { recursive: true, force: true });
    });
    expect(outcome.mode).toBe('full');
    expect(outcome.fromSeqNo).toBe(-1);
    expect(outcome.chunks).toBeGreaterThan(20);
    expect(outcome.bytes / outcome.chunks).toBeLessThanOrEqual(CHUNK_BYTES);
    await expectSameCopies([...allIds]);
  }, 120_000);

  it('wiped shard files and no write while the copy was away: the empty copy is not taken for an in-sync one; a full copy', async () => {
    // Nothing takes the copy out of sync while it is down, so the cluster state still has it in
    // sync when it comes back empty. It must not serve (or be promoted) as if it held the shard.
    const seen = recoveries().length;
    await cluster.halt(replica, 'SIGTERM');
    rmSync(join(cluster.volumes[`${replica}-data`], uuid, '0'), { recursive: true, force: true });
    await cluster.restart(replica);
    await expect.poll(() => cluster.logs(replica), { timeout: 10_000 }).toContain('files are missing');
    // While it is failed, no search reads it: every search of the shard answers the whole count.
    const total = async () => (await http(cluster.coordinatorUrl, 'GET', `/${INDEX}/_count`)).body.count as number;
    const expected = await total();
    for (let i = 0; i < 10; i++) expect(await total()).toBe(expected);
    await waitGreen();
    await expect.poll(() => recoveries().length, { timeout: 20_000 }).toBeGreaterThan(seen);
    const outcome = recoveries().at(-1)!;
    expect(outcome.mode).toBe('full');
    expect(outcome.fromSeqNo).toBe(-1);
    await expectSameCopies([...allIds]);
  }, 120_000);

  it("graceful stop of the primary's node: the replica is promoted, and the old primary, holding nothing above the global checkpoint, recovers by ops instead of being emptied", async () => {
    const old = await internal<RecoveryStateResponse>(primary, '/recovery/state', { index: INDEX, shard: 0 });
    expect(old.withinGlobalCheckpoint).toBe(true);
    expect(old.globalCheckpoint).toBe(old.maxSeqNo);
    const outcome = await primaryDownAndBack('SIGTERM', 'p');
    expect(outcome.reset).toBe(false);
    expect(outcome.mode).toBe('ops');
    expect(outcome.fromSeqNo).toBe(old.checkpoint);
    expect(outcome.ops).toBeLessThan(100); // the writes it missed, not the shard's 3,000+ documents
    await expectSameCopies([...allIds]);
  }, 120_000);

  it("SIGKILL of the primary's node a while after the last write: its store has the global checkpoint, so its copy recovers by ops after the promotion too", async () => {
    // The global checkpoint moved with the last write's acknowledgement; the store records it within a second.
    await new Promise((r) => setTimeout(r, 2_000));
    const outcome = await primaryDownAndBack('SIGKILL', 'k');
    expect(outcome.reset).toBe(false);
    expect(outcome.mode).toBe('ops');
    expect(outcome.ops).toBeLessThan(100);
    await expectSameCopies([...allIds]);
  }, 120_000);
});
