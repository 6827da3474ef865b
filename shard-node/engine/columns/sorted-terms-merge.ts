/**
 * Merges the sorted term lists of several segments into one sorted list of distinct terms, with
 * per input the map from its ordinals to the merged ones: what a segment merge needs to re-encode
 * postings in dictionary order without hashing a term or sorting again (Lucene's
 * `MultiTermsEnum` walks its sub-enums the same way, by a priority queue on their current terms).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/MultiTermsEnum.java
 */
import { compareCodePoints } from '../../../protocol/sort.ts';
import { RunMerge } from '../../../shared/kway-merge.ts';

/** Output of {@link mergeSortedTerms}. */
export interface MergedTerms {
  /** Distinct terms, ascending by code point. */
  terms: string[];
  /** Per input list, ordinal → index in `terms`. */
  maps: Int32Array[];
}

/**
 * Merges `lists` (each distinct and ascending by code point: not checked) into one, by a k-way
 * merge of the lists (shared/kway-merge.ts). Also the global ordinals of a keyword field over a
 * generation's segments (aggs/doc-values.ts `globalOrdinals`).
 */
export function mergeSortedTerms(lists: readonly (readonly string[])[]): MergedTerms {
  const maps = lists.map((l) => new Int32Array(l.length));
  const terms: string[] = [];
  if (lists.length === 1) {
    terms.push(...lists[0]);
    for (let r = 0; r < terms.length; r++) maps[0][r] = r;
    return { terms, maps };
  }
  const merge = new RunMerge(
    lists.map((l) => l.length),
    (a, i, b, j) => compareCodePoints(lists[a][i], lists[b][j]) < 0,
  );
  for (let p = merge.next(); p >= 0; p = merge.next()) {
    const i = merge.pos[p] - 1;
    const term = lists[p][i];
    if (terms.length === 0 || terms[terms.length - 1] !== term) terms.push(term);
    maps[p][i] = terms.length - 1;
  }
  return { terms, maps };
}
