import { describe, expect, it } from 'vitest';
import type { Mapping } from '../../protocol/mapping.ts';
import { parseSearchRequest } from '../rest/search-request.ts';
import { fetchesHits, fetchOptionsCause, hitFetchOptions, maxDocvalueFieldsSearch } from './fetch-options.ts';

const req = (body: unknown, qs = '') => parseSearchRequest(new URLSearchParams(qs), body, '/i/_search');
const mappings: Mapping = { properties: { t: { type: 'text' }, k: { type: 'keyword' }, n: { type: 'long' } } };
const index = (settings?: Record<string, string>) => ({ name: 'i', mappings, ...(settings ? { settings } : {}) });

describe('fetch options of a search', () => {
  it('are undefined for a plain search, so hits cost nothing more', () => {
    expect(hitFetchOptions(req({}))).toBeUndefined();
    expect(fetchesHits(req({ _source: false }))).toBe(false);
  });
  it('collect version, seq_no_primary_term, fields, docvalue_fields, stored_fields (metadata names dropped) and _none_', () => {
    expect(
      hitFetchOptions(req({ version: true, seq_no_primary_term: true, fields: ['k'], docvalue_fields: ['n'], stored_fields: ['k', '_source', '_routing'] })),
    ).toEqual({
      version: true,
      seqNoPrimaryTerm: true,
      fields: [{ field: 'k' }],
      docvalueFields: [{ field: 'n' }],
      storedFields: ['k'],
    });
    expect(hitFetchOptions(req({ stored_fields: '_none_' }))).toEqual({ noMetadata: true });
    expect(fetchesHits(req({ _source: false, version: true }))).toBe(true);
  });
});

describe('per-index checks', () => {
  it('bound docvalue_fields by index.max_docvalue_fields_search (default 100) with ES text', () => {
    const many = Array.from({ length: 101 }, (_, i) => `f${i}`);
    expect(fetchOptionsCause(req({ docvalue_fields: many.slice(0, 100) }), index())).toBeNull();
    expect(fetchOptionsCause(req({ docvalue_fields: many }), index())).toEqual({
      type: 'illegal_argument_exception',
      reason:
        'Trying to retrieve too many docvalue_fields. Must be less than or equal to: [100] but was [101]. This limit can be set by changing the [index.max_docvalue_fields_search] index level setting.',
    });
    expect(maxDocvalueFieldsSearch(index({ 'index.max_docvalue_fields_search': '2' }))).toBe(2);
    expect(fetchOptionsCause(req({ docvalue_fields: ['one', 'two', 'three'] }), index({ 'index.max_docvalue_fields_search': '2' }))?.reason).toMatch(
      /^Trying to retrieve too many docvalue_fields\. Must be less than or equal to: \[2\] but was \[3\]/,
    );
  });
  it('refuse fields when the mapping disables _source (ES text)', () => {
    const noSource = { name: 'i', mappings: { ...mappings, _source: { enabled: false } } as Mapping };
    expect(fetchOptionsCause(req({ fields: ['k'] }), noSource)).toEqual({
      type: 'illegal_argument_exception',
      reason: 'Unable to retrieve the requested [fields] since _source is disabled in the mappings for index [i]',
    });
    expect(fetchOptionsCause(req({ docvalue_fields: ['k'] }), noSource)).toBeNull();
  });
  it('refuse docvalue_fields on text and formats a field does not take', () => {
    expect(fetchOptionsCause(req({ docvalue_fields: ['t'] }), index())?.reason).toMatch(/^Fielddata is disabled on \[t\] in \[i\]\./);
    expect(fetchOptionsCause(req({ fields: [{ field: 'k', format: 'x' }] }), index())?.reason).toBe("Field [k] of type [keyword] doesn't support formats.");
    expect(fetchOptionsCause(req({ fields: ['t', 'nope'], docvalue_fields: ['k', { field: 'n', format: '#.0' }] }), index())).toBeNull();
  });
});
