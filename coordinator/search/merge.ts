/**
 * The merge (reduce) of the query phase: a k-way merge of every shard's sorted top hits with a heap
 * sized to the number of shards, skipping `from` during the merge and touching nothing past
 * `from + size`, as Lucene's `TopDocs.merge` in ES's `SearchPhaseController.mergeTopDocs` (the heap
 * is shared/kway-merge.ts, which the engine's presorted orders use too).
 * Pure: no I/O, property-tested against a single sorted list (the oracle).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/TopDocs.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/SearchPhaseController.java
 */
import { EsError } from '../../protocol/errors.ts';
import type { ShardHit } from '../../protocol/search.ts';
import { compareCodePoints, compareHits, type SortField } from '../../protocol/sort.ts';
import { RunMerge } from '../../shared/kway-merge.ts';

/** One shard's query-phase hits, already in the global order. */
export interface ShardTopHits {
  /** Position of the shard in the search's target list (stable, used only for messages). */
  shardIndex: number;
  index: string;
  hits: ShardHit[];
}

/** A hit of the final page with the shard it came from. */
export interface MergedHit {
  shardIndex: number;
  index: string;
  hit: ShardHit;
  /** Position of the hit in its shard's list (where a fused fetch's `sources` hold its `_source`). */
  position: number;
}

/**
 * Returns hits `from … from+size-1` of the union of all shards' lists in the global order
 * (sort values, then `_id`, then index name when several indices hold the same `_id`).
 * @throws EsError 500 when a shard's list is not sorted by `sort` (a shard bug, never silent).
 */
export function mergeTopHits(results: readonly ShardTopHits[], sort: readonly SortField[], from: number, size: number): MergedHit[] {
  const less = (a: number, ai: number, b: number, bi: number): boolean => {
    const x = results[a];
    const y = results[b];
    const c = compareHits(x.hits[ai], y.hits[bi], sort);
    if (c !== 0) return c < 0;
    return (compareCodePoints(x.index, y.index) || x.shardIndex - y.shardIndex) < 0;
  };
  // A heap of shard lists, ordered by each list's current head hit (shared/kway-merge.ts).
  const merge = new RunMerge(
    results.map((r) => r.hits.length),
    less,
  );
  const out: MergedHit[] = [];
  const end = from + size;
  for (let rank = 0; rank < end; rank++) {
    const top = merge.next();
    if (top < 0) break;
    const r = results[top];
    const i = merge.pos[top] - 1;
    if (rank >= from) out.push({ shardIndex: r.shardIndex, index: r.index, hit: r.hits[i], position: i });
    if (i + 1 < r.hits.length && compareHits(r.hits[i], r.hits[i + 1], sort) > 0) {
      throw new EsError(500, 'illegal_state_exception', `shard ${r.shardIndex} of [${r.index}] was not sorted by the provided Sort`);
    }
  }
  return out;
}

/** Per-shard total hits as the query phase reports them. */
export interface ShardTotal {
  value: number;
  relation: 'eq' | 'gte';
}

/**
 * Reduces shard totals into `hits.total` as ES's `TopDocsStats.getTotalHits`: disabled → null;
 * accurate → the exact sum; otherwise the sum capped at `trackTotalHits` with relation `gte` past it
 * (and `gte` if any shard reported a lower bound).
 * @param trackTotalHits -1 disabled, `Number.MAX_SAFE_INTEGER` accurate, else the threshold.
 */
export function reduceTotalHits(totals: readonly ShardTotal[], trackTotalHits: number): ShardTotal | null {
  if (trackTotalHits < 0) return null;
  let sum = 0;
  let relation: 'eq' | 'gte' = 'eq';
  for (const t of totals) {
    sum += t.value;
    if (t.relation === 'gte') relation = 'gte';
  }
  if (trackTotalHits === Number.MAX_SAFE_INTEGER || sum <= trackTotalHits) return { value: sum, relation };
  return { value: trackTotalHits, relation: 'gte' };
}
