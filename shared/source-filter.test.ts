import { describe, expect, it } from 'vitest';
import { filterSource } from './source-filter.ts';

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
  it('matches * across dots and keeps . literal', () => {
    expect(filterSource({ ab: { c: 1 }, axb: 2, 'a.b': 3 }, { includes: ['a.b'], excludes: [] })).toEqual({ 'a.b': 3 });
    expect(filterSource({ geo: { lat: 1, lon: 2 }, g: 3 }, { includes: ['g*t'], excludes: [] })).toEqual({ geo: { lat: 1 } });
  });
  it('keeps fields named like Object.prototype members as fields', () => {
    const src = JSON.parse('{"__proto__": {"a": 1, "b": 2}, "constructor": "x", "toString": 5}') as Record<string, unknown>;
    expect(JSON.stringify(filterSource(src, { includes: ['__proto__.a', 'constructor'], excludes: [] }))).toBe('{"__proto__":{"a":1},"constructor":"x"}');
    expect(JSON.stringify(filterSource(src, { includes: [], excludes: ['toString'] }))).toBe('{"__proto__":{"a":1,"b":2},"constructor":"x"}');
    expect(filterSource({ a: 1 }, { includes: ['constructor'], excludes: [] })).toEqual({});
  });
  it('stays fast on adversarial patterns and deep paths', () => {
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 200; i++) at = at['aaaaaaaa'] = {};
    at.b = 1;
    const t0 = performance.now();
    filterSource(deep, { includes: ['*a*a*a*a*a*a*a*a*a*a*a*a*c', 'a*a*a*a*a*a*a*a*a*a*a*.x'], excludes: ['*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b.z'] });
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});
