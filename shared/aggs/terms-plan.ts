/**
 * How a `terms` aggregation is made exact across shards, shared by the shard (what it lists) and
 * the coordinator (what it concludes): three cases by the bucket order (docs/aggregations.md).
 *   - `count`: `_count` descending (ES's default). Each shard lists its top terms with counts and
 *     the count at its cut-off, which bounds every term it did not list; the coordinator fetches
 *     exact counts and deepens (TPUT: Cao and Wang, PODC 2004) until no unseen term can enter.
 *   - `key`: `_key` first (and `min_doc_count` ≤ 1). The first `size` keys of each shard hold the
 *     first `size` keys of the union, with every count exact, in one round.
 *   - `full`: any other order (`_count` ascending, a sub-aggregation metric) and `min_doc_count: 0`:
 *     each shard lists every term with its sub-aggregations. Exact; its bytes grow with the terms.
 * @see http://crypto.stanford.edu/~cao/topk.html
 */
import type { BucketKey } from '../../protocol/aggs.ts';
import { compareCodePoints } from '../../protocol/sort.ts';
import type { BucketOrder, TermsAgg } from '../../protocol/agg-request.ts';

/** How a terms aggregation is listed and settled. */
export type TermsMode = 'count' | 'key' | 'full';

/** The {@link TermsMode} of a terms aggregation. */
export function termsMode(node: TermsAgg): TermsMode {
  if (node.minDocCount === 0) return 'full';
  const first = node.order[0];
  // The first `size` keys of each shard hold the union's first `size` only when every listed key qualifies.
  if (first.key === '_key') return node.minDocCount <= 1 ? 'key' : 'full';
  if (first.key === '_count' && !first.asc) return 'count';
  return 'full';
}

/**
 * Terms a shard lists with their sub-aggregations in the first round: ES's `shard_size` default
 * (`size × 1.5 + 10`, `BucketUtils.suggestShardSideQueueSize`) or the request's, never below
 * `size`; `size` itself when ordered by key.
 */
export function shardListSize(node: TermsAgg): number {
  if (termsMode(node) === 'key') return Math.max(node.size, node.shardSize ?? node.size);
  return Math.max(node.size, node.shardSize ?? Math.floor(node.size * 1.5 + 10));
}

/**
 * Terms a top-level `count` list carries in the first round, counts only past
 * {@link shardListSize}: enough that a few hundred distinct values (countries, tags) settle in
 * one round, and a long tail is cut where its counts are small. About 15 bytes a term.
 */
export const TOP_LEVEL_CANDIDATES = 1000;

/**
 * The first-round candidates of all shards together (about 45 KB of terms): each of n shards lists
 * ⌈budget / n⌉, at least 100, at most {@link TOP_LEVEL_CANDIDATES}, so the first round stays under
 * 100 KB whatever the shard count (docs/performance.md, Aggregations).
 */
export const CANDIDATE_BUDGET = 3000;

/** Top-level candidates per shard for a search over `shards` shards (see {@link CANDIDATE_BUDGET}). */
export function candidatesPerShard(shards: number): number {
  return Math.min(TOP_LEVEL_CANDIDATES, Math.max(100, Math.ceil(CANDIDATE_BUDGET / Math.max(1, shards))));
}

/** Orders two bucket keys: numbers numerically, strings by code point (Lucene's byte order). */
export function compareKeys(a: BucketKey, b: BucketKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  return typeof a === 'number' ? -1 : 1;
}

/**
 * The comparator of `count`/`key` lists: count (desc or asc) then key per the order's criteria
 * that are `_count` or `_key` (a metric criterion never reaches here).
 */
export function countKeyComparator(order: readonly BucketOrder[]): (ak: BucketKey, an: number, bk: BucketKey, bn: number) => number {
  return (ak, an, bk, bn) => {
    for (const o of order) {
      const c = o.key === '_count' ? an - bn : o.key === '_key' ? compareKeys(ak, bk) : 0;
      if (c !== 0) return o.asc ? c : -c;
    }
    return compareKeys(ak, bk);
  };
}

/** One parsed step of an order path (`a>b.metric`, `a[key]`): a sub-aggregation name and an optional metric or key. */
export interface OrderPathStep {
  name: string;
  metric?: string;
}

/**
 * Parses an order path as ES's `AggregationPath.parse`: `>` separates aggregations, the last may
 * end with `.metric` or `[metric]`.
 */
export function parseOrderPath(path: string): OrderPathStep[] {
  return path.split('>').map((el, i, all) => {
    const br = /^(.*)\[(.*)\]$/.exec(el);
    if (br) return { name: br[1], metric: br[2] };
    const dot = i === all.length - 1 ? el.indexOf('.') : -1;
    return dot === -1 ? { name: el } : { name: el.slice(0, dot), metric: el.slice(dot + 1) };
  });
}
