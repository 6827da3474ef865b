/**
 * Fetch phase: loads `_source` for the hits of the final page only, asking each shard for its own
 * hits from the same refresh generation its query phase read, in parallel. The merged order is kept.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/FetchSearchPhase.java
 */
import { INTERNAL_PREFIX, type FetchRequest, type FetchResponse, type FetchedDoc, type SourceFilter } from '../../shared/protocol.ts';
import type { MergedHit } from './merge.ts';
import { callOptions, checkIdentity, type PhaseContext, type ShardReply } from './fan-out.ts';
import { shardFailure, type ShardFailure } from './shard-failures.ts';

/** The page's documents, parallel to the merged hits (null where a shard failed to fetch). */
export interface FetchOutcome {
  docs: (FetchedDoc | null)[];
  failures: ShardFailure[];
}

/**
 * Fetches the page. `_source: false` skips the round trip entirely (ids are known from the query phase).
 * `results` name, per shard position, the generation its hits were read from (query phase or
 * selection range round).
 */
export async function runFetchPhase(
  page: readonly MergedHit[],
  results: readonly ShardReply<{ generation: number }>[],
  source: SourceFilter,
  ctx: PhaseContext,
): Promise<FetchOutcome> {
  const docs: (FetchedDoc | null)[] = page.map(() => null);
  if (source === false) return { docs: page.map((h) => ({ _id: h.hit._id })), failures: [] };

  const byShard = new Map<number, number[]>();
  page.forEach((h, pos) => {
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
      };
      const started = performance.now();
      try {
        const res = await ctx.client.call<FetchResponse>(t.node, `${INTERNAL_PREFIX}/fetch`, body, callOptions(ctx));
        checkIdentity(res, t);
        ctx.profile?.record(shardIndex, t, res.node, 'fetch', performance.now() - started);
        positions.forEach((p, i) => (docs[p] = res.docs[i]));
      } catch (err) {
        failures.push(shardFailure(t.index, t.shard, ctx.client.nodes[t.node], err));
      }
    }),
  );
  return { docs, failures };
}
