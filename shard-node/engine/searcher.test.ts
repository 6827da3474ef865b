import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Query } from '../../protocol/query-ast.ts';
import type { SortField } from '../../protocol/sort.ts';
import { compareHits, SCORE_SORT } from '../../protocol/sort.ts';
import type { ScoringStatistics } from '../../protocol/search.ts';
import type { Shard } from './shard.ts';
import { byField, indexInBatches, load, newShard, q } from '../../test/support/engine-shard.ts';
import { searcherOf } from './searcher.ts';

const docs = [
  { _id: '1', body: 'quick fox', tag: 'A', n: 5, flag: true, when: '2020-01-01' },
  { _id: '2', body: 'quick', tag: 'b', n: [1, 9], flag: false },
  { _id: '3', body: 'lazy dog jumps', tag: ['A', 'c'], n: 5, when: '2021-06-01T00:00:00Z' },
  { _id: '4', title: 'The quick brown fox jumps over the lazy dog' },
];

function search(shard: Shard, query: Query, sort: SortField[] = SCORE_SORT.slice(), k = 10) {
  return searcherOf(shard.acquire()).query({ query, sort, k, trackTotalHits: Number.MAX_SAFE_INTEGER });
}
const idsOf = (r: { hits: { _id: string }[] }) => r.hits.map((h) => h._id);

describe('queries', () => {
  const { shard } = newShard();
  load(shard, docs);

  it('match scores with BM25 as Lucene', () => {
    const r = search(shard, q.match('body', 'QUICK'));
    // idf = ln(1 + 1.5/2.5) = 0.4700036, avgdl = 2: dl 1 -> tf 1/1.75, dl 2 -> tf 1/2.2
    expect(r.hits.map((h) => [h._id, h._score])).toEqual([
      ['2', expect.closeTo(0.2685735, 6)],
      ['1', expect.closeTo(0.213638, 6)],
    ]);
    expect(r.max_score).toBeCloseTo(0.2685735, 6);
    expect(r.total).toEqual({ value: 2, relation: 'eq' });
  });
  it('match operator and minimum_should_match', () => {
    expect(idsOf(search(shard, q.match('body', 'quick fox')))).toEqual(['1', '2']);
    expect(idsOf(search(shard, q.match('body', 'quick fox', { operator: 'and' })))).toEqual(['1']);
    expect(idsOf(search(shard, q.match('body', 'quick fox dog', { minimumShouldMatch: '67%' })))).toEqual(['1']);
    expect(idsOf(search(shard, q.match('body', 'quick fox dog', { minimumShouldMatch: '-1' })))).toEqual(['1']);
    expect(idsOf(search(shard, q.match('body', 'quick fox dog', { minimumShouldMatch: '60%' }))).length).toBe(3);
    expect(idsOf(search(shard, q.match('body', 'quick fox dog', { minimumShouldMatch: 2 })))).toEqual(['1']);
    expect(idsOf(search(shard, q.match('missing', 'quick')))).toEqual([]);
  });
  it('match on keyword, numeric, boolean and date fields is exact', () => {
    expect(idsOf(search(shard, q.match('tag.keyword', 'A'))).sort()).toEqual(['1', '3']);
    expect(idsOf(search(shard, q.match('n', '9')))).toEqual(['2']);
    expect(idsOf(search(shard, q.match('flag', 'false')))).toEqual(['2']);
    expect(idsOf(search(shard, q.match('when', '2020-01-01')))).toEqual(['1']);
    expect(() => search(shard, q.match('n', 'abc'))).toThrow('failed to create query');
  });
  it('match on * is the best field, lenient', () => {
    expect(idsOf(search(shard, q.match('*', 'dog'))).sort()).toEqual(['3', '4']);
    expect(idsOf(search(shard, q.match('*', '9')))).toEqual(['2']);
  });
  it('match_phrase with slop', () => {
    const ph = (query: string, slop = 0): Query => ({ kind: 'match_phrase', field: 'title', query, slop, boost: 1 });
    expect(idsOf(search(shard, ph('lazy dog')))).toEqual(['4']);
    expect(idsOf(search(shard, ph('quick fox')))).toEqual([]);
    expect(idsOf(search(shard, ph('quick fox', 1)))).toEqual(['4']);
    expect(idsOf(search(shard, { kind: 'match_phrase', field: 'body', query: 'fox quick', slop: 0, boost: 1 }))).toEqual([]);
  });
  it('multi_match best_fields / most_fields', () => {
    const mm = (type: 'best_fields' | 'most_fields', tieBreaker = 0): Query => ({
      kind: 'multi_match',
      fields: [
        { field: 'body', boost: 1 },
        { field: 'title', boost: 2 },
      ],
      query: 'dog',
      operator: 'or',
      type,
      tieBreaker,
      boost: 1,
    });
    const best = search(shard, mm('best_fields'));
    const most = search(shard, mm('most_fields'));
    expect(idsOf(best).sort()).toEqual(['3', '4']);
    const t = search(shard, { ...q.match('title', 'dog'), boost: 2 }).hits[0]._score;
    expect(best.hits.find((h) => h._id === '4')!._score).toBeCloseTo(t!, 6);
    expect(most.hits.find((h) => h._id === '4')!._score).toBeCloseTo(t!, 6);
  });
  it('term, terms, case-insensitive term', () => {
    expect(idsOf(search(shard, q.term('tag.keyword', 'a')))).toEqual([]);
    expect(idsOf(search(shard, q.term('tag.keyword', 'a', { caseInsensitive: true }))).sort()).toEqual(['1', '3']);
    expect(idsOf(search(shard, q.term('body', 'quick'))).sort()).toEqual(['1', '2']);
    expect(idsOf(search(shard, q.term('flag', true)))).toEqual(['1']);
    const terms = search(shard, { kind: 'terms', field: 'tag.keyword', values: ['b', 'c'], boost: 3 });
    expect(terms.hits.map((h) => [h._id, h._score])).toEqual([
      ['2', 3],
      ['3', 3],
    ]);
  });
  it('range, exists, prefix, ids', () => {
    expect(idsOf(search(shard, { kind: 'range', field: 'n', gt: 1, lte: 5, boost: 1 })).sort()).toEqual(['1', '3']);
    expect(idsOf(search(shard, { kind: 'range', field: 'n', gte: 6, boost: 1 }))).toEqual(['2']);
    expect(idsOf(search(shard, { kind: 'range', field: 'when', gte: '2021-01-01', boost: 1 }))).toEqual(['3']);
    expect(idsOf(search(shard, { kind: 'range', field: 'tag.keyword', gte: 'B', lt: 'c', boost: 1 }))).toEqual(['2']);
    expect(idsOf(search(shard, { kind: 'exists', field: 'when', boost: 1 })).sort()).toEqual(['1', '3']);
    expect(idsOf(search(shard, { kind: 'prefix', field: 'body', value: 'ju', caseInsensitive: false, boost: 1 }))).toEqual(['3']);
    expect(idsOf(search(shard, { kind: 'ids', values: ['4', '9', '2'], boost: 1 })).sort()).toEqual(['2', '4']);
  });
  it('bool must/should/filter/must_not, constant_score, dis_max, match_all/none', () => {
    const quick = q.match('body', 'quick');
    const fox = q.match('body', 'fox');
    const both = search(shard, q.bool({ must: [quick], should: [fox] }));
    expect(idsOf(both)).toEqual(['1', '2']);
    const s1 = search(shard, quick).hits.find((h) => h._id === '1')!._score!;
    const s2 = search(shard, fox).hits[0]._score!;
    expect(both.hits[0]._score).toBeCloseTo(s1 + s2, 5);
    expect(search(shard, q.bool({ filter: [quick] })).hits.map((h) => h._score)).toEqual([0, 0]);
    expect(idsOf(search(shard, q.bool({ mustNot: [quick] }))).sort()).toEqual(['3', '4']);
    expect(idsOf(search(shard, q.bool({ should: [quick, fox], minimumShouldMatch: 2 })))).toEqual(['1']);
    expect(idsOf(search(shard, q.bool({ filter: [quick], should: [fox] }))).sort()).toEqual(['1', '2']);
    expect(search(shard, { kind: 'constant_score', filter: quick, boost: 2.5 }).hits.map((h) => h._score)).toEqual([2.5, 2.5]);
    const dm = search(shard, { kind: 'dis_max', queries: [quick, fox], tieBreaker: 0.5, boost: 1 });
    expect(dm.hits.find((h) => h._id === '1')!._score).toBeCloseTo(Math.max(s1, s2) + 0.5 * Math.min(s1, s2), 5);
    expect(search(shard, { kind: 'match_all', boost: 1 }).hits.map((h) => h._score)).toEqual([1, 1, 1, 1]);
    expect(search(shard, { kind: 'match_none', boost: 1 }).total.value).toBe(0);
  });
});

describe('sorting and paging', () => {
  const { shard } = newShard({ properties: { name: { type: 'text', fielddata: true } } });
  load(shard, [
    { _id: 'a', n: 3, k: 'x', name: 'delta alpha' },
    { _id: 'b', n: [1, 10], k: ['z', 'a'], name: 'zulu' },
    { _id: 'c', n: 3, k: 'x' },
    { _id: 'd', name: 'bravo' },
  ]);
  it('sorts with ties broken by _id, missing last, multi-valued min/max', () => {
    expect(search(shard, q.all(), [byField('n')]).hits.map((h) => [h._id, h.sort[0], h._score])).toEqual([
      ['b', 1, null],
      ['a', 3, null],
      ['c', 3, null],
      ['d', null, null],
    ]);
    expect(search(shard, q.all(), [byField('n', 'desc')]).hits.map((h) => h._id)).toEqual(['b', 'a', 'c', 'd']);
    expect(search(shard, q.all(), [byField('n', 'asc', { missing: '_first' })]).hits.map((h) => h._id)).toEqual(['d', 'b', 'a', 'c']);
    expect(search(shard, q.all(), [byField('n', 'asc', { missing: 2 })]).hits.map((h) => h.sort[0])).toEqual([1, 2, 3, 3]);
    expect(search(shard, q.all(), [byField('k.keyword', 'desc')]).hits.map((h) => h.sort[0])).toEqual(['z', 'x', 'x', null]);
    expect(search(shard, q.all(), [byField('name')]).hits.map((h) => h.sort[0])).toEqual(['alpha', 'bravo', 'zulu', null]);
    expect(search(shard, q.all(), [byField('n')]).max_score).toBeNull();
  });
  it('rejects unsortable fields', () => {
    expect(() => search(shard, q.all(), [byField('k')])).toThrow('Text fields are not optimised');
    expect(() => search(shard, q.all(), [byField('nope')])).toThrow('No mapping found for [nope] in order to sort on');
    expect(search(shard, q.all(), [byField('nope', 'asc', { unmappedType: 'long' })]).hits.length).toBe(4);
  });
  it('search_after with and without _id', () => {
    const sort = [byField('n')];
    expect(
      searcherOf(shard.acquire())
        .query({ query: q.all(), sort, k: 10, trackTotalHits: 10, searchAfter: { sort: [3], _id: 'a' } })
        .hits.map((h) => h._id),
    ).toEqual(['c', 'd']);
    expect(
      searcherOf(shard.acquire())
        .query({ query: q.all(), sort, k: 10, trackTotalHits: 10, searchAfter: { sort: [3] } })
        .hits.map((h) => h._id),
    ).toEqual(['d']);
  });
  it('top-k equals a brute-force sort on random data with many ties', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ n: fc.option(fc.integer({ min: 0, max: 4 })), w: fc.constantFrom('a', 'b', 'a b', 'b b c') }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 70 }),
        fc.constantFrom('asc', 'desc'),
        fc.boolean(),
        (rows, k, order: 'asc' | 'desc', byScore) => {
          const { shard: s } = newShard({ properties: { n: { type: 'long' } } });
          const half = Math.floor(rows.length / 2);
          const mk = (r: (typeof rows)[number], i: number) => ({ _id: `id${(i * 7919) % 1000}`, w: r.w, ...(r.n === null ? {} : { n: r.n }) });
          load(s, rows.slice(0, half).map(mk));
          load(
            s,
            rows.slice(half).map((r, i) => mk(r, i + half)),
          );
          const sort: SortField[] = byScore ? [SCORE_SORT[0], byField('n', order)] : [byField('n', order)];
          const full = searcherOf(s.acquire()).query({ query: q.match('w', 'a c'), sort, k: 10_000, trackTotalHits: 1e9 });
          const expected = [...full.hits].sort((x, y) => compareHits(x, y, sort));
          expect(full.hits).toEqual(expected);
          const top = searcherOf(s.acquire()).query({ query: q.match('w', 'a c'), sort, k, trackTotalHits: 1e9 });
          expect(top.hits).toEqual(expected.slice(0, k));
          expect(top.total.value).toBe(expected.length);
          if (k < expected.length) {
            const last = expected[k - 1];
            const next = searcherOf(s.acquire()).query({
              query: q.match('w', 'a c'),
              sort,
              k: 5,
              trackTotalHits: 1e9,
              searchAfter: { sort: last.sort, _id: last._id },
            });
            expect(next.hits).toEqual(expected.slice(k, k + 5));
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('dfs', () => {
  it('global statistics make two shards score like one', () => {
    const all = Array.from({ length: 40 }, (_, i) => ({
      _id: `d${i}`,
      body: i % 3 === 0 ? 'apple banana' : i < 10 ? 'apple apple cherry' : 'cherry date fig grape',
    }));
    const one = newShard().shard;
    load(one, all);
    const s1 = newShard().shard;
    const s2 = newShard().shard;
    load(s1, all.slice(0, 10));
    load(s2, all.slice(10));
    const query = q.match('body', 'apple cherry');
    const d1 = searcherOf(s1.acquire()).dfs(query);
    const d2 = searcherOf(s2.acquire()).dfs(query);
    expect(Object.keys(d1.terms).sort()).toEqual(['body\u0000apple', 'body\u0000cherry']);
    const stats: ScoringStatistics = { terms: {}, fields: {} };
    for (const [k, v] of Object.entries(d1.terms))
      stats.terms[k] = { docFreq: v.docFreq + d2.terms[k].docFreq, totalTermFreq: v.totalTermFreq + d2.terms[k].totalTermFreq };
    stats.fields.body = {
      docCount: d1.fields.body.docCount + d2.fields.body.docCount,
      sumTotalTermFreq: d1.fields.body.sumTotalTermFreq + d2.fields.body.sumTotalTermFreq,
    };
    const run = (s: Shard, st?: ScoringStatistics) =>
      searcherOf(s.acquire()).query({ query, sort: SCORE_SORT.slice(), k: 100, trackTotalHits: 1e9, stats: st }).hits;
    const merged = [...run(s1, stats), ...run(s2, stats)].sort((a, b) => compareHits(a, b, SCORE_SORT));
    expect(merged).toEqual(run(one));
    const local = [...run(s1), ...run(s2)].sort((a, b) => compareHits(a, b, SCORE_SORT));
    expect(local).not.toEqual(run(one));
  });
});

describe('terms and ids lists (matchers.ts ValueList)', () => {
  it('match the same docs whichever side of the term dictionary is smaller, with duplicates and unknown values', () => {
    const { shard } = newShard();
    load(
      shard,
      Array.from({ length: 40 }, (_, i) => ({ _id: `d${i}`, tag: `t${i % 5}`, n: i })),
    );
    load(
      shard,
      Array.from({ length: 10 }, (_, i) => ({ _id: `e${i}`, tag: `t${i % 3}`, n: 100 + i })),
    );
    const hits = (query: Query) =>
      searcherOf(shard.acquire())
        .query({ query, sort: [byField('n')], k: 100, trackTotalHits: 1e9 })
        .hits.map((h) => h._id);
    const terms = (values: string[]): Query => ({ kind: 'terms', field: 'tag', values, boost: 1 });
    const few = hits(terms(['t1', 't1', 'zz']));
    const many = hits(terms(['t1', ...Array.from({ length: 500 }, (_, i) => `u${i}`), 't1']));
    expect(few).toEqual(many);
    expect(few).toEqual([...Array.from({ length: 8 }, (_, i) => `d${i * 5 + 1}`), 'e1', 'e4', 'e7']);
    expect(hits({ kind: 'ids', values: ['d3', 'd3', 'e9', 'nope'], boost: 1 })).toEqual(['d3', 'e9']);
    expect(hits({ kind: 'terms', field: '_id', values: ['e0', 'd0', 'e0'], boost: 1 })).toEqual(['d0', 'e0']);
  });
});

describe('a query prepared in event-loop slices', () => {
  const { shard } = newShard();
  // Several segments, with deletes: the matches are evaluated segment by segment ahead of the query.
  for (let s = 0; s < 4; s++)
    load(
      shard,
      Array.from({ length: 50 }, (_, i) => ({ _id: `${s}-${i}`, tag: `t${(s * 50 + i) % 7}`, body: `w${i % 5} w${s}`, n: i })),
    );
  shard.apply([
    { op: 'delete', _id: '1-3' },
    { op: 'delete', _id: '2-1' },
  ]);
  shard.refresh();
  const values = Array.from({ length: 3000 }, (_, i) => (i % 2 ? `t${i % 9}` : `missing-${i}`));
  const ids = Array.from({ length: 2000 }, (_, i) => `${i % 5}-${i % 60}`);
  const cases: [string, Query, SortField[], number][] = [
    [
      'terms + ids by score',
      q.bool({ should: [{ kind: 'terms', field: 'tag', values, boost: 1 }, { kind: 'ids', values: ids, boost: 2 }, q.match('body', 'w1')] }),
      SCORE_SORT.slice(),
      15,
    ],
    ['terms by field (presorted)', { kind: 'terms', field: 'tag', values, boost: 1 }, [byField('n', 'desc')], 10],
    ['ids, size 0', { kind: 'ids', values: ids, boost: 1 }, SCORE_SORT.slice(), 0],
  ];
  for (const [name, query, sort, k] of cases) {
    it(`finds what the query finds in one task: ${name}`, async () => {
      const expected = search(shard, structuredClone(query), sort, k);
      const gen = shard.acquire();
      const input = { query: structuredClone(query), sort, k, trackTotalHits: Number.MAX_SAFE_INTEGER };
      await searcherOf(gen).prepareQuery(input, 0);
      expect(searcherOf(gen).query(input)).toEqual(expected);
      expect(expected.total.value).toBeGreaterThan(0);
    });
  }
});

describe('a count (k 0, nothing scored)', () => {
  // Segments with and without deletions: a term's count there is its docFreq (query-exec.ts
  // countMatches); every count must equal the total a collecting query phase (k 10) reports.
  const { shard } = newShard();
  indexInBatches(
    shard,
    Array.from({ length: 600 }, (_, i) => ({ _id: `d${i}`, source: { tag: `t${i % 7}`, n: i % 11, body: i % 3 ? 'red fox' : 'blue fox' } })),
    200,
  );
  shard.apply(Array.from({ length: 40 }, (_, i) => ({ op: 'delete' as const, _id: `d${i * 5}` })));
  shard.apply([{ op: 'index', _id: 'd1', source: JSON.stringify({ tag: 't6', n: 99 }), create: false }]);
  shard.refresh();
  const queries: Query[] = [
    q.term('tag.keyword', 't3'),
    q.term('tag.keyword', 't6'),
    q.term('tag.keyword', 'absent'),
    q.term('missing', 'x'),
    q.match('body', 'red'),
    { kind: 'bool', must: [q.term('tag.keyword', 't2')], should: [], filter: [q.match('body', 'blue')], mustNot: [], boost: 1 },
  ];

  it('counts what a collecting query phase counts, with and without deletions in a segment', () => {
    const gen = shard.acquire();
    expect(gen.views.some((v) => v.live !== null)).toBe(true);
    expect(gen.views.some((v) => v.live === null)).toBe(true);
    for (const query of queries) {
      const counted = searcherOf(gen).query({ query, sort: SCORE_SORT.slice(), k: 0, trackTotalHits: Number.MAX_SAFE_INTEGER });
      const collected = searcherOf(gen).query({ query, sort: [byField('n')], k: 10, trackTotalHits: Number.MAX_SAFE_INTEGER });
      expect([query, counted.total, counted.max_score, counted.hits]).toEqual([query, collected.total, null, []]);
    }
  });
});
