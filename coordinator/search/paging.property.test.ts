/**
 * Property test of the whole paging path without HTTP: random documents with many tied sort
 * values are routed (ES's formula) into 1–8 real shard engines; each shard's query phase returns
 * its top `from + size`, the coordinator's merge picks the page, and the page must equal the same
 * slice of one sorted list of all documents (the oracle), for random sorts, filters, from and size.
 * The selection path (sample round, rank bounds, range round, range merge) is driven the same way
 * through the shard engines' selection functions and the coordinator's pure selection logic.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeMappings } from '../../shared/dynamic-mapping.ts';
import type { Mapping } from '../../protocol/mapping.ts';
import type { Query } from '../../protocol/query-ast.ts';
import { defaultRoutingNumShards, shardForRouting } from '../cluster/routing.ts';
import { compareHits, type SortField, type SortValue } from '../../protocol/sort.ts';
import { rangeOfMatches, sampleMatches, sortedMatches, type SelectInput } from '../../shard-node/engine/selection.ts';
import type { Generation } from '../../shard-node/engine/generation.ts';
import { Shard } from '../../shard-node/engine/shard.ts';
import { mergeStatistics } from './dfs-cache.ts';
import { mergeTopHits } from './merge.ts';
import { boundForShard, chooseWindow, rankSampleKeys, windowFromRanked, withAnchors, type RankedKey } from './rank-bounds.ts';
import { mergeRanges } from './select-phase.ts';
import { pageAnchors } from './range-anchors.ts';
import { searcherOf } from '../../shard-node/engine/searcher.ts';

const MAPPING: Mapping = { properties: { n: { type: 'long' }, tag: { type: 'keyword' }, x: { type: 'double' } } };
type Doc = { _id: string; n: number | null; tag: string | null; x: number | null };

function buildShards(docs: Doc[], count: number, index = 'p'): Shard[] {
  let mapping = MAPPING;
  const shards = Array.from(
    { length: count },
    (_, s) => new Shard({ index, shard: s, getMapping: () => mapping, updateMapping: (u) => (mapping = mergeMappings(mapping, u)) }),
  );
  const routing = defaultRoutingNumShards(count);
  for (const d of docs) {
    const source: Record<string, unknown> = {};
    if (d.n !== null) source.n = d.n;
    if (d.tag !== null) source.tag = d.tag;
    if (d.x !== null) source.x = d.x;
    const [r] = shards[shardForRouting(d._id, count, routing)].apply([{ op: 'index', _id: d._id, source: JSON.stringify(source), create: false }]);
    if (r.error) throw new Error(JSON.stringify(r.error));
  }
  for (const s of shards) s.refresh();
  return shards;
}

const docArb = fc.record({
  n: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null, freq: 5 }),
  tag: fc.option(fc.constantFrom('a', 'b', 'B', 'é', 'z'), { nil: null, freq: 5 }),
  x: fc.option(fc.constantFrom(-1.5, 0, 0.25, 2), { nil: null, freq: 5 }),
});
const sortArb = fc.array(
  fc.record({
    field: fc.constantFrom('n', 'tag', 'x'),
    order: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
    missing: fc.constantFrom<'_last' | '_first'>('_last', '_first'),
  }),
  { maxLength: 3 },
);

describe('paging through real shard engines and the merge', () => {
  it('every page equals the oracle slice, for any shard count, sort, filter, from and size', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{1,6}$/), { minLength: 1, maxLength: 120, size: 'max' }),
        fc.array(docArb, { minLength: 120, maxLength: 120 }),
        fc.integer({ min: 1, max: 8 }),
        sortArb,
        fc.boolean(),
        fc.nat(130),
        fc.nat(40),
        (ids, fields, shardCount, sortSpec, filtered, from, size) => {
          const docs: Doc[] = ids.map((id, i) => ({ _id: id, ...fields[i] }));
          const sort: SortField[] = sortSpec.map((s) => ({
            kind: 'field',
            field: s.field,
            order: s.order,
            missing: s.missing,
            mode: s.order === 'asc' ? 'min' : 'max',
          }));
          const query: Query = filtered ? { kind: 'range', field: 'n', gte: 1, boost: 1 } : { kind: 'match_all', boost: 1 };
          const shards = buildShards(docs, shardCount);

          const oracle = docs
            .filter((d) => !filtered || (d.n !== null && d.n >= 1))
            .map((d) => ({ _id: d._id, sort: sort.map((s) => d[s.field as 'n' | 'tag' | 'x']) }))
            .sort((a, b) => compareHits(a, b, sort))
            .slice(from, from + size)
            .map((h) => h._id);

          const effectiveSort: SortField[] = sort.length > 0 ? sort : [{ kind: 'score', field: '_score', order: 'desc', missing: '_last', mode: 'max' }];
          const results = shards.map((s, i) => ({
            shardIndex: i,
            index: 'p',
            hits: searcherOf(s.acquire()).query({ query, sort: effectiveSort, k: from + size, trackTotalHits: Number.MAX_SAFE_INTEGER }).hits,
          }));
          const page = mergeTopHits(results, effectiveSort, from, size).map((m) => m.hit._id);
          expect(page).toEqual(oracle);
        },
      ),
      { numRuns: 200 },
    );
  });
});

function sourceOf(d: Doc): Record<string, unknown> {
  const source: Record<string, unknown> = {};
  if (d.n !== null) source.n = d.n;
  if (d.tag !== null) source.tag = d.tag;
  if (d.x !== null) source.x = d.x;
  return source;
}

/** One shard's generation, named as the coordinator sees it. */
interface Target {
  index: string;
  gen: Generation;
}

/** The coordinator's selection over in-process shards: sample, bound, range, merge. */
function selectPage(targets: Target[], input: SelectInput, from: number, size: number, samples: number): { index: string; _id: string; sort: SortValue[] }[] {
  const sms = targets.map((t) => sortedMatches(searcherOf(t.gen), input));
  const sampled = sms.map((sm, i) => {
    const s = sampleMatches(sm, samples);
    return { shardIndex: i, index: targets[i].index, total: s.total, keys: s.keys };
  });
  const w = chooseWindow(sampled, input.sort, from, size);
  if (w.empty) return [];
  const ranges = sms.map((sm, i) => {
    const at = { index: targets[i].index, shardIndex: i };
    const r = rangeOfMatches(sm, boundForShard(w.lower, at), boundForShard(w.upper, at), w.limit);
    return { ...at, before: r.before, hits: r.hits };
  });
  return mergeRanges(ranges, input.sort, from, size).map((m) => ({ index: m.index, _id: m.hit._id, sort: m.hit.sort }));
}

/**
 * The selection as the coordinator runs it on a cached sample: `ranked` keys (with any anchors),
 * one hit more than the window per shard, the page merged with the hit after it, and the anchors
 * that merge fixes added to the keys for the next page (range-anchors.ts).
 */
function selectPageAnchored(
  targets: Target[],
  input: SelectInput,
  from: number,
  size: number,
  ranked: readonly RankedKey[],
  total: number,
): { page: { index: string; _id: string; sort: SortValue[] }[]; ranked: readonly RankedKey[]; limit: number } {
  const w = windowFromRanked(ranked, total, from, size);
  if (w.empty) return { page: [], ranked, limit: 0 };
  const ranges = targets.map((t, i) => {
    const at = { index: t.index, shardIndex: i };
    const r = rangeOfMatches(sortedMatches(searcherOf(t.gen), input), boundForShard(w.lower, at), boundForShard(w.upper, at), w.limit + 1);
    return { ...at, before: r.before, hits: r.hits };
  });
  const merged = mergeRanges(ranges, input.sort, from, size + 1);
  return {
    page: merged.slice(0, size).map((m) => ({ index: m.index, _id: m.hit._id, sort: m.hit.sort })),
    ranked: withAnchors(ranked, pageAnchors(merged, from), input.sort),
    limit: w.limit,
  };
}

/** The query-then-fetch page over the same in-process shards (the reference for scored sorts). */
function queryPage(targets: Target[], input: SelectInput, from: number, size: number): { index: string; _id: string; sort: SortValue[] }[] {
  const results = targets.map((t, i) => ({
    shardIndex: i,
    index: t.index,
    hits: searcherOf(t.gen).query({
      query: input.query,
      sort: input.sort,
      k: from + size,
      trackTotalHits: Number.MAX_SAFE_INTEGER,
      stats: input.stats,
      trackScores: input.trackScores,
    }).hits,
  }));
  return mergeTopHits(results, input.sort, from, size).map((m) => ({ index: m.index, _id: m.hit._id, sort: m.hit.sort }));
}

const selectSortArb = fc.array(
  fc.record({
    field: fc.constantFrom('n', 'tag', 'x', '_score'),
    order: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
    missing: fc.constantFrom<'_last' | '_first'>('_last', '_first'),
  }),
  { minLength: 1, maxLength: 3 },
);
const queryArb = fc.constantFrom<Query>(
  { kind: 'match_all', boost: 1 },
  { kind: 'range', field: 'n', gte: 1, boost: 1 },
  { kind: 'term', field: 'tag', value: 'a', caseInsensitive: false, boost: 1 },
  {
    kind: 'bool',
    must: [],
    filter: [],
    mustNot: [],
    boost: 1,
    should: [
      { kind: 'term', field: 'tag', value: 'b', caseInsensitive: false, boost: 1 },
      { kind: 'range', field: 'x', gte: 0, boost: 2 },
    ],
  },
);

describe('deep paging by exact distributed selection through real shard engines', () => {
  it('every page equals the oracle, for ties, deletions, several segments and indices, any S', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{1,6}$/), { minLength: 1, maxLength: 150, size: 'max' }),
        fc.array(docArb, { minLength: 150, maxLength: 150 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 3 }),
        selectSortArb,
        queryArb,
        fc.nat(1200),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 12 }),
        fc.boolean(),
        (ids, fields, shardCount, secondIndexShards, sortSpec, query, fromPermille, size, samples, deletes) => {
          // from: anywhere in the matches, and up to 20 % past the document count.
          const from = Math.floor((fromPermille * ids.length) / 1000);
          const docs: Doc[] = ids.map((id, i) => ({ _id: id, ...fields[i] }));
          const sort: SortField[] = sortSpec.map((s) =>
            s.field === '_score'
              ? { kind: 'score', field: '_score', order: s.order, missing: '_last', mode: 'max' }
              : { kind: 'field', field: s.field, order: s.order, missing: s.missing, mode: s.order === 'asc' ? 'min' : 'max' },
          );
          // Index p: two refreshes (two segments), then deletions of every 4th doc (live docs).
          const p = buildShards(docs.slice(0, docs.length >> 1), shardCount, 'p');
          const routing = defaultRoutingNumShards(shardCount);
          for (const d of docs.slice(docs.length >> 1))
            p[shardForRouting(d._id, shardCount, routing)].apply([{ op: 'index', _id: d._id, source: JSON.stringify(sourceOf(d)), create: false }]);
          const deleted = new Set(deletes ? docs.filter((_, i) => i % 4 === 1).map((d) => d._id) : []);
          for (const id of deleted) p[shardForRouting(id, shardCount, routing)].apply([{ op: 'delete', _id: id }]);
          for (const s of p) s.refresh();
          // Index q: the same _ids and values for every second doc (ties broken by index name).
          const qDocs = docs.filter((_, i) => i % 2 === 0);
          const q = secondIndexShards > 0 ? buildShards(qDocs, secondIndexShards, 'q') : [];
          const targets: Target[] = [...p.map((s) => ({ index: 'p', gen: s.acquire() })), ...q.map((s) => ({ index: 'q', gen: s.acquire() }))];
          const stats = mergeStatistics(targets.map((t) => searcherOf(t.gen).dfs(query)));
          const input: SelectInput = { query, sort, stats, trackScores: sort.some((s) => s.kind === 'score') };

          const got = selectPage(targets, input, from, size, samples);
          expect(got).toEqual(queryPage(targets, input, from, size));
          if (!sort.some((s) => s.kind === 'score')) {
            const matches = (d: Doc): boolean =>
              query.kind === 'match_all' ||
              (query.kind === 'range' ? d.n !== null && d.n >= 1 : query.kind === 'term' ? d.tag === 'a' : d.tag === 'b' || (d.x !== null && d.x >= 0));
            const rows = [
              ...docs.filter((d) => !deleted.has(d._id)).map((d) => ({ index: 'p', d })),
              ...(q.length > 0 ? qDocs.map((d) => ({ index: 'q', d })) : []),
            ];
            const oracle = rows
              .filter((r) => matches(r.d))
              .map((r) => ({ index: r.index, _id: r.d._id, sort: sort.map((s) => r.d[s.field as 'n' | 'tag' | 'x']) }))
              .sort((a, b) => compareHits(a, b, sort) || (a.index < b.index ? -1 : a.index > b.index ? 1 : 0))
              .slice(from, from + size);
            expect(got).toEqual(oracle);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('pages after anchors (the exact ranks earlier pages fixed) equal the oracle; a repeated page reads exactly its hits', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{1,6}$/), { minLength: 1, maxLength: 150, size: 'max' }),
        fc.array(docArb, { minLength: 150, maxLength: 150 }),
        fc.integer({ min: 1, max: 6 }),
        selectSortArb,
        queryArb,
        fc.array(fc.record({ from: fc.nat(160), size: fc.integer({ min: 1, max: 30 }) }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 12 }),
        (ids, fields, shardCount, sortSpec, query, pages, samples) => {
          const docs: Doc[] = ids.map((id, i) => ({ _id: id, ...fields[i] }));
          const sort: SortField[] = sortSpec.map((s) =>
            s.field === '_score'
              ? { kind: 'score', field: '_score', order: s.order, missing: '_last', mode: 'max' }
              : { kind: 'field', field: s.field, order: s.order, missing: s.missing, mode: s.order === 'asc' ? 'min' : 'max' },
          );
          const targets: Target[] = buildShards(docs, shardCount, 'p').map((s) => ({ index: 'p', gen: s.acquire() }));
          const stats = mergeStatistics(targets.map((t) => searcherOf(t.gen).dfs(query)));
          const input: SelectInput = { query, sort, stats, trackScores: sort.some((s) => s.kind === 'score') };
          const sampled = targets.map((t, i) => {
            const smp = sampleMatches(sortedMatches(searcherOf(t.gen), input), samples);
            return { shardIndex: i, index: t.index, total: smp.total, keys: smp.keys };
          });
          const total = sampled.reduce((n, x) => n + x.total, 0);
          let ranked: readonly RankedKey[] = rankSampleKeys(sampled, sort);
          for (const { from, size } of pages) {
            const first = selectPageAnchored(targets, input, from, size, ranked, total);
            expect(first.page).toEqual(queryPage(targets, input, from, size));
            ranked = first.ranked;
            const again = selectPageAnchored(targets, input, from, size, ranked, total);
            expect(again.page).toEqual(first.page);
            if (from + size <= total) expect(again.limit).toBe(size);
            ranked = again.ranked;
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
