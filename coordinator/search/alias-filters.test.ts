// The per-index query of a search through filtered aliases, boosted indices and routing: what each
// shard is sent, built once per index.
import { describe, expect, it } from 'vitest';
import type { Query } from '../../protocol/query-ast.ts';
import { shardForRouting } from '../cluster/routing.ts';
import { withAliasFilters } from './alias-filters.ts';
import { boosted } from './index-boosts.ts';
import { routedShards } from './plan.ts';

const q: Query = { kind: 'match', field: 'name', query: 'paris', operator: 'or', boost: 1 };
const red = { term: { color: 'red' } };
const blue = { term: { color: 'blue' } };

describe('withAliasFilters', () => {
  it('adds one alias filter as a non-scoring filter clause', () => {
    expect(withAliasFilters(q, [red])).toEqual({
      kind: 'bool',
      must: [q],
      should: [],
      mustNot: [],
      boost: 1,
      filter: [{ kind: 'term', field: 'color', value: 'red', caseInsensitive: false, boost: 1 }],
    });
  });

  it('ORs the filters of several aliases', () => {
    const out = withAliasFilters(q, [red, blue]) as Extract<Query, { kind: 'bool' }>;
    const or = out.filter[0] as Extract<Query, { kind: 'bool' }>;
    expect(or.should.map((c) => (c as { value: string }).value)).toEqual(['red', 'blue']);
    expect(or.must).toEqual([]);
  });

  it('parses a stored filter once while its object stays the same', () => {
    const a = withAliasFilters(q, [red]) as Extract<Query, { kind: 'bool' }>;
    const b = withAliasFilters(q, [red]) as Extract<Query, { kind: 'bool' }>;
    expect(a.filter[0]).toBe(b.filter[0]);
  });
});

describe('boosted and routed', () => {
  it('multiplies scores through the boost of a wrapping bool', () => {
    expect(boosted(q, 2)).toEqual({ kind: 'bool', must: [q], should: [], filter: [], mustNot: [], boost: 2 });
  });

  it('keeps the shards the routing values route to, all without routing', () => {
    const shards = [0, 1, 2, 3, 4].map((shard) => ({ shard }));
    const m = { numberOfShards: 5, routingNumShards: 640 };
    expect(routedShards(shards, m, undefined)).toBe(shards);
    const want = [shardForRouting('a', 5, 640), shardForRouting('b', 5, 640)];
    expect(routedShards(shards, m, new Set(['a', 'b'])).map((s) => s.shard)).toEqual([...new Set(want)].sort());
  });
});
