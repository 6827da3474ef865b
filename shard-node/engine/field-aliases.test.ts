import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { parseQuery } from '../../coordinator/rest/query-dsl.ts';
import { aliasesOf, flatFields, withAliasTargets, type Mapping } from '../../protocol/mapping.ts';
import { checkFieldAliases } from '../../coordinator/rest/field-alias-check.ts';
import { parseMapping } from '../../coordinator/rest/mapping-parse.ts';
import { compileFieldFetch } from '../../shared/field-fetcher.ts';
import { SCORE_SORT } from '../../protocol/sort.ts';
import type { AggNode } from '../../protocol/agg-request.ts';
import { resolveAggAliases, resolveSortAliases } from './field-aliases.ts';
import { byField, load, newShard } from '../../test/support/engine-shard.ts';
import { searcherOf } from './searcher.ts';

const mapping: Mapping = parseMapping({
  properties: { title: { type: 'text' }, t: { type: 'alias', path: 'title' }, n: { type: 'long' }, o: { properties: { na: { type: 'alias', path: 'n' } } } },
});
const { shard } = newShard(mapping);
load(shard, [
  { _id: '1', title: 'quick fox', n: 5 },
  { _id: '2', title: 'lazy dog', n: 2 },
]);
const ids = (q: unknown) =>
  searcherOf(shard.acquire())
    .query({ query: parseQuery(q), sort: SCORE_SORT.slice(), k: 10, trackTotalHits: 10 })
    .hits.map((h) => h._id);

describe('field aliases', () => {
  it('lists aliases by full name and resolves them to their targets for type checks', () => {
    const fields = flatFields(mapping);
    expect([...aliasesOf(fields)]).toEqual([
      ['t', 'title'],
      ['o.na', 'n'],
    ]);
    expect(withAliasTargets(fields).get('o.na')).toEqual({ type: 'long' });
    const plain = flatFields({ properties: { x: { type: 'long' } } });
    expect(withAliasTargets(plain)).toBe(plain);
  });
  it('runs queries on an alias against its path, scored alike', () => {
    expect(ids({ match: { t: 'fox' } })).toEqual(['1']);
    expect(ids({ range: { 'o.na': { lt: 3 } } })).toEqual(['2']);
    expect(ids({ query_string: { query: 'dog', fields: ['t'] } })).toEqual(['2']);
    expect(ids({ exists: { field: 'o.na' } }).sort()).toEqual(['1', '2']);
  });
  it('moves sorts and aggregation fields to the path, keeping the same object without aliases', () => {
    const aliases = aliasesOf(flatFields(mapping));
    const sort = [byField('o.na', 'desc'), byField('title')];
    expect(resolveSortAliases(sort, aliases).map((f) => f.field)).toEqual(['n', 'title']);
    expect(resolveSortAliases(sort, aliases)).toBe(resolveSortAliases(sort, aliases));
    expect(resolveSortAliases(sort, new Map())).toBe(sort);
    const nodes = [{ type: 'max', name: 'm', field: 'o.na', aggs: [] }] as unknown as AggNode[];
    expect((resolveAggAliases(nodes, aliases)[0] as { field: string }).field).toBe('n');
    const hits = searcherOf(shard.acquire()).query({
      query: parseQuery({ match_all: {} }),
      sort: resolveSortAliases([byField('o.na', 'desc')], aliases),
      k: 10,
      trackTotalHits: 10,
    }).hits;
    expect(hits.map((h) => h.sort)).toEqual([[5], [2]]);
  });
  it('fetches an alias under its own name from its target', () => {
    const dv = compileFieldFetch(mapping, { docvalueFields: [{ field: 'o.*' }] }, 'idx');
    expect(dv.fields({ title: 'a b', n: [7, 1] })).toEqual({ 'o.na': [1, 7] }); // doc values: sorted
    expect(compileFieldFetch(mapping, { fields: [{ field: 't' }] }, 'idx').fields({ title: 'a b' })).toEqual({ t: ['a b'] });
  });
  it('refuses a value for an alias and checks alias targets as ES does', () => {
    const r = shard.apply([{ op: 'index', _id: '3', source: JSON.stringify({ t: 'x' }), create: false }]);
    expect(r[0].error?.reason).toBe('[1:2] failed to parse: Cannot write to a field alias [t].');
    const bad = (m: unknown) => esErr(() => checkFieldAliases(parseMapping(m))).message;
    expect(bad({ properties: { a: { type: 'alias', path: 'a' } } })).toBe('Invalid [path] value [a] for field alias [a]: an alias cannot refer to itself.');
    expect(bad({ properties: { a: { type: 'alias', path: 'o' }, o: { properties: { x: { type: 'long' } } } } })).toBe(
      'Invalid [path] value [o] for field alias [a]: an alias must refer to an existing field in the mappings.',
    );
    expect(bad({ properties: { a: { type: 'alias', path: 'n.x' }, n: { type: 'nested', properties: { x: { type: 'long' } } } } })).toBe(
      "Invalid [path] value [n.x] for field alias [a]: an alias must have the same nested scope as its target. The alias is not nested, but the target's nested scope is [n].",
    );
    expect(esErr(() => parseMapping({ properties: { a: { type: 'alias', path: 'x', boost: 2 } } })).message).toBe(
      'Failed to parse mapping: Mapping definition for [a] has unsupported parameters:  [boost : 2]',
    );
  });
});
