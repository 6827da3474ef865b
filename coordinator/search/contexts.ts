/**
 * Opening and closing the shard contexts behind a PIT or a scroll: one context per shard, opened
 * in parallel on the shard's node (which pins the shard's current refresh generation), closed in
 * parallel by id. Opening is all-or-nothing: when a shard fails, the contexts already opened are
 * closed again and the failures are returned. After each scroll batch the coordinator records the
 * scroll's new position on the contexts the batch read ({@link advanceScroll}).
 */
import { rpc } from '../../protocol/rpc.ts';
import { type AdvanceScrollRequest, type LabelPitRequest, type ListedPit, type OpenContextRequest } from '../../protocol/search-contexts.ts';
import type { SortValue } from '../../protocol/sort.ts';
import type { ShardClient } from '../transport/shard-client.ts';
import type { CursorShard } from './cursor-ids.ts';
import { fanOut } from './fan-out.ts';
import type { PhaseContext } from './phase-context.ts';
import { copyIterators, type SearchTarget, type ShardCopyIterator } from './shard-copy-iterator.ts';
import { shardFailure, type ShardFailure } from './shard-failures.ts';

/** Contexts opened on every target, or the failures when any shard could not open one. */
export type OpenOutcome = { shards: CursorShard[]; failures: [] } | { shards: []; failures: ShardFailure[] };

/**
 * Opens a `kind` context with `keepAliveMs` on each target; `shardIndex` is the target's position.
 * Reads the copies `copies` stand on (a new scroll: its search's copy iterators, which then stay
 * on the copies that opened the contexts; default: fresh iterators over `targets`).
 * On any failure closes what was opened and returns the failures (429 when over a node's limit).
 */
export async function openContexts(
  targets: readonly SearchTarget[],
  kind: OpenContextRequest['kind'],
  keepAliveMs: number,
  ctx: PhaseContext,
  copies: readonly ShardCopyIterator[] = copyIterators(targets),
): Promise<OpenOutcome> {
  const out = await fanOut(copies, ctx, rpc.openContext, (t): OpenContextRequest => ({ index: t.index, shard: t.shard, kind, keepAliveMs }));
  const shards: CursorShard[] = out.results.map((r) => ({
    index: r.target.index,
    shard: r.target.shard,
    node: r.node,
    context: r.response.context,
    shardIndex: r.shardIndex,
  }));
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
        const r = await client.rpc(node, rpc.closeContexts, { ids }, { timeoutMs: Math.max(1000, timeoutMs) });
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
        const r = await client.rpc(node, rpc.closeContexts, { allOfKind: 'scroll' }, { timeoutMs });
        return r.freed;
      } catch {
        return 0;
      }
    }),
  );
  return freed.reduce((a, b) => a + b, 0);
}

/**
 * Names the PIT that just-opened contexts belong to on their nodes (grouped per node), so that
 * `GET /_search/point_in_time/_all` can list it from any coordinator. Best effort: a node that
 * does not answer leaves its contexts out of the listing, nothing else.
 */
export async function labelPitContexts(shards: readonly CursorShard[], pit: ListedPit, client: ShardClient, timeoutMs: number): Promise<void> {
  const byNode = new Map<number, number[]>();
  for (const s of shards) byNode.set(s.node, [...(byNode.get(s.node) ?? []), s.context]);
  await Promise.all(
    [...byNode].map(async ([node, ids]) => {
      const body: LabelPitRequest = { ids, ...pit };
      await client.rpc(node, rpc.labelPit, body, { timeoutMs: Math.max(1000, timeoutMs) }).catch(() => undefined);
    }),
  );
}

/**
 * Every open PIT the shard nodes hold (OpenSearch `GET /_search/point_in_time/_all`), once per
 * PIT, oldest first. Unreachable nodes add nothing.
 */
export async function listPits(client: ShardClient, timeoutMs: number): Promise<ListedPit[]> {
  const lists = await Promise.all(
    client.nodes.map(async (_, node) => {
      try {
        return (await client.rpc(node, rpc.listPits, undefined, { timeoutMs })).pits;
      } catch {
        return [];
      }
    }),
  );
  const out = new Map<string, ListedPit>();
  for (const p of lists.flat()) if (!out.has(p.pitId)) out.set(p.pitId, p);
  return [...out.values()].sort((a, b) => a.creationTime - b.creationTime);
}

/** Closes every PIT context on every node (`DELETE /_search/point_in_time/_all`). @returns the number freed. */
export async function closeAllPits(client: ShardClient, timeoutMs: number): Promise<number> {
  const freed = await Promise.all(
    client.nodes.map(async (_, node) => {
      try {
        return (await client.rpc(node, rpc.closeContexts, { allOfKind: 'pit' }, { timeoutMs })).freed;
      } catch {
        return 0;
      }
    }),
  );
  return freed.reduce((a, b) => a + b, 0);
}

/** A scroll context a batch read, and the number of the position it started after (the shard's `scrollSeq`). */
export interface ScrollRead {
  index: string;
  shard: number;
  /** Ordinal of the shard node in FOLIO_NODES. */
  node: number;
  context: number;
  seq: number;
}

/**
 * Records a scroll batch's position on the contexts it read, one call per node, before the batch
 * is answered: the next batch (whichever coordinator serves it, whichever id of the scroll is
 * sent) starts after `after`, the full sort values of the batch's last hit (implicit `_shard_doc`
 * included). A context whose position another batch already moved is left as it is.
 * @returns one failure per shard whose node could not be reached (that shard may repeat hits in
 *   the next batch; reported in `_shards.failures`).
 */
export async function advanceScroll(reads: readonly ScrollRead[], after: SortValue[], client: ShardClient, timeoutMs: number): Promise<ShardFailure[]> {
  const byNode = new Map<number, ScrollRead[]>();
  for (const r of reads) byNode.set(r.node, [...(byNode.get(r.node) ?? []), r]);
  const failures = await Promise.all(
    [...byNode].map(async ([node, list]) => {
      const body: AdvanceScrollRequest = { contexts: list.map((r) => ({ index: r.index, shard: r.shard, id: r.context, seq: r.seq })), after };
      try {
        await client.rpc(node, rpc.advanceScroll, body, { timeoutMs: Math.max(1000, timeoutMs) });
        return [];
      } catch (err) {
        return list.map((r) => shardFailure(r.index, r.shard, client.nodes[node] ?? null, err));
      }
    }),
  );
  return failures.flat();
}
