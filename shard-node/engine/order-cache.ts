/**
 * The bound on cached sort orders (sort-order.ts, segment-order.ts): each segment and each
 * generation keeps at most {@link ORDERS_PER_SEGMENT} orders in a least-recently-used map, and an
 * order whose spec key is too long is never kept. The role Lucene's `LRUQueryCache` plays for
 * cached query results, with a count bound instead of a byte bound.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/LRUQueryCache.java
 */

/**
 * Most orders one segment (or generation) keeps, least recently used first out. Each holds arrays
 * of the segment's size, and a spec's key carries request values (a sort's `missing`), so distinct
 * keys must not pile up for the segment's whole life.
 */
export const ORDERS_PER_SEGMENT = 16;
/** Specs with a longer key (a huge `missing` value) are served but never cached. */
export const ORDER_SPEC_MAX_KEY_CHARS = 4096;

/** A cached order of `spec` (refreshed as most recently used), or undefined. */
export function cachedOrder<V>(byKey: Map<string, V>, key: string): V | undefined {
  const hit = byKey.get(key);
  if (hit !== undefined) {
    byKey.delete(key);
    byKey.set(key, hit);
  }
  return hit;
}

/** Keeps an order unless its key is too long, evicting the least recently used past {@link ORDERS_PER_SEGMENT}. */
export function rememberOrder<V>(byKey: Map<string, V>, key: string, value: V): void {
  if (key.length > ORDER_SPEC_MAX_KEY_CHARS) return;
  byKey.set(key, value);
  while (byKey.size > ORDERS_PER_SEGMENT) byKey.delete(byKey.keys().next().value!);
}
