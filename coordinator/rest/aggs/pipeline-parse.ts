/**
 * The builders of the sibling bucket-metric pipelines (`avg_bucket`, `max_bucket`, `min_bucket`,
 * `sum_bucket`, `stats_bucket`: ES's `BucketMetricsParser`) and the check of their `buckets_path`
 * against the sibling aggregations (ES's `PipelineAggregationBuilder.validate`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-pipeline.html
 */
import { EsError, illegalArgument, parsingException } from '../../../protocol/errors.ts';
import { tokenName } from '../params.ts';
import type { AggNode, BucketMetricAgg, BucketScriptAgg, ParentPipelineAgg } from '../../../protocol/agg-request.ts';
import type { BucketScript } from '../../../protocol/bucket-script.ts';
import { parseBucketScript } from './bucket-script-parse.ts';
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
    buckets_path: [
      'VA',
      (v) => {
        const list = Array.isArray(v) ? v : [v];
        if (list.length !== 1) throw illegalArgument(`[buckets_path] must contain a single path for aggregation [${name}]`);
        path = str(list[0]);
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
    format: ['V', (v) => (n.format = str(v))],
  });
  if (path === null) throw parsingException(`Missing required field [buckets_path] for aggregation [${name}]`);
  n.bucketsPath = path;
  return n;
}

/** ES `GapPolicy.parse` of a `gap_policy` value. */
function gapPolicyOf(v: unknown): 'skip' | 'insert_zeros' | 'keep_values' {
  const g = str(v).toLowerCase();
  if (g !== 'skip' && g !== 'insert_zeros' && g !== 'keep_values')
    throw parsingException(`Invalid gap policy: [${g}], accepted values: [skip, insert_zeros, keep_values]`);
  return g;
}

/**
 * ES `Script.parse`: a string (inline Painless) or `{source, lang, params, options}`; a stored
 * script (`id`) is refused (Folio stores no scripts). Returns the raw parts; compiled after the walk.
 */
function scriptParts(v: unknown): { source: string; lang: string; params: BucketScript['params'] } {
  if (typeof v === 'string') return { source: v, lang: 'painless', params: {} };
  const out = { source: '', lang: 'painless', params: {} as BucketScript['params'] };
  let hasSource = false;
  walk('script', v as Obj, {
    source: [
      'VO',
      (x) => {
        if (typeof x !== 'string') throw illegalArgument('Folio compiles only inline script text (a string [source])');
        out.source = x;
        hasSource = true;
      },
    ],
    inline: [
      'V',
      (x) => {
        out.source = str(x);
        hasSource = true;
      },
    ],
    lang: ['V', (x) => (out.lang = str(x))],
    params: [
      'O',
      (x) => {
        for (const [k, p] of Object.entries(x as Obj)) {
          if (p !== null && typeof p !== 'number' && typeof p !== 'boolean')
            throw illegalArgument(`Folio's bucket scripts read number and boolean params only, [${k}] is a ${tokenName(p)}`);
          out.params[k] = p;
        }
      },
    ],
    options: ['O', () => undefined],
    id: [
      'V',
      () => {
        throw illegalArgument('stored scripts ([id]) are not supported by Folio: give the script [source] inline');
      },
    ],
  });
  if (!hasSource) throw illegalArgument('must specify either [source] for an inline script or [id] for a stored script');
  return out;
}

/**
 * Parses `bucket_script` or `bucket_selector` (ES `BucketScriptPipelineAggregationBuilder`,
 * `BucketSelectorPipelineAggregationBuilder`): `buckets_path` (an object of variables, a string
 * `_value`, or an array `_value0`…), `script`, `gap_policy` (`skip`), and `format` (bucket_script).
 * @throws EsError 400: `illegal_argument_exception` `Required [buckets_path, script]`; the script's
 *   `script_exception` `compile error` (ES compiles at reduce, answering the same error)
 */
export function parseBucketScriptAgg(type: BucketScriptAgg['type'], name: string, body: Obj): BucketScriptAgg {
  let paths: [string, string][] | null = null;
  let parts: ReturnType<typeof scriptParts> | null = null;
  let gapPolicy: BucketScriptAgg['gapPolicy'] = 'skip';
  let format: string | undefined;
  walk(type, body, {
    buckets_path: [
      'VOA',
      (v) => {
        if (typeof v === 'string') paths = [['_value', v]];
        else if (Array.isArray(v)) paths = v.map((p, i) => [`_value${i}`, str(p)]);
        else paths = Object.entries(v as Obj).map(([k, p]) => [k, str(p)]);
      },
    ],
    script: ['VO', (v) => (parts = scriptParts(v))],
    gap_policy: ['V', (v) => (gapPolicy = gapPolicyOf(v))],
    ...(type === 'bucket_script' ? { format: ['V', (v: unknown) => (format = str(v))] as [string, (v: unknown) => void] } : {}),
  });
  const missing = [paths === null ? 'buckets_path' : null, parts === null ? 'script' : null].filter((m) => m !== null);
  if (missing.length > 0) throw illegalArgument(`Required [${missing.join(', ')}]`);
  const p = parts as unknown as ReturnType<typeof scriptParts>;
  if (p.lang !== 'painless' && p.lang !== 'expression') {
    throw new EsError(400, 'illegal_argument_exception', `script_lang not supported [${p.lang}]`);
  }
  const script = parseBucketScript(p.source, p.lang, p.params);
  return { type, name, bucketsPath: paths as unknown as [string, string][], script, gapPolicy, ...(format !== undefined ? { format } : {}), aggs: [] };
}

/**
 * Checks the paths of parent pipelines (`bucket_script`, `bucket_selector`, `bucket_sort`) among
 * `siblings` (the parent's sub-aggregations): each must start at `_count`, `_key` or a sibling, as
 * ES's `AggregatorFactories.Builder` resolves pipeline order. Returns the messages.
 */
export function parentPathProblems(siblings: readonly AggNode[]): string[] {
  const names = new Set(siblings.map((s) => s.name));
  const out: string[] = [];
  for (const n of siblings) {
    const paths =
      n.type === 'bucket_script' || n.type === 'bucket_selector' ? n.bucketsPath.map(([, p]) => p) : n.type === 'bucket_sort' ? n.sort.map((s) => s.path) : [];
    for (const path of paths) {
      if (path === '_count' || path === '_key') continue;
      const first = path.split('>')[0].split(/[.[]/)[0];
      if (!names.has(first)) out.push(`No aggregation found for path [${path}]`);
    }
  }
  return out;
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
