/**
 * Opening and closing the shard contexts behind a PIT or a scroll: one context per shard, opened
 * in parallel on the shard's node (which pins the shard's current refresh generation), closed in
 * parallel by id. Opening is all-or-nothing: when a shard fails, the contexts already opened are
 * closed again and the failures are returned.
 */
import { INTERNAL_PREFIX, type CloseContextsResponse, type OpenContextRequest, type OpenContextResponse } from '../../shared/protocol.ts';
import type { ShardTarget } from '../cluster-view.ts';
import type { ShardClient } from '../shard-client.ts';
import type { CursorShard } from './cursor-ids.ts';
import { fanOut, type PhaseContext } from './fan-out.ts';
import type { ShardFailure } from './shard-failures.ts';

/** Contexts opened on every target, or the failures when any shard could not open one. */
export type OpenOutcome = { shards: CursorShard[]; failures: [] } | { shards: []; failures: ShardFailure[] };

/**
 * Opens a `kind` context with `keepAliveMs` on each target; `shardIndex` is the target's position.
 * On any failure closes what was opened and returns the failures (429 when over a node's limit).
 */
export async function openContexts(targets: readonly ShardTarget[], kind: OpenContextRequest['kind'], keepAliveMs: number, ctx: PhaseContext): Promise<OpenOutcome> {
  const out = await fanOut<OpenContextResponse>(targets, ctx, `${INTERNAL_PREFIX}/contexts/open`, (t): OpenContextRequest => ({ index: t.index, shard: t.shard, kind, keepAliveMs }));
  const shards: CursorShard[] = out.results.map((r) => ({ index: r.target.index, shard: r.target.shard, node: r.target.node, context: r.response.context, shardIndex: r.shardIndex }));
  if (out.failures.length === 0) return { shards, failures: [] };
  await closeContexts(shards, ctx.client, ctx.deadline - Date.now());
  return { shards: [], failures: out.failures };
}

/**
 * Closes contexts by id (grouped per node). Unreachable nodes count as nothing freed.
 * @returns how many shard contexts were open (ES `num_freed`).
 */
export async function closeContexts(shards: readonly CursorShard[], client: ShardClient, timeoutMs: number): Promise<number> {
  const byNode = new Map<number, number[]>();
  for (const s of shards) byNode.set(s.node, [...(byNode.get(s.node) ?? []), s.context]);
  const freed = await Promise.all(
    [...byNode].map(async ([node, ids]) => {
      if (node < 0 || node >= client.nodes.length) return 0;
      try {
        const r = await client.call<CloseContextsResponse>(node, `${INTERNAL_PREFIX}/contexts/close`, { ids }, { timeoutMs: Math.max(1000, timeoutMs) });
        return r.freed;
      } catch {
        return 0;
      }
    }),
  );
  return freed.reduce((a, b) => a + b, 0);
}

/** Closes every scroll context on every node (`DELETE /_search/scroll/_all`). @returns the number freed. */
export async function closeAllScrolls(client: ShardClient, timeoutMs: number): Promise<number> {
  const freed = await Promise.all(
    client.nodes.map(async (_, node) => {
      try {
        const r = await client.call<CloseContextsResponse>(node, `${INTERNAL_PREFIX}/contexts/close`, { allOfKind: 'scroll' }, { timeoutMs });
        return r.freed;
      } catch {
        return 0;
      }
    }),
  );
  return freed.reduce((a, b) => a + b, 0);
}
