import { describe, expect, it } from 'vitest';
import type { QueryPhaseRequest, QueryPhaseResponse } from '../protocol/search.ts';
import { newShardCounters } from './engine/shard-counters.ts';
import type { IndexRegistry } from './index-registry.ts';
import { queryReplyCache, requestText } from './query-reply-cache.ts';
import { CachedReply, ShardRequestCache } from './request-cache.ts';
import { encodeReply } from './rpc-serve.ts';
import type { SearchContexts } from './search-contexts.ts';

/** One shard of a fake registry: its current generation, counters, and the generations acquired. */
function fakeShard() {
  const shard = { generation: 5, counters: newShardCounters(), acquired: [] as (number | undefined)[], closed: false };
  const registry = {
    checkOpen: () => {
      if (shard.closed) throw new Error('closed');
    },
    shard: () => ({
      ...shard,
      generation: shard.generation,
      counters: shard.counters,
      acquire: (g?: number) => {
        shard.acquired.push(g);
        return { id: g ?? shard.generation };
      },
    }),
  };
  return { shard, registry };
}

const base: QueryPhaseRequest = { index: 'i', shard: 0, query: { kind: 'match_all', boost: 1 }, sort: [], k: 0, trackTotalHits: 10_000, requestCache: true };

function setup() {
  const { shard, registry } = fakeShard();
  // The registry hands out one shard object per call above: the cache keys entities on identity, so pin it.
  const pinned = registry.shard();
  const reg = { ...registry, shard: () => pinned } as unknown as IndexRegistry;
  let runs = 0;
  const query = (req: QueryPhaseRequest): Promise<QueryPhaseResponse> => {
    runs++;
    return Promise.resolve({
      node: 'n',
      index: req.index,
      shard: req.shard,
      generation: req.generation ?? shard.generation,
      total: { value: runs, relation: 'eq' },
      max_score: null,
      hits: [],
    });
  };
  const cache = new ShardRequestCache(1 << 20);
  const cached = queryReplyCache({
    registry: reg,
    contexts: { pinned: () => undefined } as unknown as SearchContexts,
    keepAliveMs: 1000,
    cache,
    query,
  });
  return { shard: pinned, state: shard, cached, cache, runs: () => runs };
}

/** The bytes a served call answers (rpc-serve.ts encodeReply, JSON unless `hits`). */
const served = (r: object, hits = false) => encodeReply(r, 'hits', hits);
const text = (r: object) => JSON.parse(new TextDecoder().decode(served(r).body)) as QueryPhaseResponse;

describe('queryReplyCache', () => {
  it('applies to query rounds that ask for it, without a context', () => {
    const { cached } = setup();
    expect(cached.applies(base)).toBe(true);
    expect(cached.applies({ ...base, requestCache: undefined })).toBe(false);
    expect(cached.applies({ ...base, context: { id: 1 } })).toBe(false);
  });

  it('answers a repeat from the cache, still counting the query and retaining the generation', async () => {
    const { cached, shard, state, cache, runs } = setup();
    const first = await cached.answer(base);
    expect(first).toBeInstanceOf(CachedReply);
    const bytes = served(first).body;
    const second = await cached.answer(base);
    expect(runs()).toBe(1);
    expect(second).toBe(first);
    expect(served(second).body).toBe(bytes); // the kept encoding, not a new one
    expect(text(second).total.value).toBe(1);
    expect(cache.stats(shard)).toMatchObject({ hitCount: 1, missCount: 1 });
    expect(state.counters.queryTotal).toBe(1); // the fake round does not count: only the hit did
    expect(state.acquired).toEqual([undefined, undefined]);
  });

  it('answers both formats from one entry, and misses after a refresh', async () => {
    const { cached, state, runs } = setup();
    const r = await cached.answer(base);
    served(r, false);
    expect(served(await cached.answer(base), true).hits).toBe(true);
    expect(runs()).toBe(1);
    state.generation = 6;
    expect(text(await cached.answer(base)).generation).toBe(6);
    expect(runs()).toBe(2);
  });

  it('shares an entry between a dfs-pinned round and one on cached statistics of the same generation', async () => {
    const { cached, runs } = setup();
    served(await cached.answer({ ...base, generation: 5 }));
    await cached.answer({ ...base, statsGeneration: 5 });
    expect(runs()).toBe(1);
    expect(requestText({ ...base, generation: 5 })).toBe(requestText({ ...base, statsGeneration: 5 }));
  });

  it('does not cache a statsStale answer', async () => {
    const { cached, cache, shard, runs } = setup();
    served(await cached.answer({ ...base, statsGeneration: 4 }));
    served(await cached.answer({ ...base, statsGeneration: 4 }));
    expect(runs()).toBe(2);
    expect(cache.stats(shard).hitCount).toBe(0);
  });

  it('lets identical rounds that arrive while the reply is computed wait for it, each counted as a hit', async () => {
    const { cached, cache, shard, state, runs } = setup();
    const replies = await Promise.all([cached.answer(base), cached.answer(base), cached.answer(base)]);
    expect(runs()).toBe(1);
    expect(replies[1]).toBe(replies[0]);
    expect(replies[2]).toBe(replies[0]);
    expect(cache.stats(shard)).toMatchObject({ hitCount: 2, missCount: 1 });
    expect(state.counters.queryTotal).toBe(2); // the two waiters (the fake round itself does not count)
    expect(state.acquired).toEqual([undefined, undefined, undefined]); // each retains the generation for its later rounds
    // The shared reply enters the cache once encoded; a different request does not wait for another's reply.
    served(replies[0]);
    await Promise.all([cached.answer(base), cached.answer({ ...base, k: 10 })]);
    expect(runs()).toBe(2);
    expect(cache.stats(shard)).toMatchObject({ hitCount: 3, missCount: 2 });
  });

  it('runs a waiting round itself when the one it waited for failed or may not be cached', async () => {
    const { cached, runs } = setup();
    const stale = { ...base, statsGeneration: 4 };
    await Promise.all([cached.answer(stale), cached.answer(stale)]);
    expect(runs()).toBe(2);
  });

  it('refuses a closed index before serving a cached reply', async () => {
    const { cached, state } = setup();
    served(await cached.answer(base));
    state.closed = true;
    await expect(cached.answer(base)).rejects.toThrow('closed');
  });
});
