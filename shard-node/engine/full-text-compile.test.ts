import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { parseQuery } from '../../coordinator/rest/query-dsl.ts';
import { SCORE_SORT } from '../../protocol/sort.ts';
import { load, newShard } from '../../test/support/engine-shard.ts';
import { searcherOf } from './searcher.ts';

const { shard } = newShard({ properties: { title: { type: 'text' }, body: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'long' } } });
load(shard, [
  { _id: '1', title: 'Quick brown fox', body: 'lazy dog', tag: 'Red', n: 1 },
  { _id: '2', title: 'Lazy dog sleeps', body: 'quick fox', tag: 'blue', n: 2 },
  { _id: '3', title: 'Brown bear', body: 'honey', tag: 'red', n: 3 },
]);
const search = (q: unknown) => searcherOf(shard.acquire()).query({ query: parseQuery(q), sort: SCORE_SORT.slice(), k: 10, trackTotalHits: 10 });
const ids = (q: unknown) => search(q).hits.map((h) => h._id);
const score = (q: unknown, id: string) => search(q).hits.find((h) => h._id === id)?._score ?? 0;

describe('query_string and simple_query_string on a shard', () => {
  it('weights fields by their boosts and resolves field patterns against the mapping', () => {
    const plain = score({ query_string: { query: 'quick', fields: ['title', 'body'] } }, '1');
    expect(score({ query_string: { query: 'quick', fields: ['title^3', 'body'] } }, '1')).toBeCloseTo(plain * 3, 4);
    expect(ids({ query_string: { query: 'honey', fields: ['t*', 'b*'] } })).toEqual(['3']);
    expect(ids({ query_string: { query: 'honey', fields: ['t*'] } })).toEqual([]);
  });
  it('normalizes prefix, wildcard and fuzzy terms by field (text lower-cases, keyword keeps case)', () => {
    expect(ids({ query_string: { query: 'title:QUI*' } })).toEqual(['1']);
    expect(ids({ query_string: { query: 'title:BR?WN' } }).sort()).toEqual(['1', '3']);
    expect(ids({ query_string: { query: 'title:BRWN~' } }).sort()).toEqual(['1', '3']);
    expect(ids({ query_string: { query: 'tag:Re*' } })).toEqual(['1']);
    expect(ids({ query_string: { query: 'title:QUI*', analyzer: 'whitespace' } })).toEqual([]); // whitespace does not lower-case
  });
  it('fails a term a field cannot parse unless lenient (implied by all fields)', () => {
    const e = esErr(() => search({ query_string: { query: 'foo', fields: ['n', 'title'] } }));
    expect([e.type, e.message]).toEqual(['query_shard_exception', 'failed to create query: For input string: "foo"']);
    expect(ids({ query_string: { query: 'foo', fields: ['n', 'title'], lenient: true } })).toEqual([]);
    expect(ids({ query_string: { query: '2', fields: ['n', 'title'] } })).toEqual(['2']);
    expect(ids({ query_string: { query: 'bro*' } }).sort()).toEqual(['1', '3']); // every field, the number skipped
    expect(ids({ query_string: { query: 'n:[2 TO 3]' } }).sort()).toEqual(['2', '3']);
  });
  it('applies default_operator and minimum_should_match', () => {
    expect(ids({ query_string: { query: 'quick brown', default_field: 'title', default_operator: 'and' } })).toEqual(['1']);
    expect(ids({ query_string: { query: 'quick brown dog', default_field: 'title', minimum_should_match: 2 } })).toEqual(['1']);
  });
  it('runs simple_query_string operators', () => {
    expect(ids({ simple_query_string: { query: 'quick +fox -bear' } }).sort()).toEqual(['1', '2']);
    expect(ids({ simple_query_string: { query: '"lazy dog"', fields: ['title'] } })).toEqual(['2']);
    expect(ids({ simple_query_string: { query: 'bro* | honey', fields: ['title', 'body'] } })).toEqual(['3', '1']);
    expect(ids({ simple_query_string: { query: 'fox dog', default_operator: 'and', fields: ['title', 'body'] } }).sort()).toEqual(['1', '2']);
  });
});

describe('bounds on expanded queries', () => {
  it('refuses more than 4,096 field copies, as ES counts the leaves of the rewritten query', () => {
    const many = Array.from({ length: 1100 }, (_, i) => `t${i}*`).join(' '); // 1,100 terms × 4 fields
    const e = esErr(() => search({ query_string: { query: many } }));
    expect([e.type, e.message]).toEqual(['too_many_nested_clauses', 'Query contains too many nested clauses; maxClauseCount is set to 4096']);
    expect(search({ query_string: { query: Array.from({ length: 1000 }, (_, i) => `t${i}*`).join(' ') } }).total.value).toBe(0);
  });
});
