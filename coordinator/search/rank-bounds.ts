/**
 * The coordinator's arithmetic of exact distributed selection (pure, no I/O): from every shard's
 * match count nᵢ and its keys at local ranks `sampleRanks(nᵢ, S)`, bound each sample key's global
 * rank and pick a lower key whose global rank is surely ≤ `from` and an upper key whose rank is
 * surely ≥ `from + size`. Then the range round between them contains the page.
 *
 * For a key x of shard i at local rank r, shard i contributes exactly r matches before x; any other
 * shard j contributes between (rank of its last sample before x) + 1 and the rank of its first
 * sample after x (0 and nⱼ at the ends). One sweep over all samples in the global order gives
 * every key's [lo, hi] in O(K·S) after sorting them.
 * @see Frederickson, "Distributed algorithms for selection in sets", JCSS 37 (1988)
 * @see docs/selection.md
 */
import type { SelectionBound } from '../../protocol/search.ts';
import { sampleRanks } from '../../protocol/search.ts';
import { compareCodePoints, compareHits, type SortField, type SortKey } from '../../protocol/sort.ts';

/** One shard's sample-round reply, with its position in the target list and its index name. */
export interface ShardSample {
  shardIndex: number;
  index: string;
  /** nᵢ: the shard's exact match count. */
  total: number;
  /** Keys in the global order at local ranks `sampleRanks(total, S)` (every rank when total ≤ S). */
  keys: readonly SortKey[];
}

/** A sample key with the bounds of its global rank (the number of matches before it, over all shards). */
export interface RankedKey {
  shardIndex: number;
  index: string;
  key: SortKey;
  lo: number;
  hi: number;
}

/** Where the page lies, as the range round will ask for it. */
export interface SelectionWindow {
  /** Inclusive lower key (global rank ≤ from), or null for the first match. */
  lower: RankedKey | null;
  /** Exclusive upper key (global rank ≥ from + size), or null for the last match. */
  upper: RankedKey | null;
  /** At most this many hits per shard can be needed: from + size − (lower's lo). */
  limit: number;
  /** True when `from` is at or past the total: the page is empty and no range round is needed. */
  empty: boolean;
}

/** The local ranks of a shard's keys (derived from nᵢ and how many keys came back). */
export function keyRanks(s: ShardSample): number[] {
  return s.keys.length >= s.total ? s.keys.map((_, i) => i) : sampleRanks(s.total, s.keys.length);
}

/**
 * The global order of keys from different shards, as the merge orders hits: `compareHits`, then
 * index name by code point, then position in the target list.
 */
export function compareShardKeys(
  a: { key: SortKey; index: string; shardIndex: number },
  b: { key: SortKey; index: string; shardIndex: number },
  sort: readonly SortField[],
): number {
  return compareHits(a.key, b.key, sort) || compareCodePoints(a.index, b.index) || a.shardIndex - b.shardIndex;
}

/** Every sample key in the global order with the bounds [lo, hi] of its global rank. */
export function rankSampleKeys(samples: readonly ShardSample[], sort: readonly SortField[]): RankedKey[] {
  const ranks = samples.map(keyRanks);
  const all: { s: number; a: number; key: SortKey; index: string; shardIndex: number }[] = [];
  samples.forEach((smp, s) => smp.keys.forEach((key, a) => all.push({ s, a, key, index: smp.index, shardIndex: smp.shardIndex })));
  all.sort((x, y) => compareShardKeys(x, y, sort));
  // Per shard, bounds of its count before the current sweep position.
  const lo = samples.map(() => 0);
  const hi = samples.map((smp, s) => (ranks[s].length > 0 ? ranks[s][0] : smp.total));
  let sumLo = 0;
  let sumHi = hi.reduce((x, y) => x + y, 0);
  const out: RankedKey[] = [];
  for (const e of all) {
    const r = ranks[e.s][e.a];
    out.push({ shardIndex: e.shardIndex, index: e.index, key: e.key, lo: sumLo - lo[e.s] + r, hi: sumHi - hi[e.s] + r });
    // Past this key, shard s has more than r matches before, and at most its next sample's rank.
    const nextLo = r + 1;
    const nextHi = e.a + 1 < ranks[e.s].length ? ranks[e.s][e.a + 1] : samples[e.s].total;
    sumLo += nextLo - lo[e.s];
    sumHi += nextHi - hi[e.s];
    lo[e.s] = nextLo;
    hi[e.s] = nextHi;
  }
  return out;
}

/**
 * Chooses the range-round window for page [from, from + size): the greatest sample key with
 * hi ≤ from as the lower key and the smallest with lo ≥ from + size as the upper key.
 */
export function chooseWindow(samples: readonly ShardSample[], sort: readonly SortField[], from: number, size: number): SelectionWindow {
  const total = samples.reduce((s, x) => s + x.total, 0);
  if (from >= total || size <= 0) return { lower: null, upper: null, limit: 0, empty: true };
  return windowFromRanked(rankSampleKeys(samples, sort), total, from, size);
}

/**
 * {@link chooseWindow} over keys already ranked by {@link rankSampleKeys} (a cached sample ranks
 * them once, so a repeated query pays a linear scan, not a sort of K·S keys).
 * @param total the sum of the shards' match counts
 */
export function windowFromRanked(ranked: readonly RankedKey[], total: number, from: number, size: number): SelectionWindow {
  if (from >= total || size <= 0) return { lower: null, upper: null, limit: 0, empty: true };
  const end = from + size;
  let lower: RankedKey | null = null;
  let upper: RankedKey | null = null;
  for (const k of ranked) {
    if (k.hi <= from) lower = k;
    if (k.lo >= end) {
      upper = k;
      break;
    }
  }
  return { lower, upper, limit: end - (lower?.lo ?? 0), empty: false };
}

/**
 * A window key as one shard receives it: `equalBefore` is set when that shard's doc equal on
 * (sort, `_id`) sorts before the key, i.e. the shard's (index, position) sorts before the key's.
 */
export function boundForShard(k: RankedKey | null, shard: { index: string; shardIndex: number }): SelectionBound | undefined {
  if (!k) return undefined;
  const before = (compareCodePoints(shard.index, k.index) || shard.shardIndex - k.shardIndex) < 0;
  return before ? { sort: k.key.sort, _id: k.key._id, equalBefore: true } : { sort: k.key.sort, _id: k.key._id };
}

/**
 * `ranked` with keys of known exact global rank merged in, in the global order (a new array;
 * `ranked` is not changed): the hits a deep page has shown, whose ranks the merge fixed (the page's
 * first hit is at rank `from`). Such a key is a sample key with lo = hi, so the window of a page
 * that repeats starts and ends on them and the range round returns exactly its hits. A key
 * already present keeps one entry, with the exact rank.
 * @see docs/selection.md (Anchors)
 */
export function withAnchors(ranked: readonly RankedKey[], anchors: readonly RankedKey[], sort: readonly SortField[]): readonly RankedKey[] {
  // A page that repeats brings the anchors it was served with: nothing to copy.
  const fresh = anchors.filter((a) => {
    const at = ranked[lowerBound(ranked, a, sort)] as RankedKey | undefined;
    return !(at && at.lo === a.lo && at.hi === a.hi && compareShardKeys(at, a, sort) === 0);
  });
  if (fresh.length === 0) return ranked;
  const out = ranked.slice();
  for (const a of fresh) {
    const lo = lowerBound(out, a, sort);
    if (lo < out.length && compareShardKeys(out[lo], a, sort) === 0) out[lo] = a;
    else out.splice(lo, 0, a);
  }
  return out;
}

/** The first position of `keys` (in the global order) whose key does not sort before `k`. */
function lowerBound(keys: readonly RankedKey[], k: RankedKey, sort: readonly SortField[]): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareShardKeys(keys[mid], k, sort) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
