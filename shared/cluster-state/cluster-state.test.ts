import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { Election } from '../state-store/election.ts';
import { EmbeddedStore } from '../state-store/embedded-store.ts';
import { ClusterStateWriter } from './cluster-state-writer.ts';
import { ClusterStateCache } from './cluster-state-cache.ts';
import { CLUSTER_MANAGER_ELECTION_PREFIX, GRAVEYARD_SIZE, graveyardKey, indexKey } from './keys.ts';
import { eventually } from '../../test/support/eventually.ts';

function metadata(name: string, uuid: string, extra: Partial<IndexMetadata> = {}): IndexMetadata {
  return {
    name,
    uuid,
    numberOfShards: 1,
    numberOfReplicas: 0,
    routingNumShards: 1,
    maxResultWindow: 10_000,
    refreshIntervalMs: 1_000,
    mappings: { properties: {} },
    creationDate: 0,
    version: 1,
    shardCopies: [[{ node: 0, primary: true, inSync: true }]],
    ...extra,
  };
}

let dir: string;
let store: EmbeddedStore;
const caches: ClusterStateCache[] = [];
async function process(): Promise<{ cache: ClusterStateCache; writer: ClusterStateWriter }> {
  const cache = await ClusterStateCache.open(store);
  caches.push(cache);
  return { cache, writer: new ClusterStateWriter(cache) };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'folio-cluster-state-'));
  store = await EmbeddedStore.open({ dir });
});
afterEach(async () => {
  for (const c of caches.splice(0)) await c.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('cluster state on the store', () => {
  it("two processes creating one name at once get one index with one uuid; the loser learns the winner's", async () => {
    const [a, b] = [await process(), await process()];
    const outcomes = await Promise.allSettled([a.writer.create(metadata('logs', 'uuid-a')), b.writer.create(metadata('logs', 'uuid-b'))]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const winner = (won[0] as PromiseFulfilledResult<{ metadata: IndexMetadata }>).value.metadata.uuid;
    expect(lost[0].reason).toMatchObject({ status: 400, type: 'resource_already_exists_exception', metadata: { index_uuid: winner } });
    const stored = await store.get(indexKey('logs'));
    expect(JSON.parse(stored!.value).uuid).toBe(winner);
  });

  it('every process sees a change through its watch, without reading', async () => {
    const [a, b] = [await process(), await process()];
    await a.writer.create(metadata('logs', 'u1'));
    await eventually(() => b.cache.get('logs')?.metadata.uuid === 'u1');
    await a.writer.update('logs', (m) => ({ ...m, maxResultWindow: 50 }));
    await eventually(() => b.cache.get('logs')?.metadata.maxResultWindow === 50);
    expect(b.cache.get('logs')!.metadata.version).toBe(2);
    expect(b.cache.revision).toBeGreaterThanOrEqual(a.cache.get('logs')!.modRevision);
  });

  it('concurrent read-modify-writes from several processes lose no update, and versions count them', async () => {
    const ps = [await process(), await process(), await process()];
    await ps[0].writer.create(metadata('logs', 'u1', { maxResultWindow: 0 }));
    await Promise.all(ps.map((p) => eventually(() => p.cache.get('logs') !== undefined)));
    const perProcess = 8;
    await Promise.all(
      ps.map(async (p) => {
        for (let i = 0; i < perProcess; i++) await p.writer.update('logs', (m) => ({ ...m, maxResultWindow: m.maxResultWindow + 1 }));
      }),
    );
    const stored = JSON.parse((await store.get(indexKey('logs')))!.value) as IndexMetadata;
    expect(stored.maxResultWindow).toBe(ps.length * perProcess);
    expect(stored.version).toBe(1 + ps.length * perProcess);
  });

  it('a mutation that changes nothing writes nothing; one for another incarnation of the name is refused', async () => {
    const { writer } = await process();
    const created = await writer.create(metadata('logs', 'u1'));
    expect(await writer.update('logs', () => null)).toEqual(created);
    expect((await store.get(indexKey('logs')))!.modRevision).toBe(created.modRevision);
    await expect(writer.update('logs', (m) => m, { uuid: 'u0' })).rejects.toMatchObject({ status: 404, type: 'index_not_found_exception' });
    await expect(writer.update('nope', (m) => m)).rejects.toMatchObject({ status: 404 });
  });

  it("a deposed cluster manager's decision is refused with cluster_block_exception", async () => {
    const { writer } = await process();
    await writer.create(metadata('logs', 'u1'));
    const election = new Election(store, CLUSTER_MANAGER_ELECTION_PREFIX);
    const lease = await store.grantLease(30);
    const leadership = await election.campaign(lease.id, 'c1');
    await writer.update('logs', (m) => ({ ...m, maxResultWindow: 1 }), { guard: leadership.guard });
    await store.revokeLease(lease.id);
    await expect(writer.update('logs', (m) => ({ ...m, maxResultWindow: 2 }), { guard: leadership.guard })).rejects.toMatchObject({
      status: 503,
      type: 'cluster_block_exception',
    });
    expect(JSON.parse((await store.get(indexKey('logs')))!.value).maxResultWindow).toBe(1);
  });

  it('delete removes the index everywhere and remembers its uuid in a bounded graveyard', async () => {
    const [a, b] = [await process(), await process()];
    await a.writer.create(metadata('logs', 'u1'));
    await eventually(() => b.cache.get('logs') !== undefined);
    expect((await b.writer.delete('logs')).uuid).toBe('u1');
    await eventually(() => a.cache.get('logs') === undefined && a.cache.tombstone('u1') !== undefined);
    expect(a.cache.tombstone('u1')).toMatchObject({ name: 'logs' });
    await expect(a.writer.delete('logs')).rejects.toMatchObject({ status: 404 });
    // The name is free again, for a new incarnation.
    await a.writer.create(metadata('logs', 'u2'));
    expect(a.cache.get('logs')!.metadata.uuid).toBe('u2');

    // Past the bound, the oldest tombstones go.
    for (let i = 0; i < 3; i++)
      await store.txn({ compare: [], ops: Array.from({ length: 100 }, (_, j) => ({ op: 'put' as const, key: graveyardKey(`old-${i}-${j}`), value: '{}' })) });
    await store.txn({
      compare: [],
      ops: Array.from({ length: GRAVEYARD_SIZE - 301 }, (_, j) => ({ op: 'put' as const, key: graveyardKey(`more-${j}`), value: '{}' })).slice(0, 120),
    });
    await eventually(() => a.cache.tombstones().length === 1 + 300 + 120);
    for (let i = 0; i < 90; i++) await store.txn({ compare: [], ops: [{ op: 'put', key: graveyardKey(`late-${i}`), value: '{}' }] });
    await eventually(() => a.cache.tombstones().length === 511);
    await a.writer.delete('logs');
    await eventually(() => a.cache.tombstone('u2') !== undefined);
    expect(a.cache.tombstones()).toHaveLength(GRAVEYARD_SIZE);
    expect(a.cache.tombstone('u1')).toBeUndefined();
    expect((await store.range('folio/graveyard/')).kvs).toHaveLength(GRAVEYARD_SIZE);
  });

  it("bootstrap imports the nodes' indices once; later a free name is not imported again", async () => {
    const { cache, writer } = await process();
    await writer.create(metadata('kept', 'k1'));
    expect(await writer.bootstrap([metadata('kept', 'other'), metadata('old', 'o1', { version: 7 })])).toBe(1);
    expect(cache.bootstrapped).toBe(true);
    expect(cache.get('kept')!.metadata.uuid).toBe('k1');
    expect(cache.get('old')!.metadata.version).toBe(7);
    const fresh = await process();
    expect(fresh.cache.bootstrapped).toBe(true);
    expect(fresh.cache.names()).toEqual(['kept', 'old']);
  });

  it('a process started while the store is closed knows nothing, and a read says why', async () => {
    await store.close();
    const cache = await ClusterStateCache.open(store);
    caches.push(cache);
    expect(cache.loaded).toBe(false);
    await expect(new ClusterStateWriter(cache).update('logs', (m) => m)).rejects.toMatchObject({ status: 503, type: 'cluster_block_exception' });
    store = await EmbeddedStore.open({ dir });
  });
});
