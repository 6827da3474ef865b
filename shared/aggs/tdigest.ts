/**
 * The t-digest of `percentiles`, from the `tdigest` package (Dunning's merging digest in
 * JavaScript, MIT; https://github.com/welch/tdigest), typed here since it ships no types.
 * `delta` is the largest share of the mass one centroid may hold: ES's `compression` c ≈ 1/c.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-metrics-percentile-aggregation.html#tdigest
 */
import { createRequire } from 'node:module';

/** The part of the package's `TDigest` Folio uses. */
export interface TDigestLike {
  /** Adds `x` with weight `n` (default 1). */
  push(x: number, n?: number): void;
  /** Adds a centroid of another digest (a merge). */
  push_centroid(c: { mean: number; n: number }): void;
  /** Re-balances the centroids. */
  compress(): void;
  /** The centroids `{mean, n}` ordered by mean. */
  toArray(): { mean: number; n: number }[];
  /** The value at quantile `p` ∈ [0, 1] (undefined for an empty digest). */
  percentile(p: number): number | undefined;
  /** The quantile ∈ [0, 1] of value `x` (the share of the mass at or below it). */
  p_rank(x: number): number;
  /** Number of values pushed. */
  n: number;
}

/** The package's constructor: `new TDigest(delta, K, CX)`. */
export const TDigest = (createRequire(import.meta.url)('tdigest') as { TDigest: new (delta?: number, k?: number, cx?: number) => TDigestLike }).TDigest;
