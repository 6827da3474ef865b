/**
 * Aggregations between coordinator and shard nodes: the partial results a shard computes over its
 * matches (ES's `InternalAggregation`s before the reduce), and the refinement round that makes
 * `terms` exact (docs/aggregations.md, "Exact terms"). Partials are arrays parallel to the request's
 * aggregation nodes (never objects keyed by user-chosen names).
 * Part of the internal shard-node protocol (docs/architecture.md lists its modules).
 */
import type { AggNode } from './agg-request.ts';
import type { Query } from './query-ast.ts';
import type { ShardEcho } from './echo.ts';
import type { ContextRef } from './search.ts';

/** A bucket key: a keyword term, or a number (numeric, date and boolean fields; histogram keys). */
export type BucketKey = string | number;

/** A `terms` bucket of one shard: its key, its doc count, and its sub-aggregations when they were asked for. */
export interface TermsBucketPartial {
  key: BucketKey;
  n: number;
  aggs?: AggPartial[];
}

/**
 * A shard's `terms` partial. `buckets` come in the aggregation's order. With `complete` every
 * term of the shard (within the bucket) is listed; otherwise a term that is not listed has at most
 * `cutoff` docs on this shard (count-ordered lists), or sorts after the last listed key
 * (key-ordered lists). `more` lists further terms with their counts only (no sub-aggregations).
 * `total` is the sum of the doc counts of every term of the shard (for `sum_other_doc_count`).
 */
export interface TermsPartial {
  t: 'terms';
  buckets: TermsBucketPartial[];
  more?: { keys: BucketKey[]; counts: number[] };
  complete: boolean;
  cutoff: number;
  total: number;
}

/** `histogram` / `date_histogram`: the non-empty buckets in key order. */
export interface HistogramPartial {
  t: 'hist';
  buckets: { key: number; n: number; aggs?: AggPartial[] }[];
}

/** `range`, `date_range`, `filters`: one bucket per range or filter in request order (then the other bucket). */
export interface MultiPartial {
  t: 'multi';
  buckets: { n: number; aggs?: AggPartial[] }[];
}

/** `filter`, `missing`, `global`. */
export interface SinglePartial {
  t: 'single';
  n: number;
  aggs?: AggPartial[];
}

/**
 * The numeric metrics' sufficient statistics (`min`/`max` null without values). A shard sends only
 * what its metric reads (shard-node/engine/aggs/stats-partial.ts): `sum` and `avg` the count and
 * sum, `min`/`max` the count and that bound, `value_count` the count; an absent field is 0 (sums)
 * or null (bounds).
 */
export interface StatsPartial {
  t: 'stats';
  count: number;
  sum?: number;
  min?: number | null;
  max?: number | null;
  sumSq?: number;
}

/** `cardinality`: the distinct values while fewer than the threshold, else HyperLogLog++ registers (base64). */
export interface CardinalityPartial {
  t: 'card';
  values?: BucketKey[];
  registers?: string;
  precision?: number;
}

/** `percentiles`: the shard's t-digest as centroids `[mean, count, mean, count, …]`. */
export interface PercentilesPartial {
  t: 'pct';
  centroids: number[];
}

/** `composite`: the shard's first `size` keys after `after`, in composite order (one value per source, null for a missing bucket). */
export interface CompositePartial {
  t: 'comp';
  buckets: { key: (BucketKey | null)[]; n: number; aggs?: AggPartial[] }[];
}

/** `top_hits`: the shard's best `from + size` docs of the bucket, with their `_source` texts, and the bucket's doc count. */
export interface TopHitsPartial {
  t: 'top';
  total: number;
  maxScore: number | null;
  hits: { _index: string; _id: string; _score: number | null; sort: (string | number | null)[]; _source: string | null }[];
}

/** A pipeline aggregation's place in a shard's partials (pipelines run on the coordinator). */
export interface PipelinePartial {
  t: 'pipe';
}

/** One aggregation's partial result on one shard. */
export type AggPartial =
  | TermsPartial
  | HistogramPartial
  | MultiPartial
  | SinglePartial
  | StatsPartial
  | CardinalityPartial
  | PercentilesPartial
  | CompositePartial
  | PipelinePartial
  | TopHitsPartial;

/** The aggregations a query phase collects: the tree, and the query they run on when it is not the hits' query (`post_filter`). */
export interface QueryAggs {
  nodes: AggNode[];
  query?: Query;
  /** Terms a top-level count-ordered `terms` list carries (shared/aggs/terms-plan.ts `candidatesPerShard`). */
  candidates?: number;
}

/**
 * One step of a path to a bucket: the aggregation's position among its siblings and the bucket's
 * key (for `range`/`date_range`/`filters`, the bucket's position; for `composite`, the JSON of its
 * key array; ignored for single-bucket aggs).
 */
export interface BucketStep {
  agg: number;
  key: BucketKey;
}

/**
 * A `terms` refinement on one shard: for the `terms` node at position `agg` below the bucket at
 * `path`, either every term with `threshold.min` to `threshold.max` docs (counts only: `max` is
 * the shard's first-round cut-off, above which it listed every term), or the exact counts of the terms `include` (with their
 * sub-aggregations when `subAggs`). A term of `include` absent from the reply has 0 docs.
 */
export interface TermsRefineTask {
  path: BucketStep[];
  agg: number;
  threshold?: { min: number; max: number };
  include?: BucketKey[];
  subAggs?: boolean;
}

/**
 * POST /_internal/v1/aggs: aggregations on the generation the query phase read. Without `tasks`,
 * the whole tree (`partials`, for a search whose hits came from distributed selection); with them,
 * one {@link TermsPartial} per task (`results`).
 */
export interface AggsRequest {
  index: string;
  shard: number;
  query: Query;
  nodes: AggNode[];
  /** As {@link QueryAggs.candidates}. */
  candidates?: number;
  generation?: number;
  context?: ContextRef;
  tasks?: TermsRefineTask[];
}

/** Reply to {@link AggsRequest}. */
export interface AggsResponse extends ShardEcho {
  generation: number;
  partials?: AggPartial[];
  results?: TermsPartial[];
}
