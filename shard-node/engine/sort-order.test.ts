import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Query } from '../../protocol/query-ast.ts';
import type { SortField, SortKey, SortValue } from '../../protocol/sort.ts';
import { compareHits, SCORE_SORT, sortNeedsScores } from '../../protocol/sort.ts';
import { afterKey, collect } from './collector.ts';
import type { Generation } from './generation.ts';
import { presortedQuery, sortedMatches } from './selection.ts';
import { liveOrder, liveOrderSliced, orderSpec } from './sort-order.ts';
import { SORT_RUN } from '../../shared/sliced-work.ts';
import { idKeys } from './sort-keys.ts';
import { byField, newShard, q } from '../../test/support/engine-shard.ts';
import { searcherOf } from './searcher.ts';

const MAPPING = { properties: { n: { type: 'long' }, x: { type: 'double' }, tag: { type: 'keyword' }, w: { type: 'text' } } };

/** Ids of every `_id` encoding: decimal digits, short ASCII, long ASCII, non-ASCII and astral (surrogates). */
const digitIds = fc.stringMatching(/^[0-9]{1,4}$/);
const asciiIds = fc.stringMatching(/^[a-c0-9 ]{1,3}$/);
const mixedIds = fc.oneof(digitIds, asciiIds, fc.stringMatching(/^[a-b]{9,10}$/), fc.constantFrom('é', 'éa', '\u{1F600}', '\u{1F600}a', '\uFFFD', 'z\uE000'));
const docArb = (idArb: fc.Arbitrary<string>) =>
  fc.record({
    id: idArb,
    n: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 3 }), fc.array(fc.integer({ min: -2, max: 3 }), { minLength: 2, maxLength: 3 })),
    x: fc.constantFrom(null, -1.5, 0, -0, 0.25, 2),
    tag: fc.oneof(fc.constantFrom(null, 'a', 'b', 'B', 'é', '\u{1F600}', '\uFFFD'), fc.constant(['b', 'a'])),
    w: fc.constantFrom('a', 'b', 'a b', 'b b c'),
  });
/** Batches with ids of one family: docs indexed then refreshed (a segment), and ids deleted before the refresh. */
const batchesArb = fc.constantFrom(digitIds, asciiIds, mixedIds).chain((ids) => {
  const one = fc.record({ docs: fc.array(docArb(ids), { maxLength: 25 }), deletes: fc.array(ids, { maxLength: 4 }) });
  return fc.array(one, { minLength: 1, maxLength: 4 });
});

const clauseArb: fc.Arbitrary<SortField> = fc.oneof(
  fc
    .record({
      field: fc.constantFrom('n', 'x', 'tag'),
      order: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
      missing: fc.constantFrom<SortField['missing']>('_last', '_first', 2, 'zz', 'b', 'c'),
      mode: fc.constantFrom<'min' | 'max'>('min', 'max'),
    })
    .map((c) => ({ kind: 'field' as const, ...c })),
  fc.constantFrom<'asc' | 'desc'>('asc', 'desc').map((order) => byField('_id', order)),
  fc.constantFrom<'asc' | 'desc'>('asc', 'desc').map((order) => ({ ...SCORE_SORT[0], order })),
  fc.record({ order: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'), offset: fc.constantFrom(undefined, 2 ** 32) }).map(({ order, offset }): SortField => ({
    kind: 'doc',
    field: offset ? '_shard_doc' : '_doc',
    order,
    missing: '_last',
    mode: 'min',
    ...(offset ? { offset } : {}),
  })),
  fc.constant<SortField>(byField('nope', 'asc', { unmappedType: 'long' })),
);

const term = (field: string, value: string, boost = 1): Query => ({ kind: 'term', field, value, caseInsensitive: false, boost });
const queryArb: fc.Arbitrary<Query> = fc.constantFrom<Query>(
  q.all(),
  { kind: 'match_all', boost: 2 },
  { kind: 'match_none', boost: 1 },
  term('tag', 'a'),
  term('tag', 'b', 3),
  q.bool({ filter: [{ kind: 'range', field: 'n', gte: 1, boost: 1 }] }),
  q.bool({ mustNot: [term('tag', 'a')] }),
  q.bool({ must: [term('tag', 'b')], filter: [{ kind: 'exists', field: 'x', boost: 1 }] }),
  { kind: 'constant_score', filter: q.match('w', 'a'), boost: 1.5 },
  { kind: 'terms', field: 'tag', values: ['a', 'é'], boost: 1 },
  q.match('w', 'a c'), // BM25: scores vary, `_score` sorts collect
  q.bool({ should: [term('tag', 'a'), term('tag', 'b')] }),
);

/** A shard built from the batches; the last refresh's generation. */
function build(batches: { docs: { id: string; n: unknown; x: unknown; tag: unknown; w: string }[]; deletes: string[] }[]): Generation {
  const { shard } = newShard(structuredClone(MAPPING) as never);
  for (const b of batches) {
    const ops = b.docs.map(({ id, ...f }) => {
      const source: Record<string, unknown> = { w: f.w };
      for (const k of ['n', 'x', 'tag'] as const) if (f[k] !== null) source[k] = f[k];
      return { op: 'index' as const, _id: id, source: JSON.stringify(source), create: false };
    });
    shard.apply([...ops, ...b.deletes.map((_id) => ({ op: 'delete' as const, _id }))]);
    shard.refresh();
  }
  return shard.acquire();
}

/** The collector's full answer: every live match in `compareHits` order (the oracle). */
function oracle(gen: Generation, query: Query, sort: readonly SortField[], trackScores: boolean) {
  const scoring = sortNeedsScores(sort) || trackScores;
  const all = collect(searcherOf(gen).segmentMatches(query, undefined, scoring), { sort, k: Number.MAX_SAFE_INTEGER }, gen.fields());
  for (let i = 1; i < all.hits.length; i++) expect(compareHits(all.hits[i - 1], all.hits[i], sort)).toBeLessThan(0);
  return all;
}

describe('presorted orders equal the collector order', () => {
  it('query phase and selection, any clauses, constant-score queries, deletes across segments, search_after, any k', () => {
    fc.assert(
      fc.property(
        batchesArb,
        fc.array(clauseArb, { maxLength: 3 }),
        queryArb,
        fc.boolean(),
        fc.nat(60),
        fc.nat(100),
        fc.boolean(),
        (batches, sort, query, trackScores, k, at, withId) => {
          const gen = build(batches);
          const all = oracle(gen, query, sort, trackScores);
          const input = { query, sort, k, trackTotalHits: 1e9, trackScores };
          const top = searcherOf(gen).query(input);
          expect(top.total.value).toBe(all.total);
          expect(top.hits).toEqual(all.hits.slice(0, k));
          if (k > 0) expect(top.max_score).toBe(all.maxScore);

          // search_after from a key of the oracle (or past its end), with and without `_id`.
          const pick: SortKey | undefined = all.hits[at];
          const after = pick
            ? withId
              ? { sort: pick.sort, _id: pick._id }
              : { sort: pick.sort }
            : { sort: sort.map((): SortValue => null), _id: '\u{10FFFF}' };
          const expected = all.hits.filter((h) => afterKey(after, sort)(h)).slice(0, k);
          expect(searcherOf(gen).query({ ...input, searchAfter: after }).hits).toEqual(expected);

          const sm = sortedMatches(searcherOf(gen), { query, sort, trackScores });
          expect(sm.size).toBe(all.total);
          expect(Array.from({ length: sm.size }, (_, r) => sm.hit(r))).toEqual(all.hits);
          expect(sm.maxScore).toBe(all.maxScore);
          if (pick) {
            for (const equalBefore of [false, true]) {
              const bound = { sort: pick.sort, _id: pick._id, equalBefore };
              const brute = all.hits.filter((h) => {
                const c = compareHits(h, bound, sort);
                return c < 0 || (c === 0 && equalBefore);
              }).length;
              expect(sm.before(bound)).toBe(brute);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('serves constant-score queries with `_score` clauses and the default sort from the order', () => {
    const gen = build([
      {
        docs: [
          { id: '3', n: 1, x: null, tag: 'a', w: 'a' },
          { id: '1', n: 2, x: null, tag: 'b', w: 'b' },
        ],
        deletes: [],
      },
      { docs: [{ id: '2', n: 1, x: null, tag: 'a', w: 'a b' }], deletes: ['3'] },
    ]);
    const served = (query: Query, sort: readonly SortField[]) => presortedQuery(searcherOf(gen), { query, sort }) !== null;
    expect(served(q.all(), SCORE_SORT)).toBe(true);
    expect(served(term('tag', 'a'), SCORE_SORT)).toBe(true); // keyword: no freqs, no norms
    expect(served(q.bool({ filter: [q.match('w', 'a')] }), SCORE_SORT)).toBe(true);
    expect(served(q.match('w', 'a'), SCORE_SORT)).toBe(false); // text: BM25 varies with length
    expect(served(q.match('w', 'a'), [byField('n'), byField('_id', 'desc')])).toBe(true);
    const out = searcherOf(gen).query({ query: { kind: 'match_all', boost: 2 }, sort: SCORE_SORT, k: 10, trackTotalHits: 10 });
    expect(out).toEqual({
      total: { value: 2, relation: 'eq' },
      max_score: 2,
      hits: [
        { _id: '1', _score: 2, sort: [2] },
        { _id: '2', _score: 2, sort: [2] },
      ],
    });
  });

  it('caches a filtered order per generation: repeated filtered selections read it by rank, bounded in count', () => {
    const docs = Array.from({ length: 40 }, (_, i) => ({ id: String(i), n: i % 7, x: null, tag: i % 3 === 0 ? 'a' : 'b', w: 'a' }));
    const gen = build([{ docs, deletes: ['3'] }]);
    const sort = [byField('n', 'desc')];
    const first = presortedQuery(searcherOf(gen), { query: term('tag', 'a'), sort })!;
    expect(first.matched).not.toBeNull();
    const ranked = sortedMatches(searcherOf(gen), { query: term('tag', 'a'), sort });
    const again = presortedQuery(searcherOf(gen), { query: term('tag', 'a'), sort })!;
    expect(again.matched).toBeNull(); // served from the cache: no match set evaluated
    expect(presortedQuery(searcherOf(gen), { query: term('tag', 'a'), sort })!.order).toBe(again.order);
    expect(Array.from(again.order.ords)).toEqual(Array.from(first.filtered().ords));
    expect(again.total).toBe(first.total);
    expect(again.total).toBe(13); // 0, 3, …, 39 minus the deleted 3
    const all = Array.from({ length: ranked.size }, (_, r) => ranked.hit(r)._id);
    const fromCache = sortedMatches(searcherOf(gen), { query: term('tag', 'a'), sort });
    expect(Array.from({ length: fromCache.size }, (_, r) => fromCache.hit(r)._id)).toEqual(all);
    const page = searcherOf(gen).query({ query: term('tag', 'a'), sort, k: 5, trackTotalHits: 10 });
    expect(page.hits.map((h) => h._id)).toEqual(all.slice(0, 5));
    expect(page.total).toEqual({ value: 13, relation: 'eq' });
    // 16 other filters push the first one out (least recently used first).
    for (let v = 0; v < 16; v++) sortedMatches(searcherOf(gen), { query: q.bool({ filter: [{ kind: 'range', field: 'n', gte: v % 7, boost: 1 + v }] }), sort });
    expect(presortedQuery(searcherOf(gen), { query: term('tag', 'a'), sort })!.matched).not.toBeNull();
  });

  it('caches orders per generation, shares a spec between equivalent sorts, and ranks ids of every encoding', () => {
    const gen = build([
      {
        docs: [
          { id: '10', n: 1, x: null, tag: null, w: 'a' },
          { id: '9', n: 1, x: null, tag: null, w: 'a' },
        ],
        deletes: [],
      },
    ]);
    const fields = gen.fields();
    const a = orderSpec([byField('n', 'desc')], false, fields)!;
    const b = orderSpec([SCORE_SORT[0], byField('n', 'desc'), byField('_id'), byField('x')], true, fields)!;
    expect(b.key).toBe(a.key);
    expect(orderSpec(SCORE_SORT, false, fields)).toBeNull();
    expect(liveOrder(gen, gen.views, gen.bases, a, fields)).toBe(liveOrder(gen, gen.views, gen.bases, b, fields));
    expect(Array.from(liveOrder(gen, gen.views, gen.bases, a, fields)!.ords)).toEqual([0, 1]); // '10' < '9' by code point
    const seg = gen.views[0].segment;
    expect(idKeys(seg).scheme).toBe(1);
  });
});

describe('orders built in event-loop slices', () => {
  /** The `_id`s of an order, in order. */
  const idsOf = (gen: Generation, o: { segs: Uint16Array; ords: Int32Array } | null) =>
    o ? Array.from(o.ords, (d, r) => gen.views[o.segs[r]].segment.ids.get(d)) : null;

  it('equal the order built in one task (cut at every check point), for any clauses and deletes', async () => {
    await fc.assert(
      fc.asyncProperty(batchesArb, fc.array(clauseArb, { maxLength: 3 }), async (batches, sort) => {
        const once = build(batches); // two shards with the same documents: no segment cache shared
        const sliced = build(batches);
        const spec = orderSpec(sort, true, once.fields())!;
        let expected: string[] | null | Error;
        try {
          expected = idsOf(once, liveOrder(once, once.views, once.bases, spec, once.fields()));
        } catch (err) {
          expected = err as Error;
        }
        const got = liveOrderSliced(sliced, sliced.views, sliced.bases, spec, sliced.fields(), 0);
        if (expected instanceof Error) await expect(got).rejects.toThrow(expected.message);
        else {
          expect(idsOf(sliced, await got)).toEqual(expected);
          // Cached: the one-task call then finds the sliced build.
          expect(liveOrder(sliced, sliced.views, sliced.bases, spec, sliced.fields())).toBe(await got);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('large segments: several native sort runs merged in slices give the one-task order; concurrent requests share one build', async () => {
    const docs = (k: number) =>
      Array.from({ length: 3 * SORT_RUN }, (_, i) => ({
        id: `d${(i * 7919) % (3 * SORT_RUN)}`,
        n: (i * 31) % 1000,
        x: null,
        tag: ['a', 'b', 'é'][(i + k) % 3],
        w: 'a',
      }));
    const batches = [
      { docs: docs(0), deletes: ['d5', 'd17'] },
      { docs: docs(1).slice(0, SORT_RUN + 5), deletes: ['d3'] },
    ];
    const once = build(batches);
    const sliced = build(batches);
    for (const sort of [[byField('n', 'desc'), byField('tag')], [byField('tag', 'desc')], [byField('_id')]]) {
      const spec = orderSpec(sort, true, once.fields())!;
      const expected = idsOf(once, liveOrder(once, once.views, once.bases, spec, once.fields()));
      const a = liveOrderSliced(sliced, sliced.views, sliced.bases, spec, sliced.fields(), 0);
      const b = liveOrderSliced(sliced, sliced.views, sliced.bases, spec, sliced.fields(), 0);
      expect(b).toBe(a);
      expect(idsOf(sliced, await a)).toEqual(expected);
      expect(expected).toHaveLength(once.docCount);
    }
  });
});
