import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { parseQuery } from './query-dsl.ts';
import { escapeQueryString } from './query-string-query.ts';

const err = (body: unknown) => {
  const e = esErr(() => parseQuery({ query_string: body }));
  return [e.type, e.message];
};

describe('query_string in the body', () => {
  it('runs terms on default_field, or on the fields with their boosts (multi_field, dis_max with the type tie breaker)', () => {
    expect(parseQuery({ query_string: { query: 'fox', default_field: 'title' } })).toEqual({
      kind: 'match',
      field: 'title',
      query: 'fox',
      operator: 'or',
      boost: 1,
    });
    expect(parseQuery({ query_string: { query: 'fox', fields: ['title^2', 'body*'], type: 'most_fields' } })).toEqual({
      kind: 'multi_field',
      fields: [
        { field: 'title', boost: 2 },
        { field: 'body*', boost: 1 },
      ],
      tieBreaker: 1,
      lenient: false,
      boost: 1,
      query: { kind: 'match', field: '', query: 'fox', operator: 'or', boost: 1 },
    });
    expect(parseQuery({ query_string: { query: 'fox', fields: ['a', 'b'], tie_breaker: 0.3, lenient: true } })).toMatchObject({
      tieBreaker: 0.3,
      lenient: true,
    });
  });
  it('maps default_operator, analyzer, phrase_slop, fuzziness, rewrite, analyze_wildcard and escape', () => {
    const q = (body: object) => parseQuery({ query_string: { default_field: 'f', ...body } });
    expect(q({ query: 'a b', default_operator: 'AND' })).toMatchObject({ kind: 'bool', must: [{ operator: 'and' }, { operator: 'and' }] });
    expect(q({ query: 'a', analyzer: 'whitespace' })).toMatchObject({ kind: 'match', analyzer: 'whitespace' });
    expect(q({ query: '"a b"', phrase_slop: 3 })).toMatchObject({ kind: 'match_phrase', slop: 3 });
    expect(
      q({ query: 'a~', fuzziness: 1, fuzzy_prefix_length: 2, fuzzy_max_expansions: 7, fuzzy_transpositions: false, fuzzy_rewrite: 'top_terms_2' }),
    ).toMatchObject({
      kind: 'fuzzy',
      fuzzy: { fuzziness: { auto: false, edits: 1 }, prefixLength: 2, maxExpansions: 7, transpositions: false, rewrite: 'top_terms_2' },
    });
    expect(q({ query: 'a*', rewrite: 'top_terms_5' })).toMatchObject({ kind: 'prefix', rewrite: 'top_terms_5' });
    expect(q({ query: 'quick-br*', analyze_wildcard: true })).toMatchObject({ kind: 'match_bool_prefix', query: 'quick-br', operator: 'or' });
    expect(q({ query: 'a:b*', escape: true })).toMatchObject({ kind: 'match', query: 'a:b*' });
    expect(escapeQueryString('a+b (c) "d" ~*?\\/')).toBe('a\\+b \\(c\\) \\"d\\" \\~\\*\\?\\\\\\/');
  });
  it('applies minimum_should_match to the top-level bool and multiplies the boost', () => {
    expect(parseQuery({ query_string: { query: 'a b c', default_field: 'f', minimum_should_match: '2', boost: 2 } })).toMatchObject({
      kind: 'bool',
      minimumShouldMatch: '2',
      boost: 2,
    });
    expect(parseQuery({ query_string: { query: '(a b)^2', default_field: 'f', boost: 3 } })).toMatchObject({ kind: 'bool', boost: 6 });
  });
  it("answers ES's errors", () => {
    expect(err({ default_field: 'f' })).toEqual(['parsing_exception', '[query_string] must be provided with a [query]']);
    expect(err({ query: 'a', foo: 1 })).toEqual(['parsing_exception', '[query_string] query does not support [foo]']);
    expect(err({ query: 'a', tags: ['x'] })).toEqual(['parsing_exception', '[query_string] query does not support [tags]']);
    expect(err({ query: 'a', fields: ['x'], default_field: 'y' })).toEqual([
      'query_shard_exception',
      'failed to create query: Validation Failed: 1: [query_string] cannot use [fields] parameter in conjunction with [default_field];',
    ]);
    expect(err({ query: 'a AND' })).toEqual(['query_shard_exception', 'Failed to parse query [a AND]']);
    const lead = esErr(() => parseQuery({ query_string: { query: '*ox', allow_leading_wildcard: false } }));
    expect(lead.causedBy).toEqual({ type: 'parse_exception', reason: "Cannot parse '*ox': '*' or '?' not allowed as first character in WildcardQuery" });
    expect(err({ query: 'a', type: 'nope' })).toEqual(['parse_exception', 'failed to parse [multi_match] query type [nope]. unknown type.']);
    expect(err({ query: 'a', time_zone: '+01:00' })[0]).toBe('illegal_argument_exception');
  });
});
