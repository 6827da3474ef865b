/**
 * The dfs round (ES `dfs_query_then_fetch`, Folio's default when scores use term statistics) in
 * front of any scored round: global statistics from the cache when every shard is still at the
 * generation they describe, otherwise from a dfs round whose generations the next round then
 * reads. Used by the query phase and by the selection phase's sample round alike, so scores (and
 * so the order) are the same on both paths.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-search.html#search-type
 */
import { rpc } from '../../protocol/rpc.ts';
import { type DfsRequest, type ScoringStatistics } from '../../protocol/search.ts';
import { preferCopies, shardKeyOf as shardKey } from './copy-affinity.ts';
import { DfsCache, mergeStatistics, queryUsesTermStatistics, type DfsEntry } from './dfs-cache.ts';
import { fanOut, type RoundOutcome } from './fan-out.ts';
import type { PhaseContext } from './phase-context.ts';
import { pinFields, type SearchPlan } from './plan.ts';
import type { ShardCopyIterator } from './shard-copy-iterator.ts';
import type { ShardFailure } from './shard-failures.ts';

/** What a scored round adds to each shard's request. */
export interface StatsExtras {
  stats?: ScoringStatistics;
  /** Read this generation (the one the dfs round pinned). */
  generation?: number;
  /** The generation cached `stats` describe (the shard answers `statsStale` if it moved on). */
  statsGeneration?: number;
}

/** A round to run with statistics: one request per target, skipping `skip` (shards whose dfs failed). */
export type ScoredRound<R> = (extras: readonly StatsExtras[], skip: ReadonlySet<number>) => Promise<RoundOutcome<R>>;

/**
 * Runs `round` with global statistics when the plan scores with term statistics (else plainly),
 * reusing and filling `cache` (the search's dfs cache) unless the plan is pinned. A cache hit
 * moves `copies` (the search's copy iterators) to the copies the statistics came from.
 * @returns the round's outcome (dfs failures included) and the statistics it used.
 */
export async function withGlobalStatistics<R extends { statsStale?: boolean }>(
  plan: SearchPlan,
  copies: readonly ShardCopyIterator[],
  ctx: PhaseContext,
  cache: DfsCache,
  round: ScoredRound<R>,
): Promise<RoundOutcome<R> & { stats?: ScoringStatistics }> {
  const useDfs = plan.needScores && queryUsesTermStatistics(plan.req.query);
  if (!useDfs)
    return round(
      plan.targets.map(() => ({})),
      new Set(),
    );

  // Pinned shards (PIT, scroll, Folio-Snapshot) take the statistics of the generations they read.
  const pinned = plan.pins.some((p) => p !== undefined);
  const key = DfsCache.key(plan.targets.map(shardKey), plan.req.query);
  const hit = pinned ? undefined : cache.get(key);
  // Generations are per copy: reuse the statistics only when the search can read the copies they came from.
  const cached = hit && preferCopies(copies, (t) => hit.nodes.get(shardKey(t))) ? hit : undefined;
  if (cached) {
    const outcome = await round(
      plan.targets.map((t) => ({ stats: cached.stats, statsGeneration: cached.generations.get(shardKey(t)) })),
      new Set(),
    );
    if (!outcome.results.some((r) => r.response.statsStale)) return { ...outcome, stats: cached.stats };
    cache.delete(key);
  }

  const dfs = await dfsRound(plan, copies, ctx);
  if (dfs.entry && !pinned) cache.set(key, dfs.entry);
  const stats = dfs.entry?.stats;
  const outcome = await round(
    plan.targets.map((t) => ({ stats, generation: dfs.entry?.generations.get(shardKey(t)) })),
    dfs.failed,
  );
  outcome.failures.push(...dfs.failures);
  return { ...outcome, stats };
}

/** The dfs round: term statistics from every shard; each shard keeps the generation it read open. */
async function dfsRound(
  plan: SearchPlan,
  copies: readonly ShardCopyIterator[],
  ctx: PhaseContext,
): Promise<{ entry: DfsEntry | null; failures: ShardFailure[]; failed: Set<number> }> {
  const out = await fanOut(copies, ctx, rpc.dfs, (t, i): DfsRequest => ({ index: t.index, shard: t.shard, query: plan.req.query, ...pinFields(plan, i) }));
  const ok = new Set(out.results.map((r) => r.shardIndex));
  const failed = new Set(plan.targets.map((_, i) => i).filter((i) => !ok.has(i)));
  const generations = new Map(out.results.map((r) => [shardKey(r.target), r.response.generation]));
  const nodes = new Map(out.results.map((r) => [shardKey(r.target), r.node]));
  const entry = out.results.length > 0 ? { stats: mergeStatistics(out.results.map((r) => r.response.stats)), generations, nodes } : null;
  return { entry, failures: out.failures, failed };
}
