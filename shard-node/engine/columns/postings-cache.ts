/**
 * A process-wide cache of decoded postings of hot terms, bounded in bytes (shared/bounded-cache.ts),
 * so that a term asked again and again (a popular filter, the words of a frequent query) is not
 * decoded on every search: the role the OS page cache and Lucene's decoded blocks play for it.
 * Only lists of at least {@link MIN_CACHED_DOCS} docs are kept (a shorter one decodes in about the
 * time a lookup here costs). Cached arrays are shared: readers never write into postings.
 */
import { byteBoundedCache } from '../../../shared/bounded-cache.ts';
import type { PostingList } from '../segment.ts';

/** Bytes of decoded postings kept at most (16 MiB: two million docs with freqs). */
export const POSTINGS_CACHE_BYTES = 16 * 1024 * 1024;
/** Lists shorter than this (one packed block) are decoded each time, never cached. */
export const MIN_CACHED_DOCS = 128;

/** Bytes of a decoded list's arrays. */
function listBytes(v: PostingList | Int32Array): number {
  if (v instanceof Int32Array) return v.byteLength;
  return v.docs.byteLength + (v.freqs?.byteLength ?? 0) + (v.posStarts?.byteLength ?? 0) + (v.positions?.byteLength ?? 0);
}

const cache = byteBoundedCache<PostingList | Int32Array>({ maxBytes: POSTINGS_CACHE_BYTES, maxEntryBytes: POSTINGS_CACHE_BYTES / 4 }, listBytes);

/** Lookups and hits since start, for figures. */
export const postingsCacheStats = { lookups: 0, hits: 0 };

/**
 * The decoded list under `key` (unique per field of a segment, term ordinal and decoded form),
 * decoded by `decode` and kept when the term has at least {@link MIN_CACHED_DOCS} docs.
 */
export function cachedPostings<T extends PostingList | Int32Array>(key: string, docFreq: number, decode: () => T): T {
  if (docFreq < MIN_CACHED_DOCS) return decode();
  postingsCacheStats.lookups++;
  const hit = cache.get(key);
  if (hit) {
    postingsCacheStats.hits++;
    return hit as T;
  }
  const v = decode();
  cache.set(key, v);
  return v;
}

/** Empties the decoded-postings cache (benches measure cold queries with it). */
export function clearPostingsCache(): void {
  cache.clear();
}
