/**
 * Where Folio's cluster state lives in the state store (etcd v3 or the embedded store): one key
 * per index with its whole metadata as JSON, one graveyard key per deleted index, one name
 * reservation per alias, the cluster settings, the bootstrap marker, the shard nodes' membership keys, and the cluster-manager election. Every key starts with {@link CLUSTER_STATE_PREFIX}, so
 * one watch follows all of it. See docs/cluster-state.md ("Key layout").
 * @see https://etcd.io/docs/v3.4/learning/data_model/
 */

/** The prefix of every cluster-state key. */
export const CLUSTER_STATE_PREFIX = 'folio/';

/** `folio/indices/<name>` → the index's {@link import('../../protocol/metadata.ts').IndexMetadata} as JSON. */
export const INDICES_PREFIX = 'folio/indices/';

/**
 * `folio/graveyard/<uuid>` → `{"name", "deletedAt"}`: a deleted index, so a node that was away when
 * it was deleted drops its copy when it comes back (ES `IndexGraveyard`, bounded by
 * `cluster.indices.tombstones.size`, default 500).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/misc-cluster-settings.html#cluster-max-tombstones
 */
export const GRAVEYARD_PREFIX = 'folio/graveyard/';

/** ES `cluster.indices.tombstones.size`: deleted indices the graveyard remembers. */
export const GRAVEYARD_SIZE = 500;

/**
 * Present once the store holds the cluster's indices: written after the first import of the
 * metadata that shard nodes kept before the store existed. From then on an index a node reports
 * and the store lacks is dangling, never imported again.
 */
export const BOOTSTRAPPED_KEY = 'folio/bootstrapped';

/**
 * `folio/cluster-settings` → both scopes of the cluster settings with their versions
 * (`ClusterSettingsState`), as `PUT /_cluster/settings` stores them.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-update-settings.html
 */
export const CLUSTER_SETTINGS_KEY = 'folio/cluster-settings';

/**
 * `folio/nodes/<node id>` → `{"nodeId", "registeredAt"}`, put by each shard node with its own lease
 * (node-membership.ts): the key exists exactly while the node's lease lives, so its delete (lease
 * expired, or revoked at shutdown) tells every watcher the node has left. ES's masters detect a
 * departed node with follower checks; Kubernetes' node controller reads node leases, as here.
 * @see https://kubernetes.io/docs/concepts/architecture/leases/#node-heart-beats
 */
export const NODES_PREFIX = 'folio/nodes/';

/** The election of the one coordinator that decides promotions and recoveries (the cluster manager). */
export const CLUSTER_MANAGER_ELECTION_PREFIX = 'folio/election/cluster-manager/';

/**
 * `folio/aliases/<alias>` → the sorted names of the indices the alias names, as JSON: a name
 * reservation kept in the same transaction as every change of the alias (the aliases themselves
 * live in each index's metadata, as ES's `IndexMetadata.aliases`). Index and alias names share one
 * namespace in ES: creating index `x` compares this key for `x` absent, adding alias `x` compares
 * `folio/indices/x` absent, so neither can slip past the other; and every change of one alias
 * compares this key's revision, so two coordinators' changes of one alias serialize.
 */
export const ALIASES_PREFIX = 'folio/aliases/';

/**
 * `folio/repositories/<name>` → the snapshot repository's `{"type", "settings"}` as `PUT /_snapshot/<name>`
 * registered it (ES `RepositoriesMetadata`, part of the cluster state's metadata).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/put-snapshot-repo-api.html
 */
export const REPOSITORIES_PREFIX = 'folio/repositories/';

/** The key of index `name`. ES index names cannot contain `/`, so the name is used as is. */
export function indexKey(name: string): string {
  return INDICES_PREFIX + name;
}

/** The name reservation key of alias `name` (ES alias names cannot contain `/` either). */
export function aliasKey(name: string): string {
  return ALIASES_PREFIX + name;
}

/** The membership key of the shard node `nodeId` (its FOLIO_NODE_ID). */
export function nodeKey(nodeId: string): string {
  return NODES_PREFIX + nodeId;
}

/** The graveyard key of the deleted index with `uuid`. */
export function graveyardKey(uuid: string): string {
  return GRAVEYARD_PREFIX + uuid;
}
