/**
 * Property test of exact distributed `terms` through real shard engines: random documents with a
 * heavily skewed key distribution (a few keys hold most documents, and each key leans to one
 * shard) are placed into 1–8 shards; each shard collects its partials (shard-node/engine/aggs/),
 * the coordinator's reduce runs the refinement rounds against the same generations until settled,
 * and every bucket (key, count, order, sub-aggregation) and `sum_other_doc_count` must equal the
 * oracle computed from one list of all the documents.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAggregations } from '../../rest/aggs/agg-parse.ts';
import { mergeMappings } from '../../../shared/dynamic-mapping.ts';
import { flatFields, type Mapping } from '../../../protocol/mapping.ts';
import type { Query } from '../../../protocol/query-ast.ts';
import { compareCodePoints } from '../../../protocol/sort.ts';
import type { Generation } from '../../../shard-node/engine/generation.ts';
import { collectShardAggs, refineShardAggs } from '../../../shard-node/engine/aggs/shard-aggs.ts';
import { Shard } from '../../../shard-node/engine/shard.ts';
import { recordReplies, reduceAggs, type ReplyLog } from './reduce.ts';
import { renderAggs } from './render.ts';
import { searcherOf } from '../../../shard-node/engine/searcher.ts';

const MAPPING: Mapping = { properties: { tag: { type: 'keyword' }, n: { type: 'long' }, v: { type: 'long' } } };
interface Doc {
  tags: string[];
  n: number;
  v: number;
}

/** Puts each doc on its key's favourite shard most of the time (strong per-key affinity), else anywhere. */
function shardsOf(docs: Doc[], count: number, affinity: number[], refreshEvery = 0): Generation[] {
  let mapping = MAPPING;
  const shards = Array.from(
    { length: count },
    (_, s) => new Shard({ index: 't', shard: s, getMapping: () => mapping, updateMapping: (u) => (mapping = mergeMappings(mapping, u)) }),
  );
  docs.forEach((d, i) => {
    const key = d.tags[0] ?? '';
    let h = 0;
    for (let c = 0; c < key.length; c++) h = (h * 31 + key.charCodeAt(c)) >>> 0;
    const fav = h % count;
    const s = affinity[i] < 0.8 ? fav : Math.floor(affinity[i] * 1000) % count;
    const source = { tag: d.tags.length === 1 ? d.tags[0] : d.tags, n: d.n, v: d.v };
    const [r] = shards[s].apply([{ op: 'index', _id: `d${i}`, source: JSON.stringify(source), create: false }]);
    if (r.error) throw new Error(JSON.stringify(r.error));
    if (refreshEvery > 0 && i % refreshEvery === refreshEvery - 1) shards[s].refresh(); // several segments per shard
  });
  for (const s of shards) s.refresh();
  return shards.map((s) => s.acquire());
}

/** The coordinator's aggregation phase without HTTP: reduce, then refinement rounds on the same generations. */
function aggregate(
  gens: Generation[],
  body: Record<string, unknown>,
  candidates?: number,
  query: Query = { kind: 'match_all', boost: 1 },
): { aggs: Record<string, unknown>; rounds: number } {
  const nodes = parseAggregations(body);
  const parts = gens.map((g) => collectShardAggs(searcherOf(g), nodes, query, candidates));
  const log: ReplyLog = new Map();
  for (let rounds = 0; rounds < 20; rounds++) {
    const o = reduceAggs(nodes, parts, log);
    if (o.done) return { aggs: renderAggs(o.reduced, { fieldMapping: (f) => flatFields(MAPPING).get(f), typedKeys: false }), rounds };
    for (const [p, tasks] of o.tasks) recordReplies(log, p, tasks, refineShardAggs(searcherOf(gens[p]), nodes, query, tasks));
  }
  throw new Error('did not settle');
}

/** Zipf-like key choice: key i with weight 1/(i+1)^2 over `keys` keys. */
const skewedKey = (u: number, keys: number): string => {
  const weights = Array.from({ length: keys }, (_, i) => 1 / (i + 1) ** 2);
  let x = u * weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < keys; i++) {
    x -= weights[i];
    if (x <= 0) return `k${String(i).padStart(3, '0')}`;
  }
  return `k${String(keys - 1).padStart(3, '0')}`;
};

type Order = { _count: 'desc' | 'asc' } | { _key: 'asc' | 'desc' } | { s: 'desc' | 'asc' };

/** The oracle: counts, order, sum of `v` and sum_other_doc_count from all documents at once. */
function oracle(docs: Doc[], size: number, minDocCount: number, order: Order) {
  const counts = new Map<string, { n: number; s: number }>();
  for (const d of docs) {
    for (const t of new Set(d.tags)) {
      const c = counts.get(t) ?? { n: 0, s: 0 };
      c.n++;
      c.s += d.v;
      counts.set(t, c);
    }
  }
  const [[key, dir]] = Object.entries<'asc' | 'desc'>(order as Record<string, 'asc' | 'desc'>);
  const sign = dir === 'asc' ? 1 : -1;
  const entries = [...counts]
    .filter(([, c]) => c.n >= minDocCount)
    .sort((a, b) => {
      const c = key === '_count' ? a[1].n - b[1].n : key === '_key' ? compareCodePoints(a[0], b[0]) : a[1].s - b[1].s;
      return sign * c || compareCodePoints(a[0], b[0]);
    });
  const top = entries.slice(0, size);
  const total = [...counts.values()].reduce((x, c) => x + c.n, 0);
  return {
    buckets: top.map(([k, c]) => ({ key: k, doc_count: c.n, s: { value: c.s } })),
    sum_other_doc_count: total - top.reduce((x, [, c]) => x + c.n, 0),
  };
}

const docArb = fc.record({
  u: fc.double({ min: 0, max: 1, noNaN: true }),
  u2: fc.double({ min: 0, max: 1, noNaN: true }),
  multi: fc.boolean(),
  n: fc.integer({ min: 0, max: 9 }),
  v: fc.integer({ min: 0, max: 50 }),
});

describe('exact distributed terms through real shard engines', () => {
  it('counts, order, sub-aggregations and sum_other_doc_count equal the single-list oracle', () => {
    fc.assert(
      fc.property(
        fc.array(docArb, { minLength: 1, maxLength: 400, size: 'max' }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 400, maxLength: 400 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 2, max: 120 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 3 }),
        fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
        fc.constantFrom<Order>({ _count: 'desc' }, { _count: 'desc' }, { _key: 'asc' }, { _key: 'desc' }, { _count: 'asc' }, { s: 'desc' }),
        fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
        fc.boolean(),
        fc.constantFrom(0, 0, 13, 41),
        (raw, affinity, shardCount, keys, size, minDocCount, shardSize, order, candidates, flat, refreshEvery) => {
          // Skewed keys (a few hold most docs), or flat ones, where shards' cut-offs bound many unseen keys.
          const key = (u: number) => (flat ? `k${String(Math.floor(u * keys)).padStart(3, '0')}` : skewedKey(u, keys));
          const docs: Doc[] = raw.map((r) => ({
            tags: r.multi && r.u2 < 0.3 ? [key(r.u), key(r.u2)] : [key(r.u)],
            n: r.n,
            v: r.v,
          }));
          const gens = shardsOf(docs, shardCount, affinity, refreshEvery);
          const body = {
            t: {
              terms: { field: 'tag', size, min_doc_count: minDocCount, order, ...(shardSize ? { shard_size: shardSize } : {}) },
              aggs: { s: { sum: { field: 'v' } } },
            },
          };
          const { aggs, rounds } = aggregate(gens, body, candidates);
          const t = aggs.t as { doc_count_error_upper_bound: number; sum_other_doc_count: number; buckets: unknown[] };
          const want = oracle(docs, size, minDocCount, order);
          expect(t.doc_count_error_upper_bound).toBe(0);
          expect(t.buckets).toEqual(want.buckets);
          expect(t.sum_other_doc_count).toBe(want.sum_other_doc_count);
          // TPUT: exact counts, one deeper list and exact counts again, then the sub-aggregations.
          expect(rounds).toBeLessThanOrEqual(5);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('every bucket_sort page (by count, key or a metric, at any depth) and its total_buckets equal the single-list oracle', () => {
    type PageSort = { _count: 'desc' } | { _key: 'asc' | 'desc' } | { s: 'asc' | 'desc' };
    fc.assert(
      fc.property(
        fc.array(docArb, { minLength: 1, maxLength: 400, size: 'max' }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 400, maxLength: 400 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 2, max: 120 }),
        fc.integer({ min: 1, max: 150 }),
        fc.constantFrom<PageSort>({ _count: 'desc' }, { _key: 'asc' }, { _key: 'desc' }, { s: 'asc' }, { s: 'desc' }),
        fc.integer({ min: 0, max: 140 }),
        fc.integer({ min: 1, max: 20 }),
        fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
        (raw, affinity, shardCount, keys, size, pageSort, from, pageSize, candidates) => {
          const docs: Doc[] = raw.map((r) => ({
            tags: r.multi && r.u2 < 0.3 ? [skewedKey(r.u, keys), skewedKey(r.u2, keys)] : [skewedKey(r.u, keys)],
            n: r.n,
            v: r.v,
          }));
          const gens = shardsOf(docs, shardCount, affinity);
          const body = {
            t: { terms: { field: 'tag', size }, aggs: { s: { sum: { field: 'v' } }, page: { bucket_sort: { sort: [pageSort], from, size: pageSize } } } },
          };
          const { aggs } = aggregate(gens, body, candidates);
          const t = aggs.t as { total_buckets: number; sum_other_doc_count: number; buckets: unknown[] };
          // The oracle: the parent's first `size` buckets by count (ties by key), then stably re-sorted and paged.
          const parent = oracle(docs, size, 1, { _count: 'desc' });
          const [[key, dir]] = Object.entries<'asc' | 'desc'>(pageSort as Record<string, 'asc' | 'desc'>);
          const sign = dir === 'asc' ? 1 : -1;
          const sorted = [...parent.buckets].sort(
            (a, b) => sign * (key === '_count' ? a.doc_count - b.doc_count : key === '_key' ? compareCodePoints(a.key, b.key) : a.s.value - b.s.value),
          );
          expect(t.total_buckets).toBe(parent.buckets.length);
          expect(t.sum_other_doc_count).toBe(parent.sum_other_doc_count);
          expect(t.buckets).toEqual(sorted.slice(from, from + pageSize));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a key order with min_doc_count above 1 looks past keys that do not qualify (found by the property above)', () => {
    const docs: Doc[] = [
      { tags: ['k001'], n: 0, v: 0 },
      { tags: ['k000'], n: 0, v: 0 },
      { tags: ['k000'], n: 0, v: 0 },
    ];
    const { aggs } = aggregate(shardsOf(docs, 1, [0, 0, 0]), { t: { terms: { field: 'tag', size: 1, min_doc_count: 2, order: { _key: 'desc' } } } });
    expect((aggs.t as { buckets: unknown[] }).buckets).toEqual([{ key: 'k000', doc_count: 2 }]);
  });

  it('nested terms under terms are exact in every parent bucket', () => {
    fc.assert(
      fc.property(
        fc.array(docArb, { minLength: 1, maxLength: 300, size: 'max' }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 300, maxLength: 300 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 5 }),
        (raw, affinity, shardCount, size) => {
          const docs: Doc[] = raw.map((r) => ({ tags: [skewedKey(r.u, 40)], n: r.n, v: r.v }));
          const gens = shardsOf(docs, shardCount, affinity);
          const { aggs } = aggregate(gens, {
            t: { terms: { field: 'tag', size, shard_size: 1 }, aggs: { by_n: { terms: { field: 'n', size: 2, shard_size: 1 } } } },
          });
          const t = aggs.t as {
            buckets: { key: string; doc_count: number; by_n: { buckets: { key: number; doc_count: number }[]; sum_other_doc_count: number } }[];
          };
          const top = oracle(docs, size, 1, { _count: 'desc' });
          expect(t.buckets.map((b) => [b.key, b.doc_count])).toEqual(top.buckets.map((b) => [b.key, b.doc_count]));
          for (const b of t.buckets) {
            const inBucket = docs.filter((d) => d.tags.includes(b.key));
            const byN = new Map<number, number>();
            for (const d of inBucket) byN.set(d.n, (byN.get(d.n) ?? 0) + 1);
            const want = [...byN].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, 2);
            expect(b.by_n.buckets.map((x) => [x.key, x.doc_count])).toEqual(want);
            expect(b.by_n.sum_other_doc_count).toBe(inBucket.length - want.reduce((x, [, c]) => x + c, 0));
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
