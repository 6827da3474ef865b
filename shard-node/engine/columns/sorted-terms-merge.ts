/**
 * Merges the sorted term lists of several segments into one sorted list of distinct terms, with
 * per input the map from its ordinals to the merged ones: what a segment merge needs to re-encode
 * postings in dictionary order without hashing a term or sorting again (Lucene's
 * `MultiTermsEnum` walks its sub-enums the same way, by a priority queue on their current terms).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/MultiTermsEnum.java
 */
import { compareCodePoints } from '../../../protocol/sort.ts';

/** Output of {@link mergeSortedTerms}. */
export interface MergedTerms {
  /** Distinct terms, ascending by code point. */
  terms: string[];
  /** Per input list, ordinal → index in `terms`. */
  maps: Int32Array[];
}

/** Merges `lists` (each distinct and ascending by code point: not checked) into one. */
export function mergeSortedTerms(lists: readonly (readonly string[])[]): MergedTerms {
  const maps = lists.map((l) => new Int32Array(l.length));
  const terms: string[] = [];
  const pos = new Int32Array(lists.length);
  // A min-heap of input indexes, by their current term.
  const heap: number[] = [];
  const less = (a: number, b: number) => compareCodePoints(lists[heap[a]][pos[heap[a]]], lists[heap[b]][pos[heap[b]]]) < 0;
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) return;
      const m = l + 1 < heap.length && less(l + 1, l) ? l + 1 : l;
      if (!less(m, i)) return;
      [heap[m], heap[i]] = [heap[i], heap[m]];
      i = m;
    }
  };
  lists.forEach((l, i) => l.length > 0 && heap.push(i));
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  while (heap.length > 0) {
    const p = heap[0];
    const term = lists[p][pos[p]];
    if (terms.length === 0 || terms[terms.length - 1] !== term) terms.push(term);
    maps[p][pos[p]] = terms.length - 1;
    if (++pos[p] >= lists[p].length) {
      heap[0] = heap[heap.length - 1];
      heap.pop();
    }
    down(0);
  }
  return { terms, maps };
}
