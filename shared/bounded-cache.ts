/**
 * LRU caches bounded in bytes, on the maintained `lru-cache` package (`maxSize` +
 * `sizeCalculation` + `maxEntrySize`). Folio's caches are keyed by request-controlled text (the
 * full query JSON, which a `terms` or `ids` list of any length makes as large as the body), so a
 * count of entries bounds nothing: each entry is charged its key (2 bytes per character) plus an
 * estimate of its value (shared/size-estimate.ts), the cache evicts the least recently used
 * entries past its byte budget, and an entry above the per-entry cap is not stored at all.
 * @see https://github.com/isaacs/node-lru-cache#maxsize
 */
import { LRUCache } from 'lru-cache';
import { estimateBytes, stringBytes } from './size-estimate.ts';

/** The byte bounds of one cache. */
export interface CacheBounds {
  /** Most bytes (keys + value estimates) the cache holds. */
  maxBytes: number;
  /** Entries estimated above this are not cached (also bounds the estimate's walk). */
  maxEntryBytes: number;
}

/**
 * `lru-cache` options for a string-keyed LRU bounded by `bounds`; `valueBytes` estimates a value
 * (default: a walk of it, {@link estimateBytes}, stopped past the entry cap).
 * @throws Error unless 0 < maxEntryBytes ≤ maxBytes
 */
export function byteBoundedOptions<V extends NonNullable<unknown>>(
  bounds: CacheBounds,
  valueBytes?: (v: V, limitBytes: number) => number,
): LRUCache.Options<string, V, unknown> {
  if (!(bounds.maxEntryBytes > 0 && bounds.maxBytes >= bounds.maxEntryBytes))
    throw new Error(`cache bounds: need 0 < maxEntryBytes <= maxBytes, got ${JSON.stringify(bounds)}`);
  const estimate = valueBytes ?? ((v: V, limit: number) => estimateBytes(v, limit));
  return {
    maxSize: bounds.maxBytes,
    maxEntrySize: bounds.maxEntryBytes,
    // The key alone can pass the cap (a huge query): its length is known without a walk.
    sizeCalculation: (v, k) => {
      const keyBytes = stringBytes(k);
      if (keyBytes > bounds.maxEntryBytes) return keyBytes;
      return Math.max(1, Math.ceil(keyBytes + estimate(v, bounds.maxEntryBytes - keyBytes)));
    },
  };
}

/** A string-keyed LRU bounded by `bounds` (see {@link byteBoundedOptions}). */
export function byteBoundedCache<V extends NonNullable<unknown>>(bounds: CacheBounds, valueBytes?: (v: V, limitBytes: number) => number): LRUCache<string, V> {
  return new LRUCache<string, V>(byteBoundedOptions(bounds, valueBytes));
}
