/**
 * Query phase: every target shard returns its top `k` sort keys (no `_source`), in parallel, one
 * call per shard through the node's pool, under the search deadline and the client's cancellation.
 * Replies come in the binary hits format unless `FOLIO_WIRE=json` (see {@link HITS_ACCEPT}).
 * With scoring, a dfs round supplies global term statistics first, unless they are cached for the
 * shards' current refresh generations (then the query phase is the only round trip).
 */
import { rpc } from '../../protocol/rpc.ts';
import { type HitFetchOptions, type QueryPhaseRequest, type QueryPhaseResponse, type SourceFilter } from '../../protocol/search.ts';
import { withGlobalStatistics } from './dfs-phase.ts';
import type { DfsCache } from './dfs-cache.ts';
import { fanOut, type RoundOutcome, type ShardReply } from './fan-out.ts';
import type { PhaseContext } from './phase-context.ts';
import { pinFields, queryForTarget, sortForTarget, type SearchPlan } from './plan.ts';
import type { ShardCopyIterator } from './shard-copy-iterator.ts';

/** A shard's query-phase reply with its position in the plan's target list. */
export type ShardQueryResult = ShardReply<QueryPhaseResponse>;

/** Everything the merge needs: successful replies and failed shards. */
export type QueryPhaseOutcome = RoundOutcome<QueryPhaseResponse>;

/**
 * Runs the query phase (with dfs when scores need term statistics, through `dfsCache`) on the
 * copies `copies` (the search's copy iterators, parallel to the plan's targets) stand on. With
 * `fetchSource`, every shard also returns its hits' `_source` texts (the fused fetch: see
 * fetch-phase.ts {@link fusesFetch}), with what `fetchOptions` adds to each.
 */
export async function runQueryPhase(
  plan: SearchPlan,
  copies: readonly ShardCopyIterator[],
  ctx: PhaseContext,
  dfsCache: DfsCache,
  fetchSource?: SourceFilter,
  fetchOptions?: HitFetchOptions,
): Promise<QueryPhaseOutcome> {
  return withGlobalStatistics<QueryPhaseResponse>(plan, copies, ctx, dfsCache, (extras, skip) =>
    fanOut(copies, ctx, rpc.query, (t, i): QueryPhaseRequest | null =>
      skip.has(i)
        ? null
        : {
            index: t.index,
            shard: t.shard,
            query: queryForTarget(plan, i),
            sort: sortForTarget(plan, i),
            k: plan.k,
            trackTotalHits: plan.req.trackTotalHits,
            ...(plan.needScores ? { trackScores: true } : {}),
            ...(plan.req.searchAfter ? { searchAfter: { sort: plan.req.searchAfter } } : {}),
            ...(plan.req.rescore.length > 0 ? { rescore: plan.req.rescore } : {}),
            ...(plan.collapse ? { collapse: plan.collapse } : {}),
            ...extras[i],
            ...pinFields(plan, i),
            ...(fetchSource !== undefined ? { fetchSource } : {}),
            ...(plan.aggs ? { aggs: plan.aggsQueries ? { ...plan.aggs, query: plan.aggsQueries[i] } : plan.aggs } : {}),
            ...(fetchSource !== undefined && fetchOptions !== undefined ? { fetchOptions } : {}),
            ...(plan.requestCache?.has(t.index) ? { requestCache: true as const } : {}),
          },
    ),
  );
}
