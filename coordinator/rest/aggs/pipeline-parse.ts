/**
 * The builders of the sibling bucket-metric pipelines (`avg_bucket`, `max_bucket`, `min_bucket`,
 * `sum_bucket`, `stats_bucket`: ES's `BucketMetricsParser`) and the check of their `buckets_path`
 * against the sibling aggregations (ES's `PipelineAggregationBuilder.validate`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-pipeline.html
 */
import { illegalArgument, parsingException } from '../../../protocol/errors.ts';
import type { AggNode, BucketMetricAgg, ParentPipelineAgg } from '../../../protocol/agg-request.ts';
import { str, walk, type Obj } from './param-parse.ts';

/** Parses `cumulative_sum` or `derivative` (`buckets_path` to a sibling metric or `_count` in each bucket). */
export function parseParentPipeline(type: ParentPipelineAgg['type'], name: string, body: Obj): ParentPipelineAgg {
  const m = parseBucketMetric('sum_bucket', name, body);
  return { type, name, bucketsPath: m.bucketsPath, gapPolicy: m.gapPolicy, ...(m.format !== undefined ? { format: m.format } : {}), aggs: [] };
}

/** Parses one bucket-metric pipeline. @throws EsError 400 `parsing_exception` `Missing required field [buckets_path] for aggregation [x]` */
export function parseBucketMetric(type: BucketMetricAgg['type'], name: string, body: Obj): BucketMetricAgg {
  let path: string | null = null;
  const n: BucketMetricAgg = { type, name, bucketsPath: '', gapPolicy: 'skip', aggs: [] };
  walk(type, body, {
    buckets_path: ['VA', (v) => {
      const list = Array.isArray(v) ? v : [v];
      if (list.length !== 1) throw illegalArgument(`[buckets_path] must contain a single path for aggregation [${name}]`);
      path = str(list[0]);
    }],
    gap_policy: ['V', (v) => {
      const g = str(v).toLowerCase();
      if (g !== 'skip' && g !== 'insert_zeros' && g !== 'keep_values') throw illegalArgument(`Unknown GapPolicy: [${String(v)}]`);
      n.gapPolicy = g;
    }],
    format: ['V', (v) => (n.format = str(v))],
  });
  if (path === null) throw parsingException(`Missing required field [buckets_path] for aggregation [${name}]`);
  n.bucketsPath = path;
  return n;
}

/** Multi-bucket aggregation types a bucket-metric path may start at. */
const MULTI_BUCKET = new Set(['terms', 'histogram', 'date_histogram', 'range', 'date_range', 'filters', 'composite']);

/**
 * Checks a pipeline's `buckets_path` against its siblings; returns the validation message, or null.
 * `a>b>metric` must start at a sibling multi-bucket aggregation and name, below it, a metric or
 * `_count` through single-bucket aggregations.
 */
export function bucketsPathProblem(node: BucketMetricAgg, siblings: readonly AggNode[]): string | null {
  const path = node.bucketsPath;
  const parts = path.split('>');
  const first = siblings.find((s) => s.name === parts[0]);
  if (!first || !MULTI_BUCKET.has(first.type)) return `No aggregation found for path [${path}]`;
  if (parts.length < 2) return `No aggregation found for path [${path}]`;
  let level = first.aggs;
  for (let i = 1; i < parts.length; i++) {
    const [name] = parts[i].split(/[.[]/);
    if (i === parts.length - 1 && (name === '_count' || name === '_key')) return null;
    const sub = level.find((s) => s.name === name);
    if (!sub) return `No aggregation [${name}] found for path [${path}]`;
    level = sub.aggs;
  }
  return null;
}
