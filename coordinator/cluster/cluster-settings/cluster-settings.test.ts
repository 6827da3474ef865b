// The coordinator's cluster settings over a store: typed reads (transient over persistent over the
// default), updates that bump each changed scope's version, retries after a lost race, the cache
// refreshed once stale, and the shard-node store's read (newest version wins) and quorum write.
import { describe, expect, it } from 'vitest';
import { emptyClusterSettings, type ClusterSettingsState, type ClusterSettingsUpdateRequest } from '../../../protocol/cluster-settings.ts';
import { ClusterSettings, SETTINGS_MAX_AGE_MS } from './cluster-settings.ts';
import { DESTRUCTIVE_REQUIRES_NAME, MAX_KEEP_ALIVE, MAX_SHARDS_PER_NODE } from './setting-definitions.ts';
import { newestSettings, SettingsConflict, type ClusterSettingsStore } from './settings-store.ts';
import { parseSettingsChanges } from './settings-update.ts';

/** A store in memory; `conflicts` makes the next writes lose a race (another writer bumps first). */
class MemoryStore implements ClusterSettingsStore {
  state: ClusterSettingsState = emptyClusterSettings();
  loads = 0;
  conflicts = 0;
  load(): Promise<ClusterSettingsState> {
    this.loads++;
    return Promise.resolve(this.state);
  }
  write(update: ClusterSettingsUpdateRequest): Promise<ClusterSettingsState> {
    if (this.conflicts > 0) {
      this.conflicts--;
      this.state = {
        ...this.state,
        persistent: { version: this.state.persistent.version + 1, settings: { ...this.state.persistent.settings, 'cluster.max_shards_per_node': '77' } },
      };
      return Promise.reject(new SettingsConflict('lost'));
    }
    this.state = { persistent: update.persistent ?? this.state.persistent, transient: update.transient ?? this.state.transient };
    return Promise.resolve(this.state);
  }
}

describe('ClusterSettings', () => {
  it("reads ES's defaults when nothing is set", () => {
    const s = new ClusterSettings(new MemoryStore());
    expect([s.get(DESTRUCTIVE_REQUIRES_NAME), s.get(MAX_KEEP_ALIVE), s.get(MAX_SHARDS_PER_NODE)]).toEqual([true, 86_400_000, 1000]);
  });

  it('stores an update with each changed scope one version up; transient wins over persistent', async () => {
    const store = new MemoryStore();
    const s = new ClusterSettings(store);
    const applied = await s.update(parseSettingsChanges({ persistent: { 'search.max_keep_alive': '1h' }, transient: { 'search.max_keep_alive': '2h' } }));
    expect([...applied.persistent, ...applied.transient]).toEqual([
      ['search.max_keep_alive', '1h'],
      ['search.max_keep_alive', '2h'],
    ]);
    expect([store.state.persistent.version, store.state.transient.version]).toEqual([1, 1]);
    expect(s.get(MAX_KEEP_ALIVE)).toBe(7_200_000);
    await s.update(parseSettingsChanges({ transient: { 'search.max_keep_alive': null } }));
    expect([store.state.persistent.version, store.state.transient.version]).toEqual([1, 2]);
    expect(s.get(MAX_KEEP_ALIVE)).toBe(3_600_000);
  });

  it('keeps search.default_keep_alive at most search.max_keep_alive, checked on the settings an update leaves (ES validateKeepAlives)', async () => {
    const store = new MemoryStore();
    const s = new ClusterSettings(store);
    const reason = (d: string, m: string) =>
      `Default keep alive setting for request [search.default_keep_alive] should be smaller than max keep alive [search.max_keep_alive], was (${d} > ${m})`;
    await expect(s.update(parseSettingsChanges({ transient: { 'search.max_keep_alive': '1m' } }))).rejects.toMatchObject({
      status: 400,
      type: 'illegal_argument_exception',
      message: reason('5m', '1m'),
    });
    await expect(s.update(parseSettingsChanges({ persistent: { 'search.default_keep_alive': '2d' } }))).rejects.toMatchObject({ message: reason('2d', '1d') });
    expect(store.state.transient.version + store.state.persistent.version).toBe(0);
    // both at once, and a reset of both, are fine; a transient max below a persistent default is not
    await s.update(parseSettingsChanges({ transient: { 'search.default_keep_alive': '1m', 'search.max_keep_alive': '1m' } }));
    await expect(s.update(parseSettingsChanges({ persistent: { 'search.default_keep_alive': '2m' } }))).resolves.toBeDefined();
    await expect(s.update(parseSettingsChanges({ transient: { 'search.default_keep_alive': null } }))).rejects.toMatchObject({ message: reason('2m', '1m') });
    await s.update(parseSettingsChanges({ transient: { 'search.default_keep_alive': null, 'search.max_keep_alive': null } }));
    expect(s.get(MAX_KEEP_ALIVE)).toBe(86_400_000);
  });

  it("reloads and applies its change again after losing a race, keeping the other writer's change", async () => {
    const store = new MemoryStore();
    store.conflicts = 2;
    const s = new ClusterSettings(store);
    await s.update(parseSettingsChanges({ persistent: { 'action.destructive_requires_name': 'false' } }));
    expect(store.state.persistent.settings).toEqual({ 'cluster.max_shards_per_node': '77', 'action.destructive_requires_name': 'false' });
    expect(store.state.persistent.version).toBe(3);
  });

  it('gives up with 503 when every attempt loses', async () => {
    const store = new MemoryStore();
    store.conflicts = 100;
    await expect(
      new ClusterSettings(store).update(parseSettingsChanges({ persistent: { 'action.destructive_requires_name': 'false' } })),
    ).rejects.toMatchObject({ status: 503 });
  });

  it('serves reads from its cache and refreshes it in the background once stale (a change made elsewhere)', async () => {
    const store = new MemoryStore();
    const clock = { now: 0 };
    const s = new ClusterSettings(store, () => clock.now);
    await s.refresh();
    store.state = { ...store.state, persistent: { version: 1, settings: { 'cluster.max_shards_per_node': '5' } } };
    expect(s.get(MAX_SHARDS_PER_NODE)).toBe(1000);
    clock.now += SETTINGS_MAX_AGE_MS;
    s.get(MAX_SHARDS_PER_NODE); // starts the refresh
    await new Promise((r) => setImmediate(r));
    expect(s.get(MAX_SHARDS_PER_NODE)).toBe(5);
    expect(await s.getFresh(MAX_SHARDS_PER_NODE)).toBe(5);
  });

  it('refuses an unknown setting before storing anything', async () => {
    const store = new MemoryStore();
    await expect(new ClusterSettings(store).update(parseSettingsChanges({ persistent: { 'indices.nope': 1 } }))).rejects.toMatchObject({
      status: 400,
      message: 'persistent setting [indices.nope], not recognized',
    });
    expect(store.state.persistent.version).toBe(0);
  });
});

describe('newestSettings', () => {
  it('takes the highest version of each scope independently', () => {
    const a: ClusterSettingsState = { persistent: { version: 3, settings: { a: '1' } }, transient: { version: 1, settings: { t: '1' } } };
    const b: ClusterSettingsState = { persistent: { version: 2, settings: { a: '0' } }, transient: { version: 4, settings: { t: '4' } } };
    expect(newestSettings([a, b])).toEqual({ persistent: a.persistent, transient: b.transient });
    expect(newestSettings([])).toEqual(emptyClusterSettings());
  });
});
