// The two ends of a peer recovery and the primary-term checks through real shard-node apps,
// in-process (`app.request()` for the test's own calls; each app also listens on loopback, where a
// primary forwards its writes to the others): a primary on node 0 and an out-of-sync replica on
// node 1, with the calls the coordinator's recovery (coordinator/cluster/recovery.ts) makes, in its order.
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../shared/logger.ts';
import { INTERNAL_PREFIX } from '../protocol/echo.ts';
import { type IndexMetadata, type PutIndexRequest } from '../protocol/metadata.ts';
import { RECOVERY_CHUNK_DONE_HEADER, RECOVERY_CHUNK_OPS_HEADER } from '../protocol/recovery.ts';
import { createShardNodeApp } from './app.ts';
import { loadShardNodeConfig } from './config.ts';
import { IndexRegistry } from './index-registry.ts';
import type { TranslogOp } from './engine/translog.ts';
import { decodeRecoveryOps, RECOVERY_OPS_CONTENT_TYPE } from './recovery-wire.ts';

const metadata: IndexMetadata = {
  name: 'rec',
  uuid: 'u-rec',
  numberOfShards: 1,
  numberOfReplicas: 1,
  routingNumShards: 1,
  maxResultWindow: 10_000,
  refreshIntervalMs: -1,
  mappings: { properties: {} },
  creationDate: 1,
  version: 1,
  shardCopies: [
    [
      { node: 0, primary: true, inSync: true },
      { node: 1, primary: false, inSync: false },
    ],
  ],
};

const servers: ServerType[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

async function node(id: string) {
  const config = loadShardNodeConfig({ FOLIO_NODE_ID: id, FOLIO_LOG_LEVEL: 'silent', FOLIO_INSECURE: 'true' });
  const registry = new IndexRegistry(config.nodeId);
  const app = createShardNodeApp(config, registry, createLogger('shard-node', 'silent', {}));
  const url = await new Promise<string>((resolve) => {
    servers.push(serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(`http://127.0.0.1:${info.port}`)));
  });
  const call = async (path: string, body: unknown, method = 'POST') => {
    const res = await app.request(`${INTERNAL_PREFIX}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  /** `recovery/chunk`: the ops decoded, with the reply's headers. */
  const chunk = async (body: Record<string, unknown>) => {
    const res = await app.request(`${INTERNAL_PREFIX}/recovery/chunk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ maxBytes: 1 << 20, maxOps: 1000, primaryTerm: 1, ...body }),
    });
    if (res.status !== 200)
      return { status: res.status, bytes: new Uint8Array(), ops: [] as TranslogOp[], count: 0, done: false, error: ((await res.json()) as any).error };
    const bytes = new Uint8Array(await res.arrayBuffer());
    return {
      status: res.status,
      bytes,
      ops: await decodeRecoveryOps(bytes),
      count: Number(res.headers.get(RECOVERY_CHUNK_OPS_HEADER)),
      done: res.headers.get(RECOVERY_CHUNK_DONE_HEADER) === 'true',
    };
  };
  /** `recovery/apply` of a chunk's bytes. */
  const apply = async (meta: Record<string, unknown>, bytes: Uint8Array) => {
    const res = await app.request(`${INTERNAL_PREFIX}/recovery/apply?meta=${encodeURIComponent(JSON.stringify(meta))}`, {
      method: 'POST',
      headers: { 'content-type': RECOVERY_OPS_CONTENT_TYPE },
      body: bytes,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { registry, url, call, chunk, apply };
}

/** The `replication` of a bulk to a primary among `nodes` (by ordinal), as the coordinator sends it. */
const replicationOver = (nodes: { url: string }[], inSyncReplicas: number[] = []) => ({ nodes: nodes.map((n) => n.url), inSyncReplicas, timeoutMs: 2_000 });

const doc = (id: string, n: number) => ({ op: 'index', _id: id, source: JSON.stringify({ n }), create: false });

describe('peer recovery routes', () => {
  it('ops-based, then live writes through the replication group, then in sync on the primary; full copy once the translog is trimmed', async () => {
    const primary = await node('p');
    const target = await node('t');
    const replication = replicationOver([primary, target]);
    for (const [n, ordinal] of [
      [primary, 0],
      [target, 1],
    ] as const) {
      expect((await n.call('/indices/rec', { metadata, shards: [], node: ordinal } satisfies PutIndexRequest, 'PUT')).status).toBe(200);
    }
    // Before the recovery, the out-of-sync copy is not in the primary's replication group.
    const before = await primary.call('/bulk', {
      index: 'rec',
      shard: 0,
      ops: [doc('a', 1), doc('b', 1), doc('a', 2)],
      refresh: 'false',
      primaryTerm: 1,
      replication,
    });
    expect(before.body.replicas).toEqual({ acknowledged: [], failed: [] });
    expect((await target.call('/get', { index: 'rec', shard: 0, _id: 'a' })).body.found).toBe(false);
    const initial = (await target.call('/recovery/state', { index: 'rec', shard: 0 })).body;
    expect(initial).toMatchObject({ checkpoint: -1, maxSeqNo: -1, copyId: expect.any(String) });

    const start = await primary.call('/recovery/start', { index: 'rec', shard: 0, target: 1, fromSeqNo: -1, primaryTerm: 1 });
    expect(start.body).toMatchObject({ mode: 'ops', upTo: 2, recoveryId: expect.any(String) });
    const recoveryId = start.body.recoveryId;
    // From now on the primary forwards its writes to the recovering copy too (without waiting for it).
    const live = await primary.call('/bulk', { index: 'rec', shard: 0, ops: [doc('c', 1)], refresh: 'false', primaryTerm: 1, replication });
    expect(live.body.replicas).toEqual({ acknowledged: [], failed: [] });
    await expect.poll(async () => (await target.call('/get', { index: 'rec', shard: 0, _id: 'c' })).body).toMatchObject({ found: true, _seq_no: 3 });
    // The live write overtook the copy: the checkpoint waits for the gap below it.
    expect((await target.call('/recovery/state', { index: 'rec', shard: 0 })).body.checkpoint).toBe(-1);
    // The pinned ops are the state when tracking began (not the live write), read in chunks bounded in bytes.
    const first = await primary.chunk({ index: 'rec', shard: 0, recoveryId, maxBytes: 1 });
    expect([first.count, first.done, first.ops.map((o) => [o._id, o.seqNo])]).toEqual([1, false, [['a', 0]]]);
    const rest = await primary.chunk({ index: 'rec', shard: 0, recoveryId });
    expect([rest.count, rest.done, rest.ops.map((o) => [o._id, o.seqNo])]).toEqual([
      2,
      true,
      [
        ['b', 1],
        ['a', 2],
      ],
    ]);
    // The last chunk released the pin.
    expect((await primary.chunk({ index: 'rec', shard: 0, recoveryId })).status).toBe(404);
    const meta = { index: 'rec', shard: 0, primaryTerm: 1, copyId: initial.copyId };
    expect((await target.apply(meta, first.bytes)).body).toMatchObject({ applied: 1, checkpoint: -1 });
    const applied = await target.apply({ ...meta, upTo: start.body.upTo }, rest.bytes);
    expect(applied.body).toMatchObject({ applied: 2, checkpoint: 3 });
    expect((await target.call('/get', { index: 'rec', shard: 0, _id: 'a' })).body).toMatchObject({ found: true, _version: 2, _source: '{"n":2}' });

    const fin = await primary.call('/recovery/finalize', { index: 'rec', shard: 0, target: 1, primaryTerm: 1 });
    expect(fin.body.maxSeqNo).toBe(3);
    expect(fin.body.metadata.shardCopies[0][1]).toEqual({ node: 1, primary: false, inSync: true });
    // Finalized: an in-sync member of the primary's group, which the primary waits for.
    expect((await primary.call('/bulk', { index: 'rec', shard: 0, ops: [doc('d', 1)], refresh: 'false', primaryTerm: 1, replication })).body.replicas).toEqual({
      acknowledged: [1],
      failed: [],
    });
    expect((await target.call('/get', { index: 'rec', shard: 0, _id: 'd' })).body).toMatchObject({ found: true, _seq_no: 4 });
    // Finalizing a copy no recovery tracks is refused.
    expect((await primary.call('/recovery/finalize', { index: 'rec', shard: 0, target: 2, primaryTerm: 1 })).status).toBe(409);

    // After a refresh the in-memory translog no longer has the early ops: a full copy, tombstones included.
    await primary.call('/bulk', { index: 'rec', shard: 0, ops: [{ op: 'delete', _id: 'b' }], refresh: 'true', primaryTerm: 1, replication });
    const full = await primary.call('/recovery/start', { index: 'rec', shard: 0, target: 1, fromSeqNo: 0, primaryTerm: 1 });
    expect(full.body.mode).toBe('full');
    const copied = await primary.chunk({ index: 'rec', shard: 0, recoveryId: full.body.recoveryId });
    expect(copied.ops.map((o) => [o.op, o._id, o.version])).toEqual([
      ['index', 'a', 2],
      ['index', 'c', 1],
      ['index', 'd', 1],
      ['delete', 'b', 2],
    ]);
    // A cancelled recovery's pin is gone; a chunk of another shard's recovery is refused.
    const again = await primary.call('/recovery/start', { index: 'rec', shard: 0, target: 1, fromSeqNo: 0, primaryTerm: 1 });
    expect((await primary.chunk({ index: 'other', shard: 0, recoveryId: again.body.recoveryId })).status).toBe(404);
    expect((await primary.call('/recovery/cancel', { index: 'rec', shard: 0, recoveryId: again.body.recoveryId })).status).toBe(200);
    expect((await primary.chunk({ index: 'rec', shard: 0, recoveryId: again.body.recoveryId })).error.type).toBe('resource_not_found_exception');
  });

  it('primary terms: a promoted copy refuses the old term, and a demoted primary can neither write nor recover anyone', async () => {
    const old = await node('old');
    const heir = await node('heir');
    const inSync = {
      ...metadata,
      shardCopies: [
        [
          { node: 0, primary: true, inSync: true },
          { node: 1, primary: false, inSync: true },
        ],
      ],
    };
    await old.call('/indices/rec', { metadata: inSync, shards: [], node: 0 }, 'PUT');
    await heir.call('/indices/rec', { metadata: inSync, shards: [], node: 1 }, 'PUT');
    // The cluster state promotes the heir in term 2, and its value reaches the heir first.
    const promotedMetadata = {
      ...inSync,
      version: inSync.version + 1,
      primaryTerms: [2],
      shardCopies: [
        [
          { node: 1, primary: true, inSync: true },
          { node: 0, primary: false, inSync: false, resync: true },
        ],
      ],
    };
    expect((await heir.call('/indices/rec', { metadata: promotedMetadata, shards: [], node: 1 }, 'PUT')).status).toBe(200);
    const w = await heir.call('/bulk', { index: 'rec', shard: 0, ops: [doc('x', 1)], refresh: 'false', primaryTerm: 2 });
    expect(w.body.items[0]).toMatchObject({ status: 201, _primary_term: 2 });
    // The old primary, still in term 1 by its own metadata, writes; the new primary refuses what it forwards.
    const stale = await old.call('/bulk', {
      index: 'rec',
      shard: 0,
      ops: [doc('y', 1)],
      refresh: 'false',
      primaryTerm: 1,
      replication: replicationOver([old, heir], [1]),
    });
    expect(stale.body.replicas.acknowledged).toEqual([]);
    expect(stale.body.replicas.failed).toEqual([
      { node: 1, status: 409, type: 'illegal_state_exception', reason: expect.stringContaining('[rec][0] operation primary term [1] is too old, current [2]') },
    ]);
    // The old primary reports the failure until the cluster state has the copy out of sync.
    expect(old.registry.list()[0].pendingFailures).toEqual([{ shard: 0, node: 1, failures: 0 }]);
    expect((await heir.call('/get', { index: 'rec', shard: 0, _id: 'y' })).body.found).toBe(false);
    expect((await heir.call('/bulk', { index: 'rec', shard: 0, ops: [doc('z', 1)], refresh: 'false', primaryTerm: 1 })).status).toBe(409);
    // Once it has the new metadata (the coordinator's repair), the old primary is a replica that must be emptied and recover.
    await old.call('/indices/rec', { metadata: promotedMetadata, shards: [], node: 0 }, 'PUT');
    expect(old.registry.list()[0].pendingFailures).toBeUndefined(); // demoted: it reports nothing any more
    expect((await old.call('/recovery/start', { index: 'rec', shard: 0, target: 1, fromSeqNo: -1, primaryTerm: 2 })).body.error.type).toBe(
      'shard_not_in_primary_mode_exception',
    );
    const before = (await old.call('/recovery/state', { index: 'rec', shard: 0 })).body.copyId;
    const emptied = await old.call('/recovery/reset', { index: 'rec', shard: 0 });
    expect(emptied.body).toMatchObject({ checkpoint: -1, maxSeqNo: -1 });
    expect(emptied.body.copyId).not.toBe(before);
    expect((await old.call('/get', { index: 'rec', shard: 0, _id: 'y' })).body.found).toBe(false);
    // A recovery that started on the copy before it was emptied cannot declare it complete.
    const late = await old.apply({ index: 'rec', shard: 0, upTo: 5, primaryTerm: 2, copyId: before }, new Uint8Array());
    expect([late.status, late.body.error.reason]).toEqual([409, '[rec][0] the recovering copy was emptied or reopened since this recovery started']);
    expect((await old.call('/recovery/state', { index: 'rec', shard: 0 })).body.checkpoint).toBe(-1);
  });
});
