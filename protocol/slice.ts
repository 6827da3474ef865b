/**
 * Sliced scroll and sliced point in time: the search body's `slice: {id, max, field?}` and the
 * split ES makes of a search's shards into `max` slices, so that `max` workers, each asking for
 * one `id`, together read every document exactly once.
 *
 * ES's split (`SliceBuilder.toFilter`), mirrored by {@link shardSlice}: with `max` ≥ the number of
 * shards, slice `id` reads only shard `id % shards`, which is split again among the slices that
 * land on it; with fewer slices than shards, slice `id` reads the whole shards whose position
 * `% max` is `id`. Inside a shard, a document belongs to sub-slice `hash % n`: by default the hash
 * of its `_id` (ES: `TermsSliceQuery` for a scroll; for a PIT ES cuts Lucene doc-id ranges instead,
 * `DocIdSliceQuery`, which Folio does not, docs/compatibility.md), or with `field`, a hash of that
 * numeric field's values (`DocValuesSliceQuery`: a document without a value is in no slice).
 * See docs/sliced-walks-and-by-query.md.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/paginate-search-results.html#slice-scroll
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/slice/SliceBuilder.java
 */

/** A parsed `slice`: `field` absent = the default (`_id`). */
export interface SliceSpec {
  id: number;
  max: number;
  field?: string;
}

/** ES's `index.max_slices_per_scroll` default: a scroll's `slice.max` must not exceed it. */
export const DEFAULT_MAX_SLICES_PER_SCROLL = 1024;

/** The part of one shard a slice reads: nothing, everything, or sub-slice `id` of `max`. */
export type ShardSlice = { kind: 'none' } | { kind: 'all' } | { kind: 'part'; id: number; max: number };

/**
 * Which part of the shard at position `shardIndex` (of `numShards` in the search, 0-based) slice
 * `slice` reads: `SliceBuilder.toFilter` step by step.
 * @example shardSlice({id: 2, max: 4}, 0, 2) // {kind: 'part', id: 1, max: 2}: slices 0 and 2 share shard 0
 */
export function shardSlice(slice: SliceSpec, shardIndex: number, numShards: number): ShardSlice {
  const { id, max } = slice;
  if (numShards === 1) return { kind: 'part', id, max };
  if (max >= numShards) {
    const targetShard = id % numShards;
    if (targetShard !== shardIndex) return { kind: 'none' };
    let inShard = Math.floor(max / numShards);
    if (max % numShards > targetShard) inShard++;
    if (inShard === 1) return { kind: 'all' };
    return { kind: 'part', id: Math.floor(id / numShards), max: inShard };
  }
  return shardIndex % max === id ? { kind: 'all' } : { kind: 'none' };
}

/**
 * The 32-bit finalizer of MurmurHash3 (`fmix32`): spreads every input bit over the output, so that
 * `hash % max` splits evenly even for inputs that differ in a few bits (consecutive numbers, FNV
 * hashes of similar ids).
 */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** The slice hash of a numeric doc value (a double): both halves of its bits, mixed. */
export function numberSliceHash(v: number): number {
  f64[0] = v === 0 ? 0 : v; // -0 and 0 are one value
  return mix32(u32[0] ^ mix32(u32[1]));
}
