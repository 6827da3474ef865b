/**
 * The merge (reduce) of the query phase: a k-way merge of every shard's sorted top hits with a heap
 * sized to the number of shards, skipping `from` during the merge and touching nothing past
 * `from + size`, as Lucene's `TopDocs.merge` in ES's `SearchPhaseController.mergeTopDocs`.
 * Pure: no I/O, property-tested against a single sorted list (the oracle).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/TopDocs.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/SearchPhaseController.java
 */
import { EsError } from '../../protocol/errors.ts';
import type { ShardHit } from '../../protocol/search.ts';
import { compareCodePoints, compareHits, type SortField } from '../../protocol/sort.ts';

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
  const cmp = (a: ShardTopHits, ai: number, b: ShardTopHits, bi: number): number => {
    const c = compareHits(a.hits[ai], b.hits[bi], sort);
    if (c !== 0) return c;
    return compareCodePoints(a.index, b.index) || a.shardIndex - b.shardIndex;
  };
  // Heap of shard slots, ordered by each shard's current head hit.
  const heap: number[] = [];
  const pos = new Int32Array(results.length);
  const less = (x: number, y: number): boolean => cmp(results[x], pos[x], results[y], pos[y]) < 0;
  const siftDown = (i: number): void => {
    const n = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      const r = l + 1;
      const m = r < n && less(heap[r], heap[l]) ? r : l;
      if (!less(heap[m], heap[i])) return;
      [heap[m], heap[i]] = [heap[i], heap[m]];
      i = m;
    }
  };
  const siftUp = (i: number): void => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(heap[i], heap[p])) return;
      [heap[p], heap[i]] = [heap[i], heap[p]];
      i = p;
    }
  };
  results.forEach((r, i) => {
    if (r.hits.length > 0) {
      heap.push(i);
      siftUp(heap.length - 1);
    }
  });

  const out: MergedHit[] = [];
  const end = from + size;
  for (let rank = 0; rank < end && heap.length > 0; rank++) {
    const top = heap[0];
    const r = results[top];
    const i = pos[top];
    if (rank >= from) out.push({ shardIndex: r.shardIndex, index: r.index, hit: r.hits[i], position: i });
    pos[top] = i + 1;
    if (i + 1 < r.hits.length) {
      if (compareHits(r.hits[i], r.hits[i + 1], sort) > 0) {
        throw new EsError(500, 'illegal_state_exception', `shard ${r.shardIndex} of [${r.index}] was not sorted by the provided Sort`);
      }
      siftDown(0);
    } else {
      heap[0] = heap[heap.length - 1];
      heap.pop();
      if (heap.length > 0) siftDown(0);
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
