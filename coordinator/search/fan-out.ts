/**
 * One round of shard calls of a search: the same internal endpoint on every target in parallel,
 * under the search deadline and the client's cancellation, each reply checked to come from the
 * shard that was asked. Failures are data ({@link ShardFailure}), never exceptions.
 *
 * A shard with other in-sync copies is retried once on the next one (ES retries a failed shard on
 * its next copy: `AbstractSearchAsyncAction.onShardFailure`) when its call fails for a reason
 * another copy may not have: no connection, the deadline, a 5xx, 429, or a missing shard. Its first
 * attempt then gets only {@link FIRST_ATTEMPT_SHARE} of the time left, so a black-holed node cannot
 * eat the whole deadline; the retry gets the rest. A target that succeeded on another copy is
 * re-pointed to it, so the search's later rounds (query after dfs, range after sample, fetch) read
 * that copy. A request pinned to one copy's generation drops the pin on the retry (the other copy
 * reads its current generation), except the selection's range round, whose window comes from the
 * sample round's generation: that one fails, and the selection restarts (select-phase.ts). A
 * request that reads a PIT or scroll context is never retried elsewhere (the context lives on its
 * node, as in ES).
 * Every attempt feeds the adaptive replica selection's statistics (replica-selection.ts).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/AbstractSearchAsyncAction.java
 */
import type { ShardEcho } from '../../protocol/echo.ts';
import type { Rpc } from '../../protocol/rpc.ts';
import { HITS_CONTENT_TYPE } from '../../protocol/wire.ts';
import type { ShardTarget } from '../cluster/index-view.ts';
import type { ShardClient } from '../transport/shard-client.ts';
import { ShardCallError } from '../transport/shard-call-error.ts';
import type { DfsCache } from './dfs-cache.ts';
import type { ShardProfiler } from './profile.ts';
import type { SampleCache } from './select-phase.ts';
import { shardFailure, type ShardFailure } from './shard-failures.ts';

/**
 * The `accept` header of the rounds that return query-phase entries (query, selection sample and
 * range): the binary hits format (protocol/wire.ts), which shard nodes answer as
 * `application/x-folio-hits`. Setting `FOLIO_WIRE=json` in the coordinator's environment (read once
 * at start) asks for JSON instead, for A/B measurements (bench/wire.ts) and debugging.
 */
export const HITS_ACCEPT: string = process.env.FOLIO_WIRE === 'json' ? 'application/json' : HITS_CONTENT_TYPE;

/**
 * Share of the time left before the search deadline that the first attempt on a shard gets when
 * another copy could take a retry: half, so a black-holed node costs at most half the deadline.
 */
export const FIRST_ATTEMPT_SHARE = 0.5;

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
 * Calls action `d` on every target with `body(target, i)`; a null body skips that target. An
 * action with entries (protocol/rpc.ts) asks for the binary hits format ({@link HITS_ACCEPT}).
 * Failed calls are retried once on another copy when the action may fail over (see the module comment).
 * @returns replies sorted by target position, and one failure per shard that failed on every copy tried.
 */
export async function fanOut<Req, R extends ShardEcho>(
  targets: readonly ShardTarget[],
  ctx: PhaseContext,
  d: Rpc<Req, R>,
  body: (t: ShardTarget, i: number) => NoInfer<Req> | null,
): Promise<RoundOutcome<R>> {
  const results: ShardReply<R>[] = [];
  const failures: ShardFailure[] = [];
  let timedOut = false;
  await Promise.all(
    targets.map(async (t, i) => {
      const b = body(t, i);
      if (b === null) return;
      try {
        const response = await callShard(t, ctx, d, b, { shardIndex: i });
        results.push({ shardIndex: i, target: t, response });
      } catch (err) {
        const f = (err as FailedShardCall).failure ?? shardFailure(t.index, t.shard, ctx.client.nodes[t.node], err);
        if (f.reason.type === 'timeout_exception') timedOut = true;
        failures.push(f);
      }
    }),
  );
  results.sort((a, b) => a.shardIndex - b.shardIndex);
  return { results, failures, timedOut };
}

/** Options of {@link callShard}. */
export interface ShardCallOptions {
  /** Position of the target in the plan (for the profile). */
  shardIndex?: number;
}

/** What {@link callShard} throws: the error of the last attempt, and its failure entry. */
export interface FailedShardCall extends Error {
  failure?: ShardFailure;
}

/**
 * One shard call of a search with failover: the target's copy first (with a bounded share of the
 * time left when an alternate exists), then once the best alternate (with the rest), re-pointing
 * the target to the copy that answered. Feeds the adaptive replica selection statistics.
 * @throws the last attempt's error with a `failure` entry naming that attempt's node.
 */
export async function callShard<Req, R extends ShardEcho>(t: ShardTarget, ctx: PhaseContext, d: Rpc<Req, R>, body: NoInfer<Req>, opts: ShardCallOptions = {}): Promise<R> {
  const selection = ctx.client.selection;
  let node = t.node;
  let alternates = (t.alternates ?? []).filter((n) => n !== node);
  let request = body;
  const accept = d.entries !== undefined ? HITS_ACCEPT : undefined;
  for (let attempt = 0; ; attempt++) {
    const canRetry = attempt === 0 && alternates.length > 0 && mayFailOver(d, request);
    const left = ctx.deadline - Date.now();
    const timeoutMs = Math.max(1, Math.floor(canRetry ? left * FIRST_ATTEMPT_SHARE : left));
    const started = performance.now();
    selection.begin(node);
    let outcome: { response: R } | { err: unknown };
    try {
      const response = await ctx.client.rpc(node, d, request, { timeoutMs, signal: ctx.signal, ...(accept !== undefined ? { accept } : {}) });
      checkIdentity(response, t);
      outcome = { response };
    } catch (err) {
      outcome = { err };
    }
    const ms = performance.now() - started;
    if ('response' in outcome) {
      selection.succeeded(node, ms);
      t.node = node;
      t.alternates = alternates;
      if (opts.shardIndex !== undefined) ctx.profile?.record(opts.shardIndex, t, outcome.response.node, d.endpoint, ms);
      return outcome.response;
    }
    const { err } = outcome;
    const copyFailed = isCopyFailure(err);
    if (copyFailed) selection.failed(node);
    else selection.cancelled(node);
    if (!copyFailed || !canRetry || ctx.signal.aborted || Date.now() >= ctx.deadline) {
      // Later rounds of this search (a restarted selection) go to a copy that may still answer.
      if (copyFailed && alternates.length > 0) {
        t.node = alternates[0];
        t.alternates = alternates.slice(1);
      }
      const failed = (err instanceof Error ? err : new Error(String(err))) as FailedShardCall;
      failed.failure = shardFailure(t.index, t.shard, ctx.client.nodes[node], err);
      throw failed;
    }
    node = alternates[0];
    alternates = alternates.slice(1);
    request = withoutGenerationPin(request);
  }
}

/**
 * True when the failure is the copy's, not the request's, so another copy may answer: no
 * connection, the deadline, a 5xx, 429, a missing shard, or a reply from the wrong shard.
 */
export function isCopyFailure(err: unknown): boolean {
  if (!(err instanceof ShardCallError)) return err instanceof Error && err.message.startsWith('node [');
  if (err.kind === 'connection' || err.kind === 'timeout') return true;
  if (err.kind !== 'response') return false;
  return err.status >= 500 || err.status === 429 || err.cause_.type === 'shard_not_found_exception' || err.cause_.type === 'index_not_found_exception';
}

/** True when a request body reads a given generation (pinned to one copy). */
function pinsGeneration(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { generation?: unknown }).generation !== undefined;
}

/**
 * True when another copy may serve the request: the action may fail over and reads no pinned
 * generation of an earlier round (protocol/rpc.ts `failover`, `pinned`), and the request reads no
 * context (PIT, scroll), which lives on its node.
 */
function mayFailOver(d: Rpc<never, unknown>, body: unknown): boolean {
  if (!d.failover || d.pinned) return false;
  return !(typeof body === 'object' && body !== null && (body as { context?: unknown }).context !== undefined);
}

/** The request without its generation pin: another copy reads its current generation. */
function withoutGenerationPin<Req>(body: Req): Req {
  if (!pinsGeneration(body)) return body;
  const { generation: _g, ...rest } = body as Record<string, unknown>;
  return rest as Req;
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
