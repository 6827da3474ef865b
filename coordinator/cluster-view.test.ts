import { describe, expect, it } from 'vitest';
import { EsError } from '../shared/errors.ts';
import { INTERNAL_PREFIX, type InSyncUpdateRequest, type MetadataUpdateRequest, type PutIndexRequest } from '../shared/protocol.ts';
import { IndexRegistry } from '../shard-node/index-registry.ts';
import { ClusterView } from './cluster-view.ts';
import { parseCreateIndexBody } from './index-settings.ts';
import { ShardCallError, ShardClient, type CallOptions } from './shard-client.ts';

/** A ShardClient whose nodes are in-memory registries answering the metadata calls; a node can be down. */
class NodesClient extends ShardClient {
  readonly registries: IndexRegistry[];
  readonly down = new Set<number>();
  /** When set, `GET /indices` replies wait for it (a reload in flight), with what the node held when asked. */
  gate: Promise<void> | null = null;
  constructor(n: number) {
    super(Array.from({ length: n }, (_, i) => `http://127.0.0.1:${9301 + i}`), { connectionsPerNode: 1, maxResponseBytes: 1 << 20 });
    this.registries = Array.from({ length: n }, (_, i) => new IndexRegistry(`shard-${i}`));
  }

  override async call<T>(node: number, path: string, body: unknown, opts: CallOptions): Promise<T> {
    const url = this.nodes[node];
    if (this.down.has(node)) throw new ShardCallError(url, 'connection', 503, { type: 'node_not_connected_exception', reason: `[${url}] connect ECONNREFUSED` });
    const r = this.registries[node];
    const id = `shard-${node}`;
    const m = /^\/_internal\/v1\/indices(?:\/([^/]+)(?:\/(_\w+))?)?$/.exec(path);
    try {
      if (m && opts.method === 'GET') {
        const indices = r.list();
        if (this.gate) await this.gate;
        return { node: id, indices } as T;
      }
      const index = decodeURIComponent(m![1]);
      if (m![2] === undefined && opts.method === 'PUT') {
        const req = body as PutIndexRequest;
        r.putIndex(req.metadata, req.shards, req.node);
        return { node: id, acknowledged: true } as T;
      }
      if (m![2] === undefined && opts.method === 'DELETE') {
        r.deleteIndex(index);
        return { node: id, acknowledged: true } as T;
      }
      if (m![2] === '_in_sync') return { node: id, metadata: r.markOutOfSync(index, (body as InSyncUpdateRequest).shard, (body as InSyncUpdateRequest).nodes) } as T;
      if (m![2] === '_metadata') return { node: id, metadata: r.updateMetadata(index, body as MetadataUpdateRequest) } as T;
      if (m![2] === '_mapping') return { node: id, metadata: r.mergeMapping(index, body as never) } as T;
    } catch (err) {
      if (err instanceof EsError) throw new ShardCallError(url, 'response', err.status, { type: err.type, reason: err.message });
      throw err;
    }
    throw new Error(`unexpected call ${opts.method} ${path}`);
  }
}

/** The in-sync state of shard 0's copies as node `n` holds it in its own metadata. */
const copiesOn = (client: NodesClient, n: number, index: string) => client.registries[n].list().find((e) => e.metadata.name === index)!.metadata.shardCopies![0];

describe('cluster view: copies and their in-sync state', () => {
  it('creates every copy on its node, reads in-sync copies only, and rebuilds the same view from the nodes', async () => {
    const client = new NodesClient(3);
    const view = new ClusterView(client, 1_000);
    const created = await view.create('idx', parseCreateIndexBody({ settings: { number_of_shards: 3, number_of_replicas: 1 } }));
    created.copies.forEach((copies, s) => {
      expect(copies.map((c) => c.primary)).toEqual([true, false]);
      for (const c of copies) expect(client.registries[c.node].list()[0].shards).toContain(s);
    });
    const fresh = new ClusterView(client, 1_000);
    await fresh.reload();
    expect((await fresh.get('idx')).copies).toEqual(created.copies);
    expect(fresh.targets(await fresh.get('idx')).map((t) => [t.node, ...(t.alternates ?? [])].sort())).toEqual(created.copies.map((l) => l.map((c) => c.node).sort()));
  });

  it('marks a failed replica out of sync durably on the reachable nodes (majority), and repairs the node that missed it', async () => {
    const client = new NodesClient(3);
    const view = new ClusterView(client, 1_000);
    const v = await view.create('idx', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 1 } }));
    const [primary, replica] = v.copies[0].map((c) => c.node);
    client.down.add(replica);
    const marked = await view.markOutOfSync('idx', 0, [replica]);
    expect(marked.copies[0].map((c) => c.inSync)).toEqual([true, false]);
    expect(view.targets(marked)[0]).toMatchObject({ node: primary, alternates: [] });
    for (const n of [0, 1, 2].filter((x) => x !== replica)) expect(copiesOn(client, n, 'idx').map((c) => c.inSync)).toEqual([true, false]);
    expect(copiesOn(client, replica, 'idx').map((c) => c.inSync)).toEqual([true, true]); // it was down
    // It returns: a reload takes the newest version and pushes it to the node that missed it.
    client.down.delete(replica);
    await view.reload();
    expect((await view.get('idx')).copies[0].map((c) => c.inSync)).toEqual([true, false]);
    await new Promise((r) => setImmediate(r));
    expect(copiesOn(client, replica, 'idx').map((c) => c.inSync)).toEqual([true, false]);
    expect(client.registries[replica].list()[0].copies).toEqual([{ shard: 0, primary: false, inSync: false }]);
  });

  it('refuses to mark without the primary’s node or without a majority: the write must not be acknowledged', async () => {
    const client = new NodesClient(3);
    const view = new ClusterView(client, 1_000);
    const v = await view.create('idx', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 2 } }));
    const [primary, r1, r2] = v.copies[0].map((c) => c.node);
    client.down.add(primary);
    await expect(view.markOutOfSync('idx', 0, [r1])).rejects.toMatchObject({ status: 503, type: 'cluster_block_exception' });
    client.down.delete(primary);
    client.down.add(r1).add(r2);
    await expect(view.markOutOfSync('idx', 0, [r1, r2])).rejects.toThrow(/1 of 3 shard nodes, 2 needed/);
    await expect(view.putMapping('idx', { properties: { x: { type: 'keyword' } } })).rejects.toMatchObject({ status: 503 });
    client.down.delete(r2);
    const merged = await view.putMapping('idx', { properties: { x: { type: 'keyword' } } });
    expect(merged.metadata.mappings.properties.x).toEqual({ type: 'keyword' });
  });

  it('never steps back to an older version than it holds, and keeps its view when no node answers', async () => {
    const client = new NodesClient(3);
    const view = new ClusterView(client, 1_000);
    const v = await view.create('idx', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 1 } }));
    const replica = v.copies[0][1].node;
    client.down.add(0).add(1).add(2);
    await view.reload();
    expect(view.names()).toEqual(['idx']);
    client.down.clear();
    client.down.add(replica);
    await view.markOutOfSync('idx', 0, [replica]);
    // Only the stale node answers the reload: the view keeps the newer in-sync state.
    for (const n of [0, 1, 2]) if (n !== replica) client.down.add(n);
    client.down.delete(replica);
    await view.reload();
    expect((await view.get('idx')).copies[0][1].inSync).toBe(false);
  });

  it('keeps changes made while a reload was reading the nodes: a deleted index stays deleted, a new mapping stays', async () => {
    const client = new NodesClient(3);
    const view = new ClusterView(client, 1_000);
    await view.create('old', parseCreateIndexBody({}));
    await view.create('kept', parseCreateIndexBody({}));
    let open!: () => void;
    client.gate = new Promise((r) => (open = r));
    const loading = view.reload(); // reads the nodes before the changes below
    await new Promise((r) => setImmediate(r));
    client.gate = null;
    await view.delete('old');
    await view.putMapping('kept', { properties: { x: { type: 'keyword' } } });
    open();
    await loading;
    expect(view.names()).toEqual(['kept']);
    expect(view.peek('kept')!.metadata.mappings.properties.x).toEqual({ type: 'keyword' });
  });

  it('places new replicas out of sync on a replicas change, and drops them again', async () => {
    const client = new NodesClient(3);
    const view = new ClusterView(client, 1_000);
    await view.create('idx', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 0 } }));
    const more = await view.putMetadata('idx', { numberOfReplicas: 2 });
    expect(more.copies[0].map((c) => [c.primary, c.inSync])).toEqual([[true, true], [false, false], [false, false]]);
    for (const c of more.copies[0]) expect(client.registries[c.node].list()[0].shards).toEqual([0]);
    const fewer = await view.putMetadata('idx', { numberOfReplicas: 0 });
    expect(fewer.copies[0]).toHaveLength(1);
    expect(client.registries.map((r) => r.list()[0].shards.length).reduce((a, b) => a + b)).toBe(1);
  });
});
