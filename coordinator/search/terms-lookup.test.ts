import { describe, expect, it } from 'vitest';
import { indexNotFound } from '../../protocol/errors.ts';
import { parseSearchRequest } from '../rest/search-request.ts';
import { extractRawValues, resolveTermsLookups, type TermsLookupQuery } from './terms-lookup.ts';

const request = (body: unknown) => parseSearchRequest(new URLSearchParams(), body, '/i/_search');

describe('extractRawValues (ES XContentMapValues.extractRawValues)', () => {
  it('walks objects and arrays, flattening', () => {
    expect(extractRawValues('followers', { followers: ['1', '3'] })).toEqual(['1', '3']);
    expect(extractRawValues('a.b', { a: [{ b: 1 }, { b: [2, null, 3] }, { c: 4 }] })).toEqual([1, 2, 3]);
    expect(extractRawValues('a.b', { 'a.b': 'dotted', a: { b: 'nested' } })).toEqual(['nested', 'dotted']);
  });
  it('takes a scalar met before the path ends, and nothing for an object at its end', () => {
    expect(extractRawValues('a.b', { a: 5 })).toEqual([5]);
    expect(extractRawValues('a', { a: { b: 1 } })).toEqual([]);
    expect(extractRawValues('x', undefined)).toEqual([]);
  });
});

describe('resolveTermsLookups', () => {
  it('replaces every lookup with a terms query, fetching each document once', async () => {
    const fetched: string[] = [];
    const fetch = (l: TermsLookupQuery) => {
      fetched.push(`${l.index}/${l.id}/${l.routing ?? '-'}`);
      return Promise.resolve(l.id === '1' ? { followers: ['1', '3'], tags: 'x' } : undefined);
    };
    const lookup = { index: 'lookup', id: '1', path: 'followers' };
    const req = request({
      query: {
        bool: {
          should: [
            { terms: { user: lookup } },
            { terms: { tag: { ...lookup, path: 'tags' }, boost: 2 } },
            { terms: { user: { index: 'lookup', id: '9', path: 'p' } } },
          ],
        },
      },
    });
    const out = await resolveTermsLookups(req, fetch);
    expect(out.query).toEqual({
      kind: 'bool',
      must: [],
      filter: [],
      mustNot: [],
      boost: 1,
      should: [
        { kind: 'terms', field: 'user', values: ['1', '3'], boost: 1 },
        { kind: 'terms', field: 'tag', values: ['x'], boost: 2 },
        { kind: 'terms', field: 'user', values: [], boost: 1 }, // a missing document: no values
      ],
    });
    expect(fetched).toEqual(['lookup/1/-', 'lookup/9/-']);
  });
  it('returns the request itself when it has no lookup', async () => {
    const req = request({ query: { terms: { user: ['1'] } } });
    expect(await resolveTermsLookups(req, () => Promise.reject(new Error('no fetch')))).toBe(req);
  });
  it("passes the fetch's error through (a missing lookup index is ES's 404)", async () => {
    const req = request({ query: { terms: { user: { index: 'nope', id: '1', path: 'p' } } } });
    await expect(resolveTermsLookups(req, () => Promise.reject(indexNotFound('nope')))).rejects.toMatchObject({
      status: 404,
      type: 'index_not_found_exception',
    });
  });
});
