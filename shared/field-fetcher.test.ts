import { describe, expect, it } from 'vitest';
import { esErr } from '../test/support/es-error.ts';
import { compileFieldFetch, docvalueFieldCount, fetchableFields, sourceValues, type FieldFetchRequest } from './field-fetcher.ts';
import type { Mapping } from '../protocol/mapping.ts';

const mapping = {
  properties: {
    kw: { type: 'keyword', ignore_above: 5, store: true },
    name: { type: 'text', fields: { raw: { type: 'keyword' } } },
    tf: { type: 'text', fielddata: true },
    n: { type: 'integer', store: true },
    f: { type: 'float' },
    h: { type: 'half_float' },
    s: { type: 'scaled_float', scaling_factor: 10 },
    d: { type: 'date' },
    dfmt: { type: 'date', format: 'yyyy-MM-dd HH:mm:ss||epoch_millis' },
    b: { type: 'boolean' },
    loc: { type: 'geo_point' },
    nv: { type: 'keyword', null_value: 'NULL' },
    nodv: { type: 'keyword', doc_values: false },
    tc: { type: 'token_count', analyzer: 'standard' },
    tcnodv: { type: 'token_count', analyzer: 'standard', doc_values: false },
    obj: { properties: { x: { type: 'long' }, y: { type: 'keyword' } } },
  },
} as unknown as Mapping;

const fields = (req: FieldFetchRequest, source: Record<string, unknown>) =>
  compileFieldFetch(mapping, req, 'idx', (t) => t.toLowerCase().split(/\W+/).filter(Boolean)).fields(source);

describe('mapped fields and source values', () => {
  it('lists leaves and multi-fields with the source path they read', () => {
    const f = fetchableFields(mapping);
    expect(f.get('name.raw')).toMatchObject({ name: 'name.raw', sourcePath: 'name' });
    expect(f.get('obj.x')).toMatchObject({ sourcePath: 'obj.x' });
    expect(f.has('obj')).toBe(false);
  });
  it('reads dotted keys and nested objects alike, flattening arrays; a geo pair stays one value', () => {
    expect(sourceValues({ a: { b: 1 }, 'a.b': [2, [3]] }, 'a.b')).toEqual([1, 2, 3]);
    expect(sourceValues({ a: [{ b: 1 }, { b: null }] }, 'a.b')).toEqual([1, null]);
    expect(
      sourceValues(
        {
          loc: [
            [1, 2],
            [3, 4],
          ],
        },
        'loc',
        true,
      ),
    ).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(sourceValues({ x: 1 }, 'y')).toEqual([]);
  });
});

describe('fields (the fields API)', () => {
  it('prints values by the mapping: ignore_above, integers, float precision, scaled_float, booleans, multi-fields', () => {
    const out = fields(
      { fields: [{ field: '*' }] },
      { kw: ['a', 'toolong'], name: 'Hello', n: 42.7, f: 3.14, h: 1.1, s: 1.26, b: 'false', obj: { x: '12', y: 'why' } },
    );
    expect(out).toEqual({
      kw: ['a'],
      name: ['Hello'],
      'name.raw': ['Hello'],
      n: [42],
      f: [3.14],
      h: [1.0996094],
      s: [1.3],
      b: [false],
      'obj.x': [12],
      'obj.y': ['why'],
    });
  });
  it('prints dates in the field format or the requested one, and skips values the field cannot parse', () => {
    expect(fields({ fields: [{ field: 'd' }, { field: 'dfmt' }] }, { d: ['2015-01-01', 'bad'], dfmt: '2020-01-02 03:04:05' })).toEqual({
      d: ['2015-01-01T00:00:00.000Z'],
      dfmt: ['2020-01-02 03:04:05'],
    });
    expect(fields({ fields: [{ field: 'd', format: 'yyyy/MM/dd' }] }, { d: 662509800000 })).toEqual({ d: ['1990/12/29'] });
    expect(fields({ fields: [{ field: 'n' }] }, { n: 'not a number' })).toBeUndefined();
  });
  it('prints geo_point as GeoJSON, or WKT when asked', () => {
    expect(fields({ fields: [{ field: 'loc' }] }, { loc: { lat: 41.1, lon: -71.3 } })).toEqual({ loc: [{ type: 'Point', coordinates: [-71.3, 41.1] }] });
    expect(fields({ fields: [{ field: 'loc', format: 'wkt' }] }, { loc: '41.1,-71.3' })).toEqual({ loc: ['POINT (-71.3 41.1)'] });
  });
  it('uses null_value for a null, and returns nothing (undefined) when no field has a value', () => {
    expect(fields({ fields: [{ field: 'nv' }] }, { nv: null })).toEqual({ nv: ['NULL'] });
    expect(fields({ fields: [{ field: 'kw' }, { field: 'missing' }] }, { other: 1 })).toBeUndefined();
  });
  it('include_unmapped returns the raw source leaves no mapped field covers', () => {
    expect(fields({ fields: [{ field: 'u*', includeUnmapped: true }] }, { u1: 'x', u2: { deep: [1, 2] }, kw: 'a' })).toEqual({ u1: ['x'], 'u2.deep': [1, 2] });
    expect(fields({ fields: [{ field: 'u*' }] }, { u1: 'x' })).toBeUndefined();
  });
  it('shows token_count values as token counts, none without doc values', () => {
    expect(fields({ fields: [{ field: 'tc' }, { field: 'tcnodv' }], docvalueFields: [{ field: 'tc' }] }, { tc: 'some text', tcnodv: 'a b c' })).toEqual({
      tc: [2],
    });
    expect(fields({ docvalueFields: [{ field: 'tc' }] }, { tc: ['one two three', 'x'] })).toEqual({ tc: [1, 3] });
  });
  it('refuses a format on a field that takes none (ES text)', () => {
    const e = esErr(() => fields({ fields: [{ field: 'kw', format: 'yyyy' }] }, {}));
    expect([e.status, e.type, e.message]).toEqual([400, 'illegal_argument_exception', "Field [kw] of type [keyword] doesn't support formats."]);
    expect(() => fields({ fields: [{ field: 'n', format: '#.0' }] }, {})).toThrow("Field [n] of type [integer] doesn't support formats.");
    const bad = esErr(() => fields({ fields: [{ field: 'd', format: 'yyyy-bb' }] }, {}));
    expect([bad.status, bad.type, bad.message]).toEqual([400, 'illegal_argument_exception', 'Invalid format: [yyyy-bb]: Unknown pattern letter: b']);
  });
});

describe('docvalue_fields', () => {
  it('reads doc values: keywords sorted without repeats, numbers sorted as indexed, floats widened', () => {
    const out = fields(
      { docvalueFields: [{ field: 'kw' }, { field: 'n' }, { field: 'f' }, { field: 'b' }] },
      { kw: ['b', 'a', 'b', 'toolong'], n: [3, 1, 3], f: 3.14, b: [true, false] },
    );
    expect(out).toEqual({ kw: ['a', 'b'], n: [1, 3, 3], f: [Math.fround(3.14)], b: [false, true] });
  });
  it('prints with a DecimalFormat pattern or a date format; dates default to the field format', () => {
    const src = { n: 1, d: '2015-01-01T00:00:00Z' };
    expect(
      fields(
        {
          docvalueFields: [
            { field: 'n', format: '#.0' },
            { field: 'd', format: 'epoch_millis' },
          ],
        },
        src,
      ),
    ).toEqual({ n: ['1.0'], d: ['1420070400000'] });
    expect(fields({ docvalueFields: [{ field: 'd' }] }, src)).toEqual({ d: ['2015-01-01T00:00:00.000Z'] });
  });
  it('reads analyzed terms of a text field with fielddata; refuses one without (ES 8 text) and fields without doc values', () => {
    expect(fields({ docvalueFields: [{ field: 'tf' }] }, { tf: 'Quick brown quick' })).toEqual({ tf: ['brown', 'quick'] });
    const e = esErr(() => fields({ docvalueFields: [{ field: 'name' }] }, {}));
    expect(e.message).toBe(
      'Fielddata is disabled on [name] in [idx]. Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [name] in order to load field data by uninverting the inverted index. Note that this can use significant memory.',
    );
    expect(() => fields({ docvalueFields: [{ field: 'nodv' }] }, {})).toThrow(
      "Can't load fielddata on [nodv] because fielddata is unsupported on fields of type [keyword]. Use doc values instead.",
    );
  });
  it('counts fields as index.max_docvalue_fields_search does: patterns expanded, plain names once', () => {
    expect(docvalueFieldCount(mapping, [{ field: 'one' }, { field: 'two' }, { field: 'two' }, { field: 'obj.*' }])).toBe(4);
  });
});

describe('stored_fields', () => {
  it('returns only fields mapped with store: true, in source order', () => {
    expect(fields({ storedFields: ['kw', 'n', 'f'] }, { kw: ['b', 'a'], n: 7, f: 1 })).toEqual({ kw: ['b', 'a'], n: [7] });
    expect(fields({ storedFields: ['*'] }, { kw: 'x', n: 1, name: 'y' })).toEqual({ kw: ['x'], n: [1] });
  });
});
