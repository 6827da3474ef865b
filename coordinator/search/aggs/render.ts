/**
 * The `aggregations` section of a search response, field for field as ES 8 writes each
 * `InternalAggregation` (`meta` first, then the body; bucket keys then `key_as_string` for dates
 * and booleans, `doc_count`, sub-aggregations), with `typed_keys` names (`sterms#by_tag`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations.html#return-agg-type
 */
import type { FieldMapping } from '../../../protocol/mapping.ts';
import { INTEGER_TYPES } from '../../../protocol/mapping.ts';
import { javaDoubleText } from '../../rest/aggs/param-parse.ts';
import type { AggNode, AggRange } from '../../../protocol/agg-request.ts';
import { formatDate } from '../../../shared/aggs/date-format.ts';
import { formatDecimal } from '../../../shared/aggs/decimal-format.ts';
import { UTC, zoneOf, type Zone } from '../../../shared/aggs/date-zone.ts';
import { setOwn } from '../../../shared/own-keys.ts';
import { RawJson } from '../../../shared/raw-json.ts';
import { metricValue } from './bucket-path.ts';
import type { Reduced, ReducedBucket } from './reduce.ts';

/** What rendering needs: the mapping of a field (first index that maps it), and `typed_keys`. */
export interface RenderOptions {
  fieldMapping(field: string): FieldMapping | undefined;
  typedKeys: boolean;
}

type Json = Record<string, unknown>;

/** The `typed_keys` prefix of an aggregation (ES's `getWriteableName` of its result class). */
function typeName(r: Reduced, opts: RenderOptions): string {
  const node = r.node;
  if (node.type === 'terms') {
    const fm = opts.fieldMapping(node.field);
    if (!fm || fm.type === 'keyword' || fm.type === 'text' || fm.type === 'wildcard' || fm.type === 'constant_keyword') return 'sterms';
    return INTEGER_TYPES.has(fm.type) || fm.type === 'date' || fm.type === 'date_nanos' || fm.type === 'boolean' ? 'lterms' : 'dterms';
  }
  if (node.type === 'percentiles') return 'tdigest_percentiles';
  if (node.type === 'percentile_ranks') return 'tdigest_percentile_ranks';
  if (node.type === 'composite') return 'composite';
  if (node.type === 'avg_bucket' || node.type === 'sum_bucket' || node.type === 'cumulative_sum' || node.type === 'bucket_script') return 'simple_value';
  if (node.type === 'derivative') return 'derivative';
  if (node.type === 'max_bucket' || node.type === 'min_bucket') return 'bucket_metric_value';
  return node.type;
}

/** Renders reduced aggregations as the response's `aggregations` object (or a bucket's sub-aggregations into `into`). */
export function renderAggs(reduced: readonly Reduced[], opts: RenderOptions, into: Json = {}): Json {
  const put = (r: Reduced) => setOwn<unknown>(into, opts.typedKeys ? `${typeName(r, opts)}#${r.node.name}` : r.node.name, renderOne(r, opts));
  for (const r of reduced) {
    if (r.t === 'pipe') continue; // bucket_sort and bucket_selector shape their parent's buckets and have no output of their own
    if (r.node.type !== 'bucket_script') put(r);
  }
  // ES appends a bucket_script's value after the bucket's other aggregations (BucketScriptPipelineAggregator).
  for (const r of reduced) if (r.t === 'simple' && r.node.type === 'bucket_script') put(r);
  return into;
}

/** The date printing of a field or request `format` and zone, when the field is a date. */
function dateText(node: AggNode, opts: RenderOptions): ((ms: number) => string) | null {
  const field = (node as { field?: string }).field;
  const fm = field ? opts.fieldMapping(field) : undefined;
  const isDate = fm?.type === 'date' || fm?.type === 'date_nanos' || node.type === 'date_histogram' || node.type === 'date_range';
  if (!isDate) {
    // A numeric field with a `format`: Java DecimalFormat text (`value_as_string`, `key_as_string`).
    const format = (node as { format?: string }).format;
    return format !== undefined ? (v) => formatDecimal(v, format) : null;
  }
  const format = (node as { format?: string }).format ?? fm?.format;
  const tz = (node as { timeZone?: string | null }).timeZone;
  const zone: Zone = tz ? zoneOf(tz) : UTC;
  return (ms) => formatDate(ms, format, zone);
}

/** Folio's `total_buckets` (the buckets a `bucket_sort` paged through; docs/aggregations.md), when there is one. */
function putTotalBuckets(out: Json, total: number | null): Json {
  if (total !== null) out.total_buckets = total;
  return out;
}

function renderOne(r: Reduced, opts: RenderOptions): Json {
  const out: Json = r.node.meta ? { meta: r.node.meta } : {};
  switch (r.t) {
    case 'terms':
      return renderTerms(r, opts, out);
    case 'buckets':
      return renderBuckets(r.node, r.buckets, opts, putTotalBuckets(out, r.totalBuckets));
    case 'single':
      out.doc_count = r.n;
      return renderAggs(r.aggs, opts, out);
    case 'card':
      out.value = r.value;
      return out;
    case 'pct': {
      const node = r.node;
      const asDate = dateText(node, opts);
      if (node.keyed) {
        const values: Json = {};
        node.percents.forEach((p, i) => {
          setOwn<unknown>(values, javaDoubleText(p), r.values[i]);
          if (asDate && r.values[i] !== null) setOwn<unknown>(values, `${javaDoubleText(p)}_as_string`, asDate(r.values[i]));
        });
        out.values = values;
      } else out.values = node.percents.map((p, i) => ({ key: p, value: r.values[i] }));
      return out;
    }
    case 'stats':
      return renderStats(r, opts, out);
    case 'pipe':
      return out;
    case 'simple':
      out.value = r.value;
      if (r.node.format !== undefined && r.value !== null) out.value_as_string = formatDecimal(r.value, r.node.format);
      return out;
    case 'bm': {
      const num = r.node.format !== undefined ? (v: number) => formatDecimal(v, r.node.format!) : null;
      if (r.node.type === 'stats_bucket') {
        const c = r.values.length;
        const sum = r.values.reduce((x, y) => x + y, 0);
        Object.assign(out, { count: c, min: c ? Math.min(...r.values) : null, max: c ? Math.max(...r.values) : null, avg: c ? sum / c : null, sum });
        return out;
      }
      out.value = r.value;
      if (num && r.value !== null) out.value_as_string = num(r.value);
      if (r.node.type === 'max_bucket' || r.node.type === 'min_bucket') out.keys = r.keys.map((k) => bucketKeyText(r.target, k, opts));
      return out;
    }
    case 'top': {
      const withSort = r.node.sort.length > 0;
      out.hits = {
        total: { value: r.total, relation: 'eq' },
        max_score: r.maxScore,
        hits: r.hits.map((h) => ({
          _index: h._index,
          _id: h._id,
          _score: h._score,
          ...(h._source !== null ? { _source: new RawJson(h._source) } : {}),
          ...(withSort ? { sort: h.sort } : {}),
        })),
      };
      return out;
    }
    case 'comp':
      return renderComposite(r, opts, out);
  }
}

/**
 * A `terms` aggregation (ES `StringTerms`/`LongTerms`/`DoubleTerms` XContent): its buckets, with
 * `key_as_string` for dates (formatted) and booleans, the error bounds (always 0: exact), and
 * Folio's `total_buckets` after a `bucket_sort`.
 */
function renderTerms(r: Extract<Reduced, { t: 'terms' }>, opts: RenderOptions, out: Json): Json {
  const fm = opts.fieldMapping(r.node.field);
  const asDate = fm !== undefined && fm.type !== 'boolean' && fm.type !== 'keyword' && fm.type !== 'text' ? dateText(r.node, opts) : null;
  const bool = fm?.type === 'boolean';
  out.doc_count_error_upper_bound = 0;
  out.sum_other_doc_count = r.sumOther;
  putTotalBuckets(out, r.totalBuckets);
  out.buckets = r.buckets.map((b) => {
    const o: Json = { key: b.key };
    if (asDate) o.key_as_string = asDate(b.key as number);
    else if (bool) o.key_as_string = b.key === 1 ? 'true' : 'false';
    o.doc_count = b.n;
    if (r.node.showTermDocCountError) o.doc_count_error_upper_bound = 0;
    return renderAggs(b.aggs, opts, o);
  });
  return out;
}

/**
 * A `composite` aggregation (ES `InternalComposite` XContent): `after_key` and the buckets, each key
 * an object by source name (booleans as booleans, formatted `date_histogram` sources as text).
 */
function renderComposite(r: Extract<Reduced, { t: 'comp' }>, opts: RenderOptions, out: Json): Json {
  const values = r.node.sources.map((src) => {
    const fm = opts.fieldMapping(src.field);
    if (fm?.type === 'boolean') return (v: unknown) => (v === null ? null : v === 1);
    if (src.kind === 'date_histogram' && src.format !== undefined) {
      const zone = src.timeZone ? zoneOf(src.timeZone) : UTC;
      return (v: unknown) => (v === null ? null : formatDate(v as number, src.format, zone));
    }
    return (v: unknown) => v;
  });
  const keyObject = (key: readonly unknown[]): Json => {
    const o: Json = {};
    r.node.sources.forEach((src, i) => setOwn<unknown>(o, src.name, values[i](key[i])));
    return o;
  };
  if (r.buckets.length > 0) out.after_key = keyObject(r.buckets[r.buckets.length - 1].key);
  out.buckets = r.buckets.map((b) => renderAggs(b.aggs, opts, { key: keyObject(b.key), doc_count: b.n }));
  return out;
}

function renderStats(r: Extract<Reduced, { t: 'stats' }>, opts: RenderOptions, out: Json): Json {
  const asDate = dateText(r.node, opts);
  const v = (name?: string) => metricValue(r, name);
  const withString = (key: string, value: number | null) => {
    out[key] = value;
    if (asDate && value !== null) out[`${key}_as_string`] = asDate(value);
  };
  switch (r.node.type) {
    case 'value_count':
      out.value = r.stats.count;
      return out;
    case 'min':
    case 'max':
    case 'avg': {
      const x = v();
      out.value = x;
      if (asDate && x !== null) out.value_as_string = asDate(x);
      return out;
    }
    case 'sum':
      out.value = r.stats.sum;
      if (asDate) out.value_as_string = asDate(r.stats.sum);
      return out;
    default:
      break; // stats and extended_stats: the shape below
  }
  out.count = r.stats.count;
  for (const k of ['min', 'max', 'avg']) out[k] = v(k);
  out.sum = r.stats.sum;
  if (asDate && r.stats.count > 0) for (const k of ['min', 'max', 'avg', 'sum']) out[`${k}_as_string`] = asDate(out[k] as number);
  if (r.node.type === 'extended_stats') {
    const sigma = r.node.sigma ?? 2;
    for (const k of [
      'sum_of_squares',
      'variance',
      'variance_population',
      'variance_sampling',
      'std_deviation',
      'std_deviation_population',
      'std_deviation_sampling',
    ]) {
      withString(k, v(k));
    }
    const avg = v('avg');
    const bound = (sd: number | null, sign: number) => (avg === null || sd === null ? null : avg + sign * sigma * sd);
    out.std_deviation_bounds = {
      upper: bound(v('std_deviation'), 1),
      lower: bound(v('std_deviation'), -1),
      upper_population: bound(v('std_deviation_population'), 1),
      lower_population: bound(v('std_deviation_population'), -1),
      upper_sampling: bound(v('std_deviation_sampling'), 1),
      lower_sampling: bound(v('std_deviation_sampling'), -1),
    };
  }
  return out;
}

/** A bucket's key as ES's `getKeyAsString()` prints it (the `keys` of `max_bucket`/`min_bucket`). */
function bucketKeyText(target: Reduced, key: unknown, opts: RenderOptions): string {
  const node = target.node;
  if (node.type === 'range' || node.type === 'date_range') {
    const r = node.ranges[key as number];
    return r.key ?? rangeKey(r, dateText(node, opts) ?? javaDoubleText);
  }
  if (node.type === 'filters') return (key as number) < node.filters.length ? node.filters[key as number].key : node.otherBucketKey!;
  if (typeof key !== 'number') return typeof key === 'string' ? key : JSON.stringify(key);
  const asText = dateText(node, opts);
  if (asText) return asText(key);
  return node.type === 'histogram' ? javaDoubleText(key) : String(key);
}

/** ES's key of a range bucket: `from-to` with `*` for an open end (doubles as Java prints them, dates formatted). */
function rangeKey(r: AggRange, text: (v: number) => string): string {
  return `${r.from === undefined ? '*' : text(r.from)}-${r.to === undefined ? '*' : text(r.to)}`;
}

function renderBuckets(node: AggNode, buckets: readonly ReducedBucket[], opts: RenderOptions, out: Json): Json {
  if (node.type === 'filters') {
    const key = (i: number) => (i < node.filters.length ? node.filters[i].key : node.otherBucketKey!);
    if (node.keyed) {
      const keyed: Json = {};
      buckets.forEach((b, i) => setOwn<unknown>(keyed, key(i), renderAggs(b.aggs, opts, { doc_count: b.n })));
      out.buckets = keyed;
    } else out.buckets = buckets.map((b) => renderAggs(b.aggs, opts, { doc_count: b.n }));
    return out;
  }
  if (node.type === 'range' || node.type === 'date_range') {
    const asDate = dateText(node, opts);
    const text = asDate ?? javaDoubleText;
    const list = buckets.map((b, i) => {
      const r = node.ranges[i];
      const o: Json = { key: r.key ?? rangeKey(r, text) };
      if (r.from !== undefined) {
        o.from = r.from;
        if (asDate) o.from_as_string = asDate(r.from);
      }
      if (r.to !== undefined) {
        o.to = r.to;
        if (asDate) o.to_as_string = asDate(r.to);
      }
      o.doc_count = b.n;
      return renderAggs(b.aggs, opts, o);
    });
    if (node.keyed) {
      const keyed: Json = {};
      for (const o of list) {
        const { key, ...rest } = o;
        setOwn<unknown>(keyed, key as string, rest);
      }
      out.buckets = keyed;
    } else out.buckets = list;
    return out;
  }
  // histogram, date_histogram
  const asDate = dateText(node, opts);
  const list = buckets.map((b) => {
    const o: Json = asDate ? { key_as_string: asDate(b.key as number) } : {};
    o.key = b.key;
    o.doc_count = b.n;
    return renderAggs(b.aggs, opts, o);
  });
  if ((node as { keyed?: boolean }).keyed) {
    const keyed: Json = {};
    list.forEach((o, i) => setOwn<unknown>(keyed, asDate ? (o.key_as_string as string) : javaDoubleText(buckets[i].key as number), o));
    out.buckets = keyed;
  } else out.buckets = list;
  return out;
}
