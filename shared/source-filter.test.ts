import { describe, expect, it } from 'vitest';
import { filterSource, globMatch } from './source-filter.ts';

const doc = { name: 'Paris', geo: { lat: 48.8, lon: 2.3 }, tags: [{ k: 'a', v: 1 }, { k: 'b' }], pop: 2_000_000 };

describe('filterSource', () => {
  it('passes through true and drops false', () => {
    expect(filterSource(doc, true)).toBe(doc);
    expect(filterSource(doc, false)).toBeUndefined();
  });
  it('includes exact paths and whole subtrees', () => {
    expect(filterSource(doc, { includes: ['name', 'geo'], excludes: [] })).toEqual({ name: 'Paris', geo: { lat: 48.8, lon: 2.3 } });
  });
  it('supports wildcards across dotted paths', () => {
    expect(filterSource(doc, { includes: ['geo.l*'], excludes: [] })).toEqual({ geo: { lat: 48.8, lon: 2.3 } });
    expect(filterSource(doc, { includes: ['*.lat'], excludes: [] })).toEqual({ geo: { lat: 48.8 } });
    expect(filterSource(doc, { includes: ['p*'], excludes: [] })).toEqual({ pop: 2_000_000 });
  });
  it('applies excludes after includes', () => {
    expect(filterSource(doc, { includes: ['geo'], excludes: ['geo.lon'] })).toEqual({ geo: { lat: 48.8 } });
    expect(filterSource(doc, { includes: [], excludes: ['geo', 'tags'] })).toEqual({ name: 'Paris', pop: 2_000_000 });
  });
  it('filters objects inside arrays', () => {
    expect(filterSource(doc, { includes: ['tags.v'], excludes: [] })).toEqual({ tags: [{ v: 1 }] });
  });
  it('returns an empty object when nothing matches', () => {
    expect(filterSource(doc, { includes: ['nope'], excludes: [] })).toEqual({});
  });
  it('globMatch', () => {
    expect(globMatch('a*c', 'abbc')).toBe(true);
    expect(globMatch('a*c', 'abbd')).toBe(false);
    expect(globMatch('a.b', 'axb')).toBe(false);
  });
});
