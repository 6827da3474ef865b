/**
 * The checks a shard makes when it builds its aggregators from the mapping, with ES's texts
 * (`ValuesSourceConfig.resolve`, `ValuesSourceRegistry.getAggregator`, `AggregationPath.validate`):
 * a values-source aggregation needs a `field`, text needs fielddata, each aggregation accepts some
 * field types only, and an order path must end at a metric through single-bucket aggregations.
 * A failure fails the shard, so the search answers `search_phase_execution_exception` with it as
 * the cause, as in ES. Unmapped fields are not errors (ES's unmapped aggregators answer empty).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/support/ValuesSourceConfig.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/support/AggregationPath.java
 */
import { EsError, illegalArgument } from '../../../protocol/errors.ts';
import type { FieldMapping } from '../../../protocol/mapping.ts';
import type { AggNode, BucketOrder } from '../../../protocol/agg-request.ts';
import { isMetric } from '../../../protocol/agg-request.ts';
import { parseOrderPath } from '../../../shared/aggs/terms-plan.ts';
import { valuesKind } from './doc-values.ts';

/** Metrics with several values (`stats.avg`), which an order path must name a value of. */
const MULTI_VALUE = new Set(['stats', 'extended_stats', 'percentiles', 'percentile_ranks']);

/** Field kinds each aggregation type reads: `any` (strings or numbers) or `number` (numeric, date, boolean). */
const READS: Record<string, 'any' | 'number'> = {
  terms: 'any',
  value_count: 'any',
  cardinality: 'any',
  missing: 'any',
  histogram: 'number',
  date_histogram: 'number',
  range: 'number',
  date_range: 'number',
  min: 'number',
  max: 'number',
  sum: 'number',
  avg: 'number',
  stats: 'number',
  extended_stats: 'number',
  percentiles: 'number',
  percentile_ranks: 'number',
};

const orderError = (path: string, why: string) => new EsError(400, 'aggregation_execution_exception', `Invalid aggregation order path [${path}]. ${why}`);

/** `AggregationPath.validate` of one order criterion against the sub-aggregations. */
function checkOrder(o: BucketOrder, subs: readonly AggNode[]): void {
  if (o.key === '_count' || o.key === '_key') return;
  const steps = parseOrderPath(o.key);
  let level = subs;
  steps.forEach((step, i) => {
    const sub = level.find((n) => n.name === step.name);
    if (!sub)
      throw orderError(
        o.key,
        `The provided aggregation [${step.name}] either does not exist, or is a pipeline aggregation and cannot be used to sort the buckets.`,
      );
    const last = i === steps.length - 1;
    const single = sub.type === 'filter' || sub.type === 'missing' || sub.type === 'global';
    if (!last && !single) {
      throw orderError(
        o.key,
        'Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end.',
      );
    }
    if (last) {
      if (!single && !isMetric(sub)) {
        throw orderError(
          o.key,
          'Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end.',
        );
      }
      if (MULTI_VALUE.has(sub.type) && step.metric === undefined) {
        throw orderError(o.key, 'When ordering on a multi-value metrics aggregation a metric name must be specified.');
      }
      if (!MULTI_VALUE.has(sub.type) && isMetric(sub) && step.metric !== undefined && step.metric !== 'value') {
        throw orderError(
          o.key,
          `Unknown value key [${step.metric}] for single-value metric aggregation [${sub.name}]. Either use [value] as key or drop the key all together.`,
        );
      }
    }
    level = sub.aggs;
  });
}

/** The fielddata rejection of a text field (ES's text, shared with sorting). */
function textFielddata(field: string): EsError {
  return illegalArgument(
    `Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [${field}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
  );
}

/**
 * Checks an aggregation tree against the index's fields.
 * @throws EsError 400 `illegal_argument_exception` (`Required one of fields [field, script], but none
 *   were specified. `, the fielddata text, `Field [f] of type [t] is not supported for aggregation [a]`,
 *   `Invalid interval specified, must be non-null and non-empty`, `Zero or negative time interval not
 *   supported`) or `aggregation_execution_exception` (order paths, regular expressions on numbers)
 */
export function checkAggs(nodes: readonly AggNode[], fields: ReadonlyMap<string, FieldMapping>): void {
  for (const node of nodes) {
    const reads = READS[node.type];
    if (reads !== undefined) {
      const field = (node as { field?: string }).field ?? '';
      if (field === '') throw illegalArgument('Required one of fields [field, script], but none were specified. ');
      if (field === '_index' && reads === 'number') throw illegalArgument(`Field [_index] of type [_index] is not supported for aggregation [${node.type}]`);
      const fm = fields.get(field);
      if (fm) {
        const kind = valuesKind(fm);
        if (kind === null && fm.type === 'text') throw textFielddata(field);
        if (kind === null || (reads === 'number' && kind !== 'number')) {
          throw illegalArgument(`Field [${field}] of type [${fm.type}] is not supported for aggregation [${node.type}]`);
        }
        if (node.type === 'terms' && kind === 'number' && ((node.include && 'regex' in node.include) || (node.exclude && 'regex' in node.exclude))) {
          throw new EsError(
            400,
            'aggregation_execution_exception',
            `Aggregation [${node.name}] cannot support regular expression style include/exclude settings as they can only be applied to string fields. Use an array of numeric values for include/exclude clauses used to filter numeric fields`,
          );
        }
      }
    }
    if (node.type === 'composite') {
      for (const src of node.sources) {
        if (src.field === '') throw illegalArgument('Required one of fields [field, script], but none were specified. ');
        if (src.field === '_index' && src.kind !== 'terms')
          throw illegalArgument(`Field [_index] of type [_index] is not supported for aggregation [${src.kind}]`);
        const fm = fields.get(src.field);
        if (!fm) continue;
        const kind = valuesKind(fm);
        if (kind === null && fm.type === 'text') throw textFielddata(src.field);
        if (kind === null || (src.kind !== 'terms' && kind !== 'number')) {
          throw illegalArgument(`Field [${src.field}] of type [${fm.type}] is not supported for aggregation [${src.kind}]`);
        }
      }
    }
    if (node.type === 'date_histogram') {
      if (!node.dateInterval) throw illegalArgument('Invalid interval specified, must be non-null and non-empty');
      if ('fixedMs' in node.dateInterval && node.dateInterval.fixedMs <= 0) throw illegalArgument('Zero or negative time interval not supported');
    }
    if (node.type === 'terms' || node.type === 'histogram' || node.type === 'date_histogram') for (const o of node.order) checkOrder(o, node.aggs);
    checkAggs(node.aggs, fields);
  }
}
