/**
 * The cluster settings kept in the cluster state (key `folio/cluster-settings`, docs/cluster-state.md):
 * read from the process's {@link ClusterStateCache} (a watch keeps it current, so a change made
 * through another coordinator applies here without polling), written with one compare-and-swap on
 * the revision read, so two coordinators can no longer both win (ES: the elected master publishes
 * each settings change in a new cluster state).
 *
 * Shard nodes apply some settings themselves (`search.max_open_scroll_context`,
 * `search.max_open_pit_context`), so each stored value is pushed to every node after a write, and
 * pushed again every {@link SETTINGS_PUSH_INTERVAL_MS} to catch a node that missed it. A store that
 * has never held settings imports, once, the newest the nodes kept before the store existed.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-update-settings.html
 */
import { noMasterBlock } from '../../../shared/cluster-state/no-master-block.ts';
import type { ClusterStateCache } from '../../../shared/cluster-state/cluster-state-cache.ts';
import { CLUSTER_SETTINGS_KEY } from '../../../shared/cluster-state/keys.ts';
import type { Logger } from '../../../shared/logger.ts';
import { emptyClusterSettings, type ClusterSettingsState, type ClusterSettingsUpdateRequest } from '../../../protocol/cluster-settings.ts';
import { isStateStoreError } from '../../../shared/state-store/errors.ts';
import type { KeyValue, TxnResult } from '../../../shared/state-store/types.ts';
import type { ShardClient } from '../../transport/shard-client.ts';
import { SettingsConflict, ShardNodeSettingsStore, type ClusterSettingsStore } from './settings-store.ts';

/** How often (ms) the stored settings are pushed to every node again (a node that missed a push, or restarted). */
export const SETTINGS_PUSH_INTERVAL_MS = 5_000;

/** Parses a stored settings value; the empty settings for an absent or unreadable one. */
function parseSettings(kv: KeyValue | undefined): ClusterSettingsState {
  if (!kv) return emptyClusterSettings();
  try {
    const s = JSON.parse(kv.value) as ClusterSettingsState;
    if (s?.persistent && s?.transient) return s;
  } catch {
    // fall through
  }
  return emptyClusterSettings();
}

/** {@link ClusterSettingsStore} on the cluster state; see the module comment. */
export class StateStoreSettingsStore implements ClusterSettingsStore {
  private readonly cache: ClusterStateCache;
  private readonly nodes: ShardNodeSettingsStore;
  private readonly log: Logger | undefined;
  private pushedAt = Number.NEGATIVE_INFINITY;
  private imported = false;

  /** `timeoutMs` bounds each push to a node (FOLIO_INTERNAL_TIMEOUT_MS). */
  constructor(cache: ClusterStateCache, client: ShardClient, timeoutMs: number, log?: Logger) {
    this.cache = cache;
    this.nodes = new ShardNodeSettingsStore(client, timeoutMs);
    this.log = log;
  }

  /** The stored settings (the cache's copy once it has read the store). @throws EsError 503 when the store cannot be read */
  async load(): Promise<ClusterSettingsState> {
    let kv = this.cache.loaded ? this.cache.clusterSettings : await this.read();
    if (!kv && !this.imported) kv = await this.importFromNodes();
    const state = parseSettings(kv);
    if (kv && Date.now() - this.pushedAt >= SETTINGS_PUSH_INTERVAL_MS) void this.push(state);
    return state;
  }

  /**
   * Stores the scopes of `update`, each of which must be one version above the stored one.
   * @throws SettingsConflict when another coordinator stored first; EsError 503 when the store cannot be reached
   */
  async write(update: ClusterSettingsUpdateRequest): Promise<ClusterSettingsState> {
    const kv = this.cache.loaded ? this.cache.clusterSettings : await this.read();
    const current = parseSettings(kv);
    for (const scope of ['persistent', 'transient'] as const) {
      const want = update[scope];
      if (want && want.version !== current[scope].version + 1)
        throw new SettingsConflict(`the stored ${scope} settings are at version ${current[scope].version}`);
    }
    const next: ClusterSettingsState = { persistent: update.persistent ?? current.persistent, transient: update.transient ?? current.transient };
    const value = JSON.stringify(next);
    let r: TxnResult;
    try {
      r = await this.cache.store.txn({
        compare: [kv ? { key: CLUSTER_SETTINGS_KEY, modRevision: kv.modRevision } : { key: CLUSTER_SETTINGS_KEY, createRevision: 0 }],
        ops: [{ op: 'put', key: CLUSTER_SETTINGS_KEY, value }],
      });
    } catch (err) {
      // The outcome may be unknown: the caller re-reads and, if this write applied, derives the next from it.
      if (isStateStoreError(err, 'unavailable')) throw new SettingsConflict(`the store failed during the write: ${err.message}`);
      if (isStateStoreError(err)) throw noMasterBlock(err.message);
      throw err;
    }
    if (!r.succeeded) {
      const now = r.current.get(CLUSTER_SETTINGS_KEY);
      if (now) this.cache.noteKv(now);
      throw new SettingsConflict('another coordinator stored the cluster settings first');
    }
    this.cache.noteKv({
      key: CLUSTER_SETTINGS_KEY,
      value,
      createRevision: kv?.createRevision ?? r.revision,
      modRevision: r.revision,
      version: (kv?.version ?? 0) + 1,
    });
    await this.push(next);
    return next;
  }

  /** Pushes both scopes to every node; a node that fails gets them at a later push. */
  private async push(state: ClusterSettingsState): Promise<void> {
    this.pushedAt = Date.now();
    await this.nodes.write({ persistent: state.persistent, transient: state.transient }).catch((err: Error) => {
      this.log?.debug({ err: err.message }, 'cluster settings push incomplete; repeated later');
    });
  }

  /** Reads the settings key from the store. @throws EsError 503 when the store cannot be reached */
  private async read(): Promise<KeyValue | undefined> {
    try {
      const kv = await this.cache.store.get(CLUSTER_SETTINGS_KEY);
      if (kv) this.cache.noteKv(kv);
      return kv;
    } catch (err) {
      if (isStateStoreError(err)) throw noMasterBlock(err.message);
      throw err;
    }
  }

  /**
   * Stores the newest settings the shard nodes hold, if they hold any and the store has none (a
   * cluster that kept its settings on the nodes before the store existed); tried until one read of
   * the nodes succeeds.
   */
  private async importFromNodes(): Promise<KeyValue | undefined> {
    let held: ClusterSettingsState;
    try {
      held = await this.nodes.load();
    } catch {
      return undefined;
    }
    this.imported = true;
    if (held.persistent.version === 0 && held.transient.version === 0) return undefined;
    try {
      await this.cache.store.txn({
        compare: [{ key: CLUSTER_SETTINGS_KEY, createRevision: 0 }],
        ops: [{ op: 'put', key: CLUSTER_SETTINGS_KEY, value: JSON.stringify(held) }],
      });
    } catch (err) {
      this.imported = false;
      if (isStateStoreError(err)) throw noMasterBlock(err.message);
      throw err;
    }
    this.log?.info({ persistent: held.persistent.version, transient: held.transient.version }, 'cluster settings imported from the shard nodes');
    return this.read();
  }
}
