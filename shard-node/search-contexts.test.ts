import { describe, expect, it } from 'vitest';
import { esErr } from '../test/support/es-error.ts';
import { Generation } from './engine/generation.ts';
import { SearchContexts } from './search-contexts.ts';

const gen = (id: number) => new Generation(id, [], () => ({ properties: {} }));

describe('SearchContexts', () => {
  it('pins a generation until closed or expired, renewing on use', () => {
    let t = 0;
    const c = new SearchContexts({ maxOpenScrollContext: 5, maxOpenPitContext: 5 }, () => t);
    const id = c.open('pit', 'i', 0, gen(7), 1000);
    t = 900;
    expect(c.use('i', 0, id).id).toBe(7); // renews to 1900
    t = 1800;
    expect(c.pinned('i', 0, 7)?.id).toBe(7);
    expect(esErr(() => c.use('i', 1, id)).type).toBe('search_context_missing_exception'); // another shard's id
    t = 1901;
    const gone = esErr(() => c.use('i', 0, id));
    expect([gone.status, gone.message]).toEqual([404, `No search context found for id [${id}]`]);
    const id2 = c.open('scroll', 'i', 0, gen(8), 1000);
    expect(c.close([id2, 999])).toBe(1);
  });

  it('keeps a scroll position that only the batch which read it can advance', () => {
    const c = new SearchContexts({ maxOpenScrollContext: 5, maxOpenPitContext: 5 });
    const id = c.open('scroll', 'i', 0, gen(1), 1000);
    expect(c.position('i', 0, id)).toEqual({ after: null, seq: 0 });
    expect(c.advance('i', 0, id, 0, [5, 4294967297])).toBe(true);
    expect(c.position('i', 0, id)).toEqual({ after: [5, 4294967297], seq: 1 });
    // A concurrent batch that read position 0 too cannot move the position back.
    expect(c.advance('i', 0, id, 0, [3, 4294967296])).toBe(false);
    expect(c.position('i', 0, id)).toEqual({ after: [5, 4294967297], seq: 1 });
    expect(c.advance('i', 1, id, 1, [9])).toBe(false); // another shard's id
    expect(esErr(() => c.position('i', 1, id)).type).toBe('search_context_missing_exception');
    c.close([id]);
    expect(c.advance('i', 0, id, 1, [9])).toBe(false);
    expect(esErr(() => c.position('i', 0, id)).status).toBe(404);
  });

  it('enforces the per-kind limits with ES’s and OpenSearch’s errors', () => {
    const c = new SearchContexts({ maxOpenScrollContext: 1, maxOpenPitContext: 1 });
    c.open('scroll', 'i', 0, gen(1), 1000);
    c.open('pit', 'i', 0, gen(1), 1000);
    const scroll = esErr(() => c.open('scroll', 'i', 1, gen(1), 1000));
    expect([scroll.status, scroll.type, scroll.message]).toEqual([
      429,
      'too_many_scroll_contexts_exception',
      'Trying to create too many scroll contexts. Must be less than or equal to: [1]. This limit can be set by changing the [search.max_open_scroll_context] setting.',
    ]);
    expect(esErr(() => c.open('pit', 'i', 1, gen(1), 1000)).type).toBe('rejected_execution_exception');
    expect(c.closeAll('scroll')).toBe(1);
    expect(c.count('pit')).toBe(1);
  });
});

describe('search.max_open_snapshot_context', () => {
  it('counts past generations a shard retains, and refuses to renew one past the limit with 429', async () => {
    const { newShard, load } = await import('../test/support/engine-shard.ts');
    const { createSearchActions } = await import('./search-actions.ts');
    const { shard } = newShard();
    const registry = { list: () => [{ metadata: { name: 'i' }, shards: [0] }], shard: () => shard, checkOpen: () => undefined } as never;
    const contexts = new SearchContexts({ maxOpenScrollContext: 5, maxOpenPitContext: 5, maxOpenSnapshotContext: 2 });
    const actions = createSearchActions({ registry, contexts, node: 'n', keepAliveMs: 60_000 });
    const dfs = (generation?: number) =>
      actions.dfs({ index: 'i', shard: 0, query: { kind: 'match_all', boost: 1 }, ...(generation !== undefined ? { generation } : {}) } as never) as {
        generation: number;
      };
    const pinned: number[] = [];
    for (let i = 0; i < 4; i++) {
      load(shard, [{ _id: `d${i}`, n: i }]);
      pinned.push(dfs().generation); // a fresh search retains the current generation
    }
    expect(shard.retainedPastGenerations()).toBe(3);
    const refused = esErr(() => dfs(pinned[0]));
    expect([refused.status, refused.type, refused.message]).toEqual([
      429,
      'rejected_execution_exception',
      'Trying to create too many snapshot contexts. Must be less than or equal to: [2]. This limit can be set by changing the [search.max_open_snapshot_context] setting.',
    ]);
    expect(dfs(pinned[3]).generation).toBe(pinned[3]); // the current generation is never refused
    expect(shard.release(pinned[0])).toBe(true);
    expect(dfs(pinned[1]).generation).toBe(pinned[1]); // 2 past generations: at the limit, allowed
  });
});

describe('scroll batches on the shard', () => {
  it('start after the context’s recorded position, whatever searchAfter the request carries', async () => {
    const { newShard, load, byField } = await import('../test/support/engine-shard.ts');
    const { createSearchActions } = await import('./search-actions.ts');
    const { shard } = newShard({ properties: { n: { type: 'integer' } } });
    load(
      shard,
      [1, 2, 3, 4, 5].map((n) => ({ _id: `d${n}`, n })),
    );
    const registry = { list: () => [{ metadata: { name: 'i' }, shards: [0] }], shard: () => shard, checkOpen: () => undefined } as never;
    const contexts = new SearchContexts({ maxOpenScrollContext: 5, maxOpenPitContext: 5 });
    const actions = createSearchActions({ registry, contexts, node: 'n', keepAliveMs: 60_000 });
    const id = contexts.open('scroll', 'i', 0, shard.acquire(), 60_000);
    const batch = async () => {
      const req = {
        index: 'i',
        shard: 0,
        query: { kind: 'match_all', boost: 1 },
        sort: [byField('n')],
        k: 2,
        trackTotalHits: Number.MAX_SAFE_INTEGER,
        searchAfter: { sort: [4] },
        context: { id, scroll: true },
      };
      const res = (await actions.query(req as never)) as unknown as { hits: { _id: string; sort: number[] }[]; scrollSeq: number; total: { value: number } };
      return { ids: res.hits.map((h) => h._id), last: res.hits.at(-1)?.sort, seq: res.scrollSeq, total: res.total.value };
    };
    const first = await batch();
    expect(first).toMatchObject({ ids: ['d1', 'd2'], seq: 0, total: 5 });
    expect(await batch()).toMatchObject({ ids: ['d1', 'd2'], seq: 0 }); // nothing recorded yet: the same start
    contexts.advance('i', 0, id, first.seq, first.last!);
    const second = await batch();
    expect(second).toMatchObject({ ids: ['d3', 'd4'], seq: 1, total: 5 });
    contexts.advance('i', 0, id, second.seq, second.last!);
    expect((await batch()).ids).toEqual(['d5']);
  });
});

describe('PIT listing', () => {
  it('lists each labelled PIT once while any of its contexts is open', () => {
    let t = 0;
    const c = new SearchContexts({ maxOpenScrollContext: 5, maxOpenPitContext: 5 }, () => t);
    const a = c.open('pit', 'i', 0, gen(1), 1000);
    const b = c.open('pit', 'i', 1, gen(2), 1000);
    const s = c.open('scroll', 'i', 0, gen(1), 1000);
    expect(c.listPits()).toEqual([]); // not labelled yet
    const pit = { pitId: 'p1', creationTime: 5, keepAliveMs: 1000 };
    expect(c.labelPit([a, b, s, 99], pit)).toBe(2); // a scroll and an unknown id are skipped
    expect(c.listPits()).toEqual([pit]);
    c.close([a]);
    expect(c.listPits()).toEqual([pit]);
    t = 1001;
    expect(c.listPits()).toEqual([]);
  });
});
