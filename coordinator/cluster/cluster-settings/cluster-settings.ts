/**
 * The cluster settings as one coordinator uses them: a cached copy of the {@link ClusterSettingsStore}
 * (refreshed in the background once it is older than {@link SETTINGS_MAX_AGE_MS}, so a change made
 * through another coordinator applies here within about a second), typed reads resolved as ES does
 * (transient, else persistent, else the default), and ES's update of `PUT /_cluster/settings`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-update-settings.html#cluster-update-settings-api-desc
 */
import { EsError } from '../../../protocol/errors.ts';
import { emptyClusterSettings, type ClusterSettingsState, type ClusterSettingsUpdateRequest } from '../../../protocol/cluster-settings.ts';
import { checkKeepAliveSettings, type SettingDefinition } from './setting-definitions.ts';
import { SettingsConflict, type ClusterSettingsStore } from './settings-store.ts';
import { applyScopeChanges, type SettingsChanges } from './settings-update.ts';

/** A cached copy older than this (ms) is refreshed in the background by the next read. */
export const SETTINGS_MAX_AGE_MS = 1_000;
/** Attempts of one update that keeps losing races with other coordinators' writes. */
export const UPDATE_ATTEMPTS = 5;

/** What an update changed: per scope, the keys it set (ES's reply echoes these). */
export type AppliedUpdate = Record<'persistent' | 'transient', Map<string, string>>;

/** See the module comment. */
export class ClusterSettings {
  private readonly store: ClusterSettingsStore;
  private readonly now: () => number;
  private state: ClusterSettingsState = emptyClusterSettings();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<ClusterSettingsState> | null = null;
  /** Counts this coordinator's completed writes: a read that started before one must not undo it. */
  private writes = 0;

  constructor(store: ClusterSettingsStore, now: () => number = Date.now) {
    this.store = store;
    this.now = now;
  }

  /** Reads the store now (concurrent calls share one read). @throws EsError 503 when unreadable */
  refresh(): Promise<ClusterSettingsState> {
    const writesBefore = this.writes;
    this.loading ??= this.store
      .load()
      .then((s) => (this.writes === writesBefore ? this.adopt(s) : this.state))
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }

  /** The cached settings; starts a background refresh when they are stale. */
  cached(): ClusterSettingsState {
    if (this.loading === null && this.now() - this.loadedAt >= SETTINGS_MAX_AGE_MS) void this.refresh().catch(() => undefined);
    return this.state;
  }

  /** The value of a setting from the cached settings: transient, else persistent, else the default. */
  get<T>(def: SettingDefinition<T>): T {
    const s = this.cached();
    return def.parse(s.transient.settings[def.key] ?? s.persistent.settings[def.key] ?? def.defaultValue);
  }

  /** As {@link ClusterSettings.get}, after reading the store (for rare decisions that must see the latest value). */
  async getFresh<T>(def: SettingDefinition<T>): Promise<T> {
    await this.refresh();
    return this.get(def);
  }

  /**
   * Applies `changes` (parsed by `parseSettingsChanges`) on top of the newest stored settings and
   * stores the changed scopes, retrying when another coordinator wrote first.
   * @returns the keys set, per scope.
   * @throws EsError 400 for an unknown setting or invalid value; 503 when it cannot be stored
   */
  async update(changes: SettingsChanges): Promise<AppliedUpdate> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.refresh();
      const request: ClusterSettingsUpdateRequest = {};
      const applied: AppliedUpdate = { persistent: new Map(), transient: new Map() };
      for (const scope of ['persistent', 'transient'] as const) {
        if (changes[scope].size === 0) continue;
        const { next, updated } = applyScopeChanges(scope, current[scope].settings, changes[scope]);
        applied[scope] = updated;
        request[scope] = { version: current[scope].version + 1, settings: next };
      }
      const after = (scope: 'persistent' | 'transient') => request[scope]?.settings ?? current[scope].settings;
      checkKeepAliveSettings((key) => after('transient')[key] ?? after('persistent')[key]);
      try {
        this.adopt(await this.store.write(request));
        this.writes++;
        return applied;
      } catch (err) {
        if (!(err instanceof SettingsConflict)) throw err;
        if (attempt >= UPDATE_ATTEMPTS) throw new EsError(503, 'cluster_block_exception', `cluster settings kept changing concurrently: ${err.message}`);
      }
    }
  }

  /**
   * Takes the store's settings as they are: the store is the truth, and versions may start over
   * (transient settings after every shard node restarted).
   */
  private adopt(s: ClusterSettingsState): ClusterSettingsState {
    this.state = s;
    this.loadedAt = this.now();
    return this.state;
  }
}
