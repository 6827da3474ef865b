/**
 * Where the coordinators keep the cluster settings, behind one small interface. The cluster state
 * holds them (state-store-settings.ts, the store the coordinator uses); {@link ShardNodeSettingsStore}
 * is the shard nodes' copy, which the nodes need because they apply some settings themselves: the
 * state-store settings push each stored value through its `write`, and import from its `load` the
 * settings that nodes kept before the cluster state moved to the store.
 *
 * {@link ShardNodeSettingsStore}: every shard node holds both scopes; a read asks every node and
 * takes, per scope, the highest version (pushing it to nodes that report an older one); a write goes
 * to every node and succeeds once a majority stored it. A node refuses a write at its own version
 * with other settings (409).
 */
import { EsError } from '../../../protocol/errors.ts';
import { emptyClusterSettings, type ClusterSettingsState, type ClusterSettingsUpdateRequest } from '../../../protocol/cluster-settings.ts';
import { rpc } from '../../../protocol/rpc.ts';
import type { ShardClient } from '../../transport/shard-client.ts';
import { ShardCallError } from '../../transport/shard-call-error.ts';

/** Storage of the cluster settings shared by every coordinator. */
export interface ClusterSettingsStore {
  /** The newest settings. @throws EsError 503 when they cannot be read */
  load(): Promise<ClusterSettingsState>;
  /**
   * Stores the given scopes, each with a version one above the one it was derived from.
   * @returns the settings after the write.
   * @throws {@link SettingsConflict} when another writer stored the same version first; EsError 503
   *   when the write cannot be made durable
   */
  write(update: ClusterSettingsUpdateRequest): Promise<ClusterSettingsState>;
}

/** A write lost a race with another coordinator's: reload and retry. */
export class SettingsConflict extends Error {}

/** Deadline of one node's read of the settings. */
export const SETTINGS_READ_TIMEOUT_MS = 3_000;

/** The newer of each scope across `states`. */
export function newestSettings(states: readonly ClusterSettingsState[]): ClusterSettingsState {
  const out = emptyClusterSettings();
  for (const s of states) {
    if (s.persistent.version > out.persistent.version) out.persistent = s.persistent;
    if (s.transient.version > out.transient.version) out.transient = s.transient;
  }
  return out;
}

/** Whether `state` holds every scope of `update` (same version, same settings). */
function holds(state: ClusterSettingsState, update: ClusterSettingsUpdateRequest): boolean {
  return (['persistent', 'transient'] as const).every((scope) => {
    const want = update[scope];
    if (!want) return true;
    const have = state[scope];
    const keys = Object.keys(want.settings);
    return have.version === want.version && keys.length === Object.keys(have.settings).length && keys.every((k) => have.settings[k] === want.settings[k]);
  });
}

/** {@link ClusterSettingsStore} on the shard nodes; see the module comment. */
export class ShardNodeSettingsStore implements ClusterSettingsStore {
  private readonly client: ShardClient;
  private readonly timeoutMs: number;

  /** `timeoutMs` bounds each write to a node (FOLIO_INTERNAL_TIMEOUT_MS). */
  constructor(client: ShardClient, timeoutMs: number) {
    this.client = client;
    this.timeoutMs = timeoutMs;
  }

  async load(): Promise<ClusterSettingsState> {
    const timeoutMs = Math.min(this.timeoutMs, SETTINGS_READ_TIMEOUT_MS);
    const replies = await Promise.allSettled(
      this.client.nodes.map((_, node) => this.client.rpc(node, rpc.getClusterSettings, undefined, { timeoutMs, uncounted: true })),
    );
    const states = replies.flatMap((r) => (r.status === 'fulfilled' ? [r.value.state] : []));
    if (states.length === 0) throw new EsError(503, 'cluster_block_exception', 'cluster settings could not be read from any shard node');
    const newest = newestSettings(states);
    // Nodes that missed a change (down while it was made) get the newest, in the background.
    replies.forEach((r, node) => {
      if (r.status !== 'fulfilled') return;
      const stale: ClusterSettingsUpdateRequest = {};
      if (r.value.state.persistent.version < newest.persistent.version) stale.persistent = newest.persistent;
      if (r.value.state.transient.version < newest.transient.version) stale.transient = newest.transient;
      if (stale.persistent || stale.transient)
        void this.client.rpc(node, rpc.putClusterSettings, stale, { timeoutMs: this.timeoutMs, uncounted: true }).catch(() => undefined);
    });
    return newest;
  }

  async write(update: ClusterSettingsUpdateRequest): Promise<ClusterSettingsState> {
    const replies = await Promise.allSettled(
      this.client.nodes.map((_, node) => this.client.rpc(node, rpc.putClusterSettings, update, { timeoutMs: this.timeoutMs })),
    );
    const ok: ClusterSettingsState[] = [];
    const missing: string[] = [];
    for (const r of replies) {
      if (r.status === 'fulfilled') {
        // A node that holds a newer version kept it: another coordinator wrote first.
        if (!holds(r.value.state, update)) throw new SettingsConflict(`[${r.value.node}] holds newer cluster settings`);
        ok.push(r.value.state);
        continue;
      }
      const err = r.reason as unknown;
      if (!(err instanceof ShardCallError)) throw err;
      if (err.kind === 'response' && err.status === 409) throw new SettingsConflict(err.message);
      if (err.kind === 'response' && err.status < 500) throw new EsError(err.status, err.cause_.type, String(err.cause_.reason ?? ''));
      missing.push(err.message);
    }
    const quorum = Math.floor(this.client.nodes.length / 2) + 1;
    if (ok.length < quorum) {
      throw new EsError(
        503,
        'cluster_block_exception',
        `cluster settings change reached ${ok.length} of ${this.client.nodes.length} shard nodes, ${quorum} needed: ${missing.join('; ')}`,
      );
    }
    return newestSettings(ok);
  }
}
