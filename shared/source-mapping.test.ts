import { describe, expect, it } from 'vitest';
import type { Mapping } from '../protocol/mapping.ts';
import { sourceDisabled, storedSourceFilter, visibleSource, visibleSourceText } from './source-mapping.ts';

describe('the _source mapping', () => {
  it('shows the whole source (the same text, unparsed) without a _source mapping', () => {
    const m: Mapping = { properties: {} };
    const text = '{"a": 1.10, "b":2}';
    expect(storedSourceFilter(m)).toBe(true);
    expect(visibleSourceText(text, m)).toBe(text);
  });
  it('shows nothing when disabled (enabled false, its string, or mode disabled)', () => {
    for (const _source of [{ enabled: false }, { enabled: 'false' }, { mode: 'disabled' }] as Mapping['_source'][]) {
      const m: Mapping = { _source, properties: {} };
      expect(sourceDisabled(m)).toBe(true);
      expect(visibleSourceText('{"a":1}', m)).toBeUndefined();
      expect(visibleSource({ a: 1 }, m)).toEqual({});
    }
  });
  it('filters by includes and excludes, keeping exact numbers', () => {
    const m: Mapping = { _source: { includes: ['a*', 'o.*'], excludes: ['a2', 'o.secret'] }, properties: {} };
    expect(visibleSourceText('{"a1":1.10,"a2":2,"b":3,"o":{"p":1,"secret":2}}', m)).toBe('{"a1":1.10,"o":{"p":1}}');
    expect(visibleSource({ a1: 1, b: 2 }, m)).toEqual({ a1: 1 });
    expect(storedSourceFilter({ _source: { enabled: true, includes: [] }, properties: {} })).toBe(true);
  });
});
