/**
 * `aggs`/`aggregations` of a search body → the {@link AggNode} tree, with ES's parse errors:
 * `AggregatorFactories.parseAggregators` for the tree (names, one type per aggregation, `aggs`,
 * `meta`), and each builder's `ObjectParser` for its parameters (`[terms] unknown field [x]`,
 * `[terms] failed to parse field [size]` around the setter's `IllegalArgumentException`).
 * Checks that need the mapping (field types, order paths) are the shard's (shard-node/engine/aggs/agg-check.ts),
 * as ES runs them when each shard builds its aggregators.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/AggregatorFactories.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/bucket/terms/TermsAggregationBuilder.java
 * @see docs/aggregations.md
 */
import { EsError, illegalArgument, parsingException, validationFailed } from '../../../protocol/errors.ts';
import { didYouMean, isObject, parseTimeValue, tokenName, xContentBoolean, xContentError, xContentInt } from '../params.ts';
import { parseQuery } from '../query-dsl.ts';
import { BUCKET_METRIC_TYPES } from '../../../protocol/agg-request.ts';
import type {
  AggNode,
  AggRange,
  BucketMetricAgg,
  BucketOrder,
  DateInterval,
  FilterAgg,
  FiltersAgg,
  HistogramAgg,
  RangeAgg,
  SingleBucketAgg,
  TermFilter,
  TermsAgg,
} from '../../../protocol/agg-request.ts';
import { parseBucketSort, parseComposite } from './bucket-paging-parse.ts';
import { parseDateValue } from '../../../shared/aggs/date-format.ts';
import { UTC, zoneOf, type Zone } from '../../../shared/aggs/date-zone.ts';
import { parseCardinality, parseMetric, parsePercentileRanks, parsePercentiles, parseTopHits } from './metric-parse.ts';
import { bucketsPathProblem, parentPathProblems, parseBucketMetric, parseBucketScriptAgg, parseParentPipeline } from './pipeline-parse.ts';
import { CALENDAR_UNITS, dbl, lng, scalar, str, valuesSource, walk, type Obj, type Spec } from './param-parse.ts';
import { simpleRegex } from '../../../shared/aggs/simple-regex.ts';

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

/** `InternalOrder.Parser.parseOrderParam` for one `{"key": "asc|desc"}` object. */
function orderOf(v: unknown): BucketOrder {
  if (!isObject(v)) throw parsingException(`Unexpected token [${tokenName(v)}] for [order]`);
  let key: string | null = null;
  let asc = false;
  for (const [k, dir] of Object.entries(v)) {
    key = k;
    if (typeof dir !== 'string') throw parsingException(`Unexpected token [${tokenName(dir)}] for [order]`);
    if (dir.toLowerCase() === 'asc') asc = true;
    else if (dir.toLowerCase() === 'desc') asc = false;
    else throw parsingException(`Unknown order direction [${dir}]`);
  }
  if (key === null) throw parsingException('Must specify at least one field for [order]');
  if (key === '_term' || key === '_time') key = '_key';
  return { key, asc };
}

/** An `order` (object or array of objects); a tie-break on `_key` asc is appended unless a `_key` criterion is there (ES `BucketOrder.compound`). */
function ordersOf(v: unknown): BucketOrder[] {
  const list = (Array.isArray(v) ? v : [v]).map(orderOf);
  if (!list.some((o) => o.key === '_key')) list.push({ key: '_key', asc: true });
  return list;
}

/** `IncludeExclude.parseInclude`/`parseExclude`: a regular expression string or an array of values. */
function termFilterOf(v: unknown, param: 'include' | 'exclude'): TermFilter {
  if (typeof v === 'string') {
    simpleRegex(v, param); // refuse what Folio cannot match, now
    return { regex: v };
  }
  if (Array.isArray(v)) return { values: v.map(scalar) };
  if (isObject(v)) throw illegalArgument(`[${param}] partitions are not supported by Folio yet`);
  throw illegalArgument(`Unrecognized token for an ${param} [${tokenName(v)}]`);
}

function parseTerms(name: string, body: Obj): TermsAgg {
  const n: TermsAgg = {
    type: 'terms',
    name,
    field: '',
    size: 10,
    shardSize: null,
    minDocCount: 1,
    order: [
      { key: '_count', asc: false },
      { key: '_key', asc: true },
    ],
    aggs: [],
  };
  walk('terms', body, {
    ...valuesSource(n),
    size: [
      'V',
      (v) => {
        const s = xContentInt(v);
        if (s <= 0) throw illegalArgument(`[size] must be greater than 0. Found [${s}] in [${name}]`);
        n.size = s;
      },
    ],
    shard_size: [
      'V',
      (v) => {
        const s = xContentInt(v);
        if (s <= 0) throw illegalArgument(`[shardSize] must be greater than 0. Found [${s}] in [${name}]`);
        n.shardSize = s;
      },
    ],
    min_doc_count: [
      'V',
      (v) => {
        const c = lng(v);
        if (c < 0) throw illegalArgument(`[minDocCount] must be greater than or equal to 0. Found [${c}] in [${name}]`);
        n.minDocCount = c;
      },
    ],
    shard_min_doc_count: [
      'V',
      (v) => {
        const c = lng(v);
        if (c < 0) throw illegalArgument(`[shardMinDocCount] must be greater than or equal to 0. Found [${c}] in [${name}]`);
      },
    ],
    show_term_doc_count_error: ['V', (v) => (n.showTermDocCountError = xContentBoolean(v))],
    execution_hint: ['V', (v) => void str(v)],
    collect_mode: [
      'V',
      (v) => {
        if (!['depth_first', 'breadth_first'].includes(str(v))) throw illegalArgument(`No ${'SubAggCollectionMode'} found for [${String(v)}]`);
      },
    ],
    order: ['OA', (v) => (n.order = ordersOf(v))],
    include: ['VA', (v) => (n.include = termFilterOf(v, 'include'))],
    exclude: ['VA', (v) => (n.exclude = termFilterOf(v, 'exclude'))],
  });
  return n;
}

/** `extended_bounds` / `hard_bounds`: `{min, max}` (dates through date math for date_histogram). */
function boundsOf(v: unknown, type: string, field: string, date: Zone | null): { min?: number; max?: number } {
  const b: { min?: number; max?: number } = {};
  walk(field, v as Obj, {
    min: ['V', (x) => (b.min = date ? parseDateValue(x, date) : dbl(x))],
    max: ['V', (x) => (b.max = date ? parseDateValue(x, date) : dbl(x))],
  });
  void type;
  return b;
}

function parseHistogram(name: string, body: Obj, date: boolean): HistogramAgg {
  const type = date ? 'date_histogram' : 'histogram';
  const n: HistogramAgg = {
    type,
    name,
    field: '',
    interval: 0,
    timeZone: null,
    offset: 0,
    minDocCount: date ? 0 : 0,
    keyed: false,
    order: [{ key: '_key', asc: true }],
    aggs: [],
  };
  let zone: Zone = UTC;
  // `time_zone` may come after the bounds it applies to: read it first.
  if (date && typeof body.time_zone === 'string') {
    try {
      zone = zoneOf(body.time_zone);
    } catch (e) {
      throw xContentError(`[${type}] failed to parse field [time_zone]`, (e as EsError).toCause());
    }
  }
  let rawMissing: unknown;
  const specs: Record<string, Spec> = {
    field: ['V', (v) => (n.field = str(v))],
    format: ['V', (v) => (n.format = str(v))],
    missing: ['V', (v) => (rawMissing = v)],
    value_type: ['V', () => undefined],
    script: [
      'VO',
      () => {
        throw illegalArgument('[script] in aggregations is not supported by Folio yet');
      },
    ],
    min_doc_count: [
      'V',
      (v) => {
        const c = lng(v);
        if (c < 0) throw illegalArgument(`[minDocCount] must be greater than or equal to 0. Found [${c}] in [${name}]`);
        n.minDocCount = c;
      },
    ],
    keyed: ['V', (v) => (n.keyed = xContentBoolean(v))],
    order: ['OA', (v) => (n.order = ordersOf(v))],
    extended_bounds: [
      'O',
      (v) => {
        const b = boundsOf(v, type, 'extended_bounds', date ? zone : null);
        n.extendedBounds = { min: b.min ?? Number.NaN, max: b.max ?? Number.NaN };
      },
    ],
    hard_bounds: ['O', (v) => (n.hardBounds = boundsOf(v, type, 'hard_bounds', date ? zone : null))],
  };
  if (date) {
    const setInterval = (kind: 'calendar_interval' | 'fixed_interval', iv: DateInterval) => {
      if (n.dateInterval) {
        const other = 'calendar' in n.dateInterval ? 'calendar_interval' : 'fixed_interval';
        throw illegalArgument(`Cannot use [${kind}] with [${other}] configuration option.`);
      }
      n.dateInterval = iv;
    };
    specs.calendar_interval = [
      'V',
      (v) => {
        const s = str(v);
        const unit = Object.hasOwn(CALENDAR_UNITS, s) ? CALENDAR_UNITS[s] : undefined;
        if (!unit) throw illegalArgument(`The supplied interval [${s}] could not be parsed as a calendar interval.`);
        setInterval('calendar_interval', { calendar: unit });
      },
    ];
    specs.fixed_interval = [
      'V',
      (v) => {
        const s = str(v);
        const ms = parseTimeValue(s, 'date_histogram.fixedInterval');
        setInterval('fixed_interval', { fixedMs: ms });
      },
    ];
    specs.time_zone = ['V', (v) => (n.timeZone = zoneOf(str(v)).id)];
    specs.offset = [
      'V',
      (v) => {
        if (typeof v === 'number') return void (n.offset = Math.trunc(v));
        const s = str(v).trim();
        const sign = s.startsWith('-') ? -1 : 1;
        n.offset = sign * parseTimeValue(s.replace(/^[+-]/, ''), 'date_histogram.offset');
      },
    ];
  } else {
    specs.interval = [
      'V',
      (v) => {
        const i = dbl(v);
        if (!(i > 0)) throw illegalArgument(`[interval] must be >0 for histogram aggregation [${name}]`);
        n.interval = i;
      },
    ];
    specs.offset = ['V', (v) => (n.offset = dbl(v))];
  }
  walk(type, body, specs);
  if (rawMissing !== undefined) n.missing = date ? parseDateValue(rawMissing, zone) : dbl(rawMissing);
  if (!date && n.interval === 0) throw illegalArgument(`[interval] must be >0 for histogram aggregation [${name}]`);
  if (n.extendedBounds && (Number.isNaN(n.extendedBounds.min) || Number.isNaN(n.extendedBounds.max))) delete n.extendedBounds;
  return n;
}

function parseRange(name: string, body: Obj, date: boolean): RangeAgg {
  const type = date ? 'date_range' : 'range';
  const n: RangeAgg = { type, name, field: '', ranges: [], keyed: false, aggs: [] };
  let zone: Zone = UTC;
  let raw: unknown[] | null = null;
  let rawMissing: unknown;
  walk(type, body, {
    field: ['V', (v) => (n.field = str(v))],
    format: ['V', (v) => (n.format = str(v))],
    missing: ['V', (v) => (rawMissing = v)],
    value_type: ['V', () => undefined],
    script: [
      'VO',
      () => {
        throw illegalArgument('[script] in aggregations is not supported by Folio yet');
      },
    ],
    keyed: ['V', (v) => (n.keyed = xContentBoolean(v))],
    ranges: ['A', (v) => (raw = v as unknown[])],
    ...(date
      ? {
          time_zone: [
            'V',
            (v: unknown) => {
              zone = zoneOf(str(v));
              n.timeZone = zone.id;
            },
          ] as Spec,
        }
      : {}),
  });
  if (raw === null || (raw as unknown[]).length === 0) throw illegalArgument(`No [ranges] specified for the [${name}] aggregation`);
  const value = (x: unknown): number | undefined => (x === null ? undefined : date ? parseDateValue(x, zone) : dbl(x));
  n.ranges = (raw as unknown[]).map((r) => {
    if (!isObject(r)) throw parsingException(`Unexpected token ${tokenName(r)} in [ranges]`);
    const range: AggRange = {};
    walk(type === 'range' ? 'range' : 'date_range', r, {
      key: ['V', (v) => (range.key = str(v))],
      from: [
        'VN',
        (v) => {
          const x = value(v);
          if (x !== undefined) range.from = x;
        },
      ],
      to: [
        'VN',
        (v) => {
          const x = value(v);
          if (x !== undefined) range.to = x;
        },
      ],
    });
    return range;
  });
  // ES keeps the ranges sorted by `from`, then `to` (RangeAggregator.RANGE_COMPARATOR).
  const lo = (r: AggRange) => r.from ?? -Infinity;
  const hi = (r: AggRange) => r.to ?? Infinity;
  n.ranges.sort((a, b) => lo(a) - lo(b) || hi(a) - hi(b));
  if (rawMissing !== undefined) n.missing = date ? parseDateValue(rawMissing, zone) : dbl(rawMissing);
  return n;
}

function parseFilters(name: string, body: Obj): FiltersAgg {
  const n: FiltersAgg = { type: 'filters', name, filters: [], keyed: true, otherBucketKey: null, aggs: [] };
  let other = false;
  let otherKey = '_other_';
  walk('filters', body, {
    filters: [
      'OA',
      (v) => {
        if (Array.isArray(v)) {
          n.keyed = false;
          n.filters = v.map((q, i) => ({ key: String(i), query: parseQuery(q) }));
        } else n.filters = Object.entries(v as Obj).map(([key, q]) => ({ key, query: parseQuery(q) }));
      },
    ],
    other_bucket: ['V', (v) => (other = xContentBoolean(v))],
    other_bucket_key: [
      'V',
      (v) => {
        otherKey = str(v);
        other = true;
      },
    ],
  });
  if (n.filters.length === 0) throw illegalArgument(`[filters] cannot be empty.`);
  if (n.keyed) n.filters.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)); // ES keys named filters in sorted order
  if (other) n.otherBucketKey = otherKey;
  return n;
}

function parseSingle(type: 'missing' | 'global', name: string, body: Obj): SingleBucketAgg {
  const n: SingleBucketAgg = { type, name, aggs: [] };
  if (type === 'global') walk('global', body, {});
  else {
    const holder = { field: '' };
    walk('missing', body, { ...valuesSource(holder), missing: ['V', () => undefined] });
    n.field = holder.field;
  }
  return n;
}

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
const LEAF_TYPES = new Set([
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
  'bucket_sort',
  'bucket_script',
  'bucket_selector',
  'top_hits',
  'avg_bucket',
  'max_bucket',
  'min_bucket',
  'sum_bucket',
  'stats_bucket',
  'cumulative_sum',
  'derivative',
]);

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
