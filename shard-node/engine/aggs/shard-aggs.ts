/**
 * The shard's entry to aggregations: checks the tree against the mapping, then collects it over
 * the live matches of the query on one generation (the one the query phase read), or answers the
 * `terms` refinement tasks of the exact terms rounds on that same generation.
 * @see docs/aggregations.md
 */
import type { AggNode } from '../../../protocol/agg-request.ts';
import type { AggPartial, TermsPartial, TermsRefineTask } from '../../../protocol/aggs.ts';
import type { Query } from '../../../protocol/query-ast.ts';
import type { Searcher } from '../searcher.ts';
import { checkAggs } from './agg-check.ts';
import { resolveAggAliases } from '../field-aliases.ts';
import { aliasesOf } from '../../../protocol/mapping.ts';
import { collectAggs, refineAggs } from './collect.ts';
import { matchingDocs, type AggContext } from './agg-context.ts';

/**
 * Every aggregation's partial result over the live matches of `query` in the searcher's generation.
 * @param candidates terms a top-level count-ordered list carries (default: shared/aggs/terms-plan.ts)
 * @param index the shard's index (the `_index` value aggregations read)
 * @throws EsError 400 for an aggregation the mapping rejects (agg-check.ts)
 */
export function collectShardAggs(searcher: Searcher, nodes: readonly AggNode[], query: Query, candidates?: number, index?: string): AggPartial[] {
  const gen = searcher.reader;
  const fields = gen.fields();
  nodes = resolveAggAliases(nodes, aliasesOf(fields));
  checkAggs(nodes, fields);
  const ctx: AggContext = {
    gen,
    searcher,
    fields,
    query,
    collectAggs,
    ...(candidates !== undefined ? { candidates } : {}),
    ...(index !== undefined ? { index } : {}),
  };
  return collectAggs(nodes, matchingDocs(searcher, query), ctx, true);
}

/** One {@link TermsPartial} per refinement task, over the live matches of `query` in the searcher's generation. */
export function refineShardAggs(
  searcher: Searcher,
  nodes: readonly AggNode[],
  query: Query,
  tasks: readonly TermsRefineTask[],
  index?: string,
): TermsPartial[] {
  const gen = searcher.reader;
  const ctx: AggContext = { gen, searcher, fields: gen.fields(), query, collectAggs, ...(index !== undefined ? { index } : {}) };
  return refineAggs(resolveAggAliases(nodes, aliasesOf(ctx.fields)), tasks, matchingDocs(searcher, query), ctx);
}
