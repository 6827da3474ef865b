/**
 * Fetch phase: loads `_source` for the hits of the final page only, asking each shard for its own
 * hits from the same refresh generation its query phase read, in parallel. The merged order is kept.
 * A small page is fetched in the query round instead ({@link fusesFetch}): each shard returns its
 * top hits' `_source` with their keys, and the page takes its documents from those replies.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/FetchSearchPhase.java
 */
import { rpc } from '../../protocol/rpc.ts';
import { type FetchRequest, type FetchedDoc, type HitFetchOptions, type QueryPhaseResponse, type SourceFilter } from '../../protocol/search.ts';
import { fetchesHits } from './fetch-options.ts';
import type { MergedHit } from './merge.ts';
import { callShard, type FailedShardCall, type ShardReply } from './fan-out.ts';
import type { PhaseContext } from './phase-context.ts';
import type { SearchPlan } from './plan.ts';
import type { ShardCopyIterator } from './shard-copy-iterator.ts';
import { shardFailure, type ShardFailure } from './shard-failures.ts';

/** The page's documents, parallel to the merged hits (null where a shard failed to fetch). */
export interface FetchOutcome {
  docs: (FetchedDoc | null)[];
  failures: ShardFailure[];
}

/**
 * Most `_source` documents a fused fetch may carry per search (targets × `from + size`); past it,
 * the fetch phase is its own round. Measured on the 1 M-doc bench (4 shards, 166-byte documents):
 * the fused round makes page 1 (40 documents) cheaper; see docs/performance.md.
 */
export const FUSED_FETCH_MAX_SOURCES = 128;

/**
 * Whether the query round also fetches (ES does this for a single shard: query_and_fetch): a
 * single shard at `from` 0 (every returned document is on the page), or at most
 * {@link FUSED_FETCH_MAX_SOURCES} documents in all. Never with `size` 0, nor with `_source: false`
 * and no fetch option, which need no fetch at all.
 */
export function fusesFetch(plan: SearchPlan): boolean {
  if (!fetchesHits(plan.req) || plan.req.size === 0 || plan.targets.length === 0) return false;
  return (plan.targets.length === 1 && plan.req.from === 0) || plan.targets.length * plan.k <= FUSED_FETCH_MAX_SOURCES;
}

/**
 * The page's documents from a fused query round: each hit's `_source` text from its shard's reply
 * (kept as text: the reply splices it in as sent), with its `extras` (`_routing`, `fields`…). A
 * reply without `sources` (a shard that does not fuse) yields null documents, which the caller
 * fetches with {@link runFetchPhase}.
 */
export function fusedDocs(page: readonly MergedHit[], results: readonly ShardReply<Pick<QueryPhaseResponse, 'sources' | 'extras'>>[]): (FetchedDoc | null)[] {
  const byShard = new Map(results.map((r) => [r.shardIndex, r.response]));
  return page.map((h) => {
    const res = byShard.get(h.shardIndex);
    if (res?.sources === undefined) return null;
    const text = res.sources[h.position];
    const extras = res.extras?.[h.position];
    const doc: FetchedDoc = extras ? { _id: h.hit._id, ...extras } : { _id: h.hit._id };
    if (text !== null) doc._source = text;
    return doc;
  });
}

/**
 * Fetches the page. `_source: false` without `options` fetches only from the shards whose
 * documents have custom routings (their replies say `routed`), for `_routing`; when none does the
 * round trip is skipped entirely (ids are known from the query phase).
 * `results` name, per shard position, the generation its hits were read from (query phase or
 * selection range round); each shard is fetched from the copy its iterator in `copies` stands on
 * (the one that read those hits), failing over on a fork of it, so the search's iterator stays.
 */
export async function runFetchPhase(
  page: readonly MergedHit[],
  results: readonly ShardReply<{ generation: number; routed?: boolean }>[],
  source: SourceFilter,
  copies: readonly ShardCopyIterator[],
  ctx: PhaseContext,
  options?: HitFetchOptions,
): Promise<FetchOutcome> {
  const docs: (FetchedDoc | null)[] = page.map(() => null);
  const idsOnly = source === false && options === undefined;
  const routed = idsOnly ? new Set(results.filter((r) => r.response.routed).map((r) => r.shardIndex)) : null;
  if (routed && routed.size === 0) return { docs: page.map((h) => ({ _id: h.hit._id })), failures: [] };

  const byShard = new Map<number, number[]>();
  page.forEach((h, pos) => {
    if (routed && !routed.has(h.shardIndex)) {
      docs[pos] = { _id: h.hit._id };
      return;
    }
    const list = byShard.get(h.shardIndex) ?? [];
    list.push(pos);
    byShard.set(h.shardIndex, list);
  });
  const resultByShard = new Map(results.map((r) => [r.shardIndex, r]));
  const failures: ShardFailure[] = [];
  await Promise.all(
    [...byShard].map(async ([shardIndex, positions]) => {
      const r = resultByShard.get(shardIndex)!;
      const t = r.target;
      const body: FetchRequest = {
        index: t.index,
        shard: t.shard,
        generation: r.response.generation,
        ids: positions.map((p) => page[p].hit._id),
        _source: source,
        ...(options !== undefined ? { options } : {}),
      };
      try {
        // A copy gone since the query round: fetched from another copy's current generation (fan-out.ts).
        const res = await callShard(copies[shardIndex].fork(), ctx, rpc.fetch, body, { shardIndex });
        positions.forEach((p, i) => (docs[p] = res.docs[i]));
      } catch (err) {
        failures.push((err as FailedShardCall).failure ?? shardFailure(t.index, t.shard, ctx.client.nodes[r.node], err));
      }
    }),
  );
  return { docs, failures };
}
