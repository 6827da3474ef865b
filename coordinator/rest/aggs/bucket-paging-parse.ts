/**
 * The builders of bucket paging: `composite` (sources, `size`, `after`) and the `bucket_sort`
 * pipeline, with ES's errors (`CompositeAggregationBuilder`, `BucketSortPipelineAggregationBuilder`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-bucket-composite-aggregation.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-pipeline-bucket-sort-aggregation.html
 */
import { illegalArgument, parsingException } from '../../../protocol/errors.ts';
import { isObject, parseTimeValue, tokenName, xContentBoolean, xContentInt } from '../params.ts';
import { parseSortBody } from '../sort-parse.ts';
import type { BucketSortAgg, CompositeAgg, CompositeSource, DateInterval } from '../../../protocol/agg-request.ts';
import { parseDateValue } from '../../../shared/aggs/date-format.ts';
import { UTC, zoneOf } from '../../../shared/aggs/date-zone.ts';
import { CALENDAR_UNITS, dbl, str, walk, type Obj, type Spec } from './param-parse.ts';
import { DEFAULT_MAX_BUCKETS, tooManyBuckets } from '../../../shared/aggs/too-many-buckets.ts';

/** One `composite` source: `{name: {terms|histogram|date_histogram: {...}}}`. */
export function compositeSource(v: unknown): CompositeSource {
  if (!isObject(v) || Object.keys(v).length !== 1) throw parsingException(`Expected [START_OBJECT] with one source name in [sources]`);
  const [name, def] = Object.entries(v)[0];
  if (!isObject(def) || Object.keys(def).length !== 1) throw parsingException(`Expected one source type under [${name}]`);
  const [kind, body] = Object.entries(def)[0];
  if (kind !== 'terms' && kind !== 'histogram' && kind !== 'date_histogram') {
    if (kind === 'geotile_grid') throw illegalArgument('[composite] source [geotile_grid] is not supported by Folio yet');
    throw parsingException(`Invalid source config for [${name}]: unknown source type [${kind}]`);
  }
  const src: CompositeSource = { name, kind, field: '', asc: true, missingBucket: false, missingFirst: true };
  let missingOrder = 'default';
  const specs: Record<string, Spec> = {
    field: ['V', (x) => (src.field = str(x))],
    order: [
      'V',
      (x) => {
        const o = str(x).toLowerCase();
        if (o !== 'asc' && o !== 'desc') throw illegalArgument(`Unknown order direction [${String(x)}]`);
        src.asc = o === 'asc';
      },
    ],
    missing_bucket: ['V', (x) => (src.missingBucket = xContentBoolean(x))],
    missing_order: [
      'V',
      (x) => {
        missingOrder = str(x).toLowerCase();
        if (!['first', 'last', 'default'].includes(missingOrder)) throw illegalArgument(`Unknown MissingOrder [${String(x)}]`);
      },
    ],
    value_type: ['V', () => undefined],
    format: ['V', (x) => (src.format = str(x))],
    script: [
      'VO',
      () => {
        throw illegalArgument('[script] in aggregations is not supported by Folio yet');
      },
    ],
  };
  if (kind === 'histogram') {
    specs.interval = [
      'V',
      (x) => {
        const i = dbl(x);
        if (!(i > 0)) throw illegalArgument(`[interval] must be greater than 0 for [histogram] source`);
        src.interval = i;
      },
    ];
  }
  if (kind === 'date_histogram') {
    const one = (iv: DateInterval) => {
      if (src.dateInterval) throw illegalArgument('Cannot use [fixed_interval] with [calendar_interval] configuration option.');
      src.dateInterval = iv;
    };
    specs.calendar_interval = [
      'V',
      (x) => {
        const unit = Object.hasOwn(CALENDAR_UNITS, str(x)) ? CALENDAR_UNITS[str(x)] : undefined;
        if (!unit) throw illegalArgument(`The supplied interval [${str(x)}] could not be parsed as a calendar interval.`);
        one({ calendar: unit });
      },
    ];
    specs.fixed_interval = ['V', (x) => one({ fixedMs: parseTimeValue(str(x), 'date_histogram.fixedInterval') })];
    specs.time_zone = ['V', (x) => (src.timeZone = zoneOf(str(x)).id)];
    specs.offset = [
      'V',
      (x) => {
        if (typeof x === 'number') return void (src.offset = Math.trunc(x));
        const t = str(x).trim();
        src.offset = (t.startsWith('-') ? -1 : 1) * parseTimeValue(t.replace(/^[+-]/, ''), 'date_histogram.offset');
      },
    ];
  }
  walk(kind, body as Obj, specs);
  src.missingFirst = missingOrder === 'default' ? src.asc : missingOrder === 'first';
  if (kind === 'date_histogram' && !src.dateInterval) throw illegalArgument('Invalid interval specified, must be non-null and non-empty');
  if (kind === 'histogram' && src.interval === undefined) throw illegalArgument(`[interval] must be greater than 0 for [histogram] source`);
  return src;
}

/** `composite` (ES `CompositeAggregationBuilder`): sources, `size` (10), `after` keyed by source name. */
export function parseComposite(name: string, body: Obj): CompositeAgg {
  const n: CompositeAgg = { type: 'composite', name, sources: [], size: 10, after: null, aggs: [] };
  let rawSources: unknown[] | null = null;
  let rawAfter: Obj | null = null;
  walk('composite', body, {
    sources: ['A', (v) => (rawSources = v as unknown[])],
    size: [
      'V',
      (v) => {
        const s = xContentInt(v);
        if (s <= 0) throw illegalArgument(`[size] must be greater than 0. Found [${s}] in [${name}]`);
        n.size = s;
      },
    ],
    after: ['O', (v) => (rawAfter = v as Obj)],
  });
  // ES refuses a page larger than the bucket limit up front (CompositeAggregationBuilder.doBuild).
  if (n.size > DEFAULT_MAX_BUCKETS) throw tooManyBuckets(DEFAULT_MAX_BUCKETS);
  if (rawSources === null) throw illegalArgument('Composite [sources] cannot be null');
  if ((rawSources as unknown[]).length === 0) throw illegalArgument('Composite [sources] cannot be empty');
  n.sources = (rawSources as unknown[]).map(compositeSource);
  const names = n.sources.map((s) => s.name);
  const dup = names.filter((x, i) => names.indexOf(x) !== i);
  if (dup.length > 0) throw illegalArgument(`Composite source names must be unique, found duplicates: [${[...new Set(dup)].join(', ')}]`);
  if (rawAfter !== null) {
    const after = rawAfter as Obj;
    if (Object.keys(after).length !== n.sources.length)
      throw illegalArgument(`[after] has ${Object.keys(after).length} value(s) but [sources] has ${n.sources.length}`);
    n.after = n.sources.map((src) => {
      if (!Object.hasOwn(after, src.name)) throw illegalArgument(`Missing value for [after.${src.name}]`);
      const v = after[src.name];
      if (v === null) return null;
      if (typeof v === 'boolean') return v ? 1 : 0;
      if (src.kind === 'date_histogram' && typeof v === 'string') return parseDateValue(v, src.timeZone ? zoneOf(src.timeZone) : UTC);
      if (typeof v === 'string' || typeof v === 'number') return v;
      throw illegalArgument(`Invalid value for [after.${src.name}]: ${tokenName(v)}`);
    });
  }
  return n;
}

/** `bucket_sort` (ES `BucketSortPipelineAggregationBuilder`): `sort`, `from` (0), `size`, `gap_policy` (`skip`). */
export function parseBucketSort(name: string, body: Obj): BucketSortAgg {
  const n: BucketSortAgg = { type: 'bucket_sort', name, sort: [], from: 0, size: null, gapPolicy: 'skip', aggs: [] };
  walk('bucket_sort', body, {
    sort: ['VOA', (v) => (n.sort = parseSortBody(v).map((f) => ({ path: f.field, asc: f.order === 'asc' })))],
    from: [
      'V',
      (v) => {
        const f = xContentInt(v);
        if (f < 0) throw illegalArgument(`[from] must be a non-negative integer: [${f}]`);
        n.from = f;
      },
    ],
    size: [
      'V',
      (v) => {
        const s = xContentInt(v);
        if (s <= 0) throw illegalArgument(`[size] must be a positive integer: [${s}]`);
        n.size = s;
      },
    ],
    gap_policy: [
      'V',
      (v) => {
        const g = str(v).toLowerCase();
        if (g !== 'skip' && g !== 'insert_zeros' && g !== 'keep_values') throw illegalArgument(`Unknown GapPolicy: [${String(v)}]`);
        n.gapPolicy = g;
      },
    ],
  });
  return n;
}
