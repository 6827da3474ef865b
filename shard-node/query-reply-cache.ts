/**
 * The query round through the shard request cache (shard-node/request-cache.ts): a round whose
 * request asks for it (`requestCache`, set by the coordinator when ES would cache it) is answered
 * with the {@link CachedReply} cached for the same copy, generation and request text, whose bytes
 * rpc-serve.ts `encodeReply` writes (the engine and, once each format was asked, the encoding are
 * skipped); else the round runs and its reply enters the cache when it is first encoded. A hit still
 * does what the round does beside its reply: it checks the index is open and the shard here,
 * retains the generation the reply names for the search's later rounds (fetch, aggregation
 * refinement), and counts the query (and fused fetch) in the shard's `search` stats, as ES counts a
 * query phase answered from its cache. An identical round that arrives while the reply is being
 * computed waits for that reply instead of computing it again, and counts as a hit, as ES's
 * `IndicesRequestCache` loads a key once (`computeIfAbsent`; a request whose loader did not run is a
 * hit). Single calls, batched frames and the node:http fast path (shard-node/rpc-fast-path.ts) all
 * reach it through the bound handler.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/IndicesService.java
 */
import type { QueryPhaseRequest, QueryPhaseResponse } from '../protocol/search.ts';
import type { IndexRegistry } from './index-registry.ts';
import { CachedReply, type ShardRequestCache } from './request-cache.ts';
import { generationReader } from './search-reader.ts';
import type { SearchContexts } from './search-contexts.ts';

/** What the cached round reads: the shards, contexts and keep-alive (as the reader), the cache, and the round itself. */
export interface QueryReplyCacheDeps {
  registry: IndexRegistry;
  contexts: SearchContexts;
  keepAliveMs: number;
  cache: ShardRequestCache;
  /** The query round (search-actions.ts). */
  query: (req: QueryPhaseRequest) => Promise<QueryPhaseResponse>;
}

/** The cached query round: whether a request may use the cache, and its answer. */
export interface QueryReplyCache {
  /**
   * True when `req` asks for the cache and may use it: a query round of the current or a named
   * generation (no PIT or scroll context), the cache not sized 0.
   */
  applies(req: QueryPhaseRequest): boolean;
  /**
   * The reply of `req` ({@link applies}): a {@link CachedReply} (from the cache, or entering it when
   * encoded), or the plain reply when it may not be cached (`statsStale`, read from another generation).
   * @throws EsError as the query round (missing or closed index or shard, expired generation, …)
   */
  answer(req: QueryPhaseRequest): Promise<CachedReply | QueryPhaseResponse>;
}

/** Builds the cached query round (see the module comment). */
export function queryReplyCache(deps: QueryReplyCacheDeps): QueryReplyCache {
  const { registry, cache, query } = deps;
  const read = generationReader(deps);
  // Replies being computed, by cache key: an identical round waits for the one in flight.
  const loading = new Map<string, Promise<CachedReply | QueryPhaseResponse>>();
  return {
    applies: (req) => cache.maxBytes > 0 && req?.requestCache === true && req.context === undefined,
    async answer(req) {
      const shard = registry.shard(req.index, req.shard);
      // Cached statistics of a generation the shard moved past: the round answers `statsStale` (not cached).
      if (req.statsGeneration !== undefined && req.generation === undefined && req.statsGeneration !== shard.generation) return query(req);
      const gen = read(req.index, req.shard, req.generation, undefined); // open, here, retained for the later rounds
      const key = cache.key(shard, gen.id, requestText(req));
      const countQuery = (): void => {
        shard.counters.queryTotal++;
        if (req.fetchSource !== undefined) shard.counters.fetchTotal++;
      };
      // The same round in flight: its reply, when it is cacheable (else, or when it failed, this round runs).
      // No await between this lookup and `loading.set` below unless one is in flight.
      const inFlight = loading.get(key);
      const shared = inFlight && (await inFlight.catch(() => undefined));
      if (shared instanceof CachedReply) {
        cache.countHit(shard);
        countQuery();
        return shared;
      }
      const hit = cache.get(shard, key);
      if (hit) {
        countQuery();
        return hit;
      }
      const run = query(req).then((res) => (res.generation === gen.id && !res.statsStale ? cache.reply(shard, gen.id, key, res) : res));
      loading.set(key, run);
      try {
        return await run;
      } finally {
        if (loading.get(key) === run) loading.delete(key);
      }
    },
  };
}

/**
 * The request's text in its cache key, without what names the generation (`generation`: the key
 * has the generation read; `statsGeneration`: checked before) so that a search whose dfs round
 * pinned the generation and one that reused cached statistics of it share the entry.
 */
export function requestText(req: QueryPhaseRequest): string {
  const { generation: _g, statsGeneration: _s, ...rest } = req;
  return JSON.stringify(rest);
}
