/**
 * A shard node that follows the cluster state itself (ES `IndicesClusterStateService`, which
 * applies each published cluster state on every node): with FOLIO_ETCD, the node keeps its own
 * `ClusterStateCache` (one watch on `folio/`) and, on every change it delivers, adopts each stored
 * index value that is newer than its own or of another incarnation (`IndexRegistry.putIndex`, the
 * same step as a coordinator's push), and drops a copy of an index whose uuid the graveyard names.
 * Promotions, in-sync changes and new primary terms therefore reach a node as soon as they are
 * stored, even when the push of the coordinator that stored them is lost (a partition, a
 * coordinator that died right after its write); pushes and the coordinators' reload repair stay as
 * they were. The node acts only once a coordinator has told it its ordinal (the name copies know it
 * by) and only on a bootstrapped store (one that holds the cluster's indices); an index the store
 * lacks is never dropped for that alone (docs/cluster-state.md, dangling indices).
 * @see docs/cluster-state.md ("Shard nodes follow the store")
 * @see https://github.com/elastic/elasticsearch/blob/v8.15.0/server/src/main/java/org/elasticsearch/indices/cluster/IndicesClusterStateService.java
 */
import type { ClusterStateCache } from '../shared/cluster-state/cluster-state-cache.ts';
import type { Logger } from '../shared/logger.ts';
import type { IndexRegistry } from './index-registry.ts';

/** See the module comment. */
export class ClusterStateFollower {
  private readonly registry: IndexRegistry;
  private readonly cache: ClusterStateCache;
  private readonly log: Logger | undefined;
  private unsubscribe: (() => void) | null = null;
  /** Values adopted and copies dropped by this follower (for tests and logs). */
  readonly applied = { adopted: 0, dropped: 0 };

  constructor(registry: IndexRegistry, cache: ClusterStateCache, log?: Logger) {
    this.registry = registry;
    this.cache = cache;
    this.log = log;
  }

  /** Applies the state now and after every change the cache delivers, until {@link stop}. */
  start(): void {
    this.unsubscribe ??= this.cache.onChange(() => this.apply());
    this.apply();
  }

  /** Stops following (the cache is closed by its owner). */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Brings the registry in line with the cached state (see the module comment). Never throws. */
  apply(): void {
    const ordinal = this.registry.nodeOrdinal();
    if (ordinal === null || !this.cache.loaded || !this.cache.bootstrapped) return;
    const local = new Map(this.registry.metadataList().map((m) => [m.name, m]));
    for (const name of this.cache.names()) {
      const stored = this.cache.get(name)!.metadata;
      const held = local.get(name);
      if (held && held.uuid === stored.uuid && held.version >= stored.version) continue;
      try {
        this.registry.putIndex(stored, [], ordinal);
        this.applied.adopted++;
        this.log?.info({ index: name, version: stored.version }, 'index metadata adopted from the cluster state');
      } catch (err) {
        this.log?.warn(
          { index: name, version: stored.version, err: (err as Error).message },
          'index metadata from the cluster state not adopted; a coordinator push or the next change retries',
        );
      }
    }
    for (const held of local.values()) {
      if (this.cache.get(held.name) || !this.cache.tombstone(held.uuid)) continue;
      this.registry.deleteIndex(held.name);
      this.applied.dropped++;
      this.log?.info({ index: held.name, uuid: held.uuid }, 'copy of a deleted index dropped (graveyard)');
    }
  }
}
