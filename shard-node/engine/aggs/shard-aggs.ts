/**
 * The shard's entry to aggregations: checks the tree against the mapping, then collects it over
 * the live matches of the query on one generation (the one the query phase read), or answers the
 * `terms` refinement tasks of the exact terms rounds on that same generation.
 * @see docs/aggregations.md
 */
import type { AggNode } from '../../../protocol/agg-request.ts';
import type { AggPartial, TermsPartial, TermsRefineTask } from '../../../protocol/aggs.ts';
import type { Query } from '../../../protocol/query-ast.ts';
import type { Generation } from '../generation.ts';
import { checkAggs } from './agg-check.ts';
import { resolveAggAliases } from '../field-aliases.ts';
import { aliasesOf } from '../../../protocol/mapping.ts';
import { collectAggs, matchingDocs, refineAggs, type AggContext } from './collect.ts';

/**
 * Every aggregation's partial result over the live matches of `query` in `gen`.
 * @param candidates terms a top-level count-ordered list carries (default: shared/aggs/terms-plan.ts)
 * @param index the shard's index (the `_index` value aggregations read)
 * @throws EsError 400 for an aggregation the mapping rejects (agg-check.ts)
 */
export function collectShardAggs(gen: Generation, nodes: readonly AggNode[], query: Query, candidates?: number, index?: string): AggPartial[] {
  const fields = gen.fields();
  nodes = resolveAggAliases(nodes, aliasesOf(fields));
  checkAggs(nodes, fields);
  const ctx: AggContext = { gen, fields, query, ...(candidates !== undefined ? { candidates } : {}), ...(index !== undefined ? { index } : {}) };
  return collectAggs(nodes, matchingDocs(gen, query), ctx, true);
}

/** One {@link TermsPartial} per refinement task, over the live matches of `query` in `gen`. */
export function refineShardAggs(gen: Generation, nodes: readonly AggNode[], query: Query, tasks: readonly TermsRefineTask[], index?: string): TermsPartial[] {
  const ctx: AggContext = { gen, fields: gen.fields(), query, ...(index !== undefined ? { index } : {}) };
  return refineAggs(resolveAggAliases(nodes, aliasesOf(ctx.fields)), tasks, matchingDocs(gen, query), ctx);
}
