/**
 * The parent pipelines of a multi-bucket aggregation, run on its reduced buckets (pure): ES's
 * `InternalMultiBucketAggregation.reducePipelines` applies them after the parent's own reduce, in
 * the order `AggregatorFactories.Builder` resolves (a pipeline whose `buckets_path` names another
 * runs after it; otherwise in request order):
 *   - `bucket_script` adds a value to each bucket (ES `BucketScriptPipelineAggregator`);
 *   - `bucket_selector` keeps the buckets whose script is true (`BucketSelectorPipelineAggregator`);
 *   - `bucket_sort` sorts and pages them (`BucketSortPipelineAggregator`), and Folio counts the
 *     buckets it paged through (`total_buckets`, docs/aggregations.md);
 *   - `cumulative_sum` and `derivative` over a histogram's buckets in key order.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-pipeline.html
 */
import type { AggNode, BucketScriptAgg, BucketSortAgg, ParentPipelineAgg } from '../../../protocol/agg-request.ts';
import { runBucketScript, scriptReturnError } from './bucket-script-run.ts';
import { validationFailed } from '../../../protocol/errors.ts';
import { parseOrderPath } from '../../../shared/aggs/terms-plan.ts';
import { bucketValue, reducedPathValue, type PathBucket } from './bucket-path.ts';

/** The buckets after the pipelines, and how many a `bucket_sort` paged through (null without one). */
export interface PipelinedBuckets<B> {
  buckets: B[];
  totalBuckets: number | null;
}

/** A parent pipeline: it adds to, filters or reorders its parent's buckets. */
type ParentPipeline = BucketScriptAgg | BucketSortAgg | ParentPipelineAgg;

const isParent = (n: AggNode): n is ParentPipeline =>
  n.type === 'bucket_script' || n.type === 'bucket_selector' || n.type === 'bucket_sort' || n.type === 'cumulative_sum' || n.type === 'derivative';

/** The parent pipelines among `subs` (positions), in dependency order then request order. */
function pipelineOrder(subs: readonly AggNode[]): number[] {
  const names = new Map(subs.map((n, i) => [n.name, i]));
  const deps = (n: AggNode): string[] => {
    const paths =
      n.type === 'bucket_script' || n.type === 'bucket_selector'
        ? n.bucketsPath.map(([, p]) => p)
        : n.type === 'bucket_sort'
          ? n.sort.map((s) => s.path)
          : n.type === 'cumulative_sum' || n.type === 'derivative'
            ? [n.bucketsPath]
            : [];
    return paths.map((p) => p.split('>')[0].split(/[.[]/)[0]);
  };
  const out: number[] = [];
  const state = new Map<number, 'visiting' | 'done'>();
  const visit = (i: number) => {
    if (state.get(i) === 'done') return;
    if (state.get(i) === 'visiting') throw validationFailed([`Cyclical dependency found with pipeline aggregator [${subs[i].name}]`]);
    state.set(i, 'visiting');
    for (const d of deps(subs[i])) {
      const j = names.get(d);
      if (j !== undefined && isParent(subs[j])) visit(j);
    }
    state.set(i, 'done');
    out.push(i);
  };
  subs.forEach((n, i) => isParent(n) && visit(i));
  return out;
}

/**
 * Runs the parent pipelines among `subs` (the parent's sub-aggregations, parallel to each bucket's
 * `aggs`) over `buckets`.
 * @throws EsError 400 a script's `script_exception` (runtime error), a cycle between pipelines
 */
export function applyParentPipelines<B extends PathBucket>(subs: readonly AggNode[], buckets: B[]): PipelinedBuckets<B> {
  let out = buckets;
  let totalBuckets: number | null = null;
  for (const i of pipelineOrder(subs)) {
    const node = subs[i];
    if (!isParent(node)) continue; // pipelineOrder lists parent pipelines only
    switch (node.type) {
      case 'bucket_script':
        bucketScript(subs, i, node, out);
        break;
      case 'bucket_selector':
        out = out.filter((b) => selects(subs, node, b));
        break;
      case 'bucket_sort': {
        const sorted = bucketSort(subs, node, out);
        totalBuckets = sorted.total;
        out = sorted.page;
        break;
      }
      case 'cumulative_sum':
      case 'derivative':
        histogramPipeline(subs, i, node, out);
        break;
    }
  }
  return { buckets: out, totalBuckets };
}

/** The script's variables in bucket `b`; null when a value is a gap that `skip`s the bucket (bucket_script). */
function variables(subs: readonly AggNode[], node: BucketScriptAgg, b: PathBucket, skipOnGap: boolean): Record<string, number> | null {
  const vars: Record<string, number> = {};
  for (const [name, path] of node.bucketsPath) {
    const v = bucketValue(subs, b, path, node.gapPolicy);
    if (skipOnGap && node.gapPolicy !== 'insert_zeros' && Number.isNaN(v)) return null;
    vars[name] = v;
  }
  return vars;
}

/** `bucket_script`: the script's number in each bucket (a bucket with a gap, or a null result, gets none). */
function bucketScript(subs: readonly AggNode[], i: number, node: BucketScriptAgg, buckets: readonly PathBucket[]): void {
  for (const b of buckets) {
    const vars = variables(subs, node, b, true);
    if (vars === null) continue;
    const v = runBucketScript(node.script, vars);
    if (v === null) continue;
    if (typeof v !== 'number') throw scriptReturnError(node.script, v, 'java.lang.Number');
    b.aggs[i] = { t: 'simple', node, value: Number.isFinite(v) ? v : null };
  }
}

/** `bucket_selector`: whether the bucket stays (gaps are NaN under `skip`, so comparisons with them are false). */
function selects(subs: readonly AggNode[], node: BucketScriptAgg, b: PathBucket): boolean {
  const v = runBucketScript(node.script, variables(subs, node, b, false)!);
  if (typeof v !== 'boolean') throw scriptReturnError(node.script, v, 'boolean');
  return v;
}

/**
 * `bucket_sort`: sort by `_key`, `_count` or sub-aggregation values (stable, so no criteria keeps
 * the parent's order), a bucket missing a value dropped under `gap_policy: skip` (0 under
 * `insert_zeros`), then `from` and `size`. `total` is the number of buckets before `from`/`size`.
 */
function bucketSort<B extends PathBucket>(subs: readonly AggNode[], node: BucketSortAgg, buckets: readonly B[]): { page: B[]; total: number } {
  const values = (b: B): (number | string | null)[] =>
    node.sort.map((s) => {
      if (s.path === '_count') return b.n;
      if (s.path === '_key') return typeof b.key === 'number' || typeof b.key === 'string' ? b.key : JSON.stringify(b.key);
      const v = reducedPathValue(subs, b.aggs, parseOrderPath(s.path));
      return v === null && node.gapPolicy === 'insert_zeros' ? 0 : v;
    });
  let rows = buckets.map((b) => ({ b, v: values(b) }));
  if (node.gapPolicy === 'skip') rows = rows.filter((r) => r.v.every((x) => x !== null));
  rows.sort((x, y) => {
    for (let i = 0; i < node.sort.length; i++) {
      const a = x.v[i];
      const b = y.v[i];
      if (a === b) continue;
      if (a === null || b === null) return a === null ? 1 : -1;
      const c = typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : 1;
      return node.sort[i].asc ? c : -c;
    }
    return 0;
  });
  return { page: rows.slice(node.from, node.size === null ? undefined : node.from + node.size).map((r) => r.b), total: rows.length };
}

/**
 * `cumulative_sum` and `derivative` over a histogram's buckets in key order (ES
 * `CumulativeSumPipelineAggregator`, `DerivativePipelineAggregator`): each bucket gets the running
 * sum, or the difference with the previous bucket (none on the first; null across a gap).
 */
function histogramPipeline(subs: readonly AggNode[], i: number, node: ParentPipelineAgg, buckets: readonly PathBucket[]): void {
  const steps = parseOrderPath(node.bucketsPath);
  const valueOf = (b: PathBucket): number | null => {
    const v = steps.length === 1 && steps[0].name === '_count' ? b.n : reducedPathValue(subs, b.aggs, steps);
    return v === null && node.gapPolicy === 'insert_zeros' ? 0 : v;
  };
  let sum = 0;
  let prev: number | null | undefined;
  buckets.forEach((b, k) => {
    const v = valueOf(b);
    let value: number | null;
    if (node.type === 'cumulative_sum') {
      sum += v ?? 0;
      value = sum;
    } else {
      if (k === 0) {
        prev = v;
        b.aggs[i] = { t: 'pipe', node }; // no derivative on the first bucket
        return;
      }
      value = prev === null || prev === undefined || v === null ? null : v - prev;
      prev = v;
    }
    b.aggs[i] = { t: 'simple', node, value };
  });
}
