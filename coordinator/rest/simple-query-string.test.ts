import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import { esErr } from '../../test/support/es-error.ts';
import type { Query } from '../../protocol/query-ast.ts';
import { parseQuery } from './query-dsl.ts';
import { parseSimpleQueryString, resolveSimpleFlags, SimpleFlags, type SimpleQueryOptions } from './simple-query-string.ts';

const opts = (extra: Partial<SimpleQueryOptions> = {}): SimpleQueryOptions => ({
  fields: [{ field: 'f', boost: 1 }],
  defaultOperator: 'or',
  flags: -1,
  fuzzy: { prefixLength: 0, maxExpansions: 50, transpositions: true },
  ...extra,
});
const p = (text: string, extra: Partial<SimpleQueryOptions> = {}) => parseSimpleQueryString(text, opts(extra));
const m = (query: string, operator: 'or' | 'and' = 'or'): Query => ({ kind: 'match', field: 'f', query, operator, boost: 1 });
const bool = (c: Partial<Record<'must' | 'should' | 'mustNot', Query[]>>): Query => ({
  kind: 'bool',
  must: c.must ?? [],
  should: c.should ?? [],
  filter: [],
  mustNot: c.mustNot ?? [],
  boost: 1,
});
const not = (q: Query) => bool({ should: [{ kind: 'match_all', boost: 1 }], mustNot: [q] });

describe('SimpleQueryParser grammar', () => {
  it('combines with the default operator, + and |, keeping precedence by nesting', () => {
    expect(p('a')).toEqual(m('a'));
    expect(p('a b')).toEqual(bool({ should: [m('a'), m('b')] }));
    expect(p('a b', { defaultOperator: 'and' })).toEqual(bool({ must: [m('a', 'and'), m('b', 'and')] }));
    expect(p('a +b')).toEqual(bool({ must: [m('a'), m('b')] }));
    expect(p('a | b + c')).toEqual(bool({ must: [bool({ should: [m('a'), m('b')] }), m('c')] }));
    expect(p('(a | b) +c')).toEqual(bool({ must: [bool({ should: [m('a'), m('b')] }), m('c')] }));
  });
  it('negates with - (a MUST_NOT beside match_all), twice cancels', () => {
    expect(p('-a')).toEqual(not(m('a')));
    expect(p('--a')).toEqual(m('a'));
    expect(p('a -b')).toEqual(bool({ should: [m('a'), not(m('b'))] }));
  });
  it('reads phrases with slop, prefixes, fuzzy terms and escapes', () => {
    expect(p('"a b"~2')).toEqual({ kind: 'match_phrase', field: 'f', query: 'a b', slop: 2, boost: 1 });
    expect(p('"a b')).toEqual(bool({ should: [m('a'), m('b')] })); // no closing quote: read as terms
    expect(p('fo*')).toEqual({ kind: 'prefix', field: 'f', value: 'fo', caseInsensitive: false, normalize: {}, boost: 1 });
    expect(p('fox~1')).toMatchObject({ kind: 'fuzzy', value: 'fox', fuzzy: { fuzziness: { auto: false, edits: 1 } } });
    expect(p('fox~')).toMatchObject({ kind: 'fuzzy', fuzzy: { fuzziness: { auto: false, edits: 2 } } });
    expect(p('fox~0')).toEqual(m('fox'));
    expect(p('a\\+b \\-c')).toEqual(bool({ should: [m('a+b'), m('-c')] }));
  });
  it('turns operators off with flags', () => {
    expect(p('a+b', { flags: 0 })).toEqual(m('a+b'));
    expect(p('a b', { flags: 0 })).toEqual(m('a b'));
    expect(p('fo* -x', { flags: SimpleFlags.WHITESPACE })).toEqual(bool({ should: [m('fo*'), m('-x')] }));
    expect(p('')).toEqual({ kind: 'match_none', boost: 1 });
    expect(p(' * ')).toEqual({ kind: 'match_all', boost: 1 });
    expect(p('a) b')).toEqual(bool({ should: [m('a'), m('b')] })); // an extraneous ) is skipped
    expect(p('+ | -')).toEqual({ kind: 'match_none', boost: 1 });
  });
  it('runs on several fields (summed) or patterns as multi_field, lenient on *', () => {
    expect(
      p('a', {
        fields: [
          { field: 'x', boost: 2 },
          { field: 'y', boost: 1 },
        ],
      }),
    ).toEqual({
      kind: 'multi_field',
      fields: [
        { field: 'x', boost: 2 },
        { field: 'y', boost: 1 },
      ],
      tieBreaker: 1,
      lenient: false,
      boost: 1,
      query: { kind: 'match', field: '', query: 'a', operator: 'or', boost: 1 },
    });
    expect(p('a', { fields: [{ field: '*', boost: 1 }] })).toMatchObject({ kind: 'multi_field', lenient: true });
  });
  it('parses parentheses in place exactly as by copying the unescaped text (Lucene)', () => {
    // A backslash anywhere sends the parser down Lucene's copying path; `\\x` reads as `x`.
    const chars = fc.constantFrom(...'ab "()+|-*~1'.split(''));
    fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 25 }), (text) => {
        expect(p(`${text} \\x`)).toEqual(p(`${text} x`));
      }),
      { numRuns: 2000 },
    );
  });
  it('stays linear: 100,000 terms and 200 nested groups parse fast; deeper nesting is refused', () => {
    const t0 = performance.now();
    const wide = p('a '.repeat(100_000));
    expect(wide.kind === 'bool' && wide.should.length).toBe(100_000);
    p(`${'('.repeat(200)}a${')'.repeat(200)}`.repeat(50));
    expect(performance.now() - t0).toBeLessThan(3000);
    const e = esErr(() => p(`${'('.repeat(20_000)}a`));
    expect([e.status, e.message]).toEqual([400, '[simple_query_string] query nests more than 256 parentheses, which Folio does not parse']);
  });
  it('never fails, whatever the input', () => {
    const chars = fc.constantFrom(...'ab "()+|-*~\\1'.split(''));
    fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 25 }), fc.integer({ min: -1, max: 1023 }), (text, flags) => {
        expect(typeof p(text, { flags }).kind).toBe('string');
      }),
      { numRuns: 3000 },
    );
  });
});

describe('simple_query_string in the body', () => {
  it('parses its parameters', () => {
    expect(
      parseQuery({ simple_query_string: { query: 'a b', fields: ['t^2'], default_operator: 'and', flags: 'OR|prefix', minimum_should_match: 1, boost: 2 } }),
    ).toMatchObject({
      kind: 'multi_field',
      fields: [{ field: 't', boost: 2 }],
      boost: 2,
      query: { kind: 'match', query: 'a b', operator: 'and' },
    });
    expect(resolveSimpleFlags('OR|prefix')).toBe(12);
    expect(resolveSimpleFlags('and|NONE|or')).toBe(0);
    expect(resolveSimpleFlags('')).toBe(-1);
  });
  it("answers ES's errors", () => {
    const reason = (body: unknown) => esErr(() => parseQuery({ simple_query_string: body })).message;
    expect(reason({ fields: ['a'] })).toBe('[simple_query_string] query text missing');
    expect(reason({ query: 'a', foo: 1 })).toBe('[simple_query_string] unsupported field [foo]');
    expect(reason({ query: 'a', analyzer: {} })).toBe('[simple_query_string] unknown token [START_OBJECT] after [analyzer]');
    expect(reason({ query: 'a', flags: 'AND|NOPE' })).toBe('Unknown simple_query_string flag [NOPE]');
    expect(esErr(() => parseQuery({ simple_query_string: { query: 'a', flags: 'x' } }))).toBeInstanceOf(EsError);
  });
});
