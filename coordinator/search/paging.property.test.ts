/**
 * Property test of the whole paging path without HTTP: random documents with many tied sort
 * values are routed (ES's formula) into 1–8 real shard engines; each shard's query phase returns
 * its top `from + size`, the coordinator's merge picks the page, and the page must equal the same
 * slice of one sorted list of all documents (the oracle), for random sorts, filters, from and size.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeMappings } from '../../shared/dynamic-mapping.ts';
import type { Mapping } from '../../shared/mapping.ts';
import type { Query } from '../../shared/query-ast.ts';
import { defaultRoutingNumShards, shardForRouting } from '../../shared/routing.ts';
import { compareHits, type SortField, type SortValue } from '../../shared/sort.ts';
import { Shard } from '../../shard-node/engine/shard.ts';
import { mergeTopHits } from './merge.ts';

const MAPPING: Mapping = { properties: { n: { type: 'long' }, tag: { type: 'keyword' }, x: { type: 'double' } } };
type Doc = { _id: string; n: number | null; tag: string | null; x: number | null };

function buildShards(docs: Doc[], count: number): Shard[] {
  let mapping = MAPPING;
  const shards = Array.from({ length: count }, (_, s) =>
    new Shard({ index: 'p', shard: s, getMapping: () => mapping, updateMapping: (u) => (mapping = mergeMappings(mapping, u)) }),
  );
  const routing = defaultRoutingNumShards(count);
  for (const d of docs) {
    const source: Record<string, unknown> = {};
    if (d.n !== null) source.n = d.n;
    if (d.tag !== null) source.tag = d.tag;
    if (d.x !== null) source.x = d.x;
    const [r] = shards[shardForRouting(d._id, count, routing)].apply([{ op: 'index', _id: d._id, source, create: false }]);
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
  fc.record({ field: fc.constantFrom('n', 'tag', 'x'), order: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'), missing: fc.constantFrom<'_last' | '_first'>('_last', '_first') }),
  { maxLength: 3 },
);

describe('paging through real shard engines and the merge', () => {
  it('every page equals the oracle slice, for any shard count, sort, filter, from and size', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{1,6}$/), { minLength: 1, maxLength: 120 }),
        fc.array(docArb, { minLength: 120, maxLength: 120 }),
        fc.integer({ min: 1, max: 8 }),
        sortArb,
        fc.boolean(),
        fc.nat(130),
        fc.nat(40),
        (ids, fields, shardCount, sortSpec, filtered, from, size) => {
          const docs: Doc[] = ids.map((id, i) => ({ _id: id, ...fields[i] }));
          const sort: SortField[] = sortSpec.map((s) => ({ kind: 'field', field: s.field, order: s.order, missing: s.missing, mode: s.order === 'asc' ? 'min' : 'max' }));
          const query: Query = filtered ? { kind: 'range', field: 'n', gte: 1, boost: 1 } : { kind: 'match_all', boost: 1 };
          const shards = buildShards(docs, shardCount);

          const oracle = docs
            .filter((d) => !filtered || (d.n !== null && d.n >= 1))
            .map((d) => ({ _id: d._id, sort: sort.map((s) => d[s.field as 'n' | 'tag' | 'x'] as SortValue) }))
            .sort((a, b) => compareHits(a, b, sort))
            .slice(from, from + size)
            .map((h) => h._id);

          const effectiveSort: SortField[] = sort.length > 0 ? sort : [{ kind: 'score', field: '_score', order: 'desc', missing: '_last', mode: 'max' }];
          const results = shards.map((s, i) => ({
            shardIndex: i,
            index: 'p',
            hits: s.acquire().query({ query, sort: effectiveSort, k: from + size, trackTotalHits: Number.MAX_SAFE_INTEGER }).hits,
          }));
          const page = mergeTopHits(results, effectiveSort, from, size).map((m) => m.hit._id);
          expect(page).toEqual(oracle);
        },
      ),
      { numRuns: 200 },
    );
  });
});
