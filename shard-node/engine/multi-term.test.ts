import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { parseQuery } from '../../coordinator/rest/query-dsl.ts';
import { SCORE_SORT } from '../../protocol/sort.ts';
import { load, newShard } from '../../test/support/engine-shard.ts';
import { searcherOf } from './searcher.ts';

// The documents of the peer suite's match_bool_prefix tests (OpenSearch's rest-api-spec
// https://github.com/opensearch-project/OpenSearch/blob/main/rest-api-spec/src/main/resources/rest-api-spec/test/search/310_match_bool_prefix.yml).
const { shard } = newShard({ properties: { my_field1: { type: 'text' }, my_field2: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'long' } } });
load(shard, [
  { _id: '1', my_field1: 'brown fox jump', my_field2: 'xylophone', tag: 'Alpha-1' },
  { _id: '2', my_field1: 'brown emu jump', my_field2: 'xylophone', tag: 'alpha-2' },
  { _id: '3', my_field1: 'jumparound', my_field2: 'emu', tag: 'beta', n: 3 },
  { _id: '4', my_field1: 'dog', my_field2: 'brown fox jump lazy', tag: 'gamma' },
]);
const search = (q: unknown) => searcherOf(shard.acquire()).query({ query: parseQuery(q), sort: SCORE_SORT.slice(), k: 10, trackTotalHits: 10 });
const ids = (q: unknown) => search(q).hits.map((h) => h._id);
const scores = (q: unknown): Record<string, number> => Object.fromEntries(search(q).hits.map((h) => [h._id, h._score ?? 0]));

describe('match_bool_prefix', () => {
  it('ranks complete and partial last terms alike: brown, fox, then the prefix', () => {
    expect(ids({ match_bool_prefix: { my_field1: 'brown fox jump' } })).toEqual(['1', '2', '3']);
    expect(ids({ match_bool_prefix: { my_field1: 'brown fox ju' } })).toEqual(['1', '2', '3']);
  });
  it('scores the last term as a constant-score prefix query (1 × boost)', () => {
    expect(scores({ match_bool_prefix: { my_field1: { query: 'jum', boost: 2 } } })).toEqual({ 1: 2, 2: 2, 3: 2 });
  });
  it('applies minimum_should_match and operator to all the clauses', () => {
    expect(ids({ match_bool_prefix: { my_field1: { query: 'brown fox jump', minimum_should_match: 3 } } })).toEqual(['1']);
    expect(ids({ match_bool_prefix: { my_field1: { query: 'brown fox jump', operator: 'AND' } } })).toEqual(['1']);
  });
  it('analyzes with the analyzer given (whitespace keeps BROWN upper-case, so it matches nothing)', () => {
    expect(ids({ match_bool_prefix: { my_field1: { query: 'BROWN dog', analyzer: 'whitespace' } } })).toEqual(['4']);
    const e = esErr(() => search({ match_bool_prefix: { my_field1: { query: 'x', analyzer: 'nope' } } }));
    expect([e.type, e.message]).toEqual(['query_shard_exception', '[match_bool_prefix] analyzer [nope] not found']);
  });
  it('makes every term but the last fuzzy with fuzziness', () => {
    const q = { query: 'xylophoen foo', fuzziness: 1, prefix_length: 1, max_expansions: 10, fuzzy_transpositions: true, fuzzy_rewrite: 'constant_score' };
    expect(ids({ match_bool_prefix: { my_field2: q } }).sort()).toEqual(['1', '2']);
    expect(ids({ match_bool_prefix: { my_field2: { ...q, fuzzy_transpositions: false } } })).toEqual([]); // the swap costs 2 edits
    expect(ids({ match_bool_prefix: { my_field2: 'xylophoen' } })).toEqual([]); // the last term is never fuzzy
  });
  it('is one prefix query on a keyword field, and an exact match on a number', () => {
    expect(ids({ match_bool_prefix: { tag: 'alpha' } })).toEqual(['2']);
    expect(ids({ match_bool_prefix: { n: '3' } })).toEqual(['3']);
  });
});

describe('multi_match bool_prefix', () => {
  const mm = (extra: object) => ({ multi_match: { type: 'bool_prefix', fields: ['my_field1', 'my_field2'], ...extra } });
  it('sums the fields (the peer suite orders)', () => {
    expect(ids(mm({ query: 'brown fox jump lazy' }))).toEqual(['4', '1', '2']);
    expect(ids(mm({ query: 'brown fox jump laz' }))).toEqual(['4', '1', '2']);
  });
  it('passes analyzer, minimum_should_match and fuzziness to every field', () => {
    expect(ids(mm({ query: 'BROWN FOX JUMP dog', analyzer: 'whitespace' }))).toEqual(['4']);
    expect(ids(mm({ query: 'brown fox jump la', minimum_should_match: 4 }))).toEqual(['4']);
    expect(ids(mm({ query: 'dob nomatch', fuzziness: 1 }))).toEqual(['4']);
  });
  it('weights each field by its boost', () => {
    expect(ids({ multi_match: { query: 'brown emu', type: 'bool_prefix', fields: ['my_field1', 'my_field2^10'], fuzziness: 1 } })[0]).toBe('3');
  });
});

describe('fuzzy', () => {
  it('matches terms within the edits AUTO allows and scores closer terms higher', () => {
    expect(ids({ fuzzy: { my_field2: 'xylofone' } }).sort()).toEqual(['1', '2']);
    expect(ids({ fuzzy: { my_field2: { value: 'xylofone', fuzziness: 1 } } })).toEqual([]);
    const s = scores({ bool: { should: [{ fuzzy: { my_field1: 'jump' } }, { fuzzy: { my_field2: 'emu' } }] } });
    expect(s['3']).toBeGreaterThan(0);
    expect(scores({ fuzzy: { my_field1: 'brown' } })['1']).toBeGreaterThan(scores({ fuzzy: { my_field1: 'browm' } })['1']);
  });
  it('requires the prefix to match exactly', () => {
    expect(ids({ fuzzy: { my_field1: { value: 'frown', prefix_length: 1 } } })).toEqual([]);
    expect(ids({ fuzzy: { my_field1: { value: 'frown', prefix_length: 0 } } }).sort()).toEqual(['1', '2']);
  });
  it('keeps the best max_expansions terms', () => {
    // "jump" (1 edit from "jumq") beats nothing else: with 1 expansion only the closest term is kept.
    expect(ids({ fuzzy: { my_field1: { value: 'jumq', max_expansions: 1 } } }).sort()).toEqual(['1', '2']);
  });
  it("answers ES's errors on other field types and bad options", () => {
    const e = esErr(() => search({ fuzzy: { n: 3 } }));
    expect([e.type, e.message]).toEqual([
      'query_shard_exception',
      'failed to create query: Can only use fuzzy queries on keyword and text fields - not on [n] which is of type [long]',
    ]);
    expect(esErr(() => search({ fuzzy: { my_field1: { value: 'x', max_expansions: 0 } } })).message).toBe(
      'failed to create query: maxExpansions must be positive.',
    );
    expect(esErr(() => search({ fuzzy: { my_field1: { value: 'x', rewrite: 'bogus' } } })).message).toBe(
      'failed to create query: Failed to parse rewrite_method [bogus]',
    );
    expect(ids({ fuzzy: { unmapped: 'x' } })).toEqual([]);
  });
  it('runs on keyword values and through match fuzziness', () => {
    expect(ids({ fuzzy: { tag: 'alpha-3' } }).sort()).toEqual(['1', '2']); // Alpha-1 is two substitutions away, AUTO allows 2 for 7 characters
    expect(ids({ fuzzy: { tag: { value: 'alpha-3', fuzziness: 1 } } })).toEqual(['2']);
    expect(ids({ match: { my_field1: { query: 'brwn fix', fuzziness: 'AUTO', operator: 'and' } } })).toEqual(['1']);
    const e = esErr(() => search({ match: { n: { query: '3', fuzziness: 1 } } }));
    expect(e.message).toBe('failed to create query: Can only use fuzzy queries on keyword and text fields - not on [n] which is of type [long]');
  });
});

describe('prefix and wildcard', () => {
  it('match terms by pattern with a constant score', () => {
    expect(scores({ wildcard: { my_field1: { value: 'j*p', boost: 3 } } })).toEqual({ 1: 3, 2: 3 });
    expect(ids({ wildcard: { tag: 'alpha-?' } })).toEqual(['2']);
    expect(ids({ wildcard: { tag: { value: 'ALPHA-?', case_insensitive: true } } }).sort()).toEqual(['1', '2']);
    expect(ids({ prefix: { tag: { value: 'ALP', case_insensitive: true } } }).sort()).toEqual(['1', '2']);
  });
  it('score each term with a scoring rewrite', () => {
    const s = scores({ prefix: { my_field1: { value: 'jump', rewrite: 'top_terms_1' } } });
    expect(Object.keys(s).sort()).toEqual(['1', '2']); // "jump" sorts before "jumparound": the one term kept
    expect(s['1']).not.toBe(1);
  });
  it("answer ES's errors on other field types", () => {
    expect(esErr(() => search({ prefix: { n: '1' } })).message).toBe(
      'Can only use prefix queries on keyword, text and wildcard fields - not on [n] which is of type [long]',
    );
    expect(esErr(() => search({ wildcard: { n: '1*' } })).message).toBe(
      'Can only use wildcard queries on keyword, text and wildcard fields - not on [n] which is of type [long]',
    );
  });
});

describe('match_phrase_prefix', () => {
  it('expands the last term of the phrase', () => {
    expect(ids({ match_phrase_prefix: { my_field1: 'brown fox ju' } })).toEqual(['1']);
    expect(ids({ match_phrase_prefix: { my_field1: 'fox j' } })).toEqual(['1']);
    expect(ids({ match_phrase_prefix: { my_field1: 'emu ju' } })).toEqual(['2']);
    expect(ids({ match_phrase_prefix: { my_field1: 'jum' } }).sort()).toEqual(['1', '2', '3']);
  });
  it('keeps the first max_expansions terms in term order', () => {
    expect(ids({ match_phrase_prefix: { my_field1: { query: 'jum', max_expansions: 1 } } }).sort()).toEqual(['1', '2']);
  });
  it('treats a keyword value as the prefix', () => {
    expect(ids({ match_phrase_prefix: { tag: 'alpha' } })).toEqual(['2']);
  });
});

describe('the scan budget', () => {
  it('refuses a query whose fuzzy and wildcard terms would read more than 2,000,000 dictionary terms', async () => {
    const { MAX_SCANNED_TERMS, ScanBudget } = await import('./multi-term.ts');
    expect(MAX_SCANNED_TERMS).toBe(2_000_000);
    const budget = new ScanBudget();
    const dict = { forEachTerm: () => {}, forEachWithPrefix: () => {}, size: () => 1_000_000 };
    budget.charge(dict, 'a');
    budget.charge(dict, 'b');
    const e = esErr(() => budget.charge(dict, 'c'));
    expect([e.status, e.type]).toEqual([400, 'query_shard_exception']);
    expect(e.message).toBe(
      "failed to create query: the fuzzy, wildcard and case-insensitive prefix terms of this query would read [3000000] dictionary terms on this shard, more than Folio's limit of [2000000]",
    );
  });
});
