/**
 * The shard request cache (ES `IndicesRequestCache`): a node-wide LRU, bounded in bytes, of the
 * replies of query rounds as their encoded bytes ({@link CachedReply}: JSON and binary hits, each
 * kept once a caller took it), keyed on the shard copy, the generation the round read (a refresh
 * publishes a new one, so entries of older generations are never hit again), and the exact shard
 * request (its JSON text). Whether a request may use it is decided by the coordinator
 * (coordinator/search/request-cache-policy.ts, ES `IndicesService.canCache`);
 * shard-node/query-reply-cache.ts consults it for a query round that asks.
 *
 * Each shard copy is a cache entity (ES `IndexShardCacheEntity`): a copy object the registry
 * replaces (index deleted and created again, a copy rebuilt by recovery) is a new entity, so its
 * predecessor's entries are never served; they age out of the LRU. When a copy caches a reply of a
 * newer generation, its entries of older generations are dropped at once (ES's cleaner does it on
 * its `indices.cache.cleanup_interval`). Counters per entity are ES's `request_cache` stats:
 * `memory_size_in_bytes`, `evictions` (entries pushed out by the byte bound, not invalidations),
 * `hit_count`, `miss_count`.
 *
 * Its size is the node setting `FOLIO_REQUEST_CACHE_BYTES` (ES `indices.requests.cache.size`, by
 * default 1% of the heap; shard-node/config.ts); 0 turns the cache off.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/shard-request-cache.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/IndicesRequestCache.java
 */
import { getHeapStatistics } from 'node:v8';
import { LRUCache } from 'lru-cache';

/** Bytes charged per entry on top of its reply and its key's UTF-16 text: the map entry, the value object, the typed-array header. */
export const ENTRY_OVERHEAD_BYTES = 128;

/** ES's default `indices.requests.cache.size`: 1% of the heap (here V8's heap limit), in bytes. */
export function defaultRequestCacheBytes(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 100);
}

/** An encoded reply of a query round, as rpc-serve.ts `encodeReply` gives it. */
export interface EncodedReply {
  /** True: `body` is binary hits (protocol/wire.ts); false: JSON. */
  hits: boolean;
  body: Uint8Array;
}

/**
 * A query round's reply as the cache holds it: the reply object until both of its encodings are
 * made, and each encoding (for a caller that takes binary hits, and for one that does not) once a
 * caller asked for it. A round's handler returns it in place of the reply; rpc-serve.ts
 * `encodeReply` answers with its bytes, encoding only what no earlier caller took.
 */
export class CachedReply {
  private reply: object | null;
  private readonly encodings: [EncodedReply | undefined, EncodedReply | undefined] = [undefined, undefined];
  private readonly onEncoded: (r: CachedReply) => void;

  /** @param onEncoded called after each new encoding (the cache charges its bytes) */
  constructor(reply: object, onEncoded: (r: CachedReply) => void) {
    this.reply = reply;
    this.onEncoded = onEncoded;
  }

  /** The reply's bytes for a caller that takes hits (`acceptHits`) or not: kept, or made by `encode` and kept. */
  encode(acceptHits: boolean, encode: (reply: object) => EncodedReply): EncodedReply {
    const i = acceptHits ? 1 : 0;
    const kept = this.encodings[i];
    if (kept) return kept;
    const made = encode(this.reply!); // the reply is dropped only once both encodings exist
    this.encodings[i] = made;
    if (this.encodings[0] && this.encodings[1]) this.reply = null;
    this.onEncoded(this);
    return made;
  }

  /** Bytes charged: the encodings, and while the reply object is held, the larger encoding again for it. */
  get bytes(): number {
    const [json, hits] = this.encodings.map((e) => e?.body.byteLength ?? 0);
    return json + hits + (this.reply ? Math.max(json, hits) : 0);
  }
}

/** ES `RequestCacheStats` of one shard copy (counters since the copy was opened on this node). */
export interface RequestCacheStats {
  /** Bytes its entries are charged now (ES `memory_size_in_bytes`). */
  memorySizeInBytes: number;
  /** Entries removed by the byte bound (ES `evictions`). */
  evictions: number;
  hitCount: number;
  missCount: number;
}

/** One shard copy's part of the cache: its stats, its newest cached generation, and its keys. */
interface Entity {
  serial: number;
  stats: RequestCacheStats;
  generation: number;
  keys: Set<string>;
}

interface Entry {
  reply: CachedReply;
  entity: Entity;
  size: number;
}

/**
 * See the module comment. `T` is the shard copy type (any object: entities are keyed on the
 * object's identity and do not keep it alive).
 */
export class ShardRequestCache<T extends object = object> {
  private readonly lru: LRUCache<string, Entry> | null;
  private readonly entities = new WeakMap<T, Entity>();
  private serials = 0;
  /** The bound on the bytes all entries are charged (0: the cache holds nothing). */
  readonly maxBytes: number;

  /** @param maxBytes the bound on the bytes all entries are charged (0: the cache holds nothing) */
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
    this.lru =
      maxBytes > 0
        ? new LRUCache<string, Entry>({
            maxSize: maxBytes,
            sizeCalculation: (e) => e.size,
            dispose: (e, key, reason) => this.removed(e, key, reason),
          })
        : null;
  }

  /** The cache key of `requestText` on `shard` at `generation`. */
  key(shard: T, generation: number, requestText: string): string {
    return `${this.entity(shard).serial}/${generation}/${requestText}`;
  }

  /** The reply cached under `key` (counted as a hit), else undefined (counted as a miss). */
  get(shard: T, key: string): CachedReply | undefined {
    const entity = this.entity(shard);
    const e = this.lru?.get(key);
    if (e && e.entity === entity) {
      entity.stats.hitCount++;
      return e.reply;
    }
    entity.stats.missCount++;
    return undefined;
  }

  /** Counts a hit on `shard` for a reply shared without a lookup (a round that waited for an identical one in flight). */
  countHit(shard: T): void {
    this.entity(shard).stats.hitCount++;
  }

  /**
   * `reply`, read from `generation` of `shard`, as a {@link CachedReply} that enters the cache
   * under `key` when it is first encoded (and is charged again as it gains its other encoding).
   */
  reply(shard: T, generation: number, key: string, reply: object): CachedReply {
    return new CachedReply(reply, (r) => this.store(shard, generation, key, r));
  }

  /**
   * Caches `reply` under `key`: not when an entry of a newer generation of the copy is cached
   * already (the round read a generation a refresh replaced), nor when it is larger than the whole
   * cache. Caching the first reply of a newer generation drops the copy's older entries.
   */
  private store(shard: T, generation: number, key: string, reply: CachedReply): void {
    if (!this.lru) return;
    const entity = this.entity(shard);
    if (generation < entity.generation) return;
    if (generation > entity.generation) {
      this.clearEntity(entity);
      entity.generation = generation;
    }
    const size = reply.bytes + key.length * 2 + ENTRY_OVERHEAD_BYTES;
    if (size > this.maxBytes) {
      this.lru.delete(key);
      return;
    }
    this.lru.set(key, { reply, entity, size });
    // lru-cache evicts the least recent entries to make room before it stores this one
    if (this.lru.has(key)) {
      entity.keys.add(key);
      entity.stats.memorySizeInBytes += size;
    }
  }

  /** Drops every entry of `shard` (ES `clearRequestCache`: `POST /_cache/clear?request=true`). */
  clear(shard: T): void {
    const entity = this.entities.get(shard);
    if (entity) this.clearEntity(entity);
  }

  /** The copy's counters (zeros for a copy that never used the cache). */
  stats(shard: T): RequestCacheStats {
    const s = this.entities.get(shard)?.stats;
    return s ? { ...s } : { memorySizeInBytes: 0, evictions: 0, hitCount: 0, missCount: 0 };
  }

  /** Bytes all entries are charged now. */
  get bytes(): number {
    return this.lru?.calculatedSize ?? 0;
  }

  private entity(shard: T): Entity {
    let e = this.entities.get(shard);
    if (!e) {
      e = { serial: ++this.serials, stats: { memorySizeInBytes: 0, evictions: 0, hitCount: 0, missCount: 0 }, generation: -Infinity, keys: new Set() };
      this.entities.set(shard, e);
    }
    return e;
  }

  private clearEntity(entity: Entity): void {
    for (const key of [...entity.keys]) this.lru?.delete(key);
  }

  private removed(e: Entry, key: string, reason: LRUCache.DisposeReason): void {
    e.entity.keys.delete(key);
    e.entity.stats.memorySizeInBytes -= e.size;
    if (reason === 'evict') e.entity.stats.evictions++;
  }
}
