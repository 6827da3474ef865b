/**
 * The cluster settings a shard node holds for the coordinators (they are stateless): both scopes
 * with their versions, the persistent one durable through a {@link PersistentSettingsStore}. The
 * node also applies the settings that act on it: `search.max_open_scroll_context` and
 * `search.max_open_pit_context` (transient over persistent over the node's environment over the
 * default, as ES resolves a dynamic setting).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/settings.html#cluster-setting-types
 */
import { EsError } from '../protocol/errors.ts';
import {
  emptyClusterSettings,
  type ClusterSettingsState,
  type ClusterSettingsUpdateRequest,
  type ScopedClusterSettings,
} from '../protocol/cluster-settings.ts';
import type { PersistentSettingsStore } from './storage/cluster-settings-store.ts';

/** Receives the effective settings after each change (and once at start). */
export type SettingsListener = (effective: (key: string) => string | undefined) => void;

/** Whether `v` is a scope: a non-negative integer version and string values. */
function isScope(v: unknown): v is ScopedClusterSettings {
  if (v === null || typeof v !== 'object') return false;
  const { version, settings } = v as Partial<ScopedClusterSettings>;
  return (
    Number.isSafeInteger(version) &&
    (version as number) >= 0 &&
    settings !== null &&
    typeof settings === 'object' &&
    Object.values(settings).every((x) => typeof x === 'string')
  );
}

function sameSettings(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

/** See the module comment. */
export class NodeClusterSettings {
  private state: ClusterSettingsState = emptyClusterSettings();
  private readonly store: PersistentSettingsStore | null;
  private readonly listeners: SettingsListener[] = [];

  /** Loads the persistent scope from `store` (absent: memory only). */
  constructor(store?: PersistentSettingsStore) {
    this.store = store ?? null;
    if (this.store) this.state.persistent = this.store.load();
  }

  /** Both scopes as held here. */
  current(): ClusterSettingsState {
    return this.state;
  }

  /** The value of `key`: transient, else persistent; undefined when neither sets it. */
  effective(key: string): string | undefined {
    return this.state.transient.settings[key] ?? this.state.persistent.settings[key];
  }

  /** Calls `listener` now and after every change. */
  onChange(listener: SettingsListener): void {
    this.listeners.push(listener);
    listener((k) => this.effective(k));
  }

  /**
   * Stores each given scope whose version is higher than the one held here (the persistent one
   * durably); an older one is ignored, an equal one must be identical.
   * @throws EsError 409 `version_conflict_engine_exception` for an equal version with other settings;
   *   400 for a malformed scope
   * @returns the settings held after the call.
   */
  apply(update: ClusterSettingsUpdateRequest): ClusterSettingsState {
    const next: ClusterSettingsState = { ...this.state };
    for (const scope of ['persistent', 'transient'] as const) {
      const incoming: unknown = update?.[scope];
      if (incoming === undefined) continue;
      if (!isScope(incoming)) throw new EsError(400, 'illegal_argument_exception', `malformed [${scope}] cluster settings`);
      const mine = this.state[scope];
      if (incoming.version === mine.version && !sameSettings(incoming.settings, mine.settings)) {
        throw new EsError(
          409,
          'version_conflict_engine_exception',
          `[${scope}] cluster settings version [${incoming.version}] was written concurrently with other settings`,
        );
      }
      if (incoming.version > mine.version) next[scope] = { version: incoming.version, settings: Object.fromEntries(Object.entries(incoming.settings)) };
    }
    if (next.persistent !== this.state.persistent) this.store?.save(next.persistent);
    const changed = next.persistent !== this.state.persistent || next.transient !== this.state.transient;
    this.state = next;
    if (changed) for (const l of this.listeners) l((k) => this.effective(k));
    return this.state;
  }

  /** Closes the store. */
  close(): void {
    this.store?.close();
  }
}
