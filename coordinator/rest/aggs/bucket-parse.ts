/**
 * The builders of the bucket aggregations keyed by term or by query: `terms` (with its `order`,
 * `include`/`exclude`), `filters`, `missing` and `global`, with ES's parameter errors
 * (`TermsAggregationBuilder`, `FiltersAggregationBuilder`, `MissingAggregationBuilder`,
 * `GlobalAggregationBuilder` and their `ObjectParser`s). The dispatch by type is agg-parse.ts.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/bucket/terms/TermsAggregationBuilder.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/bucket/filter/FiltersAggregationBuilder.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/InternalOrder.java
 */
import { illegalArgument, parsingException } from '../../../protocol/errors.ts';
import { isObject, tokenName, xContentBoolean, xContentInt } from '../params.ts';
import { parseQuery } from '../query-dsl.ts';
import type { BucketOrder, FiltersAgg, SingleBucketAgg, TermFilter, TermsAgg } from '../../../protocol/agg-request.ts';
import { lng, scalar, str, valuesSource, walk, type Obj } from './param-parse.ts';
import { simpleRegex } from '../../../shared/aggs/simple-regex.ts';

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

/**
 * An `order` (object or array of objects); a tie-break on `_key` asc is appended unless a `_key` criterion is there (ES `BucketOrder.compound`).
 * @throws EsError 400 `parsing_exception` (`Unknown order direction [x]`, `Must specify at least one field for [order]`)
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/InternalOrder.java
 */
export function ordersOf(v: unknown): BucketOrder[] {
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

/**
 * `terms`: `field`/`missing`/`format`, `size` and `shard_size` (> 0), `min_doc_count`, `order`
 * (default `_count` desc then `_key` asc), `include`/`exclude`; `execution_hint` and `collect_mode`
 * are checked and ignored.
 * @throws EsError 400 with `TermsAggregationBuilder`'s texts (`[size] must be greater than 0. Found [0] in [name]`)
 */
export function parseTerms(name: string, body: Obj): TermsAgg {
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

/**
 * `filters`: named filters (keyed, sorted by key as ES) or an array (unkeyed, keys `0`, `1`, …),
 * with `other_bucket` / `other_bucket_key` (default `_other_`).
 * @throws EsError 400 `[filters] cannot be empty.`, or the query parser's errors
 */
export function parseFilters(name: string, body: Obj): FiltersAgg {
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

/**
 * `missing` (a values source: `field`, `missing` accepted and unused) or `global` (no parameters):
 * one bucket each.
 * @throws EsError 400 `[missing] unknown field [x]` / `[global] unknown field [x]`
 */
export function parseSingle(type: 'missing' | 'global', name: string, body: Obj): SingleBucketAgg {
  const n: SingleBucketAgg = { type, name, aggs: [] };
  if (type === 'global') walk('global', body, {});
  else {
    const holder = { field: '' };
    walk('missing', body, { ...valuesSource(holder), missing: ['V', () => undefined] });
    n.field = holder.field;
  }
  return n;
}
