// A shard node's cluster settings: newer versions replace, older are ignored, an equal version
// with other settings is a conflict; the persistent scope is durable, the transient one is not;
// the context limits follow transient over persistent over the node's own default.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../shared/logger.ts';
import { createShardNodeApp } from './app.ts';
import { NodeClusterSettings } from './cluster-settings.ts';
import { loadShardNodeConfig } from './config.ts';
import { IndexRegistry } from './index-registry.ts';
import { SqlitePersistentSettingsStore } from './storage/cluster-settings-store.ts';

describe('NodeClusterSettings', () => {
  it('takes newer versions, ignores older ones and refuses an equal version with other settings (409)', () => {
    const s = new NodeClusterSettings();
    s.apply({ persistent: { version: 2, settings: { a: '2' } } });
    s.apply({ persistent: { version: 1, settings: { a: '1' } } });
    expect(s.current().persistent).toEqual({ version: 2, settings: { a: '2' } });
    expect(() => s.apply({ persistent: { version: 2, settings: { a: 'x' } } })).toThrow(
      expect.objectContaining({ status: 409, type: 'version_conflict_engine_exception' }),
    );
    expect(s.apply({ persistent: { version: 2, settings: { a: '2' } } }).persistent.version).toBe(2);
  });

  it('refuses a malformed scope with 400 and keeps its settings', () => {
    const s = new NodeClusterSettings();
    for (const bad of [
      { persistent: { version: -1, settings: {} } },
      { transient: { version: 1, settings: { a: 1 } } },
      { persistent: { version: 1 } },
      { persistent: null },
    ]) {
      expect(() => s.apply(bad as never)).toThrow(expect.objectContaining({ status: 400 }));
    }
    expect(s.current().persistent.version).toBe(0);
  });

  it('keeps the persistent scope across a reopen of its data directory, not the transient one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'folio-node-settings-'));
    const a = new NodeClusterSettings(new SqlitePersistentSettingsStore(dir));
    a.apply({ persistent: { version: 4, settings: { p: '1' } }, transient: { version: 2, settings: { t: '1' } } });
    a.close();
    const b = new NodeClusterSettings(new SqlitePersistentSettingsStore(dir));
    expect(b.current()).toEqual({ persistent: { version: 4, settings: { p: '1' } }, transient: { version: 0, settings: {} } });
    b.close();
  });
});

describe('shard node app: cluster settings', () => {
  it('applies the PIT context limit: transient over persistent over FOLIO_MAX_OPEN_PIT_CONTEXT', async () => {
    const config = loadShardNodeConfig({ FOLIO_INSECURE: 'true', FOLIO_NODE_ID: 'n0', FOLIO_MAX_OPEN_PIT_CONTEXT: '2' });
    const app = createShardNodeApp(config, new IndexRegistry('n0'), createLogger('test', 'silent', {}));
    const call = (method: string, path: string, body?: unknown) =>
      app.request(`/_internal/v1${path}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
    const metadata = {
      name: 'i',
      uuid: 'u',
      numberOfShards: 1,
      numberOfReplicas: 0,
      routingNumShards: 1,
      maxResultWindow: 10,
      refreshIntervalMs: -1,
      mappings: { properties: {} },
      creationDate: 0,
      version: 1,
    };
    expect((await call('PUT', '/indices/i', { metadata, shards: [0] })).status).toBe(200);
    /** How many PIT contexts open before the node refuses one (429), closing them afterwards. */
    const capacity = async (): Promise<number> => {
      const ids: number[] = [];
      for (;;) {
        const res = await call('POST', '/contexts/open', { kind: 'pit', index: 'i', shard: 0, keepAliveMs: 60_000 });
        if (res.status === 429) break;
        ids.push(((await res.json()) as { context: number }).context);
        if (ids.length > 10) throw new Error('no limit');
      }
      await call('POST', '/contexts/close', { ids });
      return ids.length;
    };
    expect(await capacity()).toBe(2);
    await call('PUT', '/cluster_settings', { persistent: { version: 1, settings: { 'search.max_open_pit_context': '4' } } });
    expect(await capacity()).toBe(4);
    await call('PUT', '/cluster_settings', { transient: { version: 1, settings: { 'search.max_open_pit_context': '1' } } });
    expect(await capacity()).toBe(1);
    await call('PUT', '/cluster_settings', { transient: { version: 2, settings: {} }, persistent: { version: 2, settings: {} } });
    expect(await capacity()).toBe(2);
    expect(((await (await call('GET', '/cluster_settings')).json()) as { state: unknown }).state).toEqual({
      persistent: { version: 2, settings: {} },
      transient: { version: 2, settings: {} },
    });
  });
});
