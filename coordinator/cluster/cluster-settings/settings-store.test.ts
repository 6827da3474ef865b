// The shard-node store against real shard-node apps (in process, over HTTP): a write reaches every
// node and survives a node's restart from its data directory; a node that missed a change gets it
// on the next read; a lagging coordinator's write loses to a newer one (conflict, not overwrite).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../shared/logger.ts';
import { NodeClusterSettings } from '../../../shard-node/cluster-settings.ts';
import { createShardNodeApp } from '../../../shard-node/app.ts';
import { loadShardNodeConfig } from '../../../shard-node/config.ts';
import { IndexRegistry } from '../../../shard-node/index-registry.ts';
import { SqlitePersistentSettingsStore } from '../../../shard-node/storage/cluster-settings-store.ts';
import { ShardClient } from '../../transport/shard-client.ts';
import { SettingsConflict, ShardNodeSettingsStore } from './settings-store.ts';

const log = createLogger('test', 'silent', {});
const servers: ServerType[] = [];
const clients: ShardClient[] = [];
afterAll(async () => {
  for (const s of servers) s.close();
  await Promise.all(clients.map((c) => c.close()));
});

/** A shard node on a free port whose cluster settings live in `dataDir`. */
async function node(dataDir: string): Promise<{ url: string; settings: NodeClusterSettings }> {
  const config = loadShardNodeConfig({ FOLIO_INSECURE: 'true', FOLIO_NODE_ID: dataDir, FOLIO_DATA: dataDir });
  const settings = new NodeClusterSettings(new SqlitePersistentSettingsStore(dataDir));
  const app = createShardNodeApp(config, new IndexRegistry(config.nodeId), log, settings);
  const url = await new Promise<string>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(`http://127.0.0.1:${info.port}`));
    servers.push(s);
  });
  return { url, settings };
}

function storeOver(urls: string[]): ShardNodeSettingsStore {
  const client = new ShardClient(urls, { connectionsPerNode: 2, maxResponseBytes: 1 << 20 });
  clients.push(client);
  return new ShardNodeSettingsStore(client, 2_000);
}

describe('ShardNodeSettingsStore', () => {
  it('writes to every node, reads the newest, repairs a node that missed it, and survives a restart', async () => {
    const dirs = await Promise.all([0, 1, 2].map(() => mkdtemp(join(tmpdir(), 'folio-settings-'))));
    const nodes = await Promise.all(dirs.map(node));
    const store = storeOver(nodes.map((n) => n.url));
    const written = await store.write({
      persistent: { version: 1, settings: { 'cluster.max_shards_per_node': '5' } },
      transient: { version: 1, settings: { 'search.max_keep_alive': '1h' } },
    });
    expect(written.persistent.settings).toEqual({ 'cluster.max_shards_per_node': '5' });
    for (const n of nodes) expect(n.settings.current().persistent.version).toBe(1);
    // Node 2 "restarts" from its directory: the persistent scope is back, the transient one is gone…
    nodes[2].settings.close();
    const restarted = await node(dirs[2]);
    expect(restarted.settings.current()).toEqual({
      persistent: { version: 1, settings: { 'cluster.max_shards_per_node': '5' } },
      transient: { version: 0, settings: {} },
    });
    // …until a read through the cluster pushes the newest transient scope back to it.
    const store2 = storeOver([nodes[0].url, nodes[1].url, restarted.url]);
    expect((await store2.load()).transient.settings).toEqual({ 'search.max_keep_alive': '1h' });
    for (let i = 0; i < 50 && restarted.settings.current().transient.version === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(restarted.settings.current().transient).toEqual({ version: 1, settings: { 'search.max_keep_alive': '1h' } });
  });

  it('reports a conflict when another coordinator wrote the same or a newer version first', async () => {
    const dirs = await Promise.all([0, 1, 2].map(() => mkdtemp(join(tmpdir(), 'folio-settings-'))));
    const nodes = await Promise.all(dirs.map(node));
    const store = storeOver(nodes.map((n) => n.url));
    await store.write({ persistent: { version: 1, settings: { a: '1' } } });
    await store.write({ persistent: { version: 2, settings: { a: '2' } } });
    await expect(store.write({ persistent: { version: 2, settings: { a: 'other' } } })).rejects.toBeInstanceOf(SettingsConflict);
    await expect(store.write({ persistent: { version: 1, settings: { a: 'stale' } } })).rejects.toBeInstanceOf(SettingsConflict);
    expect((await store.load()).persistent).toEqual({ version: 2, settings: { a: '2' } });
  });

  it('answers 503 when no node can be read', async () => {
    await expect(storeOver(['http://127.0.0.1:1']).load()).rejects.toMatchObject({ status: 503 });
  });
});
