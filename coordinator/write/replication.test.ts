// A write whose primary was demoted while it ran (fault suite, seed 1 in CI: an acknowledged
// `_version` 2 at term 1 was followed by another `_version` 2 at term 2). The promotion is stored,
// the new primary has the new term, but the old primary has not heard of it yet: it applies the
// write at the old term and forwards it to the new primary, which refuses the old term. Marking
// that "replica" out of sync changes nothing (it is the primary now), so the write used to be
// acknowledged at a term whose primary no longer exists, and the promoted copy never had it. As in
// ES (`ReplicationOperation.onPrimaryDemoted` → `RetryOnPrimaryException`), the write is not
// acknowledged by the demoted primary: it is retried once on the new one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, type JsonText, type Rpc } from '../../protocol/rpc.ts';
import { type WriteOp } from '../../protocol/write.ts';
import { InProcessShardNodes } from '../../test/support/in-process-shard-nodes.ts';
import { openTestClusterState, type TestClusterState } from '../../test/support/cluster-state.ts';
import { ClusterView } from '../cluster/cluster-view.ts';
import { PrimaryDemotedError } from '../cluster/copy-state-changes.ts';
import { parseCreateIndexBody } from '../cluster/index-settings.ts';
import { writeShard } from './replication.ts';
import { ShardClient, type CallOptions } from '../transport/shard-client.ts';

/** A real ShardClient whose metadata pushes to the nodes in `cutOff` are lost (the node keeps its older value). */
class PushLosingClient extends ShardClient {
  readonly cutOff = new Set<number>();
  /** Primary bulk calls, by node, in order. */
  readonly bulks: number[] = [];
  override rpc<Req, Res>(node: number, d: Rpc<Req, Res>, req: NoInfer<Req> | JsonText<NoInfer<Req>>, opts: CallOptions): Promise<Res> {
    if (this.cutOff.has(node) && d.name === rpc.putIndex.name) return Promise.reject(new Error('push lost'));
    if (d.name === rpc.bulk.name) this.bulks.push(node);
    return super.rpc(node, d, req, opts);
  }
}

const nodes = new InProcessShardNodes();
let state: TestClusterState;
let client: PushLosingClient;
let view: ClusterView;

beforeAll(async () => {
  const urls = [await nodes.start(0), await nodes.start(1)];
  client = new PushLosingClient(urls, { connectionsPerNode: 2, maxResponseBytes: 1 << 20, batchCalls: false });
  state = await openTestClusterState();
  view = new ClusterView(client, 2_000, state.access);
});

afterAll(async () => {
  await state.close();
  await nodes.close();
});

const doc = (id: string, n: number): WriteOp => ({ op: 'index', _id: id, source: JSON.stringify({ n }), create: false });

describe('a write whose primary was demoted meanwhile', () => {
  it('is not acknowledged at the old term: it is retried on the promoted copy', async () => {
    const created = await view.create('demoted', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 1 } }));
    const [oldPrimary, replica] = created.copies[0].map((c) => c.node);
    const first = await writeShard({ view, client, timeoutMs: 2_000 }, created, 0, [doc('a', 1)], 'false');
    expect(first.items[0]).toMatchObject({ _version: 1, _primary_term: 1 });
    expect(first.shardInfo).toMatchObject({ total: 2, successful: 2, failed: 0 });

    // The promotion is stored and reaches the replica, but not the old primary.
    client.cutOff.add(oldPrimary);
    const promoted = await view.promote('demoted', 0, replica);
    expect(promoted.placement[0]).toBe(replica);
    client.cutOff.clear();

    // A coordinator that still holds the term-1 view writes through the old primary.
    client.bulks.length = 0;
    const out = await writeShard({ view, client, timeoutMs: 2_000 }, created, 0, [doc('a', 2)], 'false');
    expect(client.bulks).toEqual([oldPrimary, replica]);
    expect(out.items[0]).toMatchObject({ _id: 'a', _version: 2, _primary_term: 2 });
    // The promoted primary holds the write it acknowledged, and stays the in-sync primary.
    const got = await client.rpc(replica, rpc.get, { index: 'demoted', shard: 0, _id: 'a' }, { timeoutMs: 2_000 });
    expect(got).toMatchObject({ found: true, _version: 2 });
    const stored = state.access.cache.get('demoted')!.metadata;
    expect(stored.primaryTerms?.[0]).toBe(2);
    expect(stored.shardCopies![0].find((c) => c.node === replica)).toMatchObject({ primary: true, inSync: true });
  });

  it('refused by a copy that knows it is no longer primary: retried on the new primary once the view names it', async () => {
    const created = await view.create('moved', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 1 } }));
    const [oldPrimary, replica] = created.copies[0].map((c) => c.node);
    await writeShard({ view, client, timeoutMs: 2_000 }, created, 0, [doc('m', 1)], 'false');
    // The promotion reaches both nodes; a coordinator still holding the term-1 view writes through the old primary.
    await view.promote('moved', 0, replica);
    client.bulks.length = 0;
    const out = await writeShard({ view, client, timeoutMs: 2_000 }, created, 0, [doc('m', 2)], 'false');
    expect(client.bulks).toEqual([oldPrimary, replica]);
    expect(out.items[0]).toMatchObject({ _id: 'm', _version: 2, _primary_term: 2 });
  });

  it('marking a failed replica out of sync with a term the store has left throws PrimaryDemotedError and stores nothing', async () => {
    const created = await view.create('demoted-mark', parseCreateIndexBody({ settings: { number_of_shards: 1, number_of_replicas: 1 } }));
    const [, replica] = created.copies[0].map((c) => c.node);
    await view.promote('demoted-mark', 0, replica);
    const before = state.access.cache.get('demoted-mark')!;
    const marked = view.markOutOfSync('demoted-mark', 0, [replica], 1);
    await expect(marked).rejects.toBeInstanceOf(PrimaryDemotedError);
    await expect(marked).rejects.toMatchObject({ status: 503, type: 'retry_on_primary_exception' });
    expect(state.access.cache.get('demoted-mark')!.modRevision).toBe(before.modRevision);
    // With the current term, a failed replica is taken out of sync as before.
    const oldPrimary = created.copies[0][0].node;
    const out = await view.markOutOfSync('demoted-mark', 0, [oldPrimary], 2);
    expect(out.copies[0].find((c) => c.node === oldPrimary)).toMatchObject({ primary: false, inSync: false });
  });
});
