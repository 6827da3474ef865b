/**
 * One round of shard calls of a search: the same internal endpoint on every target in parallel,
 * under the search deadline and the client's cancellation, each reply checked to come from the
 * shard that was asked. Failures are data ({@link ShardFailure}), never exceptions.
 */
import type { ShardEcho } from '../../shared/protocol.ts';
import { HITS_CONTENT_TYPE } from '../../shared/wire.ts';
import type { ShardTarget } from '../cluster-view.ts';
import type { ShardClient } from '../shard-client.ts';
import type { DfsCache } from './dfs-cache.ts';
import { endpointOf, type ShardProfiler } from './profile.ts';
import type { SampleCache } from './select-phase.ts';
import { shardFailure, type ShardFailure } from './shard-failures.ts';

/**
 * The `accept` header of the rounds that return query-phase entries (query, selection sample and
 * range): the binary hits format (shared/wire.ts), which shard nodes answer as
 * `application/x-folio-hits`. Setting `FOLIO_WIRE=json` in the coordinator's environment (read once
 * at start) asks for JSON instead, for A/B measurements (bench/wire.ts) and debugging.
 */
export const HITS_ACCEPT: string = process.env.FOLIO_WIRE === 'json' ? 'application/json' : HITS_CONTENT_TYPE;

/** Shared context of a search's shard calls. */
export interface PhaseContext {
  client: ShardClient;
  dfsCache: DfsCache;
  /** Sample rounds of deep pages, reused while no shard refreshed (absent: never cached). */
  sampleCache?: SampleCache;
  signal: AbortSignal;
  /** Epoch ms when the search must have answered. */
  deadline: number;
  /** Records every shard call's wall time when the search asked for `profile: true`. */
  profile?: ShardProfiler;
}

/** A shard's reply with its position in the plan's target list. */
export interface ShardReply<R> {
  shardIndex: number;
  target: ShardTarget;
  response: R;
}

/** Successful replies (ordered by shardIndex) and failed shards of one round. */
export interface RoundOutcome<R> {
  results: ShardReply<R>[];
  failures: ShardFailure[];
  /** True when some shard missed the deadline. */
  timedOut: boolean;
}

/**
 * Calls `path` on every target with `body(target, i)`; a null body skips that target. `accept`
 * (e.g. {@link HITS_ACCEPT}) is sent as the calls' `accept` header.
 * @returns replies sorted by target position, and one failure per failed call.
 */
export async function fanOut<R extends ShardEcho>(
  targets: readonly ShardTarget[],
  ctx: PhaseContext,
  path: string,
  body: (t: ShardTarget, i: number) => unknown | null,
  accept?: string,
): Promise<RoundOutcome<R>> {
  const results: ShardReply<R>[] = [];
  const failures: ShardFailure[] = [];
  let timedOut = false;
  await Promise.all(
    targets.map(async (t, i) => {
      const b = body(t, i);
      if (b === null) return;
      const started = performance.now();
      try {
        const response = await ctx.client.call<R>(t.node, path, b, accept === undefined ? callOptions(ctx) : { ...callOptions(ctx), accept });
        checkIdentity(response, t);
        ctx.profile?.record(i, t, response.node, endpointOf(path), performance.now() - started);
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
export function checkIdentity(res: ShardEcho, t: ShardTarget): void {
  if (res.index !== t.index || res.shard !== t.shard) {
    throw new Error(`node [${res.node}] answered for [${res.index}][${res.shard}] but [${t.index}][${t.shard}] was asked`);
  }
}
