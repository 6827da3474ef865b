/**
 * A scroll's own steps in `_search` (search.ts): step 2 opens a new scroll's contexts, one per
 * shard, and names them in its `_scroll_id`; after the fetch, a batch lists the contexts its query
 * round read (with each one's position number) for contexts.ts `advanceScroll`. The id never
 * changes between batches (ES `SearchScrollAsyncAction.sendResponse`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/paginate-search-results.html#scroll-search-results
 */
import { parseTimeValue } from '../rest/params.ts';
import { openContexts, type ScrollRead } from './contexts.ts';
import { encodeScrollId } from './cursor-ids.ts';
import type { PhaseContext } from './phase-context.ts';
import type { IndexScope, SearchPlan } from './plan.ts';
import type { SearchInput } from './search.ts';
import type { RankedPage } from './select-phase.ts';
import type { ShardCopyIterator } from './shard-copy-iterator.ts';
import { allFailedError } from './shard-failures.ts';

/**
 * Opens a new scroll: one scroll context per target (keep-alive = the `scroll` parameter), pinned
 * into the plan. @returns its `_scroll_id`: the contexts, the alias filters of its indices, and the
 * request itself, re-run per batch.
 * @throws EsError `search_phase_execution_exception` when a shard cannot open one (429 over
 *   `search.max_open_scroll_context`).
 */
export async function openScroll(
  plan: SearchPlan,
  copies: readonly ShardCopyIterator[],
  input: SearchInput,
  ctx: PhaseContext,
  filters?: IndexScope['filters'],
): Promise<string> {
  const scopeFilters = filters && filters.size > 0 ? Object.fromEntries([...filters].map(([i, f]) => [i, [...f]])) : undefined;
  const keepAliveMs = parseTimeValue(plan.req.scroll as string, 'scroll');
  const opened = await openContexts(plan.targets, 'scroll', keepAliveMs, ctx, copies);
  if (opened.failures.length > 0) throw allFailedError('query', opened.failures);
  for (const s of opened.shards) plan.pins[s.shardIndex] = { node: s.node, context: { id: s.context, scroll: true }, shardIndex: s.shardIndex };
  // The params keep `scroll`: each batch re-parses the request as a scroll's (a `slice` is only valid there).
  return encodeScrollId({
    indices: [...new Set(plan.targets.map((t) => t.index))],
    shards: opened.shards,
    ...(scopeFilters ? { filters: scopeFilters } : {}),
    body: input.body,
    params: input.params.toString(),
    path: input.path,
  });
}

/** The scroll contexts a batch's query round read, with the position number each answered. */
export function scrollReads(plan: SearchPlan, ranked: RankedPage): ScrollRead[] {
  const reads: ScrollRead[] = [];
  for (const r of ranked.generations) {
    const context = plan.pins[r.shardIndex]?.context;
    if (context && r.response.scrollSeq !== undefined) {
      reads.push({ index: r.target.index, shard: r.target.shard, node: r.node, context: context.id, seq: r.response.scrollSeq });
    }
  }
  return reads;
}
