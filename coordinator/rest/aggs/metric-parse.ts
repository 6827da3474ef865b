/**
 * The metric aggregations' builders (`min` … `extended_stats`, `cardinality`, `percentiles`,
 * `top_hits`) with ES's defaults and setter errors.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-metrics.html
 */
import { illegalArgument } from '../../../protocol/errors.ts';
import { xContentBoolean, xContentError, xContentInt } from '../params.ts';
import type { SourceFilter } from '../../../protocol/search.ts';
import { parseSortBody } from '../sort-parse.ts';
import type { CardinalityAgg, PercentilesAgg, StatsMetricAgg, TopHitsAgg } from '../../../protocol/agg-request.ts';
import { dbl, javaDoubleText, lng, str, valuesSource, walk, type Obj, type Spec } from './param-parse.ts';

/** ES's default `percents`. */
export const DEFAULT_PERCENTS: readonly number[] = [1, 5, 25, 50, 75, 95, 99];

/**
 * Parses a single-value or stats metric body (`min`, `max`, `sum`, `avg`, `value_count`, `stats`,
 * `extended_stats` with `sigma` ≥ 0) into its node: `field`, `missing`, `format`.
 * @throws EsError 400 x_content_parse_exception for an unknown or mistyped parameter, illegal_argument_exception for a negative sigma
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-metrics-extendedstats-aggregation.html
 */
export function parseMetric(type: StatsMetricAgg['type'], name: string, body: Obj): StatsMetricAgg {
  const n: StatsMetricAgg = { type, name, field: '', aggs: [] };
  const specs = valuesSource(n);
  if (type === 'extended_stats') {
    specs.sigma = [
      'V',
      (v) => {
        const s = dbl(v);
        if (s < 0) throw illegalArgument(`[sigma] must be greater than or equal to 0. Found [${s}] in [${name}]`);
        n.sigma = s;
      },
    ];
  }
  walk(type, body, specs);
  return n;
}

/** ES's cap on `precision_threshold` (`HyperLogLogPlusPlus.MAX_PRECISION` ⇒ 40,000 distinct values). */
export const MAX_PRECISION_THRESHOLD = 40_000;

/**
 * Parses a `cardinality` body: `precision_threshold` (default 3,000, capped at
 * {@link MAX_PRECISION_THRESHOLD}), `execution_hint` and `rehash` accepted and ignored.
 * @throws EsError 400 for an unknown or mistyped parameter or a negative threshold
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-metrics-cardinality-aggregation.html
 */
export function parseCardinality(name: string, body: Obj): CardinalityAgg {
  const n: CardinalityAgg = { type: 'cardinality', name, field: '', precisionThreshold: 3000, aggs: [] };
  walk('cardinality', body, {
    ...valuesSource(n),
    precision_threshold: [
      'V',
      (v) => {
        const t = lng(v);
        if (t < 0) throw illegalArgument(`[precisionThreshold] must be greater than or equal to 0. Found [${t}] in [${name}]`);
        n.precisionThreshold = Math.min(t, MAX_PRECISION_THRESHOLD);
      },
    ],
    execution_hint: ['V', (v) => void str(v)],
    rehash: ['V', (v) => void xContentBoolean(v)],
  });
  return n;
}

/**
 * Parses a `percentiles` body: `percents` (default {@link DEFAULT_PERCENTS}), `keyed` (default true),
 * `tdigest.compression` (default 100); HDR is refused as unsupported.
 * @throws EsError 400 for an unknown or mistyped parameter, a negative compression or a percent outside [0, 100]
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-metrics-percentile-aggregation.html
 */
export function parsePercentiles(name: string, body: Obj): PercentilesAgg {
  const n: PercentilesAgg = { type: 'percentiles', name, field: '', percents: [...DEFAULT_PERCENTS], keyed: true, compression: 100, aggs: [] };
  let percents: number[] | null = null;
  const specs = valuesSource(n, true);
  walk('percentiles', body, {
    ...specs,
    percents: ['A', (v) => (percents = (v as unknown[]).map(dbl))],
    keyed: ['V', (v) => (n.keyed = xContentBoolean(v))],
    tdigest: [
      'O',
      (v) =>
        walk('tdigest', v as Obj, {
          compression: [
            'V',
            (x) => {
              const c = dbl(x);
              if (c < 0) throw illegalArgument(`[compression] must be greater than or equal to 0. Found [${c}] in [${name}]`);
              n.compression = c;
            },
          ],
          execution_hint: ['V', (x) => void str(x)],
        }),
    ],
    hdr: [
      'O',
      () => {
        throw illegalArgument('[hdr] percentiles are not supported by Folio yet');
      },
    ],
  });
  if (percents !== null) {
    const ps = percents as number[];
    if (ps.length === 0)
      throw xContentError(
        'Failed to build [percentiles] after last required field arrived',
        illegalArgument(`[percents] must not be empty: [${name}]`).toCause(),
      );
    for (const p of ps) {
      if (!(p >= 0 && p <= 100)) {
        throw xContentError(
          'Failed to build [percentiles] after last required field arrived',
          illegalArgument(`percent must be in [0,100], got [${javaDoubleText(p)}]: [${name}]`).toCause(),
        );
      }
    }
    n.percents = [...new Set(ps)];
  }
  return n;
}

/** `percentile_ranks` (ES `PercentileRanksAggregationBuilder`): `values` (required), `keyed`, `tdigest`. */
export function parsePercentileRanks(name: string, body: Obj): PercentilesAgg {
  const n: PercentilesAgg = { type: 'percentile_ranks', name, field: '', percents: [], keyed: true, compression: 100, aggs: [] };
  let values: number[] | null = null;
  walk('percentile_ranks', body, {
    ...valuesSource(n, true),
    values: ['A', (v) => (values = (v as unknown[]).map(dbl))],
    keyed: ['V', (v) => (n.keyed = xContentBoolean(v))],
    tdigest: ['O', (v) => walk('tdigest', v as Obj, { compression: ['V', (x) => (n.compression = dbl(x))], execution_hint: ['V', (x) => void str(x)] })],
    hdr: [
      'O',
      () => {
        throw illegalArgument('[hdr] percentile_ranks are not supported by Folio yet');
      },
    ],
  });
  if (values === null) throw illegalArgument(`[values] must not be null: [${name}]`);
  if ((values as number[]).length === 0) throw illegalArgument(`[values] must not be an empty array: [${name}]`);
  n.percents = [...new Set(values as number[])].sort((a, b) => a - b);
  return n;
}

/** `_source` of `top_hits` (as the search body's: bool, pattern, list, or includes/excludes). */
export function topHitsSource(v: unknown): SourceFilter {
  if (typeof v === 'boolean') return v;
  const list = (x: unknown): string[] => (Array.isArray(x) ? x : [x]).map((p) => str(p));
  if (typeof v === 'string' || Array.isArray(v)) return { includes: list(v), excludes: [] };
  const f = { includes: [] as string[], excludes: [] as string[] };
  walk('_source', v as Obj, {
    includes: ['VA', (x) => (f.includes = list(x))],
    include: ['VA', (x) => (f.includes = list(x))],
    excludes: ['VA', (x) => (f.excludes = list(x))],
    exclude: ['VA', (x) => (f.excludes = list(x))],
  });
  return f;
}

/** `top_hits` (ES `TopHitsAggregationBuilder`): `from` 0, `size` 3, `sort`, `_source`. */
export function parseTopHits(name: string, body: Obj): TopHitsAgg {
  const n: TopHitsAgg = { type: 'top_hits', name, from: 0, size: 3, sort: [], source: true, aggs: [] };
  const ignored: Spec = ['VOA', () => undefined];
  const notYet = (k: string): Spec => [
    'VOA',
    () => {
      throw illegalArgument(`[top_hits] [${k}] is not supported by Folio yet`);
    },
  ];
  walk('top_hits', body, {
    from: [
      'V',
      (v) => {
        const f = xContentInt(v);
        if (f < 0) throw illegalArgument(`[from] must be greater than or equal to 0. Found [${f}] in [${name}]`);
        n.from = f;
      },
    ],
    size: [
      'V',
      (v) => {
        const s = xContentInt(v);
        if (s < 0) throw illegalArgument(`[size] must be greater than or equal to 0. Found [${s}] in [${name}]`);
        n.size = s;
      },
    ],
    sort: ['VOA', (v) => (n.sort = parseSortBody(v))],
    _source: ['VOA', (v) => (n.source = topHitsSource(v))],
    version: ignored,
    seq_no_primary_term: ignored,
    explain: ignored,
    track_scores: ignored,
    stored_fields: ignored,
    docvalue_fields: ignored,
    fields: ignored,
    highlight: notYet('highlight'),
    script_fields: notYet('script_fields'),
  });
  return n;
}
