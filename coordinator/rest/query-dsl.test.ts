import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import { esErr } from '../../test/support/es-error.ts';
import { MAX_CLAUSE_COUNT } from '../../protocol/query-ast.ts';
import { parseQuery } from './query-dsl.ts';

const reason = (json: unknown) => esErr(() => parseQuery(json)).message;

describe('leaf queries', () => {
  it('parses match_all / match_none', () => {
    expect(parseQuery({ match_all: {} })).toEqual({ kind: 'match_all', boost: 1 });
    expect(parseQuery({ match_none: { boost: 2 } })).toEqual({ kind: 'match_none', boost: 2 });
  });
  it('parses match short and long forms', () => {
    expect(parseQuery({ match: { title: 'quick fox' } })).toEqual({ kind: 'match', field: 'title', query: 'quick fox', operator: 'or', boost: 1 });
    expect(parseQuery({ match: { n: 5 } })).toMatchObject({ query: '5' });
    expect(parseQuery({ match: { title: { query: 'a b', operator: 'AnD', minimum_should_match: '75%', boost: 2, analyzer: 'standard' } } })).toEqual({
      kind: 'match',
      field: 'title',
      query: 'a b',
      operator: 'and',
      minimumShouldMatch: '75%',
      analyzer: 'standard',
      boost: 2,
    });
  });
  it('parses match_phrase with slop', () => {
    expect(parseQuery({ match_phrase: { t: 'a b' } })).toEqual({ kind: 'match_phrase', field: 't', query: 'a b', slop: 0, boost: 1 });
    expect(parseQuery({ match_phrase: { t: { query: 'a b', slop: '2' } } })).toMatchObject({ slop: 2 });
  });
  it('parses multi_match with field boosts and defaults', () => {
    expect(parseQuery({ multi_match: { query: 'x', fields: ['title^2.5', 'body'], type: 'most_fields', tie_breaker: 0.3 } })).toEqual({
      kind: 'multi_match',
      query: 'x',
      fields: [
        { field: 'title', boost: 2.5 },
        { field: 'body', boost: 1 },
      ],
      type: 'most_fields',
      tieBreaker: 0.3,
      operator: 'or',
      boost: 1,
    });
    expect(parseQuery({ multi_match: { query: 'x' } })).toMatchObject({ fields: [{ field: '*', boost: 1 }], type: 'best_fields', tieBreaker: 0 });
    expect(parseQuery({ multi_match: { query: 'x', fields: 'a^3' } })).toMatchObject({ fields: [{ field: 'a', boost: 3 }] });
  });
  it('parses term, terms, prefix, exists, ids', () => {
    expect(parseQuery({ term: { tag: 'a' } })).toEqual({ kind: 'term', field: 'tag', value: 'a', caseInsensitive: false, boost: 1 });
    expect(parseQuery({ term: { tag: { value: 3, boost: 2, case_insensitive: true } } })).toEqual({
      kind: 'term',
      field: 'tag',
      value: 3,
      caseInsensitive: true,
      boost: 2,
    });
    expect(parseQuery({ terms: { tag: ['a', 1, true], boost: 3 } })).toEqual({ kind: 'terms', field: 'tag', values: ['a', 1, true], boost: 3 });
    expect(parseQuery({ prefix: { name: { value: 'ab', case_insensitive: true } } })).toEqual({
      kind: 'prefix',
      field: 'name',
      value: 'ab',
      caseInsensitive: true,
      boost: 1,
    });
    expect(parseQuery({ prefix: { name: 'ab' } })).toMatchObject({ kind: 'prefix', value: 'ab' });
    expect(parseQuery({ exists: { field: 'f' } })).toEqual({ kind: 'exists', field: 'f', boost: 1 });
    expect(parseQuery({ ids: { values: ['1', 2] } })).toEqual({ kind: 'ids', values: ['1', '2'], boost: 1 });
  });
  it('parses regexp short and long forms, with flags', () => {
    expect(parseQuery({ regexp: { k: 'a.*' } })).toEqual({
      kind: 'regexp',
      field: 'k',
      value: 'a.*',
      flags: 0xffff,
      caseInsensitive: false,
      maxDeterminizedStates: 10000,
      boost: 1,
    });
    const long = parseQuery({
      regexp: {
        k: {
          value: 'A.*',
          flags: 'INTERSECTION|COMPLEMENT',
          case_insensitive: true,
          max_determinized_states: 20,
          rewrite: 'constant_score',
          boost: 2,
          _name: 'n',
        },
      },
    });
    expect(long).toEqual({ kind: 'regexp', field: 'k', value: 'A.*', flags: 3, caseInsensitive: true, maxDeterminizedStates: 20, boost: 2 });
    expect(parseQuery({ regexp: { k: { value: 'a', flags_value: 4 } } })).toMatchObject({ flags: 4 });
    expect(esErr(() => parseQuery({ regexp: { k: { value: 'a', flags: 'FOO' } } })).message).toBe('Unknown regexp flag [FOO]');
    expect(reason({ regexp: { k: { value: 'a', foo: 1 } } })).toBe('[regexp] query does not support [foo]');
    expect(reason({ regexp: { k: { flags: 'ALL' } } })).toBe('value cannot be null');
    expect(reason({ regexp: { k: 'a', j: 'b' } })).toBe("[regexp] query doesn't support multiple fields, found [k] and [j]");
  });
  it('parses match_bool_prefix; slop is refused for multi_match bool_prefix', () => {
    expect(parseQuery({ match_bool_prefix: { f: { query: 'a b', operator: 'AND', minimum_should_match: 2, analyzer: 'x' } } })).toEqual({
      kind: 'match_bool_prefix',
      field: 'f',
      query: 'a b',
      operator: 'and',
      minimumShouldMatch: 2,
      analyzer: 'x',
      boost: 1,
    });
    expect(parseQuery({ match_bool_prefix: { f: 'a b' } })).toMatchObject({ query: 'a b', operator: 'or' });
    expect(reason({ match_bool_prefix: { f: { operator: 'or' } } })).toBe('[match_bool_prefix] requires query value');
    expect(reason({ multi_match: { query: 'a', type: 'bool_prefix', slop: 2 } })).toBe('[slop] not allowed for type [bool_prefix]');
  });
  it('parses query_string with a default field and operator (the q= syntax)', () => {
    expect(parseQuery({ query_string: { query: 'a b', default_field: 'title', default_operator: 'AND' } })).toEqual({
      kind: 'bool',
      must: [
        { kind: 'match', field: 'title', query: 'a', operator: 'and', boost: 1 },
        { kind: 'match', field: 'title', query: 'b', operator: 'and', boost: 1 },
      ],
      should: [],
      filter: [],
      mustNot: [],
      boost: 1,
    });
    expect(parseQuery({ query_string: { query: '/a.c/' } })).toMatchObject({
      kind: 'multi_field',
      fields: [{ field: '*', boost: 1 }],
      lenient: true,
      query: { kind: 'regexp', value: 'a.c' },
    });
    expect(reason({ query_string: { default_field: 'x' } })).toBe('[query_string] must be provided with a [query]');
    expect(reason({ query_string: { query: 'a', foo: 1 } })).toBe('[query_string] query does not support [foo]');
    expect(reason({ query_string: { query: 'a', fields: 'x' } })).toBe('[query_string] query does not support [fields]');
  });
  it('parses range including the legacy from/to form', () => {
    expect(parseQuery({ range: { age: { gte: 10, lt: 20, format: 'x', time_zone: '+01:00' } } })).toEqual({
      kind: 'range',
      field: 'age',
      gte: 10,
      lt: 20,
      format: 'x',
      timeZone: '+01:00',
      boost: 1,
    });
    expect(parseQuery({ range: { age: { from: 1, to: 5, include_lower: false } } })).toEqual({ kind: 'range', field: 'age', gt: 1, lte: 5, boost: 1 });
    expect(parseQuery({ range: { age: { gt: null, lte: 'now' } } })).toEqual({ kind: 'range', field: 'age', lte: 'now', boost: 1 });
  });
});

describe('compound queries', () => {
  it('parses bool with object or array clauses', () => {
    const q = parseQuery({ bool: { must: { term: { a: 1 } }, should: [{ match_all: {} }], filter: [], must_not: null, minimum_should_match: 1, boost: 2 } });
    expect(q).toEqual({
      kind: 'bool',
      must: [{ kind: 'term', field: 'a', value: 1, caseInsensitive: false, boost: 1 }],
      should: [{ kind: 'match_all', boost: 1 }],
      filter: [],
      mustNot: [],
      minimumShouldMatch: 1,
      boost: 2,
    });
  });
  it('parses constant_score and dis_max', () => {
    expect(parseQuery({ constant_score: { filter: { match_all: {} }, boost: 1.5 } })).toEqual({
      kind: 'constant_score',
      filter: { kind: 'match_all', boost: 1 },
      boost: 1.5,
    });
    expect(parseQuery({ dis_max: { queries: [{ match_all: {} }], tie_breaker: 0.5 } })).toEqual({
      kind: 'dis_max',
      queries: [{ kind: 'match_all', boost: 1 }],
      tieBreaker: 0.5,
      boost: 1,
    });
  });
});

describe('ES error texts', () => {
  it('unknown and malformed queries', () => {
    const e = esErr(() => parseQuery({ foo: {} }));
    expect([e.status, e.type, e.message, e.metadata]).toEqual([400, 'parsing_exception', 'unknown query [foo]', { line: 1, col: 1 }]);
    expect(reason({ matc: {} })).toBe('unknown query [matc] did you mean [match]?');
    expect(reason({ match_all: {}, term: { a: 1 } })).toBe('[match_all] malformed query, expected [END_OBJECT] but found [FIELD_NAME]');
    expect(reason({ match: 'x' })).toBe('[match] query malformed, no start_object after query name');
    expect(reason({})).toBe('query malformed, empty clause found at [1:1]');
    expect(reason('x')).toBe('[_na] query malformed, must start with start_object');
    expect(esErr(() => parseQuery({ more_like_this: { like: 'x' } })).type).toBe('illegal_argument_exception');
  });
  it('unknown parameters and tokens', () => {
    expect(reason({ match: { f: { query: 'x', foo: 1 } } })).toBe('[match] query does not support [foo]');
    expect(reason({ match: { f: { query: { a: 1 } } } })).toBe('[match] unknown token [START_OBJECT] after [query]');
    expect(reason({ term: { f: { value: 'x', foo: 1 } } })).toBe('[term] query does not support [foo]');
    expect(reason({ range: { f: { gte: 1, foo: 1 } } })).toBe('[range] query does not support [foo]');
    expect(reason({ exists: { field: 'f', foo: 1 } })).toBe('[exists] query does not support [foo]');
    expect(reason({ multi_match: { query: 'x', foo: 1 } })).toBe('[multi_match] query does not support [foo]');
    expect(reason({ terms: { f: ['a'], foo: 1 } })).toBe('[terms] query does not support [foo]');
    expect(reason({ constant_score: { filter: { match_all: {} }, foo: 1 } })).toBe('[constant_score] query does not support [foo]');
    expect(reason({ dis_max: { queries: [], foo: 1 } })).toBe('[dis_max] query does not support [foo]');
    const bool = esErr(() => parseQuery({ bool: { mus: [] } }));
    expect([bool.type, bool.message]).toEqual(['x_content_parse_exception', '[1:1] [bool] unknown field [mus] did you mean [must]?']);
    expect(reason({ ids: { value: ['1'] } })).toBe('[1:1] [ids] unknown field [value] did you mean [values]?');
    expect(reason({ match_all: { foo: 1 } })).toBe('[1:1] [match_all] unknown field [foo]');
  });
  it('multiple fields and missing values', () => {
    expect(reason({ term: { a: 'x', b: 'y' } })).toBe("[term] query doesn't support multiple fields, found [a] and [b]");
    expect(reason({ match: { a: 'x', b: 'y' } })).toBe("[match] query doesn't support multiple fields, found [a] and [b]");
    expect(reason({ range: { a: { gt: 1 }, b: { gt: 2 } } })).toBe("[range] query doesn't support multiple fields, found [a] and [b]");
    expect(reason({ terms: { a: ['x'], b: ['y'] } })).toBe('[terms] query does not support multiple fields');
    expect(reason({ term: { a: ['x'] } })).toBe('[term] query does not support array of values');
    expect(reason({ match: {} })).toBe('No text specified for text query');
    expect(reason({ multi_match: { fields: ['a'] } })).toBe('No text specified for multi_match query');
    expect(reason({ exists: {} })).toBe('[exists] must be provided with a [field]');
    expect(reason({ term: {} })).toBe('field name is null or empty');
    expect(reason({ term: { a: {} } })).toBe('value cannot be null');
    expect(reason({ terms: {} })).toBe('[terms] query requires a field name, followed by array of terms or a document lookup specification');
    expect(reason({ terms: { a: [null] } })).toBe('No value specified for terms query');
    expect(reason({ constant_score: {} })).toBe("[constant_score] requires a 'filter' element");
    expect(reason({ dis_max: {} })).toBe("[dis_max] requires 'queries' field with at least one clause");
  });
  it('bad values', () => {
    expect(reason({ match: { f: { query: 'x', operator: 'xor' } } })).toBe('No enum constant org.elasticsearch.index.query.Operator.XOR');
    expect(reason({ term: { f: { value: 1, boost: -1 } } })).toBe('negative [boost] are not allowed.');
    const nf = esErr(() => parseQuery({ term: { f: { value: 1, boost: 'abc' } } }));
    expect([nf.type, nf.message]).toEqual(['number_format_exception', 'For input string: "abc"']);
    expect(reason({ multi_match: { query: 'x', type: 'foo' } })).toBe('failed to parse [multi_match] query type [foo]. unknown type.');
  });
  it('wraps errors inside bool like ObjectParser', () => {
    const e = esErr(() => parseQuery({ bool: { must: [{ match_all: {} }, { foo: {} }] } }));
    expect([e.type, e.message]).toEqual(['x_content_parse_exception', '[1:1] [bool] failed to parse field [must]']);
    expect(e.causedBy).toMatchObject({ type: 'parsing_exception', reason: 'unknown query [foo]' });
  });
});

describe('limits', () => {
  const nest = (n: number) => {
    let q: unknown = { match_all: {} };
    for (let i = 0; i < n; i++) q = { bool: { must: [q] } };
    return q;
  };
  it('allows 29 nested bools and rejects 30 (max_nested_depth 30)', () => {
    expect(() => parseQuery(nest(29))).not.toThrow();
    let e: EsError | undefined = esErr(() => parseQuery(nest(30)));
    while (e.causedBy) e = Object.assign(new EsError(400, e.causedBy.type, e.causedBy.reason ?? ''), { causedBy: e.causedBy.caused_by });
    expect(e.message).toBe('The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.bool.max_nested_depth]');
    expect(() => parseQuery({ constant_score: { filter: nest(30) } })).toThrow(EsError);
  });
  it('limits the clause count', () => {
    const leaves = (n: number) => Array.from({ length: n }, () => ({ match_all: {} }));
    expect(() => parseQuery({ bool: { should: leaves(MAX_CLAUSE_COUNT) } })).not.toThrow();
    const one = esErr(() => parseQuery({ bool: { should: leaves(MAX_CLAUSE_COUNT + 1) } }));
    expect([one.type, one.message]).toEqual(['too_many_clauses', 'maxClauseCount is set to 4096']);
    const nested = esErr(() => parseQuery({ bool: { should: [{ bool: { should: leaves(3000) } }, { bool: { should: leaves(3000) } }] } }));
    expect([nested.type, nested.message]).toEqual(['too_many_nested_clauses', 'Query contains too many nested clauses; maxClauseCount is set to 4096']);
  });
  it('never throws anything but a 4xx EsError on random JSON', () => {
    const names = fc.constantFrom(
      'match',
      'match_all',
      'match_phrase',
      'multi_match',
      'term',
      'terms',
      'range',
      'exists',
      'prefix',
      'ids',
      'bool',
      'constant_score',
      'dis_max',
      'must',
      'should',
      'filter',
      'query',
      'value',
      'boost',
      'fields',
      'queries',
      'gte',
      'foo',
    );
    const tree = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, fc.jsonValue(), fc.dictionary(names, tie('node'), { maxKeys: 3 }), fc.array(tie('node'), { maxLength: 3 })),
    })).node;
    fc.assert(
      fc.property(fc.oneof(tree, fc.dictionary(names, tree, { maxKeys: 2 })), (json) => {
        try {
          parseQuery(json);
        } catch (e) {
          expect(e).toBeInstanceOf(EsError);
          expect((e as EsError).status).toBeGreaterThanOrEqual(400);
          expect((e as EsError).status).toBeLessThan(500);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
