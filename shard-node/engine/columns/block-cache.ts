/**
 * The shard node's process-wide block cache, bounded in bytes: decompressed `_source` blocks
 * (source-slab.ts), whether their segment is still in memory or read from its segment file on
 * demand, and the pages of postings streams read from segment files (segment-file/file-pages.ts). It plays the part of the OS page cache plus Lucene's stored-fields block reuse: a page of
 * neighbours or a scroll batch decompresses each block once, and the blocks a search touches stay
 * warm while the rest of a shard's `_source` stays on disk. One LRU for every shard and kind, on the
 * maintained `lru-cache` package (`maxSize` + `sizeCalculation`: each entry is charged its bytes
 * plus {@link ENTRY_OVERHEAD_BYTES}); hits, misses, evictions and bytes are counted per
 * {@link BlockKind} for `/metrics` (shard-node/metrics.ts).
 *
 * Its size is a node setting, `FOLIO_BLOCK_CACHE_BYTES` (shard-node/config.ts), by default a tenth
 * of V8's heap limit (as ES sizes its node query cache, `indices.queries.cache.size`, 10% of the
 * heap) but at most {@link MAX_DEFAULT_BLOCK_CACHE_BYTES}: the segment files stay in the OS page
 * cache, which Lucene relies on alone, and a walk of a whole index (a `_reindex`, a scroll) must not
 * leave the corpus resident in every shard node. See docs/performance.md, "On-demand `_source` blocks".
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-cache.html
 * @see https://github.com/isaacs/node-lru-cache#maxsize
 */
import { getHeapStatistics } from 'node:v8';
import { LRUCache } from 'lru-cache';

/** What a cached block holds (the `kind` label of the metrics): decompressed `_source` blocks, or pages of a postings stream read from a file. */
export type BlockKind = 'source' | 'postings';

/** Every kind, in metric order. */
export const BLOCK_KINDS: readonly BlockKind[] = ['source', 'postings'];

/** Bytes charged per entry on top of its block: the key string, the map entry and the typed-array header. */
export const ENTRY_OVERHEAD_BYTES = 96;

/** Counters of one kind since the process started (bytes: held now). */
export interface BlockCacheStats {
  hits: number;
  misses: number;
  evictions: number;
  bytes: number;
}

/** The most the default size gives the cache: 64 MiB per shard node. */
export const MAX_DEFAULT_BLOCK_CACHE_BYTES = 64 * 1024 * 1024;

/** The default size: a tenth of V8's heap limit (ES `indices.queries.cache.size` default, 10%), at most {@link MAX_DEFAULT_BLOCK_CACHE_BYTES}. */
export function defaultBlockCacheBytes(): number {
  return Math.min(MAX_DEFAULT_BLOCK_CACHE_BYTES, Math.floor(getHeapStatistics().heap_size_limit / 10));
}

/** A cached block and its kind (the kind is kept so that an eviction is counted to it). */
interface Entry {
  kind: BlockKind;
  bytes: Uint8Array;
}

const stats = new Map<BlockKind, BlockCacheStats>(BLOCK_KINDS.map((k) => [k, { hits: 0, misses: 0, evictions: 0, bytes: 0 }]));
let cache = newCache(defaultBlockCacheBytes());
/** Bumped whenever the cache is emptied: readers' own references to blocks from before are stale. */
let epoch = 0;

function newCache(maxBytes: number): LRUCache<string, Entry> {
  return new LRUCache<string, Entry>({
    maxSize: maxBytes,
    maxEntrySize: maxBytes,
    sizeCalculation: (e) => e.bytes.byteLength + ENTRY_OVERHEAD_BYTES,
    dispose: (e, _key, reason) => {
      const s = stats.get(e.kind)!;
      s.bytes -= e.bytes.byteLength + ENTRY_OVERHEAD_BYTES;
      if (reason === 'evict') s.evictions++;
    },
  });
}

/**
 * Sets the cache's size in bytes (the node's `FOLIO_BLOCK_CACHE_BYTES`) and empties it; counters
 * are kept. @throws RangeError unless `maxBytes` is a positive integer
 */
export function configureBlockCache(maxBytes: number): void {
  if (!(Number.isInteger(maxBytes) && maxBytes > 0)) throw new RangeError(`block cache size must be a positive number of bytes, got [${maxBytes}]`);
  cache.clear();
  cache = newCache(maxBytes);
  epoch++;
}

/** The cache's size in bytes. */
export function blockCacheMaxBytes(): number {
  return cache.maxSize;
}

/** Empties the cache (benches measure cold reads; tests start clean). Counters are kept. */
export function clearBlockCache(): void {
  cache.clear();
  epoch++;
}

/** A number that changes whenever the cache is emptied (a reader keeping a block of its own drops it then). */
export function blockCacheEpoch(): number {
  return epoch;
}

/**
 * The block under `key` (unique per segment part and block number), or `load()`'s result, which
 * is then kept (unless it alone exceeds the whole cache). Counts a hit or a miss for `kind`.
 * Cached bytes are shared: callers never write into them.
 */
export function cachedBlock(kind: BlockKind, key: string, load: () => Uint8Array): Uint8Array {
  const s = stats.get(kind)!;
  const hit = cache.get(key);
  if (hit !== undefined) {
    s.hits++;
    return hit.bytes;
  }
  s.misses++;
  const bytes = load();
  cache.set(key, { kind, bytes });
  if (cache.has(key)) s.bytes += bytes.byteLength + ENTRY_OVERHEAD_BYTES;
  return bytes;
}

/** Counts a hit of `kind` served from a reader's own reference to a block it got from the cache (file-pages.ts). */
export function countBlockCacheHit(kind: BlockKind): void {
  stats.get(kind)!.hits++;
}

/** Whether the block under `key` is cached (does not touch its recency or the counters). */
export function hasCachedBlock(key: string): boolean {
  return cache.has(key);
}

/** The counters of `kind` (a copy). */
export function blockCacheStats(kind: BlockKind): BlockCacheStats {
  return { ...stats.get(kind)! };
}
