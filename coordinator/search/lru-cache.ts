/**
 * A small bounded LRU map (insertion order of a `Map` as recency), shared by the coordinator's
 * per-search caches: dfs statistics and selection samples.
 */

/** Bounded LRU keyed by string; `get` refreshes recency, `set` evicts the least recent past `capacity`. */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();
  private readonly capacity: number;

  constructor(capacity = 1024) {
    this.capacity = capacity;
  }

  /** The value, marked most recently used; undefined when absent. */
  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (e !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, e);
    }
    return e;
  }

  /** Stores the value as most recently used, evicting the least recently used past capacity. */
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
