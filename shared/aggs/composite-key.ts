/**
 * The order of `composite` keys, shared by the shard (its first `size` keys after `after`) and the
 * coordinator (the merge): source by source, each value in its source's direction, a null key
 * (`missing_bucket`) first or last as `missing_order` says, as ES's `CompositeKey` comparison.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-bucket-composite-aggregation.html
 */
import type { BucketKey } from '../../protocol/aggs.ts';
import type { CompositeSource } from '../../protocol/agg-request.ts';
import { compareKeys } from './terms-plan.ts';

/** A composite key: one value per source, null for a missing bucket. */
export type CompositeKey = readonly (BucketKey | null)[];

/** Compares two composite keys under `sources` (negative: `a` first). */
export function compareCompositeKeys(sources: readonly CompositeSource[], a: CompositeKey, b: CompositeKey): number {
  for (let i = 0; i < sources.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    const src = sources[i];
    if (x === null || y === null) return (x === null) === src.missingFirst ? -1 : 1;
    const c = compareKeys(x, y);
    if (c !== 0) return src.asc ? c : -c;
  }
  return 0;
}
