import { describe, expect, it } from 'vitest';
import { EsError } from '../protocol/errors.ts';
import { checkNestedObjectsLimit, inferMappingUpdate, isDynamicDate, mergeMappings } from './dynamic-mapping.ts';
import type { Mapping } from '../protocol/mapping.ts';

const KW = { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } };

describe('inferMappingUpdate', () => {
  it('maps each JSON type as ES does', () => {
    expect(inferMappingUpdate({ properties: {} }, { s: 'hi', d: '2015-01-01', t: '2015-01-01T12:10:30Z', n: 3, f: 1.5, b: true, z: null, e: [] })).toEqual({
      properties: { s: KW, d: { type: 'date' }, t: { type: 'date' }, n: { type: 'long' }, f: { type: 'float' }, b: { type: 'boolean' } },
    });
  });
  it('returns only new fields, null when none', () => {
    const m: Mapping = { properties: { a: { type: 'long' }, o: { type: 'object', properties: { x: { type: 'long' } } } } };
    expect(inferMappingUpdate(m, { a: 1, o: { x: 2 } })).toBeNull();
    expect(inferMappingUpdate(m, { a: 1, o: { x: 2, y: 'q' }, c: [null, 2.5] })).toEqual({
      properties: { o: { type: 'object', properties: { y: KW } }, c: { type: 'float' } },
    });
  });
  it('maps objects, arrays of objects and dotted keys', () => {
    expect(inferMappingUpdate({ properties: {} }, { o: { p: { q: 1 } }, arr: [{ k: 'v' }], 'x.y': true })).toEqual({
      properties: {
        o: { type: 'object', properties: { p: { type: 'object', properties: { q: { type: 'long' } } } } },
        arr: { type: 'object', properties: { k: KW } },
        x: { type: 'object', properties: { y: { type: 'boolean' } } },
      },
    });
  });
  it('adds nothing with dynamic false and throws with strict', () => {
    expect(inferMappingUpdate({ dynamic: false, properties: {} }, { a: 1 })).toBeNull();
    try {
      inferMappingUpdate({ dynamic: 'strict', properties: {} }, { field: 1 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(EsError);
      expect((e as EsError).status).toBe(400);
      expect((e as EsError).type).toBe('strict_dynamic_mapping_exception');
      expect((e as EsError).message).toBe('[1:2] mapping set to strict, dynamic introduction of [field] within [_doc] is not allowed');
    }
    expect(inferMappingUpdate({ dynamic: 'strict', properties: { a: { type: 'long' } } }, { a: 1 })).toBeNull();
  });
  it('date detection', () => {
    expect(isDynamicDate('2015-01-01')).toBe(true);
    expect(isDynamicDate('2015-01-01T12:10:30.123+01:00')).toBe(true);
    expect(isDynamicDate('2015/01/01 12:10:30')).toBe(true);
    expect(isDynamicDate('2015-13-01')).toBe(false);
    expect(isDynamicDate('hello 2015-01-01')).toBe(false);
    expect(isDynamicDate('12')).toBe(false);
  });
});

describe('mergeMappings', () => {
  it('adds new fields recursively without touching inputs', () => {
    const a: Mapping = { properties: { o: { type: 'object', properties: { x: { type: 'long' } } } } };
    const b: Mapping = { properties: { o: { type: 'object', properties: { y: { type: 'boolean' } } }, z: { type: 'date' } } };
    expect(mergeMappings(a, b)).toEqual({
      properties: { o: { type: 'object', properties: { x: { type: 'long' }, y: { type: 'boolean' } } }, z: { type: 'date' } },
    });
    expect(a.properties.o.properties).toEqual({ x: { type: 'long' } });
  });
  it('rejects type changes', () => {
    expect(() =>
      mergeMappings(
        { properties: { o: { type: 'object', properties: { f: { type: 'long' } } } } },
        { properties: { o: { type: 'object', properties: { f: { type: 'text' } } } } },
      ),
    ).toThrow('mapper [o.f] cannot be changed from type [long] to [text]');
  });
});

describe('field names that are Object.prototype members', () => {
  const doc = JSON.parse('{"constructor": "x", "__proto__": {"a": 1}, "toString": 5, "hasOwnProperty": "h", "valueOf": true}') as Record<string, unknown>;

  it('are new fields, mapped as any other', () => {
    const update = inferMappingUpdate({ properties: {} }, doc)!;
    expect(Object.keys(update.properties)).toEqual(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']);
    expect(JSON.stringify(update.properties.__proto__)).toBe('{"type":"object","properties":{"a":{"type":"long"}}}');
    expect(update.properties.constructor).toEqual(KW);
    // once mapped, the same document adds nothing (the names are looked up as own fields)
    const mapped = mergeMappings({ properties: {} }, update);
    expect(Object.hasOwn(mapped.properties, '__proto__')).toBe(true);
    expect(inferMappingUpdate(mapped, doc)).toBeNull();
    const roundTrip = JSON.parse(JSON.stringify(mapped)) as Mapping;
    expect(inferMappingUpdate(roundTrip, doc)).toBeNull();
    expect(JSON.stringify(inferMappingUpdate(roundTrip, JSON.parse('{"__proto__": {"b": "2015-01-01"}}')))).toBe(
      '{"properties":{"__proto__":{"type":"object","properties":{"b":{"type":"date"}}}}}',
    );
  });

  it('are refused under dynamic: strict', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(() => inferMappingUpdate({ dynamic: 'strict', properties: {} }, JSON.parse(`{"${name}": 1}`))).toThrow(
        `mapping set to strict, dynamic introduction of [${name}] within [_doc] is not allowed`,
      );
    }
  });
});

describe('date and numeric detection', () => {
  it('keeps the slash format on a field detected from a yyyy/MM/dd date, as ES', () => {
    expect(inferMappingUpdate({ properties: {} }, { a: '2015/01/01', b: '2015/01/01 12:10:30', c: '2015-01-01' })!.properties).toEqual({
      a: { type: 'date', format: 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis' },
      b: { type: 'date', format: 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis' },
      c: { type: 'date' },
    });
  });
  it('follows date_detection, dynamic_date_formats and numeric_detection', () => {
    expect(inferMappingUpdate({ properties: {}, date_detection: false }, { d: '2015-01-01' })).toEqual({
      properties: { d: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } } },
    });
    expect(inferMappingUpdate({ properties: {}, dynamic_date_formats: ['MM/dd/yyyy'] }, { d: '12/31/2015', e: '2015-01-01' })!.properties).toMatchObject({
      d: { type: 'date', format: 'MM/dd/yyyy' },
      e: { type: 'text' },
    });
    expect(inferMappingUpdate({ properties: {}, numeric_detection: true }, { a: '12', b: '1.5', c: 'x' })!.properties).toMatchObject({
      a: { type: 'long' },
      b: { type: 'float' },
      c: { type: 'text' },
    });
  });
});

describe('index.mapping.nested_objects.limit', () => {
  it('refuses a document with more nested objects than the limit, over every level', () => {
    const m: Mapping = { properties: { n: { type: 'nested', properties: { m: { type: 'nested', properties: {} } } }, o: { type: 'object', properties: {} } } };
    checkNestedObjectsLimit(m, { n: [{ a: 1 }, { a: 2 }], o: [{}, {}, {}] }, 2);
    expect(() => checkNestedObjectsLimit(m, { n: [{ m: [{}, {}] }] }, 2)).toThrow(
      '[1:2] The number of nested documents has exceeded the allowed limit of [2]. This limit can be set by changing the [index.mapping.nested_objects.limit] index level setting.',
    );
  });
});
