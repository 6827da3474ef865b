// The cluster settings on the cluster state, with real shard-node apps (in process, over HTTP) that
// apply what is pushed to them: two coordinators racing on one change (one wins, the other
// conflicts and derives its next write from the winner's), the push to every node, a node that
// missed a push catching up, and the one-time import of settings the nodes kept before the store.
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../shared/logger.ts';
import { CLUSTER_SETTINGS_KEY } from '../../../shared/cluster-state/keys.ts';
import { NodeClusterSettings } from '../../../shard-node/cluster-settings.ts';
import { createShardNodeApp } from '../../../shard-node/app.ts';
import { loadShardNodeConfig } from '../../../shard-node/config.ts';
import { IndexRegistry } from '../../../shard-node/index-registry.ts';
import { openTestClusterState, type TestClusterState } from '../../../test/support/cluster-state.ts';
import { ShardClient } from '../../transport/shard-client.ts';
import { ClusterSettings } from './cluster-settings.ts';
import { SettingsConflict, ShardNodeSettingsStore } from './settings-store.ts';
import { StateStoreSettingsStore } from './state-store-settings.ts';
import { parseSettingsChanges } from './settings-update.ts';

const log = createLogger('test', 'silent', {});
const servers: ServerType[] = [];
const clients: ShardClient[] = [];
const states: TestClusterState[] = [];
afterAll(async () => {
  for (const s of servers) s.close();
  await Promise.all(clients.map((c) => c.close()));
});
afterEach(async () => {
  for (const s of states.splice(0)) await s.close();
});

/** A shard node on a free port that holds (and applies) cluster settings in memory. */
async function node(): Promise<{ url: string; settings: NodeClusterSettings }> {
  const config = loadShardNodeConfig({ FOLIO_INSECURE: 'true', FOLIO_NODE_ID: 'n' });
  const settings = new NodeClusterSettings();
  const app = createShardNodeApp(config, new IndexRegistry(config.nodeId), log, settings);
  const url = await new Promise<string>((resolve) => {
    servers.push(serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(`http://127.0.0.1:${info.port}`)));
  });
  return { url, settings };
}

function clientOf(urls: string[]): ShardClient {
  const client = new ShardClient(urls, { connectionsPerNode: 2, maxResponseBytes: 1 << 20 });
  clients.push(client);
  return client;
}

async function state(): Promise<TestClusterState> {
  const s = await openTestClusterState();
  states.push(s);
  return s;
}

describe('StateStoreSettingsStore', () => {
  it('stores a change once when two coordinators race, and pushes the winner to every node', async () => {
    const nodes = await Promise.all([node(), node()]);
    const client = clientOf(nodes.map((n) => n.url));
    const shared = await state();
    const [a, b] = [new StateStoreSettingsStore(shared.access.cache, client, 2_000, log), new StateStoreSettingsStore(shared.access.cache, client, 2_000, log)];
    const outcomes = await Promise.allSettled([
      a.write({ persistent: { version: 1, settings: { 'cluster.max_shards_per_node': '5' } } }),
      b.write({ persistent: { version: 1, settings: { 'cluster.max_shards_per_node': '7' } } }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: expect.any(SettingsConflict) });
    const stored = JSON.parse((await shared.store.get(CLUSTER_SETTINGS_KEY))!.value);
    expect(stored.persistent.version).toBe(1);
    for (const n of nodes) expect(n.settings.current().persistent).toEqual(stored.persistent);

    // The ES-level update retries the loser on the winner's value.
    const settings = new ClusterSettings(b);
    await settings.update(parseSettingsChanges({ transient: { 'search.max_keep_alive': '1h' } }));
    const after = JSON.parse((await shared.store.get(CLUSTER_SETTINGS_KEY))!.value);
    expect(after).toMatchObject({ persistent: stored.persistent, transient: { version: 1, settings: { 'search.max_keep_alive': '1h' } } });
    for (const n of nodes) expect(n.settings.current().transient.version).toBe(1);
  });

  it('pushes the stored settings again to a node that missed them', async () => {
    const first = await node();
    const client = clientOf([first.url, 'http://127.0.0.1:1']);
    const s = await state();
    const store = new StateStoreSettingsStore(s.access.cache, client, 500, log);
    await store.write({ persistent: { version: 1, settings: { 'cluster.max_shards_per_node': '9' } } });
    expect(first.settings.current().persistent.version).toBe(1);
    // A node that restarted empty gets them at the next due push.
    const late = await node();
    const store2 = new StateStoreSettingsStore(s.access.cache, clientOf([late.url]), 2_000, log);
    const loaded = await store2.load();
    expect(loaded.persistent.settings).toEqual({ 'cluster.max_shards_per_node': '9' });
    await expect.poll(() => late.settings.current().persistent.version).toBe(1);
  });

  it('imports the settings the nodes kept before the store existed, once', async () => {
    const nodes = await Promise.all([node(), node()]);
    const client = clientOf(nodes.map((n) => n.url));
    await new ShardNodeSettingsStore(client, 2_000).write({ persistent: { version: 3, settings: { 'action.destructive_requires_name': 'false' } } });
    const s = await state();
    const store = new StateStoreSettingsStore(s.access.cache, client, 2_000, log);
    expect((await store.load()).persistent).toEqual({ version: 3, settings: { 'action.destructive_requires_name': 'false' } });
    expect(JSON.parse((await s.store.get(CLUSTER_SETTINGS_KEY))!.value).persistent.version).toBe(3);
  });
});
