/**
 * Query phase: every target shard returns its top `k` sort keys (no `_source`), in parallel, one
 * call per shard through the node's pool, under the search deadline and the client's cancellation.
 * With scoring, a dfs round supplies global term statistics first, unless they are cached for the
 * shards' current refresh generations (then the query phase is the only round trip).
 */
import {
  INTERNAL_PREFIX,
  type DfsRequest,
  type DfsResponse,
  type QueryPhaseRequest,
  type QueryPhaseResponse,
  type ScoringStatistics,
} from '../../shared/protocol.ts';
import type { ShardTarget } from '../cluster-view.ts';
import type { ShardClient } from '../shard-client.ts';
import { DfsCache, mergeStatistics, queryUsesTermStatistics, type DfsEntry } from './dfs-cache.ts';
import type { SearchPlan } from './plan.ts';
import { shardFailure, type ShardFailure } from './shard-failures.ts';

/** A shard's query-phase reply with its position in the plan's target list. */
export interface ShardQueryResult {
  shardIndex: number;
  target: ShardTarget;
  response: QueryPhaseResponse;
}

/** Everything the merge needs: successful replies and failed shards. */
export interface QueryPhaseOutcome {
  results: ShardQueryResult[];
  failures: ShardFailure[];
  timedOut: boolean;
}

/** Shared context of a search's shard calls. */
export interface PhaseContext {
  client: ShardClient;
  dfsCache: DfsCache;
  signal: AbortSignal;
  /** Epoch ms when the search must have answered. */
  deadline: number;
}

const shardKey = (t: ShardTarget): string => `${t.index}/${t.shard}`;

/** Runs the query phase (with dfs when scores need term statistics) over the plan's targets. */
export async function runQueryPhase(plan: SearchPlan, ctx: PhaseContext): Promise<QueryPhaseOutcome> {
  const useDfs = plan.needScores && queryUsesTermStatistics(plan.req.query);
  if (!useDfs) return queryShards(plan, ctx, plan.targets.map(() => ({})));

  const key = DfsCache.key(plan.targets.map(shardKey), plan.req.query);
  const cached = ctx.dfsCache.get(key);
  if (cached) {
    const outcome = await queryShards(
      plan,
      ctx,
      plan.targets.map((t) => ({ stats: cached.stats, statsGeneration: cached.generations.get(shardKey(t)) })),
    );
    if (!outcome.results.some((r) => r.response.statsStale)) return outcome;
    ctx.dfsCache.delete(key);
  }

  const dfs = await dfsRound(plan, ctx);
  if (dfs.entry) ctx.dfsCache.set(key, dfs.entry);
  const stats = dfs.entry?.stats;
  const outcome = await queryShards(
    plan,
    ctx,
    plan.targets.map((t) => ({ stats, generation: dfs.entry?.generations.get(shardKey(t)) })),
    dfs.failed,
  );
  outcome.failures.push(...dfs.failures);
  return outcome;
}

/** The dfs round: term statistics from every shard; each shard keeps the generation it read open. */
async function dfsRound(plan: SearchPlan, ctx: PhaseContext): Promise<{ entry: DfsEntry | null; failures: ShardFailure[]; failed: Set<number> }> {
  const failures: ShardFailure[] = [];
  const failed = new Set<number>();
  const parts: ScoringStatistics[] = [];
  const generations = new Map<string, number>();
  await Promise.all(
    plan.targets.map(async (t, i) => {
      const body: DfsRequest = { index: t.index, shard: t.shard, query: plan.req.query };
      try {
        const res = await ctx.client.call<DfsResponse>(t.node, `${INTERNAL_PREFIX}/dfs`, body, callOptions(ctx));
        checkIdentity(res, t);
        parts.push(res.stats);
        generations.set(shardKey(t), res.generation);
      } catch (err) {
        failed.add(i);
        failures.push(shardFailure(t.index, t.shard, ctx.client.nodes[t.node], err));
      }
    }),
  );
  return { entry: parts.length > 0 ? { stats: mergeStatistics(parts), generations } : null, failures, failed };
}

/** Sends the query phase to each target (skipping `skip`), with per-shard extras (stats, generation). */
async function queryShards(
  plan: SearchPlan,
  ctx: PhaseContext,
  extras: Pick<QueryPhaseRequest, 'stats' | 'generation' | 'statsGeneration'>[],
  skip: ReadonlySet<number> = new Set(),
): Promise<QueryPhaseOutcome> {
  const results: ShardQueryResult[] = [];
  const failures: ShardFailure[] = [];
  let timedOut = false;
  await Promise.all(
    plan.targets.map(async (t, i) => {
      if (skip.has(i)) return;
      const body: QueryPhaseRequest = {
        index: t.index,
        shard: t.shard,
        query: plan.req.query,
        sort: plan.sort,
        k: plan.k,
        trackTotalHits: plan.req.trackTotalHits,
        ...(plan.needScores ? { trackScores: true } : {}),
        ...(plan.req.searchAfter ? { searchAfter: { sort: plan.req.searchAfter } } : {}),
        ...extras[i],
      };
      try {
        const response = await ctx.client.call<QueryPhaseResponse>(t.node, `${INTERNAL_PREFIX}/query`, body, callOptions(ctx));
        checkIdentity(response, t);
        results.push({ shardIndex: i, target: t, response });
      } catch (err) {
        const f = shardFailure(t.index, t.shard, ctx.client.nodes[t.node], err);
        if (f.reason.type === 'timeout_exception') timedOut = true;
        failures.push(f);
      }
    }),
  );
  results.sort((a, b) => a.shardIndex - b.shardIndex);
  return { results, failures, timedOut };
}

/** Per-call options from the search deadline (at least 1 ms so an expired deadline fails fast). */
export function callOptions(ctx: PhaseContext): { timeoutMs: number; signal: AbortSignal } {
  return { timeoutMs: Math.max(1, ctx.deadline - Date.now()), signal: ctx.signal };
}

/**
 * Detects a mis-wired node: the reply must name the index and shard that were asked for.
 * @throws Error naming both identities
 */
export function checkIdentity(res: { index: string; shard: number; node: string }, t: ShardTarget): void {
  if (res.index !== t.index || res.shard !== t.shard) {
    throw new Error(`node [${res.node}] answered for [${res.index}][${res.shard}] but [${t.index}][${t.shard}] was asked`);
  }
}
