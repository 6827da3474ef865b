import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import { esErr } from '../../test/support/es-error.ts';
import type { Query } from '../../protocol/query-ast.ts';
import { parseQueryString } from './query-string.ts';

const OR = { defaultOperator: 'or' as const };
const m = (query: string, field = '*', operator: 'or' | 'and' = 'or'): Query => ({ kind: 'match', field, query, operator, boost: 1 });
const bool = (p: Partial<{ must: Query[]; should: Query[]; mustNot: Query[] }>): Query => ({
  kind: 'bool',
  must: p.must ?? [],
  should: p.should ?? [],
  filter: [],
  mustNot: p.mustNot ?? [],
  boost: 1,
});
describe('Lucene classic occurrence rules', () => {
  it('a single term is the term itself, on all fields or df', () => {
    expect(parseQueryString('foo', OR)).toEqual(m('foo'));
    expect(parseQueryString('foo', { defaultOperator: 'or', df: 'title' })).toEqual(m('foo', 'title'));
    expect(parseQueryString('title:foo', OR)).toEqual(m('foo', 'title'));
  });
  it('plain terms are SHOULD, + MUST, - and NOT and ! MUST_NOT', () => {
    expect(parseQueryString('a b', OR)).toEqual(bool({ should: [m('a'), m('b')] }));
    expect(parseQueryString('+a -b c', OR)).toEqual(bool({ must: [m('a')], should: [m('c')], mustNot: [m('b')] }));
    expect(parseQueryString('a NOT b !c', OR)).toEqual(bool({ should: [m('a')], mustNot: [m('b'), m('c')] }));
    expect(parseQueryString('-a', OR)).toEqual(bool({ mustNot: [m('a')] }));
  });
  it('AND makes both sides MUST; OR keeps SHOULD; && and || alias them', () => {
    expect(parseQueryString('a AND b', OR)).toEqual(bool({ must: [m('a'), m('b')] }));
    expect(parseQueryString('a && b || c', OR)).toEqual(bool({ must: [m('a'), m('b')], should: [m('c')] }));
    expect(parseQueryString('-a AND b', OR)).toEqual(bool({ must: [m('b')], mustNot: [m('a')] }));
    expect(parseQueryString('a AND NOT b', OR)).toEqual(bool({ must: [m('a')], mustNot: [m('b')] }));
  });
  it('default operator AND: clauses MUST unless joined by OR', () => {
    const and = { defaultOperator: 'and' as const };
    expect(parseQueryString('a b', and)).toEqual(bool({ must: [m('a', '*', 'and'), m('b', '*', 'and')] }));
    expect(parseQueryString('a OR b', and)).toEqual(bool({ should: [m('a', '*', 'and'), m('b', '*', 'and')] }));
  });
  it('groups, boosts, phrases and fielded groups', () => {
    expect(parseQueryString('title:(a b)^2', OR)).toEqual({ ...bool({ should: [m('a', 'title'), m('b', 'title')] }), boost: 2 });
    expect(parseQueryString('"quick fox"~3', OR)).toEqual({ kind: 'match_phrase', field: '*', query: 'quick fox', slop: 3, boost: 1 });
    expect(parseQueryString('t:"a \\"b\\""^1.5', OR)).toEqual({ kind: 'match_phrase', field: 't', query: 'a "b"', slop: 0, boost: 1.5 });
    expect(parseQueryString('(a OR b) AND c', OR)).toEqual(bool({ must: [bool({ should: [m('a'), m('b')] }), m('c')] }));
  });
  it('stars, prefixes, exists and ranges', () => {
    expect(parseQueryString('*', OR)).toEqual({ kind: 'match_all', boost: 1 });
    expect(parseQueryString('*', { defaultOperator: 'or', df: 'f' })).toEqual({ kind: 'exists', field: 'f', boost: 1 });
    expect(parseQueryString('f:*', OR)).toEqual({ kind: 'exists', field: 'f', boost: 1 });
    expect(parseQueryString('_exists_:f', OR)).toEqual({ kind: 'exists', field: 'f', boost: 1 });
    expect(parseQueryString('name:Jo*', OR)).toEqual({ kind: 'prefix', field: 'name', value: 'Jo', caseInsensitive: false, normalize: {}, boost: 1 });
    expect(parseQueryString('age:[1 TO 5}', OR)).toEqual({ kind: 'range', field: 'age', gte: '1', lt: '5', boost: 1 });
    expect(parseQueryString('age:{* TO 5]', OR)).toEqual({ kind: 'range', field: 'age', lte: '5', boost: 1 });
    expect(parseQueryString('age:>=18', OR)).toEqual({ kind: 'range', field: 'age', gte: '18', boost: 1 });
  });
  it('escapes and odd inputs', () => {
    expect(parseQueryString('a\\:b', OR)).toEqual(m('a:b'));
    expect(parseQueryString('a-b', OR)).toEqual(m('a-b'));
    expect(parseQueryString('ANDY', OR)).toEqual(m('ANDY'));
    expect(parseQueryString('   ', OR)).toEqual({ kind: 'match_none', boost: 1 });
    expect(parseQueryString('a - b', OR)).toEqual(bool({ should: [m('a'), m('b')] }));
  });
});

describe('errors', () => {
  it('wraps syntax errors as ES does', () => {
    const e = esErr(() => parseQueryString('(', OR));
    expect([e.status, e.type, e.message]).toEqual([400, 'query_shard_exception', 'Failed to parse query [(]']);
    expect(e.causedBy).toEqual({ type: 'parse_exception', reason: `Cannot parse '(': Encountered "<EOF>" at line 1, column 1.` });
    expect(esErr(() => parseQueryString('a AND', OR)).causedBy?.reason).toBe(`Cannot parse 'a AND': Encountered "<EOF>" at line 1, column 5.`);
    expect(esErr(() => parseQueryString('a)', OR)).causedBy?.reason).toBe(`Cannot parse 'a)': Encountered " ")" ") "" at line 1, column 2.`);
    expect(esErr(() => parseQueryString('"abc', OR)).causedBy?.reason).toContain('Lexical error at line 1, column 5.');
    for (const q of ['a:', ':a', 'a^', 'a^x', '[1 TO', 'f:[1 2 3]', '\\', '/ab', 'a OR OR b']) {
      expect(esErr(() => parseQueryString(q, OR)).type).toBe('query_shard_exception');
    }
  });
  it('reads wildcard, fuzzy and all-fields terms (multi_field, lenient on *)', () => {
    expect(parseQueryString('f:te?t*', OR)).toEqual({ kind: 'wildcard', field: 'f', value: 'te?t*', caseInsensitive: false, normalize: {}, boost: 1 });
    const fuzzy = (fuzziness: unknown) => ({ fuzziness, prefixLength: 0, maxExpansions: 50, transpositions: true });
    expect(parseQueryString('f:foo~', OR)).toEqual({
      kind: 'fuzzy',
      field: 'f',
      value: 'foo',
      fuzzy: fuzzy({ auto: true, low: 3, high: 6 }),
      normalize: {},
      boost: 1,
    });
    expect(parseQueryString('f:foo~1^2', OR)).toMatchObject({ kind: 'fuzzy', fuzzy: fuzzy({ auto: false, edits: 1 }), boost: 2 });
    expect(parseQueryString('f:foo^2~1', OR)).toMatchObject({ kind: 'fuzzy', fuzzy: fuzzy({ auto: false, edits: 1 }), boost: 2 });
    expect(parseQueryString('foo*', OR)).toEqual({
      kind: 'multi_field',
      fields: [{ field: '*', boost: 1 }],
      tieBreaker: 0,
      lenient: true,
      boost: 1,
      query: { kind: 'prefix', field: '', value: 'foo', caseInsensitive: false, normalize: {}, boost: 1 },
    });
    expect(parseQueryString('[1 TO 2]', OR)).toMatchObject({ kind: 'multi_field', query: { kind: 'range', gte: '1', lte: '2' } });
    expect(parseQueryString('/ab+/', OR)).toMatchObject({ kind: 'multi_field', query: { kind: 'regexp', value: 'ab+' } });
    const e = esErr(() => parseQueryString('f:foo~1.5', OR));
    expect([e.type, e.message]).toEqual(['query_shard_exception', 'failed to create query: fuzziness needs to be one of 0.0, 1.0 or 2.0 but was 1.5']);
  });
  it('reads field:/regex/ as a regexp query (the pattern as written)', () => {
    expect(parseQueryString('tag:/re+d|b\\/x/', OR)).toEqual({
      kind: 'regexp',
      field: 'tag',
      value: 're+d|b\\/x',
      flags: 0xffff,
      caseInsensitive: false,
      maxDeterminizedStates: 10000,
      boost: 1,
    });
    expect(parseQueryString('/ab+/', { defaultOperator: 'or', df: 'tag' })).toMatchObject({ kind: 'regexp', field: 'tag', value: 'ab+' });
  });
  it('never throws anything but a 400 EsError', () => {
    const chars = fc.constantFrom(...'ab :()[]{}"\\*?~^+-!&|/<>=TOANDORNOT 12.'.split(''));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: chars, maxLength: 30 })), fc.boolean(), (q, and) => {
        try {
          parseQueryString(q, { defaultOperator: and ? 'and' : 'or' });
        } catch (e) {
          expect(e).toBeInstanceOf(EsError);
          expect((e as EsError).status).toBe(400);
        }
      }),
      { numRuns: 3000 },
    );
    expect(esErr(() => parseQueryString('('.repeat(5000), OR)).status).toBe(400);
  });
});
