/**
 * The aggregation phase of a search, beside the hit merge: the shards' partial aggregations (sent
 * with their query-phase replies, or gathered by one `aggs` round when the hits came from
 * distributed selection) are reduced (aggs/reduce.ts); while a `terms` aggregation is not settled
 * exactly, its refinement tasks go to the shards that must answer them, on the generation each
 * shard's query phase read (so a PIT, a scroll or a `Folio-Snapshot` sees consistent aggregations),
 * and the reduce runs again with the replies. A shard that fails a round is left out of the
 * aggregations and listed in `_shards.failures`.
 * @see docs/aggregations.md
 */
import type { AggNode } from '../../protocol/agg-request.ts';
import { EsError } from '../../protocol/errors.ts';
import type { FieldMapping } from '../../protocol/mapping.ts';
import { type AggPartial, type AggsRequest, type AggsResponse } from '../../protocol/aggs.ts';
import { rpc } from '../../protocol/rpc.ts';
import type { Query } from '../../protocol/query-ast.ts';
import { renderAggs } from './aggs/render.ts';
import { DEFAULT_MAX_BUCKETS } from '../../shared/aggs/too-many-buckets.ts';
import { recordReplies, reduceAggs, type ReplyLog } from './aggs/reduce.ts';
import { callShard, type FailedShardCall, type ShardReply } from './fan-out.ts';
import type { PhaseContext } from './phase-context.ts';
import { ShardCopyIterator } from './shard-copy-iterator.ts';
import { shardFailure, type ShardFailure } from './shard-failures.ts';

/** Most refinement rounds one search may take (each level of nested `terms` settles in at most three). */
export const MAX_REFINE_ROUNDS = 16;

/** What the phase needs beside the shard replies. */
export interface AggsPhaseInput {
  nodes: AggNode[];
  /** The query the aggregations run on at each shard position (its target's query; without `post_filter`). */
  queryFor(shardIndex: number): Query;
  /** Top-level terms candidates per shard for the whole-tree round (shared/aggs/terms-plan.ts). */
  candidates?: number;
  /** The shards that answered the query round, with the generation each read and its partials (when sent). */
  replies: readonly ShardReply<{ generation: number; aggs?: AggPartial[] }>[];
  fieldMapping: (field: string) => FieldMapping | undefined;
  typedKeys: boolean;
  maxBuckets?: number;
}

/** The `aggregations` section, the shards that failed meanwhile, and the rounds taken after the query round. */
export interface AggsPhaseOutcome {
  aggregations: Record<string, unknown>;
  failures: ShardFailure[];
  rounds: number;
}

/** Calls the `aggs` endpoint of one replying shard on its generation, on the copy that replied (no failover). */
async function callAggs(
  r: ShardReply<{ generation: number }>,
  body: Omit<AggsRequest, 'index' | 'shard' | 'generation'>,
  ctx: PhaseContext,
): Promise<AggsResponse> {
  const t = r.target;
  const req: AggsRequest = { index: t.index, shard: t.shard, generation: r.response.generation, ...body };
  return callShard(ShardCopyIterator.only(t, r.node), ctx, rpc.aggs, req, { shardIndex: r.shardIndex });
}

/**
 * Reduces the aggregations of a search, running refinement rounds until every `terms` is exact.
 * @throws EsError 400 `too_many_buckets_exception`; 500 when the rounds do not settle (a bug)
 */
export async function runAggsPhase(input: AggsPhaseInput, ctx: PhaseContext): Promise<AggsPhaseOutcome> {
  const { nodes } = input;
  const failures: ShardFailure[] = [];
  const shards: (AggPartial[] | undefined)[] = input.replies.map((r) => r.response.aggs);
  const alive = input.replies.map(() => true);
  const fail = (p: number, err: unknown) => {
    const r = input.replies[p];
    failures.push((err as FailedShardCall).failure ?? shardFailure(r.target.index, r.target.shard, ctx.client.nodes[r.node], err));
    alive[p] = false;
    shards[p] = undefined;
  };
  // Hits from distributed selection: one round for the whole tree, on the generations the selection read.
  await Promise.all(
    input.replies.map(async (r, p) => {
      if (shards[p] !== undefined) return;
      try {
        shards[p] = (
          await callAggs(r, { query: input.queryFor(r.shardIndex), nodes, ...(input.candidates !== undefined ? { candidates: input.candidates } : {}) }, ctx)
        ).partials;
      } catch (err) {
        fail(p, err);
      }
    }),
  );
  const log: ReplyLog = new Map();
  for (let round = 0; round <= MAX_REFINE_ROUNDS; round++) {
    const outcome = reduceAggs(nodes, shards, log, input.maxBuckets ?? DEFAULT_MAX_BUCKETS);
    if (outcome.done) {
      return { aggregations: renderAggs(outcome.reduced, { fieldMapping: input.fieldMapping, typedKeys: input.typedKeys }), failures, rounds: round };
    }
    await Promise.all(
      [...outcome.tasks].map(async ([p, tasks]) => {
        if (!alive[p]) return;
        try {
          const res = await callAggs(input.replies[p], { query: input.queryFor(input.replies[p].shardIndex), nodes, tasks }, ctx);
          recordReplies(log, p, tasks, res.results ?? []);
        } catch (err) {
          fail(p, err);
          for (const perShard of log.values()) perShard.delete(p);
        }
      }),
    );
  }
  throw new EsError(500, 'illegal_state_exception', `aggregations did not settle in ${MAX_REFINE_ROUNDS} refinement rounds`);
}
