/**
 * Cluster settings as the shard nodes hold them (ES `Metadata.persistentSettings()` and
 * `transientSettings()`), and the internal calls that read and replace them. Every node keeps both
 * scopes; the persistent one is durable on the node (fsynced before the call answers), the
 * transient one lives in the node's memory only, so it is lost once every node has restarted, as
 * ES loses transient settings on a full cluster restart. Each scope carries its own version: the
 * highest version wins when nodes disagree. Part of the internal shard-node protocol
 * (docs/architecture.md lists its modules).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-update-settings.html
 */

/** One scope of cluster settings: flat keys (`search.max_keep_alive`) to ES's string values. */
export interface ScopedClusterSettings {
  /** Bumped by every change of this scope; 0 = never set. */
  version: number;
  settings: Record<string, string>;
}

/** Both scopes of the cluster settings. */
export interface ClusterSettingsState {
  persistent: ScopedClusterSettings;
  transient: ScopedClusterSettings;
}

/**
 * PUT /_internal/v1/cluster_settings: store the given scopes when their version is higher than the
 * node's. A scope at the node's version with other content is a concurrent change from another
 * coordinator: the node answers 409 `version_conflict_engine_exception` and keeps its own.
 */
export type ClusterSettingsUpdateRequest = Partial<ClusterSettingsState>;

/** Reply to GET and PUT /_internal/v1/cluster_settings: the node's settings after the call. */
export interface ClusterSettingsResponse {
  node: string;
  state: ClusterSettingsState;
}

/** Settings of a cluster that never set any. */
export function emptyClusterSettings(): ClusterSettingsState {
  return { persistent: { version: 0, settings: {} }, transient: { version: 0, settings: {} } };
}
