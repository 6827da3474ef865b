/**
 * One round of shard calls of a search: the same internal endpoint on every target in parallel,
 * under the search deadline and the client's cancellation, each reply checked to come from the
 * shard that was asked. Failures are data ({@link ShardFailure}), never exceptions.
 *
 * A shard with other in-sync copies is retried once on the next one (ES retries a failed shard on
 * its next copy: `AbstractSearchAsyncAction.onShardFailure`) when its call fails for a reason
 * another copy may not have: no connection, the deadline, a 5xx, 429, or a missing shard. Its first
 * attempt then gets only {@link FIRST_ATTEMPT_SHARE} of the time left, so a black-holed node cannot
 * eat the whole deadline; the retry gets the rest. The plan's targets are never written: each
 * round moves through a shard's copies with the search's copy iterator (shard-copy-iterator.ts),
 * which stays on the copy that answered (each reply names it), so the search's later rounds (query
 * after dfs, range after sample, fetch) read that copy, and moves past a copy that failed when
 * another is left. A request pinned to one copy's generation drops the pin on the retry (the other copy
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
import { ShardCallError } from '../transport/shard-call-error.ts';
import type { PhaseContext } from './phase-context.ts';
import { nextCopy, type CopyPosition, type SearchTarget, type ShardCopyIterator } from './shard-copy-iterator.ts';
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

/**
 * A shard's reply with its position in the plan's target list and the copy that answered. Its
 * target names the shard only (not the planned copy), so that no reader mistakes it for the copy.
 */
export interface ShardReply<R> {
  readonly shardIndex: number;
  readonly target: Pick<SearchTarget, 'index' | 'shard'>;
  /** The copy that answered (node ordinal). */
  readonly node: number;
  readonly response: R;
}

/** Successful replies (ordered by shardIndex) and failed shards of one round. */
export interface RoundOutcome<R> {
  results: ShardReply<R>[];
  failures: ShardFailure[];
  /** True when some shard missed the deadline. */
  timedOut: boolean;
  /** True when some shard failed on a copy and its iterator moved to another copy, for the search's later rounds. */
  movedOn: boolean;
}

/**
 * Calls action `d` on the copy each iterator of `copies` stands on, with `body(target, i)`; a null
 * body skips that target. An
 * action with entries (protocol/rpc.ts) asks for the binary hits format ({@link HITS_ACCEPT}).
 * Failed calls are retried once on another copy when the action may fail over (see the module comment).
 * @returns replies sorted by target position, and one failure per shard that failed on every copy tried.
 */
export async function fanOut<Req, R extends ShardEcho>(
  copies: readonly ShardCopyIterator[],
  ctx: PhaseContext,
  d: Rpc<Req, R>,
  body: (t: SearchTarget, i: number) => NoInfer<Req> | null,
): Promise<RoundOutcome<R>> {
  const results: ShardReply<R>[] = [];
  const failures: ShardFailure[] = [];
  let timedOut = false;
  let movedOn = false;
  await Promise.all(
    copies.map(async (it, i) => {
      const t = it.target;
      const b = body(t, i);
      if (b === null) return;
      try {
        const response = await callShard(it, ctx, d, b, { shardIndex: i });
        results.push({ shardIndex: i, target: t, node: it.node, response });
      } catch (err) {
        const failed = err as FailedShardCall;
        const f = failed.failure ?? shardFailure(t.index, t.shard, ctx.client.nodes[it.node], err);
        if (f.reason.type === 'timeout_exception') timedOut = true;
        if (failed.movedOn === true) movedOn = true;
        failures.push(f);
      }
    }),
  );
  results.sort((a, b) => a.shardIndex - b.shardIndex);
  return { results, failures, timedOut, movedOn };
}

/** Options of {@link callShard}. */
export interface ShardCallOptions {
  /** Position of the target in the plan (for the profile). */
  shardIndex?: number;
}

/** What {@link callShard} throws: the error of the last attempt, and its failure entry. */
export interface FailedShardCall extends Error {
  failure?: ShardFailure;
  /** The iterator moved past the failed copy to another one (later rounds read that one). */
  movedOn?: boolean;
}

/**
 * One shard call of a search with failover: the copy iterator `it` stands on first (with a bounded
 * share of the time left when another copy is left), then once the next copy (with the rest),
 * moving `it` to the copy that answered. Feeds the adaptive replica selection statistics.
 * @throws the last attempt's error with a `failure` entry naming that attempt's node; `it` then
 *   moves past a copy that failed (`movedOn`) when another is left.
 */
export async function callShard<Req, R extends ShardEcho>(
  it: ShardCopyIterator,
  ctx: PhaseContext,
  d: Rpc<Req, R>,
  body: NoInfer<Req>,
  opts: ShardCallOptions = {},
): Promise<R> {
  const selection = ctx.client.selection;
  const t = it.target;
  let at: CopyPosition = it.position;
  let request = body;
  const accept = d.entries !== undefined ? HITS_ACCEPT : undefined;
  for (let attempt = 0; ; attempt++) {
    const node = at.node;
    const canRetry = attempt === 0 && at.rest.length > 0 && mayFailOver(d, request);
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
      it.moveTo(at);
      if (opts.shardIndex !== undefined) ctx.profile?.record(opts.shardIndex, t, outcome.response.node, d.endpoint, ms);
      return outcome.response;
    }
    const { err } = outcome;
    const copyFailed = isCopyFailure(err);
    if (copyFailed) selection.failed(node);
    else selection.cancelled(node);
    if (!copyFailed || !canRetry || ctx.signal.aborted || Date.now() >= ctx.deadline) {
      // Later rounds of this search (a restarted selection) go to a copy that may still answer.
      const next = copyFailed ? nextCopy(at) : null;
      if (next) it.moveTo(next);
      const failed = (err instanceof Error ? err : new Error(String(err))) as FailedShardCall;
      failed.failure = shardFailure(t.index, t.shard, ctx.client.nodes[node], err);
      failed.movedOn = next !== null;
      throw failed;
    }
    at = nextCopy(at)!;
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

/**
 * Detects a mis-wired node: the reply must name the index and shard that were asked for.
 * @throws Error naming both identities
 */
export function checkIdentity(res: ShardEcho, t: SearchTarget): void {
  if (res.index !== t.index || res.shard !== t.shard) {
    throw new Error(`node [${res.node}] answered for [${res.index}][${res.shard}] but [${t.index}][${t.shard}] was asked`);
  }
}
