/**
 * The builders of the range/histogram family: `histogram` and `date_histogram` (interval,
 * `offset`, `extended_bounds`/`hard_bounds`, `time_zone`, `missing`), `range` and `date_range`
 * (ranges sorted as ES's `RangeAggregator.RANGE_COMPARATOR`), with ES's parameter errors
 * (`HistogramAggregationBuilder`, `DateHistogramAggregationBuilder`, `RangeAggregationBuilder`,
 * `DateRangeAggregationBuilder`). Dates go through date math in the aggregation's time zone.
 * The dispatch by type is agg-parse.ts.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/bucket/histogram/DateHistogramAggregationBuilder.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/bucket/histogram/HistogramAggregationBuilder.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/bucket/range/RangeAggregator.java
 */
import { EsError, illegalArgument, parsingException } from '../../../protocol/errors.ts';
import { isObject, parseTimeValue, tokenName, xContentBoolean, xContentError } from '../params.ts';
import type { AggRange, DateInterval, HistogramAgg, RangeAgg } from '../../../protocol/agg-request.ts';
import { parseDateValue } from '../../../shared/aggs/date-format.ts';
import { UTC, zoneOf, type Zone } from '../../../shared/aggs/date-zone.ts';
import { CALENDAR_UNITS, dbl, lng, str, walk, type Obj, type Spec } from './param-parse.ts';
import { ordersOf } from './bucket-parse.ts';

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

/** `time_zone` may come after the bounds it applies to: read it first (`[date_histogram] failed to parse field [time_zone]`). */
function leadingZone(type: string, body: Obj): Zone {
  let zone: Zone = UTC;
  if (typeof body.time_zone === 'string') {
    try {
      zone = zoneOf(body.time_zone);
    } catch (e) {
      throw xContentError(`[${type}] failed to parse field [time_zone]`, (e as EsError).toCause());
    }
  }
  return zone;
}

/** The parameters `histogram` and `date_histogram` share; `boundsZone` is the zone of a date_histogram's bounds (null: numbers). */
function commonHistogramSpecs(n: HistogramAgg, name: string, type: string, boundsZone: Zone | null, setMissing: (v: unknown) => void): Record<string, Spec> {
  return {
    field: ['V', (v) => (n.field = str(v))],
    format: ['V', (v) => (n.format = str(v))],
    missing: ['V', (v) => setMissing(v)],
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
        const b = boundsOf(v, type, 'extended_bounds', boundsZone);
        n.extendedBounds = { min: b.min ?? Number.NaN, max: b.max ?? Number.NaN };
      },
    ],
    hard_bounds: ['O', (v) => (n.hardBounds = boundsOf(v, type, 'hard_bounds', boundsZone))],
  };
}

/** `date_histogram`'s own parameters: one of `calendar_interval`/`fixed_interval`, `time_zone`, `offset` (a signed time value). */
function dateHistogramSpecs(n: HistogramAgg): Record<string, Spec> {
  const specs: Record<string, Spec> = {};
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
  return specs;
}

/** `histogram`'s own parameters: `interval` (> 0) and `offset`. */
function numericHistogramSpecs(n: HistogramAgg, name: string): Record<string, Spec> {
  const specs: Record<string, Spec> = {};
  specs.interval = [
    'V',
    (v) => {
      const i = dbl(v);
      if (!(i > 0)) throw illegalArgument(`[interval] must be >0 for histogram aggregation [${name}]`);
      n.interval = i;
    },
  ];
  specs.offset = ['V', (v) => (n.offset = dbl(v))];
  return specs;
}

/**
 * `histogram` (`date` false) or `date_histogram` (`date` true): interval (a number, or a calendar
 * unit / fixed time value in ms), `offset`, `min_doc_count`, `keyed`, `order` (default `_key` asc),
 * `extended_bounds` (kept only with both ends) and `hard_bounds`, `missing`, `time_zone`.
 * @throws EsError 400 with ES's texts (`[interval] must be >0 for histogram aggregation [name]`,
 *   `Cannot use [fixed_interval] with [calendar_interval] configuration option.`, …)
 */
export function parseHistogram(name: string, body: Obj, date: boolean): HistogramAgg {
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
  const zone = date ? leadingZone(type, body) : UTC;
  let rawMissing: unknown;
  const specs: Record<string, Spec> = {
    ...commonHistogramSpecs(n, name, type, date ? zone : null, (v) => (rawMissing = v)),
    ...(date ? dateHistogramSpecs(n) : numericHistogramSpecs(n, name)),
  };
  walk(type, body, specs);
  if (rawMissing !== undefined) n.missing = date ? parseDateValue(rawMissing, zone) : dbl(rawMissing);
  if (!date && n.interval === 0) throw illegalArgument(`[interval] must be >0 for histogram aggregation [${name}]`);
  if (n.extendedBounds && (Number.isNaN(n.extendedBounds.min) || Number.isNaN(n.extendedBounds.max))) delete n.extendedBounds;
  return n;
}

/**
 * `range` (`date` false) or `date_range` (`date` true): `ranges` of `{key?, from?, to?}` (dates
 * through date math in `time_zone`), sorted by `from` then `to` as ES; `keyed`, `missing`.
 * @throws EsError 400 `No [ranges] specified for the [name] aggregation`, or a parameter's error
 */
export function parseRange(name: string, body: Obj, date: boolean): RangeAgg {
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
