/**
 * What one shard node hosts: the metadata of every index (each node keeps all of it, so any
 * coordinator can rebuild its view from any node) and the shards of the indices placed here, with
 * their periodic refresh (ES `index.refresh_interval`, default 1 s) and `?refresh=wait_for` listeners.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/near-real-time.html
 */
import { indexNotFound, EsError } from '../shared/errors.ts';
import { mergeMappings } from '../shared/dynamic-mapping.ts';
import type { Mapping } from '../shared/mapping.ts';
import type { IndexMetadata, NodeIndexEntry } from '../shared/protocol.ts';
import { Shard } from './engine/shard.ts';

/** One index on this node: its metadata, the shards hosted here, and its refresh timer. */
interface HostedIndex {
  metadata: IndexMetadata;
  shards: Map<number, Shard>;
  timer: NodeJS.Timeout | null;
  /** Resolvers waiting for the next refresh of a shard (`?refresh=wait_for`). */
  refreshWaiters: Map<number, (() => void)[]>;
}

/**
 * The registry of indices and shards on this node. Shards are in memory; metadata changes bump
 * `version` so that coordinators prefer the newest copy.
 */
export class IndexRegistry {
  readonly nodeId: string;
  private readonly indices = new Map<string, HostedIndex>();

  constructor(nodeId: string) {
    this.nodeId = nodeId;
  }

  /**
   * Stores (or replaces) an index's metadata and opens the listed shards (existing shards keep
   * their data). Restarts the refresh timer when the interval changed.
   */
  putIndex(metadata: IndexMetadata, shards: number[]): void {
    let hosted = this.indices.get(metadata.name);
    if (hosted && hosted.metadata.uuid !== metadata.uuid) {
      this.deleteIndex(metadata.name);
      hosted = undefined;
    }
    if (!hosted) {
      hosted = { metadata, shards: new Map(), timer: null, refreshWaiters: new Map() };
      this.indices.set(metadata.name, hosted);
    } else if (metadata.version >= hosted.metadata.version) {
      hosted.metadata = metadata;
    }
    const h = hosted;
    for (const s of shards) {
      if (h.shards.has(s)) continue;
      h.shards.set(
        s,
        new Shard({
          index: metadata.name,
          shard: s,
          getMapping: () => h.metadata.mappings,
          updateMapping: (update: Mapping) => this.mergeMapping(metadata.name, update),
        }),
      );
    }
    this.scheduleRefresh(h);
  }

  /** Merges new fields into an index's mapping (dynamic mapping); throws on a type conflict. */
  mergeMapping(index: string, update: Mapping): IndexMetadata {
    const h = this.hosted(index);
    const merged = mergeMappings(h.metadata.mappings, update);
    if (JSON.stringify(merged) !== JSON.stringify(h.metadata.mappings)) {
      h.metadata = { ...h.metadata, mappings: merged, version: h.metadata.version + 1 };
    }
    return h.metadata;
  }

  /** Updates dynamic settings (`max_result_window`, `refresh_interval`) if `metadata` is newer. */
  updateMetadata(metadata: IndexMetadata): void {
    const h = this.hosted(metadata.name);
    if (metadata.version < h.metadata.version) return;
    h.metadata = metadata;
    this.scheduleRefresh(h);
  }

  /** Drops an index and its shards; unknown names are ignored (idempotent). */
  deleteIndex(index: string): void {
    const h = this.indices.get(index);
    if (!h) return;
    if (h.timer) clearInterval(h.timer);
    for (const waiters of h.refreshWaiters.values()) for (const w of waiters) w();
    this.indices.delete(index);
  }

  /** Every index this node knows, with the shards it hosts. */
  list(): NodeIndexEntry[] {
    return [...this.indices.values()].map((h) => ({ metadata: h.metadata, shards: [...h.shards.keys()].sort((a, b) => a - b) }));
  }

  /**
   * The shard `shard` of `index` hosted here.
   * @throws EsError 404 index_not_found_exception, or 404 shard_not_found_exception when the index
   *   exists but this node does not host that shard (a mis-wired coordinator).
   */
  shard(index: string, shard: number): Shard {
    const h = this.hosted(index);
    const s = h.shards.get(shard);
    if (!s) {
      throw new EsError(404, 'shard_not_found_exception', `no such shard [${index}][${shard}] on node [${this.nodeId}]`, {
        metadata: { index, shard: String(shard) },
      });
    }
    return s;
  }

  /** Refreshes the given shards now (all hosted shards of the index when `shards` is empty). */
  refresh(index: string, shards: number[] = []): number[] {
    const h = this.hosted(index);
    const targets = shards.length > 0 ? shards : [...h.shards.keys()];
    for (const s of targets) {
      this.shard(index, s).refresh();
      this.notifyRefreshed(h, s);
    }
    return targets;
  }

  /** Resolves after the next refresh of the shard (ES `refresh=wait_for`). */
  waitForRefresh(index: string, shard: number): Promise<void> {
    const h = this.hosted(index);
    if (h.metadata.refreshIntervalMs < 0) {
      // Periodic refresh disabled: nobody would ever refresh, so refresh now as ES's forced refresh does.
      this.refresh(index, [shard]);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const list = h.refreshWaiters.get(shard) ?? [];
      list.push(resolve);
      h.refreshWaiters.set(shard, list);
    });
  }

  /** Stops every refresh timer (graceful shutdown). */
  close(): void {
    for (const name of [...this.indices.keys()]) this.deleteIndex(name);
  }

  private hosted(index: string): HostedIndex {
    const h = this.indices.get(index);
    if (!h) throw indexNotFound(index);
    return h;
  }

  private notifyRefreshed(h: HostedIndex, shard: number): void {
    const waiters = h.refreshWaiters.get(shard);
    if (!waiters || waiters.length === 0) return;
    h.refreshWaiters.delete(shard);
    for (const w of waiters) w();
  }

  private scheduleRefresh(h: HostedIndex): void {
    if (h.timer) clearInterval(h.timer);
    h.timer = null;
    const interval = h.metadata.refreshIntervalMs;
    if (interval < 0 || h.shards.size === 0) return;
    h.timer = setInterval(() => {
      for (const [id, shard] of h.shards) {
        if (shard.hasPendingWrites) shard.refresh();
        this.notifyRefreshed(h, id);
      }
    }, Math.max(interval, 50));
    h.timer.unref();
  }
}
