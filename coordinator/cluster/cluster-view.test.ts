import { afterEach, describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import type { FieldMapping, Mapping } from '../../protocol/mapping.ts';
import { type IndexMetadata, type PutIndexRequest } from '../../protocol/metadata.ts';
import { CLUSTER_MANAGER_ELECTION_PREFIX } from '../../shared/cluster-state/keys.ts';
import { Election } from '../../shared/state-store/election.ts';
import { openTestClusterState, type TestClusterState } from '../../test/support/cluster-state.ts';
import { IndexRegistry } from '../../shard-node/index-registry.ts';
import { ClusterView } from './cluster-view.ts';
import { applySettingsChanges, parseCreateIndexBody, parseSettingsUpdate } from './index-settings.ts';
import { rpc, type Rpc } from '../../protocol/rpc.ts';
import { ShardClient, type CallOptions } from '../transport/shard-client.ts';
import { ShardCallError } from '../transport/shard-call-error.ts';

/** A ShardClient whose nodes are in-memory registries answering the metadata calls; a node can be down. */
class NodesClient extends ShardClient {
  readonly registries: IndexRegistry[];
  readonly down = new Set<number>();
  /** When set, `GET /indices` replies wait for it (a reload in flight), with what the node held when asked. */
  gate: Promise<void> | null = null;
  /** When set, metadata pushes (`PUT /indices/{name}`) wait for it (a publication on its way). */
  hold: Promise<void> | null = null;
  constructor(n: number) {
    super(
      Array.from({ length: n }, (_, i) => `http://127.0.0.1:${9301 + i}`),
      { connectionsPerNode: 1, maxResponseBytes: 1 << 20 },
    );
    this.registries = Array.from({ length: n }, (_, i) => new IndexRegistry(`shard-${i}`));
  }

  override async rpc<Req, Res>(node: number, d: Rpc<Req, Res>, req: NoInfer<Req>, _opts: CallOptions): Promise<Res> {
    const url = this.nodes[node];
    if (this.down.has(node))
      throw new ShardCallError(url, 'connection', 503, { type: 'node_not_connected_exception', reason: `[${url}] connect ECONNREFUSED` });
    const r = this.registries[node];
    const id = `shard-${node}`;
    try {
      if (d.name === rpc.listIndices.name) {
        const indices = r.list();
        if (this.gate) await this.gate;
        return { node: id, indices } as Res;
      }
      if (d.name === rpc.putIndex.name) {
        if (this.hold) await this.hold;
        const put = req as PutIndexRequest;
        r.putIndex(put.metadata, put.shards, put.node);
        return { node: id, acknowledged: true } as Res;
      }
      if (d.name === rpc.deleteIndex.name) {
        r.deleteIndex((req as { index: string }).index);
        return { node: id, acknowledged: true } as Res;
      }
    } catch (err) {
      if (err instanceof EsError) throw new ShardCallError(url, 'response', err.status, { type: err.type, reason: err.message });
      throw err;
    }
    throw new Error(`unexpected call ${d.method} ${d.path}`);
  }
}

/** The in-sync state of shard 0's copies as node `n` holds it in its own metadata. */
const copiesOn = (client: NodesClient, n: number, index: string) =>
  client.registries[n].list().find((e) => e.metadata.name === index)!.metadata.shardCopies![0];

const states: TestClusterState[] = [];
/** A fresh stored cluster state (each test its own; two views of one cluster share one). */
async function clusterState(): Promise<TestClusterState> {
  const state = await openTestClusterState();
  states.push(state);
  return state;
}
afterEach(async () => {
  for (const s of states.splice(0)) await s.close();
});

describe('cluster view over the stored cluster state', () => {
  it('creates every copy on its node; another coordinator of the cluster sees the same copies', async () => {
    const client = new NodesClient(3);
    const state = await clusterState();
    const view = new ClusterView(client, 1_000, state.access);
    const created = await view.create('idx', parseCreateIndexBody({ settings: { number_of_shards: 3, number_of_replicas: 1 } }));
    created.copies.forEach((copies, s) => {
      expect(copies.map((c) => c.primary)).toEqual([true, false]);
      for (const c of copies) expect(client.registries[c.node].list()[0].shards).toContain(s);
    });
    const other = new ClusterView(client, 1_000, state.access);
    await other.reload();
    expect((await other.get('idx')).copies).toEqual(created.copies);
    expect(other.targets(await other.get('idx')).map((t) => [t.node, ...(t.alternates ?? [])].sort())).toEqual(
      created.copies.map((l) => l.map((c) => c.node).sort()),
    );
  });

  it('two coordinators creating one name at once make one index with one uuid on every node (issue 10, scenario 5)', async () => {
    const client = new NodesClient(3);
    const state = await clusterState();
    const [a, b] = [new ClusterView(client, 1_000, state.access), new ClusterView(client, 1_000, state.access)];
    const outcomes = await Promise.allSettled([a.create('idx', parseCreateIndexBody({})), b.create('idx', parseCreateIndexBody({}))]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { status: 400, type: 'resource_already_exists_exception' } });
    const uuid = (await a.get('idx')).metadata.uuid;
    await a.reload(); // pushes to a node that a losing create might have reached first
    await new Promise((r) => setImmediate(r));
    for (const r of client.registries) expect(r.list().map((e) => e.metadata.uuid)).toEqual([uuid]);
  });

  it('stores a failed replica out of sync while its node is down, and repairs that node when it returns', async () => {
    const client = new NodesClient(3);
    const view = new ClusterView(client, 1_000, (await clusterState()).access);
    const v = await view.create('idx', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 1 } }));
    const [primary, replica] = v.copies[0].map((c) => c.node);
    client.down.add(replica);
    const marked = await view.markOutOfSync('idx', 0, [replica]);
    expect(marked.copies[0].map((c) => c.inSync)).toEqual([true, false]);
    expect(view.targets(marked)[0]).toMatchObject({ node: primary, alternates: [] });
    for (const n of [0, 1, 2].filter((x) => x !== replica)) expect(copiesOn(client, n, 'idx').map((c) => c.inSync)).toEqual([true, false]);
    expect(copiesOn(client, replica, 'idx').map((c) => c.inSync)).toEqual([true, true]); // it was down
    client.down.delete(replica);
    await view.reload();
    await new Promise((r) => setImmediate(r));
    expect(copiesOn(client, replica, 'idx').map((c) => c.inSync)).toEqual([true, false]);
    expect(client.registries[replica].list()[0].copies).toEqual([{ shard: 0, primary: false, inSync: false }]);
  });

  it('never promotes a replica another coordinator has just taken out of sync (issue 10, scenario 1)', async () => {
    const client = new NodesClient(3);
    const state = await clusterState();
    const [c1, c2] = [new ClusterView(client, 1_000, state.access), new ClusterView(client, 1_000, state.access)];
    const v = await c1.create('idx', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 2 } }));
    const [, r1, r2] = v.copies[0].map((c) => c.node);
    // Both coordinators act at once: C1 fails r1 (a write failed on it), C2 promotes r1.
    const [marked, promotedOutcome] = await Promise.allSettled([c1.markOutOfSync('idx', 0, [r1]), c2.promote('idx', 0, r1)]);
    expect(marked.status).toBe('fulfilled');
    const stored = state.access.cache.get('idx')!.metadata;
    if (promotedOutcome.status === 'fulfilled') {
      // The promotion won the race: r1 is the primary of term 2 and marking it out of sync was a no-op.
      expect(stored.shardCopies![0].find((c) => c.primary)!.node).toBe(r1);
      expect(stored.primaryTerms![0]).toBe(2);
    } else {
      expect(promotedOutcome.reason).toMatchObject({ status: 400, type: 'illegal_argument_exception' });
      expect(stored.shardCopies![0].find((c) => c.node === r1)).toMatchObject({ primary: false, inSync: false });
      expect(stored.primaryTerms?.[0] ?? 1).toBe(1);
    }
    // Every node applies the one stored outcome.
    await c1.reload();
    await new Promise((r) => setImmediate(r));
    for (const n of [0, r1, r2]) expect(client.registries[n].list()[0].metadata).toEqual(stored);
  });

  it('a recovery cannot put a copy in sync when a write failed on it after the recovery started (fault suite, seed 1005)', async () => {
    const client = new NodesClient(2);
    const view = new ClusterView(client, 1_000, (await clusterState()).access);
    const v = await view.create('idx', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 1 } }));
    const replica = v.copies[0][1].node;
    const out = await view.markOutOfSync('idx', 0, [replica]);
    const atStart = out.copies[0][1].failures ?? 0; // what the recovery reads when it starts
    // After finalize, a write forwarded to the copy fails: the failure is stored though the copy is out already.
    await view.markOutOfSync('idx', 0, [replica]);
    await expect(view.markInSync('idx', 0, replica, undefined, atStart)).rejects.toMatchObject({ status: 409, type: 'illegal_state_exception' });
    expect((await view.get('idx')).copies[0][1].inSync).toBe(false);
    // A recovery that started after the failure may finish.
    const now = (await view.get('idx')).copies[0][1].failures ?? 0;
    expect((await view.markInSync('idx', 0, replica, undefined, now)).copies[0][1].inSync).toBe(true);
  });

  it("ignores a primary's report of a failure from before the copy's last stored failure (a reload that started before it failed and recovered)", async () => {
    const client = new NodesClient(2);
    const view = new ClusterView(client, 1_000, (await clusterState()).access);
    const v = await view.create('idx', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 1 } }));
    const [primary, replica] = v.copies[0].map((c) => c.node);
    // A write forwarded to the replica failed; the primary reports it (failure count 0 then).
    client.registries[primary].notePendingFailures('idx', 0, [replica], client.registries[primary].copiesOf('idx', 0));
    let release!: () => void;
    client.gate = new Promise((r) => (release = r));
    const reload = view.reload(); // the nodes answer now, with the pending failure ...
    await new Promise((r) => setImmediate(r));
    // ... while the failure is stored and the copy recovered and put back in sync.
    await view.markOutOfSync('idx', 0, [replica]);
    await view.markInSync('idx', 0, replica, undefined, 1);
    release();
    client.gate = null;
    await reload;
    const copy = (await view.get('idx')).copies[0].find((c) => c.node === replica)!;
    expect(copy).toMatchObject({ inSync: true, failures: 1 });
    expect(copy.pendingFailure).toBeUndefined();
    // A failure of the new in-sync period is reported and seen.
    client.registries[primary].notePendingFailures('idx', 0, [replica], client.registries[primary].copiesOf('idx', 0));
    await view.reload();
    expect((await view.get('idx')).copies[0].find((c) => c.node === replica)!.pendingFailure).toBe(true);
  });

  it('a promotion fenced by a cluster manager that lost its election is refused', async () => {
    const client = new NodesClient(2);
    const state = await clusterState();
    const view = new ClusterView(client, 1_000, state.access);
    const v = await view.create('idx', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 1 } }));
    const lease = await state.store.grantLease(30);
    const leadership = await new Election(state.store, CLUSTER_MANAGER_ELECTION_PREFIX).campaign(lease.id, 'c1');
    await state.store.revokeLease(lease.id);
    await expect(view.promote('idx', 0, v.copies[0][1].node, leadership.guard)).rejects.toMatchObject({ status: 503, type: 'cluster_block_exception' });
    expect(state.access.cache.get('idx')!.metadata.primaryTerms?.[0] ?? 1).toBe(1);
  });

  it('fails a change with cluster_block_exception when the store is unavailable: the write must not be acknowledged', async () => {
    const client = new NodesClient(2);
    const state = await clusterState();
    const view = new ClusterView(client, 1_000, state.access);
    const v = await view.create('idx', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 1 } }));
    await state.store.close();
    await expect(view.markOutOfSync('idx', 0, [v.copies[0][1].node])).rejects.toMatchObject({ status: 503, type: 'cluster_block_exception' });
    await expect(view.get('nope')).rejects.toMatchObject({ status: 503, type: 'cluster_block_exception' });
    // Reads of what is known go on.
    expect((await view.get('idx')).metadata.uuid).toBe(v.metadata.uuid);
  });

  it('keeps its view when no node answers', async () => {
    const client = new NodesClient(3);
    const view = new ClusterView(client, 1_000, (await clusterState()).access);
    await view.create('idx', parseCreateIndexBody({}));
    client.down.add(0).add(1).add(2);
    await view.reload();
    expect(view.names()).toEqual(['idx']);
    expect(view.nodeReplied(0)).toBe(false);
  });

  it('drops the copy of a node that was away when its index was deleted, and leaves unknown (dangling) indices alone', async () => {
    const client = new NodesClient(3);
    const view = new ClusterView(client, 1_000, (await clusterState()).access);
    await view.reload(); // bootstraps the empty store
    await view.create('old', parseCreateIndexBody({}));
    client.down.add(2);
    await view.delete('old');
    expect(client.registries[2].list().map((e) => e.metadata.name)).toEqual(['old']);
    const dangling = { ...(await view.create('d', parseCreateIndexBody({}))).metadata, name: 'dangling', uuid: 'never-stored' };
    client.registries[0].putIndex(dangling, [0], 0);
    client.down.delete(2);
    await view.reload();
    await new Promise((r) => setImmediate(r));
    expect(client.registries[2].list().map((e) => e.metadata.name)).toEqual(['d']);
    expect(
      client.registries[0]
        .list()
        .map((e) => e.metadata.name)
        .sort(),
    ).toEqual(['d', 'dangling']);
    expect(view.names()).toEqual(['d']);
  });

  it('imports the indices the nodes kept before the store existed, once', async () => {
    const client = new NodesClient(3);
    const before = new ClusterView(client, 1_000, (await clusterState()).access);
    const legacy = (await before.create('legacy', parseCreateIndexBody({ settings: { number_of_shards: 2 } }))).metadata;
    // A new, empty store (the cluster's first start on the consensus store): the nodes still hold the index.
    const view = new ClusterView(client, 1_000, (await clusterState()).access);
    await expect(view.get('legacy')).rejects.toMatchObject({ status: 404 });
    await view.reload();
    expect((await view.get('legacy')).metadata).toEqual(legacy);
    await view.delete('legacy');
    await view.reload();
    await new Promise((r) => setImmediate(r));
    expect(view.names()).toEqual([]);
  });

  it('places new replicas out of sync on a replicas change, and drops them again', async () => {
    const client = new NodesClient(3);
    const view = new ClusterView(client, 1_000, (await clusterState()).access);
    await view.create('idx', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 0 } }));
    const replicas = (n: number) => (m: IndexMetadata) => applySettingsChanges(m, parseSettingsUpdate({ number_of_replicas: n }));
    const more = await view.updateMetadata('idx', replicas(2));
    expect(more.copies[0].map((c) => [c.primary, c.inSync])).toEqual([
      [true, true],
      [false, false],
      [false, false],
    ]);
    for (const c of more.copies[0]) expect(client.registries[c.node].list()[0].shards).toEqual([0]);
    const fewer = await view.updateMetadata('idx', replicas(0));
    expect(fewer.copies[0]).toHaveLength(1);
    expect(client.registries.map((r) => r.list()[0].shards.length).reduce((a, b) => a + b)).toBe(1);
  });

  it('merges mappings on the stored value; a conflicting one is a 400 and changes nothing', async () => {
    const client = new NodesClient(2);
    const view = new ClusterView(client, 1_000, (await clusterState()).access);
    await view.create('idx', parseCreateIndexBody({}));
    const merged = await view.putMapping('idx', { properties: { x: { type: 'keyword' } } });
    expect(merged.metadata.mappings.properties.x).toEqual({ type: 'keyword' });
    for (const r of client.registries) expect(r.list()[0].metadata.mappings.properties.x).toEqual({ type: 'keyword' });
    const version = merged.metadata.version;
    await expect(view.putMapping('idx', { properties: { x: { type: 'long' } } })).rejects.toMatchObject({ status: 400 });
    expect((await view.putMapping('idx', { properties: { x: { type: 'keyword' } } })).metadata.version).toBe(version);
  });

  it('infers a dynamic mapping update from the stored mapping: two bulks adding one field with different types at once both succeed', async () => {
    const client = new NodesClient(2);
    const view = new ClusterView(client, 1_000, (await clusterState()).access);
    await view.create('idx', parseCreateIndexBody({}));
    const seen: unknown[] = [];
    const infer = (type: FieldMapping['type']) => (stored: Mapping) => {
      seen.push(stored.properties.x);
      return stored.properties.x ? null : { properties: { x: { type } } };
    };
    // Both infer from the mapping without `x`; the second to store loses the compare-and-swap and
    // infers again from the stored mapping, which has the winner's `x`: nothing to add, no conflict.
    const [a, b] = await Promise.all([view.updateMapping('idx', infer('long')), view.updateMapping('idx', infer('float'))]);
    expect(seen).toEqual([undefined, undefined, { type: 'long' }]);
    expect([a.metadata.mappings.properties.x, b.metadata.mappings.properties.x]).toEqual([{ type: 'long' }, { type: 'long' }]);
    for (const r of client.registries) expect(r.list()[0].metadata.mappings.properties.x).toEqual({ type: 'long' });
    // merging a given update instead (PUT _mapping) conflicts, as ES
    await expect(view.putMapping('idx', { properties: { x: { type: 'float' } } })).rejects.toMatchObject({ status: 400 });

    // A bulk that finds its field stored already still waits until the change that stored it has reached the nodes.
    let release!: () => void;
    client.hold = new Promise((r) => (release = r));
    const first = view.updateMapping('idx', () => ({ properties: { z: { type: 'long' } } }));
    while (!view.peek('idx')?.metadata.mappings.properties.z) await new Promise((r) => setTimeout(r, 1));
    let secondDone = false;
    const second = view
      .updateMapping('idx', (stored) => (stored.properties.z ? null : { properties: { z: { type: 'float' } } }))
      .then(() => (secondDone = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(secondDone).toBe(false);
    release();
    client.hold = null;
    await Promise.all([first, second]);
    for (const r of client.registries) expect(r.list()[0].metadata.mappings.properties.z).toEqual({ type: 'long' });
  });
});
