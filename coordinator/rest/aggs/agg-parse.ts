/**
 * `aggs`/`aggregations` of a search body → the {@link AggNode} tree, with ES's parse errors:
 * `AggregatorFactories.parseAggregators` for the tree (names, one type per aggregation, `aggs`,
 * `meta`), and each builder's `ObjectParser` for its parameters (`[terms] unknown field [x]`,
 * `[terms] failed to parse field [size]` around the setter's `IllegalArgumentException`).
 * Checks that need the mapping (field types, order paths) are the shard's (shard-node/engine/aggs/agg-check.ts),
 * as ES runs them when each shard builds its aggregators. This module is the tree and the dispatch by type;
 * the builders are bucket-parse.ts (terms, filters, missing, global), histogram-range-parse.ts,
 * metric-parse.ts, bucket-paging-parse.ts and pipeline-parse.ts.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/AggregatorFactories.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/bucket/terms/TermsAggregationBuilder.java
 * @see docs/aggregations.md
 */
import { EsError, illegalArgument, parsingException, validationFailed } from '../../../protocol/errors.ts';
import { didYouMean, isObject, tokenName } from '../params.ts';
import { parseQuery } from '../query-dsl.ts';
import { BUCKET_METRIC_TYPES, HITS_TYPES, METRIC_TYPES, PIPELINE_TYPES } from '../../../protocol/agg-request.ts';
import type { AggNode, BucketMetricAgg, FilterAgg } from '../../../protocol/agg-request.ts';
import { parseBucketSort, parseComposite } from './bucket-paging-parse.ts';
import { parseFilters, parseSingle, parseTerms } from './bucket-parse.ts';
import { parseHistogram, parseRange } from './histogram-range-parse.ts';
import { parseCardinality, parseMetric, parsePercentileRanks, parsePercentiles, parseTopHits } from './metric-parse.ts';
import { bucketsPathProblem, parentPathProblems, parseBucketMetric, parseBucketScriptAgg, parseParentPipeline } from './pipeline-parse.ts';
import { type Obj } from './param-parse.ts';

/** Every aggregation type ES 8 registers (for the suggestion, and "not supported by Folio yet"). */
export const ES_AGGREGATIONS: readonly string[] = [
  'adjacency_matrix',
  'auto_date_histogram',
  'avg',
  'boxplot',
  'cardinality',
  'categorize_text',
  'children',
  'composite',
  'date_histogram',
  'date_range',
  'diversified_sampler',
  'extended_stats',
  'filter',
  'filters',
  'frequent_item_sets',
  'geo_bounds',
  'geo_centroid',
  'geo_line',
  'geohash_grid',
  'geohex_grid',
  'geotile_grid',
  'global',
  'histogram',
  'ip_prefix',
  'ip_range',
  'matrix_stats',
  'max',
  'median_absolute_deviation',
  'min',
  'missing',
  'multi_terms',
  'nested',
  'parent',
  'percentile_ranks',
  'percentiles',
  'random_sampler',
  'range',
  'rare_terms',
  'rate',
  'reverse_nested',
  'sampler',
  'scripted_metric',
  'significant_terms',
  'significant_text',
  'stats',
  'string_stats',
  'sum',
  't_test',
  'terms',
  'time_series',
  'top_hits',
  'top_metrics',
  'value_count',
  'variable_width_histogram',
  'weighted_avg',
  'avg_bucket',
  'bucket_script',
  'bucket_selector',
  'bucket_sort',
  'bucket_count_ks_test',
  'bucket_correlation',
  'cumulative_cardinality',
  'cumulative_sum',
  'derivative',
  'extended_stats_bucket',
  'inference',
  'max_bucket',
  'min_bucket',
  'moving_fn',
  'moving_percentiles',
  'normalize',
  'percentiles_bucket',
  'serial_diff',
  'stats_bucket',
  'sum_bucket',
];

/** ES `AggregatorFactories.VALID_AGG_NAME`: any name without `[`, `]` or `>`. */
const VALID_NAME = /^[^[\]>]+$/;

/** Builds one aggregation of a supported type from its body. */
function parseTyped(type: string, name: string, body: unknown): AggNode {
  if (type === 'filter') return { type: 'filter', name, query: parseQuery(body), aggs: [] } satisfies FilterAgg;
  const o = body as Obj;
  switch (type) {
    case 'terms':
      return parseTerms(name, o);
    case 'histogram':
      return parseHistogram(name, o, false);
    case 'date_histogram':
      return parseHistogram(name, o, true);
    case 'range':
      return parseRange(name, o, false);
    case 'date_range':
      return parseRange(name, o, true);
    case 'filters':
      return parseFilters(name, o);
    case 'missing':
    case 'global':
      return parseSingle(type, name, o);
    case 'min':
    case 'max':
    case 'sum':
    case 'avg':
    case 'value_count':
    case 'stats':
    case 'extended_stats':
      return parseMetric(type, name, o);
    case 'cardinality':
      return parseCardinality(name, o);
    case 'percentiles':
      return parsePercentiles(name, o);
    case 'percentile_ranks':
      return parsePercentileRanks(name, o);
    case 'composite':
      return parseComposite(name, o);
    case 'bucket_sort':
      return parseBucketSort(name, o);
    case 'bucket_script':
    case 'bucket_selector':
      return parseBucketScriptAgg(type, name, o);
    case 'cumulative_sum':
    case 'derivative':
      return parseParentPipeline(type, name, o);
    case 'avg_bucket':
    case 'max_bucket':
    case 'min_bucket':
    case 'sum_bucket':
    case 'stats_bucket':
      return parseBucketMetric(type, name, o);
    case 'top_hits':
      return parseTopHits(name, o);
  }
  if (ES_AGGREGATIONS.includes(type)) throw illegalArgument(`aggregation type [${type}] is not supported by Folio yet`);
  throw new EsError(400, 'parsing_exception', `Unknown aggregation type [${type}]${didYouMean(type, ES_AGGREGATIONS)}`, {
    metadata: { line: 1, col: 1 },
    causedBy: { type: 'named_object_not_found_exception', reason: `[1:1] unknown field [${type}]` },
  });
}

/** Aggregations with many buckets: the parents `bucket_script` and `bucket_selector` may shape. */
const MULTI_BUCKET_TYPES = new Set(['terms', 'histogram', 'date_histogram', 'range', 'date_range', 'filters', 'composite']);

/** Types that cannot hold sub-aggregations (ES `AggregationInitializationException`). */
const LEAF_TYPES: ReadonlySet<string> = new Set([...METRIC_TYPES, ...PIPELINE_TYPES, ...HITS_TYPES]);

/**
 * Parses an `aggs` object (any depth) into the aggregation tree.
 * @throws EsError 400 with ES's texts: `parsing_exception` for the tree's shape (`Invalid aggregation
 *   name [x]…`, `Unknown aggregation type [x]`, `Missing definition for aggregation [x]`, `Found two
 *   aggregation type definitions in [x]: [a] and [b]`, …), `x_content_parse_exception` for a
 *   parameter, `aggregation_initialization_exception` for sub-aggregations under a metric (ES
 *   answers 500 there; Folio 400: docs/compatibility.md), `illegal_argument_exception` for what
 *   Folio does not support yet.
 * @example parseAggregations({ by_tag: { terms: { field: 'tag' }, aggs: { avg_price: { avg: { field: 'price' } } } } })
 */
export function parseAggregations(json: Record<string, unknown>, level = 0, parentType?: string): AggNode[] {
  const out: AggNode[] = [];
  for (const [name, def] of Object.entries(json)) {
    if (!VALID_NAME.test(name)) {
      throw parsingException(`Invalid aggregation name [${name}]. Aggregation names can contain any character except '[', ']', and '>'`);
    }
    if (!isObject(def)) throw parsingException(`Aggregation definition for [${name} starts with a [${tokenName(def)}], expected a [START_OBJECT].`);
    let node: AggNode | null = null;
    let typeName = '';
    let subs: Record<string, unknown> | null = null;
    let meta: Record<string, unknown> | undefined;
    for (const [key, v] of Object.entries(def)) {
      if (!isObject(v)) throw parsingException(`Expected [START_OBJECT] under [${key}], but got a [${tokenName(v)}] in [${name}]`);
      if (key === 'meta') meta = v;
      else if (key === 'aggs' || key === 'aggregations') {
        if (subs !== null) throw parsingException(`Found two sub aggregation definitions under [${name}]`);
        subs = v; // parsed once the type is known (for the composite parent check)
      } else {
        if (node !== null) throw parsingException(`Found two aggregation type definitions in [${name}]: [${typeName}] and [${key}]`);
        node = parseTyped(key, name, v);
        typeName = key;
      }
    }
    if (node === null) throw parsingException(`Missing definition for aggregation [${name}]`);
    const children = subs === null ? [] : parseAggregations(subs, level + 1, node.type);
    if (children.length > 0) {
      if (LEAF_TYPES.has(node.type)) {
        throw new EsError(400, 'aggregation_initialization_exception', `Aggregator [${name}] of type [${node.type}] cannot accept sub-aggregations`);
      }
      node.aggs = children;
    }
    if ((node.type === 'cumulative_sum' || node.type === 'derivative') && parentType !== 'histogram' && parentType !== 'date_histogram') {
      throw validationFailed([`${node.type} aggregation [${name}] must have a histogram, date_histogram or auto_date_histogram as parent`]);
    }
    if (level === 0 && (node.type === 'bucket_sort' || node.type === 'bucket_script' || node.type === 'bucket_selector')) {
      throw validationFailed([`${node.type} aggregation [${name}] must be declared inside of another aggregation`]);
    }
    if (level > 0 && node.type === 'bucket_sort' && node.sort.length === 0 && node.size === null && node.from === 0) {
      throw validationFailed([`[${name}] is configured to perform nothing. Please set either of [sort, size, from] to use bucket_sort`]);
    }
    if ((node.type === 'bucket_script' || node.type === 'bucket_selector') && !MULTI_BUCKET_TYPES.has(parentType ?? '')) {
      throw illegalArgument(`${node.type} aggregation [${name}] must be declared inside of a multi-bucket aggregation, not [${parentType}]`);
    }
    if (level > 0 && node.type === 'composite') {
      throw illegalArgument(`[composite] aggregation cannot be used with a parent aggregation of type: [${parentType ?? 'unknown'}]`);
    }
    if (level > 0 && node.type === 'global') {
      throw new EsError(
        400,
        'aggregation_execution_exception',
        `Aggregation [${name}] cannot be a sub-aggregation: global aggregations can only be defined as top level aggregations`,
      );
    }
    if (meta !== undefined) node.meta = meta;
    out.push(node);
  }
  const problems = out
    .filter((n): n is BucketMetricAgg => BUCKET_METRIC_TYPES.has(n.type))
    .map((n) => bucketsPathProblem(n, out))
    .filter((p): p is string => p !== null);
  if (level > 0) problems.push(...parentPathProblems(out));
  if (problems.length > 0) throw validationFailed(problems);
  return out;
}
