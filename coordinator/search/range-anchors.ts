/**
 * What a deep page teaches the cached sample of its query: the merge fixes the exact global rank of
 * the hits it took (the page's first hit is at rank `from`, and one hit merged past the page is at
 * rank `from + size`), so they join the cached sample's ranked keys as anchors (lo = hi). A page
 * that repeats then has its window on its own first hit and the hit after it: each shard returns
 * exactly its hits of the page, few enough that the range round also carries their `_source`
 * (the fused fetch), and the repeated deep page is one round, as page 1 is. The anchors hold only
 * for the generations the sample read; they live and die with its cache entry.
 * @see docs/selection.md (Anchors)
 */
import type { SortField } from '../../protocol/sort.ts';
import type { MergedHit } from './merge.ts';
import { withAnchors, type RankedKey } from './rank-bounds.ts';
import type { CachedSample, SampleCache } from './select-phase.ts';

/** Most anchors one cached sample gathers (two per distinct page served): a walk through every page does not grow it past this. */
export const MAX_ANCHORS = 256;

/** The anchor of a merged hit at global rank `rank`. */
function anchorOf(m: MergedHit, rank: number): RankedKey {
  return { shardIndex: m.shardIndex, index: m.index, key: { _id: m.hit._id, sort: m.hit.sort }, lo: rank, hi: rank };
}

/**
 * The anchors a merge of hits `from … from + size` fixes: its first hit at rank `from`, and its
 * last (the hit after the page, when the merge found one) at its rank. Pure.
 * @param merged up to `size + 1` merged hits, the first at global rank `from`
 */
export function pageAnchors(merged: readonly MergedHit[], from: number): RankedKey[] {
  if (merged.length === 0) return [];
  const first = anchorOf(merged[0], from);
  return merged.length > 1 ? [first, anchorOf(merged[merged.length - 1], from + merged.length - 1)] : [first];
}

/**
 * Adds the anchors of a page merged from the range round to the cached sample `entry` under `key`,
 * when that entry is still the one cached (another search may have sampled anew since: its
 * generations may differ) and has room. The entry is updated in place: setting it again would
 * re-estimate its bytes (a walk of every key, milliseconds for a reused sample of 4 × 4,096 keys,
 * on every deep page) and could find it past the per-entry cap, which drops the sample. Anchors
 * add at most {@link MAX_ANCHORS} keys to what the cache charged for it.
 * @param merged the merge of hits `from … from + size` (up to `size + 1` hits: the page and the one after it)
 */
export function recordAnchors(
  cache: SampleCache,
  key: string,
  entry: CachedSample,
  sort: readonly SortField[],
  from: number,
  merged: readonly MergedHit[],
): void {
  if (merged.length === 0 || cache.peek(key) !== entry || (entry.anchors ?? 0) >= MAX_ANCHORS) return;
  const anchors = pageAnchors(merged, from);
  const ranked = withAnchors(entry.ranked, anchors, sort);
  if (ranked === entry.ranked) return;
  entry.ranked = ranked;
  entry.anchors = (entry.anchors ?? 0) + anchors.length;
}
