// Primary-driven replication between real shard-node apps on loopback (issue 10, scenario 2: a
// coordinator that dies mid-write must not leave a replica silently behind). The primary forwards
// what it applied to its in-sync replica itself, so the replica gets the op even when the caller of
// the bulk is gone; a replica that cannot be reached is reported, and stays reported by the primary
// (its node reload) until the cluster state has it out of sync.
import { serve, type ServerType } from '@hono/node-server';
import { connect, createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../shared/logger.ts';
import { INTERNAL_PREFIX } from '../protocol/echo.ts';
import { type IndexMetadata } from '../protocol/metadata.ts';
import { createShardNodeApp } from './app.ts';
import { loadShardNodeConfig } from './config.ts';
import { IndexRegistry } from './index-registry.ts';

const metadata: IndexMetadata = {
  name: 'rep',
  uuid: 'u-rep',
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
      { node: 1, primary: false, inSync: true },
    ],
  ],
};

const servers: ServerType[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

async function node(id: string, ordinal: number, env: Record<string, string> = {}) {
  const config = loadShardNodeConfig({ FOLIO_NODE_ID: id, FOLIO_LOG_LEVEL: 'silent', FOLIO_INSECURE: 'true', ...env });
  const registry = new IndexRegistry(config.nodeId);
  const app = createShardNodeApp(config, registry, createLogger('shard-node', 'silent', {}));
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as { port: number };
  registry.putIndex(metadata, [], ordinal);
  const call = async (path: string, body: unknown) => {
    const res = await app.request(`${INTERNAL_PREFIX}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { registry, server, url: `http://127.0.0.1:${port}`, port, call };
}

const doc = (id: string, n: number) => ({ op: 'index', _id: id, source: JSON.stringify({ n }), create: false });

describe('primary-driven replication', () => {
  it("the replica gets the write from the primary even when the bulk's caller dies mid-write", async () => {
    const primary = await node('p', 0);
    const replica = await node('r', 1);
    const body = JSON.stringify({
      index: 'rep',
      shard: 0,
      ops: [doc('a', 1), doc('b', 2)],
      refresh: 'false',
      primaryTerm: 1,
      replication: { nodes: [primary.url, replica.url], inSyncReplicas: [1], timeoutMs: 2_000 },
    });
    // The "coordinator" sends the whole request and is gone before any answer.
    await new Promise<void>((resolve, reject) => {
      const socket = connect(primary.port, '127.0.0.1', () => {
        socket.end(
          `POST ${INTERNAL_PREFIX}/bulk HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
        socket.destroy();
        resolve();
      });
      socket.on('error', reject);
    });
    for (const id of ['a', 'b']) {
      await expect.poll(async () => (await replica.call('/get', { index: 'rep', shard: 0, _id: id })).body).toMatchObject({ found: true, _version: 1 });
      const onPrimary = (await primary.call('/get', { index: 'rep', shard: 0, _id: id })).body;
      expect((await replica.call('/get', { index: 'rep', shard: 0, _id: id })).body).toMatchObject({ _seq_no: onPrimary._seq_no, _source: onPrimary._source });
    }
  });

  it('a replica that cannot be reached is reported, and stays pending on the primary until the cluster state has it out of sync', async () => {
    const primary = await node('p2', 0);
    const replica = await node('r2', 1);
    replica.server.close();
    await new Promise((r) => setTimeout(r, 50));
    const res = await primary.call('/bulk', {
      index: 'rep',
      shard: 0,
      ops: [doc('c', 1)],
      refresh: 'false',
      primaryTerm: 1,
      replication: { nodes: [primary.url, replica.url], inSyncReplicas: [1], timeoutMs: 1_000 },
    });
    expect(res.status).toBe(200);
    expect(res.body.items[0]).toMatchObject({ status: 201 });
    expect(res.body.replicas).toMatchObject({ acknowledged: [], failed: [{ node: 1, status: 503, type: 'node_not_connected_exception' }] });
    expect(primary.registry.list()[0].pendingFailures).toEqual([{ shard: 0, node: 1, failures: 0 }]);
    // A value of the cluster state that still has it in sync keeps it pending; one that has it out of sync clears it.
    primary.registry.putIndex({ ...metadata, version: 2, maxResultWindow: 5 }, [], 0);
    expect(primary.registry.list()[0].pendingFailures).toEqual([{ shard: 0, node: 1, failures: 0 }]);
    primary.registry.putIndex(
      {
        ...metadata,
        version: 3,
        shardCopies: [
          [
            { node: 0, primary: true, inSync: true },
            { node: 1, primary: false, inSync: false },
          ],
        ],
      },
      [],
      0,
    );
    expect(primary.registry.list()[0].pendingFailures).toBeUndefined();
  });

  it('a write counts as active on its primary until it has answered, replication included (activeWrites)', async () => {
    const primary = await node('p4', 0);
    // A replica node that takes the connection and never answers: the forward waits for its timeout.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    try {
      expect(primary.registry.list()[0].activeWrites).toBeUndefined();
      const bulk = primary.call('/bulk', {
        index: 'rep',
        shard: 0,
        ops: [doc('d', 1)],
        refresh: 'false',
        primaryTerm: 1,
        replication: { nodes: [primary.url, silentUrl], inSyncReplicas: [1], timeoutMs: 600 },
      });
      await expect.poll(() => primary.registry.list()[0].activeWrites).toEqual([{ shard: 0, writes: 1 }]);
      const res = await bulk;
      expect(res.body.replicas.failed).toMatchObject([{ node: 1 }]);
      expect(primary.registry.list()[0].activeWrites).toBeUndefined();
      // A refused write (a term this copy does not hold) releases nothing it did not take.
      expect((await primary.call('/bulk', { index: 'rep', shard: 0, ops: [doc('e', 1)], refresh: 'false', primaryTerm: 7 })).status).toBe(409);
      expect(primary.registry.list()[0].activeWrites).toBeUndefined();
    } finally {
      silent.close();
    }
  });

  it("a primary with its own FOLIO_NODES forwards to the replica at its own address, not the coordinator's", async () => {
    const replica = await node('r5', 1);
    // The coordinator's address of the replica refuses connections; the primary's own one is right.
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', () => resolve()));
    const deadUrl = `http://127.0.0.1:${(dead.address() as { port: number }).port}`;
    dead.close();
    const primary = await node('p5', 0, { FOLIO_NODES: `http://127.0.0.1:1,${replica.url}` });
    const res = await primary.call('/bulk', {
      index: 'rep',
      shard: 0,
      ops: [doc('f', 1)],
      refresh: 'false',
      primaryTerm: 1,
      replication: { nodes: [primary.url, deadUrl], inSyncReplicas: [1], timeoutMs: 1_000 },
    });
    expect(res.body.replicas).toEqual({ acknowledged: [1], failed: [] });
    expect((await replica.call('/get', { index: 'rep', shard: 0, _id: 'f' })).body).toMatchObject({ found: true });
    // Without its own list it uses the coordinator's, and the forward fails.
    const plain = await node('p6', 0);
    const again = await plain.call('/bulk', {
      index: 'rep',
      shard: 0,
      ops: [doc('g', 1)],
      refresh: 'false',
      primaryTerm: 1,
      replication: { nodes: [plain.url, deadUrl], inSyncReplicas: [1], timeoutMs: 1_000 },
    });
    expect(again.body.replicas.failed).toMatchObject([{ node: 1 }]);
  });

  it("the global checkpoint: the primary takes it from its in-sync replica's answers, the replica gets it with the next write, and the cluster state's failure of the replica lets it move on", async () => {
    const primary = await node('p7', 0);
    const replica = await node('r7', 1);
    const write = (id: string, nodes = [primary.url, replica.url]) =>
      primary.call('/bulk', {
        index: 'rep',
        shard: 0,
        ops: [doc(id, 1)],
        refresh: 'false',
        primaryTerm: 1,
        replication: { nodes, inSyncReplicas: [1], timeoutMs: 600 },
      });
    const shardOf = (n: typeof primary) => n.registry.shard('rep', 0);
    expect(shardOf(primary).globalCheckpoint).toBe(-1);
    await write('g1');
    expect(shardOf(primary).globalCheckpoint).toBe(0); // both copies hold seq_no 0
    expect(shardOf(replica).globalCheckpoint).toBe(-1); // it learns it with the next write
    await write('g2');
    expect(shardOf(primary).globalCheckpoint).toBe(1);
    expect(shardOf(replica).globalCheckpoint).toBe(0);
    expect(shardOf(replica).heldWithinGlobalCheckpoint).toBe(false); // it holds seq_no 1 above it
    // The replica cannot be reached: the checkpoint stays where both copies were.
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', () => resolve()));
    const goneUrl = `http://127.0.0.1:${(gone.address() as { port: number }).port}`;
    gone.close();
    expect((await write('g3', [primary.url, goneUrl])).body.replicas.failed).toMatchObject([{ node: 1 }]);
    expect(shardOf(primary).globalCheckpoint).toBe(1);
    expect(shardOf(primary).heldWithinGlobalCheckpoint).toBe(false);
    // Once the cluster state has it out of sync, the primary's own copy is the whole in-sync set.
    primary.registry.putIndex(
      {
        ...metadata,
        version: 2,
        shardCopies: [
          [
            { node: 0, primary: true, inSync: true },
            { node: 1, primary: false, inSync: false, failures: 1 },
          ],
        ],
      },
      [],
      0,
    );
    expect(shardOf(primary).globalCheckpoint).toBe(2);
    expect(shardOf(primary).heldWithinGlobalCheckpoint).toBe(true);
  });

  it("a recovery's first read raises the copy's operation term: ops of an older primary are refused from then on", async () => {
    const replica = await node('r8', 1);
    const replicate = (term: number) =>
      replica.call('/replicate', {
        index: 'rep',
        shard: 0,
        ops: [{ op: 'index', _id: 'x', seqNo: 0, version: 1, source: '{}' }],
        refresh: 'false',
        primaryTerm: term,
      });
    expect((await replica.call('/recovery/state', { index: 'rep', shard: 0, primaryTerm: 2 })).body).toMatchObject({
      checkpoint: -1,
      maxSeqNo: -1,
      globalCheckpoint: -1,
      withinGlobalCheckpoint: true,
    });
    expect((await replicate(1)).status).toBe(409);
    expect((await replicate(2)).status).toBe(200);
  });

  it('a failure noted for an in-sync period that has ended (the copy failed and recovered since) is dropped, not reported again', async () => {
    const primary = await node('p3', 0);
    primary.registry.notePendingFailures('rep', 0, [1], primary.registry.copiesOf('rep', 0));
    expect(primary.registry.list()[0].pendingFailures).toEqual([{ shard: 0, node: 1, failures: 0 }]);
    // The cluster state counted a later failure and the copy is in sync again (recovered): the
    // noted failure belongs to the period before, whose ops the recovery copied.
    primary.registry.putIndex(
      {
        ...metadata,
        version: 2,
        shardCopies: [
          [
            { node: 0, primary: true, inSync: true },
            { node: 1, primary: false, inSync: true, failures: 1 },
          ],
        ],
      },
      [],
      0,
    );
    expect(primary.registry.list()[0].pendingFailures).toBeUndefined();
    // A failure in the new period is tagged with its count.
    primary.registry.notePendingFailures('rep', 0, [1], primary.registry.copiesOf('rep', 0));
    expect(primary.registry.list()[0].pendingFailures).toEqual([{ shard: 0, node: 1, failures: 1 }]);
  });
});
