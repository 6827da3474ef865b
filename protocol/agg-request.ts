/**
 * The parsed aggregation tree that both services share: the coordinator parses the ES `aggs`
 * object into it once (coordinator/rest/aggs/agg-parse.ts), sends it with the query phase, each shard
 * collects it over its matches (shard-node/engine/aggs/), and the coordinator reduces the shards'
 * partial results (coordinator/search/aggs/). Dates are already epoch ms, intervals ms or a
 * calendar unit, so a shard never parses a date.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations.html
 * @see docs/aggregations.md
 */
import type { SourceFilter } from './search.ts';
import type { Query } from './query-ast.ts';
import type { SortField } from './sort.ts';
import type { BucketScript } from './bucket-script.ts';

/** A value of a `missing` substitute or of an `include`/`exclude` list (as the JSON gave it). */
export type AggValue = string | number | boolean;

/** One criterion of a bucket `order`: `_count`, `_key`, or a sub-aggregation path (`stats>x.avg`). */
export interface BucketOrder {
  key: string;
  asc: boolean;
}

/**
 * `include`/`exclude` of `terms`: exact values, or a Lucene regular expression of the simple kind
 * Folio evaluates in linear time (see shared/aggs/simple-regex.ts).
 */
export type TermFilter = { values: AggValue[] } | { regex: string };

/** Fields every aggregation node has. */
interface AggBase {
  name: string;
  /** ES `meta`: echoed in the response as is. */
  meta?: Record<string, unknown>;
  /** Sub-aggregations (empty for metrics). */
  aggs: AggNode[];
}

/** `terms`. `shardSize` null = ES's default (`size × 1.5 + 10`). */
export interface TermsAgg extends AggBase {
  type: 'terms';
  field: string;
  size: number;
  shardSize: number | null;
  minDocCount: number;
  /** Always ends with a `_key` tie-break unless the first criterion is `_key` (as ES). */
  order: BucketOrder[];
  missing?: AggValue;
  include?: TermFilter;
  exclude?: TermFilter;
  format?: string;
  /** ES `show_term_doc_count_error`: each bucket shows its `doc_count_error_upper_bound` (always 0 here). */
  showTermDocCountError?: boolean;
}

/** A `calendar_interval` unit or a `fixed_interval` in ms. */
export type DateInterval = { calendar: 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year' } | { fixedMs: number };

/** `histogram` and `date_histogram`: buckets `[key, key + interval)` with `key = floor((v − offset) / interval) × interval + offset`. */
export interface HistogramAgg extends AggBase {
  type: 'histogram' | 'date_histogram';
  field: string;
  /** histogram: the numeric interval; date_histogram: see `dateInterval`. */
  interval: number;
  dateInterval?: DateInterval;
  /** date_histogram: an IANA zone id or a `±hh:mm` offset; null = UTC. */
  timeZone: string | null;
  offset: number;
  minDocCount: number;
  extendedBounds?: { min: number; max: number };
  hardBounds?: { min?: number; max?: number };
  keyed: boolean;
  order: BucketOrder[];
  missing?: number;
  format?: string;
}

/** One range of `range`/`date_range`: `from` inclusive, `to` exclusive. */
export interface AggRange {
  key?: string;
  from?: number;
  to?: number;
}

/** `range` and `date_range` (ranges in ES's bucket order: by `from`, then `to`). */
export interface RangeAgg extends AggBase {
  type: 'range' | 'date_range';
  field: string;
  ranges: AggRange[];
  keyed: boolean;
  missing?: number;
  format?: string;
  timeZone?: string | null;
}

/** `filter`: one bucket of the docs matching `query`. */
export interface FilterAgg extends AggBase {
  type: 'filter';
  query: Query;
}

/** `filters`: one bucket per named or anonymous filter, plus the optional other bucket. */
export interface FiltersAgg extends AggBase {
  type: 'filters';
  filters: { key: string; query: Query }[];
  /** Named filters (an object) answer keyed buckets; an array answers a list. */
  keyed: boolean;
  otherBucketKey: string | null;
}

/** `missing` (docs without a value in `field`) and `global` (every live doc, ignoring the query). */
export interface SingleBucketAgg extends AggBase {
  type: 'missing' | 'global';
  field?: string;
}

/** The numeric metrics: each is reduced from count, sum, min, max and the sum of squares. */
export interface StatsMetricAgg extends AggBase {
  type: 'min' | 'max' | 'sum' | 'avg' | 'value_count' | 'stats' | 'extended_stats';
  field: string;
  missing?: AggValue;
  format?: string;
  /** extended_stats: standard deviations of the bounds (default 2). */
  sigma?: number;
}

/** `cardinality`: exact below `precisionThreshold` distinct values, HyperLogLog++ above. */
export interface CardinalityAgg extends AggBase {
  type: 'cardinality';
  field: string;
  precisionThreshold: number;
  missing?: AggValue;
}

/** `percentiles` (and `percentile_ranks`, whose `percents` are the values to rank) from a t-digest of `compression`. */
export interface PercentilesAgg extends AggBase {
  type: 'percentiles' | 'percentile_ranks';
  field: string;
  percents: number[];
  keyed: boolean;
  compression: number;
  missing?: number;
  format?: string;
}

/** One source of a `composite`: its name, kind, field, order, and the bucketing of histogram sources. */
export interface CompositeSource {
  name: string;
  kind: 'terms' | 'histogram' | 'date_histogram';
  field: string;
  asc: boolean;
  /** `missing_bucket`: docs without a value get a null key (else they are skipped). */
  missingBucket: boolean;
  /** Where null keys sort: ES's default is first for ascending, last for descending. */
  missingFirst: boolean;
  interval?: number;
  dateInterval?: DateInterval;
  timeZone?: string | null;
  offset?: number;
  format?: string;
}

/** `composite`: buckets keyed by one value per source, paged forward with `after` in source order. */
export interface CompositeAgg extends AggBase {
  type: 'composite';
  sources: CompositeSource[];
  size: number;
  /** The key to start strictly after (one value per source, null for a missing bucket). */
  after: (string | number | null)[] | null;
}

/**
 * `bucket_sort`, a parent pipeline: sorts and pages its parent's reduced buckets (`_key`,
 * `_count` or sub-aggregation paths), after the parent's own `size`, as ES does.
 */
export interface BucketSortAgg extends AggBase {
  type: 'bucket_sort';
  sort: { path: string; asc: boolean }[];
  from: number;
  size: number | null;
  gapPolicy: 'skip' | 'insert_zeros' | 'keep_values';
}

/** `top_hits`: the best `from + size` docs of the bucket by `sort` (default `_score`), with `_source`. */
export interface TopHitsAgg extends AggBase {
  type: 'top_hits';
  from: number;
  size: number;
  /** The explicit sort; empty = `_score` descending. */
  sort: SortField[];
  source: SourceFilter;
}

/**
 * The sibling bucket-metric pipelines (`avg_bucket`, `max_bucket`, `min_bucket`, `sum_bucket`,
 * `stats_bucket`): a metric over the values a `buckets_path` (`sibling>metric`, `sibling>_count`)
 * reads in every bucket of a sibling multi-bucket aggregation.
 */
export interface BucketMetricAgg extends AggBase {
  type: 'avg_bucket' | 'max_bucket' | 'min_bucket' | 'sum_bucket' | 'stats_bucket';
  bucketsPath: string;
  gapPolicy: 'skip' | 'insert_zeros' | 'keep_values';
  format?: string;
}

/** `cumulative_sum` and `derivative`: parent pipelines adding a value to each bucket of a histogram. */
export interface ParentPipelineAgg extends AggBase {
  type: 'cumulative_sum' | 'derivative';
  bucketsPath: string;
  gapPolicy: 'skip' | 'insert_zeros' | 'keep_values';
  format?: string;
}

/**
 * `bucket_script` (adds a value to each bucket of its parent) and `bucket_selector` (keeps the
 * buckets whose script is true): parent pipelines whose script reads `buckets_path` values (a
 * variable name → a path in the bucket) through Folio's expression subset (protocol/bucket-script.ts; parsed by coordinator/rest/aggs/bucket-script-parse.ts).
 */
export interface BucketScriptAgg extends AggBase {
  type: 'bucket_script' | 'bucket_selector';
  /** Variable → path (`_count`, `metric`, `agg>metric`, `stats.avg`, `terms._bucket_count`), in request order. */
  bucketsPath: [variable: string, path: string][];
  script: BucketScript;
  gapPolicy: 'skip' | 'insert_zeros' | 'keep_values';
  /** `bucket_script`: DecimalFormat pattern of `value_as_string`. */
  format?: string;
}

/** One node of the aggregation tree. */
export type AggNode =
  | BucketScriptAgg
  | ParentPipelineAgg
  | BucketMetricAgg
  | TopHitsAgg
  | TermsAgg
  | HistogramAgg
  | RangeAgg
  | FilterAgg
  | FiltersAgg
  | SingleBucketAgg
  | StatsMetricAgg
  | CardinalityAgg
  | PercentilesAgg
  | CompositeAgg
  | BucketSortAgg;

/** The bucket aggregations (those that may hold sub-aggregations). */
export type BucketAggNode = TermsAgg | HistogramAgg | RangeAgg | FilterAgg | FiltersAgg | SingleBucketAgg | CompositeAgg;

/** The metric aggregations. */
export type MetricAggNode = StatsMetricAgg | CardinalityAgg | PercentilesAgg;

/**
 * ES's default `index.max_inner_result_window`: `from + size` of `top_hits` at most this (the
 * shards check it when they collect `top_hits`).
 */
export const MAX_INNER_RESULT_WINDOW = 100;

/** Types whose results are neither buckets nor a number (no order path may end there). */
export const HITS_TYPES: ReadonlySet<string> = new Set(['top_hits']);

/** The `type`s of {@link MetricAggNode}. */
export const METRIC_TYPES: ReadonlySet<string> = new Set([
  'min',
  'max',
  'sum',
  'avg',
  'value_count',
  'stats',
  'extended_stats',
  'cardinality',
  'percentiles',
  'percentile_ranks',
]);

/** The pipeline aggregations: computed on the coordinator from reduced buckets; shards skip them. */
export const PIPELINE_TYPES: ReadonlySet<string> = new Set([
  'bucket_sort',
  'bucket_script',
  'bucket_selector',
  'avg_bucket',
  'max_bucket',
  'min_bucket',
  'sum_bucket',
  'stats_bucket',
  'cumulative_sum',
  'derivative',
]);

/** The parent pipelines that reshape their parent's buckets (applied in dependency order once the parent is reduced). */
export const PARENT_PIPELINE_TYPES: ReadonlySet<string> = new Set(['bucket_sort', 'bucket_script', 'bucket_selector', 'cumulative_sum', 'derivative']);

/** The sibling bucket-metric pipelines ({@link BucketMetricAgg}). */
export const BUCKET_METRIC_TYPES: ReadonlySet<string> = new Set(['avg_bucket', 'max_bucket', 'min_bucket', 'sum_bucket', 'stats_bucket']);

/** True for a metric node. */
export function isMetric(n: AggNode): n is MetricAggNode {
  return METRIC_TYPES.has(n.type);
}
