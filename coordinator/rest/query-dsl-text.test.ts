import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { AUTO } from '../../protocol/fuzziness.ts';
import { parseQuery } from './query-dsl.ts';

const err = (json: unknown) => {
  const e = esErr(() => parseQuery(json));
  return [e.type, e.message];
};
const fuzzyDefaults = { prefixLength: 0, maxExpansions: 50, transpositions: true };

describe('match_bool_prefix', () => {
  it('parses the short and long forms with every parameter', () => {
    expect(parseQuery({ match_bool_prefix: { f: 'quick br' } })).toEqual({
      kind: 'match_bool_prefix',
      field: 'f',
      query: 'quick br',
      operator: 'or',
      boost: 1,
    });
    expect(
      parseQuery({
        match_bool_prefix: {
          f: {
            query: 'a b',
            operator: 'AND',
            minimum_should_match: '2',
            analyzer: 'whitespace',
            fuzziness: 'auto',
            prefix_length: 1,
            max_expansions: 10,
            fuzzy_transpositions: false,
            fuzzy_rewrite: 'constant_score',
            boost: 2,
            _name: 'n',
          },
        },
      }),
    ).toEqual({
      kind: 'match_bool_prefix',
      field: 'f',
      query: 'a b',
      operator: 'and',
      minimumShouldMatch: '2',
      analyzer: 'whitespace',
      boost: 2,
      fuzzy: { fuzziness: AUTO, prefixLength: 1, maxExpansions: 10, transpositions: false, rewrite: 'constant_score' },
    });
  });
  it("answers ES's errors", () => {
    expect(err({ match_bool_prefix: { f: { query: 'x', slop: 1 } } })).toEqual(['parsing_exception', '[match_bool_prefix] query does not support [slop]']);
    expect(err({ match_bool_prefix: { f: { analyzer: 'x' } } })).toEqual(['illegal_argument_exception', '[match_bool_prefix] requires query value']);
    expect(err({ match_bool_prefix: {} })).toEqual(['illegal_argument_exception', '[match_bool_prefix] requires fieldName']);
    expect(err({ match_bool_prefix: { f: { query: ['x'] } } })).toEqual(['parsing_exception', '[match_bool_prefix] unknown token [START_ARRAY] after [query]']);
    expect(err({ match_bool_prefix: { f: { query: 'x', fuzziness: 3 } } })).toEqual([
      'illegal_argument_exception',
      'Valid edit distances are [0, 1, 2] but was [3]',
    ]);
  });
});

describe('multi_match fuzzy and bool_prefix parameters', () => {
  it('carries fuzziness and analyzer', () => {
    expect(parseQuery({ multi_match: { query: 'x', type: 'bool_prefix', fields: ['a'], fuzziness: 1, analyzer: 'simple' } })).toMatchObject({
      type: 'bool_prefix',
      analyzer: 'simple',
      fuzzy: { fuzziness: { auto: false, edits: 1 }, ...fuzzyDefaults },
    });
  });
  it("refuses slop for bool_prefix and fuzziness for cross_fields and phrase, with ES's texts", () => {
    expect(err({ multi_match: { query: 'brown', type: 'bool_prefix', fields: ['a', 'b'], slop: 1 } })).toEqual([
      'parsing_exception',
      '[slop] not allowed for type [bool_prefix]',
    ]);
    expect(parseQuery({ multi_match: { query: 'x', type: 'bool_prefix', slop: 0 } })).toMatchObject({ type: 'bool_prefix' });
    expect(err({ multi_match: { query: 'x', type: 'phrase', fuzziness: 1 } })).toEqual(['parsing_exception', 'Fuzziness not allowed for type [phrase]']);
    expect(err({ multi_match: { query: 'x', type: 'cross_fields', fuzziness: 'AUTO' } })).toEqual([
      'parsing_exception',
      'Fuzziness not allowed for type [cross_fields]',
    ]);
    // ES 8 removed cutoff_frequency.
    expect(err({ multi_match: { query: 'x', type: 'bool_prefix', cutoff_frequency: 0.001 } })).toEqual([
      'parsing_exception',
      '[multi_match] query does not support [cutoff_frequency]',
    ]);
  });
});

describe('match fuzziness and analyzer', () => {
  it('carries them on the match node', () => {
    expect(parseQuery({ match: { f: { query: 'x', fuzziness: 'AUTO:2,4', prefix_length: 2, fuzzy_rewrite: 'top_terms_3' } } })).toEqual({
      kind: 'match',
      field: 'f',
      query: 'x',
      operator: 'or',
      boost: 1,
      fuzzy: { fuzziness: { auto: true, low: 2, high: 4 }, prefixLength: 2, maxExpansions: 50, transpositions: true, rewrite: 'top_terms_3' },
    });
    expect(err({ match: { f: { query: 'x', zero_terms_query: 'some' } } })).toEqual(['parsing_exception', 'Unsupported zero_terms_query value [some]']);
  });
});

describe('match_phrase_prefix', () => {
  it('parses its parameters', () => {
    expect(parseQuery({ match_phrase_prefix: { f: 'quick br' } })).toEqual({
      kind: 'match_phrase_prefix',
      field: 'f',
      query: 'quick br',
      slop: 0,
      maxExpansions: 50,
      boost: 1,
    });
    expect(parseQuery({ match_phrase_prefix: { f: { query: 'a', slop: 2, max_expansions: 5, analyzer: 'stop', zero_terms_query: 'ALL', boost: 3 } } })).toEqual(
      {
        kind: 'match_phrase_prefix',
        field: 'f',
        query: 'a',
        slop: 2,
        maxExpansions: 5,
        analyzer: 'stop',
        boost: 3,
      },
    );
  });
  it("answers ES's errors", () => {
    expect(err({ match_phrase_prefix: { f: { query: 'a', slop: -1 } } })).toEqual(['illegal_argument_exception', 'No negative slop allowed.']);
    expect(err({ match_phrase_prefix: { f: { query: 'a', fuzziness: 1 } } })).toEqual([
      'parsing_exception',
      '[match_phrase_prefix] query does not support [fuzziness]',
    ]);
  });
});

describe('fuzzy', () => {
  it('defaults to AUTO and reads value or term', () => {
    expect(parseQuery({ fuzzy: { f: 'ki' } })).toEqual({ kind: 'fuzzy', field: 'f', value: 'ki', fuzzy: { fuzziness: AUTO, ...fuzzyDefaults }, boost: 1 });
    expect(parseQuery({ fuzzy: { f: { term: 'ki', fuzziness: 2, transpositions: false, rewrite: 'top_terms_boost_5', boost: 2 } } })).toEqual({
      kind: 'fuzzy',
      field: 'f',
      value: 'ki',
      boost: 2,
      fuzzy: { fuzziness: { auto: false, edits: 2 }, prefixLength: 0, maxExpansions: 50, transpositions: false, rewrite: 'top_terms_boost_5' },
    });
  });
  it("answers ES's errors", () => {
    expect(err({ fuzzy: { f: { value: 'x', fuzzy_transpositions: true } } })).toEqual([
      'parsing_exception',
      '[fuzzy] query does not support [fuzzy_transpositions]',
    ]);
    expect(err({ fuzzy: { f: { value: ['x'] } } })).toEqual(['parsing_exception', '[fuzzy] unexpected token [START_ARRAY] after [value]']);
    expect(err({ fuzzy: { f: { boost: 2 } } })).toEqual(['illegal_argument_exception', 'query value cannot be null']);
    expect(err({ fuzzy: { a: 'x', b: 'y' } })).toEqual(['parsing_exception', "[fuzzy] query doesn't support multiple fields, found [a] and [b]"]);
  });
});

describe('wildcard and prefix', () => {
  it('parse value/wildcard, case_insensitive and rewrite', () => {
    expect(parseQuery({ wildcard: { f: 'k?mch*' } })).toEqual({ kind: 'wildcard', field: 'f', value: 'k?mch*', caseInsensitive: false, boost: 1 });
    expect(parseQuery({ wildcard: { f: { wildcard: 'a*', case_insensitive: true, rewrite: 'constant_score', boost: 2 } } })).toEqual({
      kind: 'wildcard',
      field: 'f',
      value: 'a*',
      caseInsensitive: true,
      rewrite: 'constant_score',
      boost: 2,
    });
    expect(parseQuery({ prefix: { f: { value: 'a', rewrite: 'top_terms_2' } } })).toMatchObject({ kind: 'prefix', rewrite: 'top_terms_2' });
  });
  it("answer ES's errors", () => {
    expect(err({ wildcard: { f: { value: 'x', flags: 1 } } })).toEqual(['parsing_exception', '[wildcard] query does not support [flags]']);
    expect(err({ wildcard: { f: { boost: 1 } } })).toEqual(['illegal_argument_exception', 'value cannot be null']);
  });
});

describe('terms lookup', () => {
  it('parses the lookup document', () => {
    expect(parseQuery({ terms: { user: { index: 'lookup', id: '1', path: 'followers' }, boost: 2 } })).toEqual({
      kind: 'terms_lookup',
      field: 'user',
      index: 'lookup',
      id: '1',
      path: 'followers',
      boost: 2,
    });
    expect(parseQuery({ terms: { user: { index: 'l', id: '1', path: 'p', routing: 'r' } } })).toMatchObject({ routing: 'r' });
  });
  it("answers ES's errors", () => {
    expect(err({ terms: { user: { index: 'l', id: '1' } } })).toEqual(['illegal_argument_exception', 'Required [path]']);
    expect(err({ terms: { user: { id: '1' } } })).toEqual(['illegal_argument_exception', 'Required [index, path]']);
    expect(err({ terms: { user: { index: 'l', id: '1', path: 'p', typo: 'x' } } })).toEqual([
      'x_content_parse_exception',
      '[1:1] [terms_lookup] unknown field [typo]',
    ]);
    expect(err({ terms: { user: { index: 'l', id: 1, path: 'p' } } })).toEqual([
      'x_content_parse_exception',
      "[1:1] [terms_lookup] id doesn't support values of type: VALUE_NUMBER",
    ]);
    expect(err({ terms: { a: ['x'], b: { index: 'l', id: '1', path: 'p' } } })).toEqual([
      'parsing_exception',
      '[terms] query does not support more than one field. Already got: [a] but also found [b]',
    ]);
  });
});
