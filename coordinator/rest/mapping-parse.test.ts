import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import { javaString, parseMapping, refuseTypedCreateMapping } from './mapping-parse.ts';

function fail(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    if (e instanceof EsError) return e;
    throw e;
  }
  throw new Error('expected an EsError');
}

describe('parseMapping', () => {
  it('accepts the field types and their parameters', () => {
    const m = parseMapping({
      dynamic: 'strict',
      _source: { enabled: true },
      properties: {
        t: { type: 'text', analyzer: 'standard', fields: { raw: { type: 'keyword', ignore_above: '10' } } },
        d: { type: 'date', format: 'yyyy/MM/dd||epoch_millis' },
        s: { type: 'scaled_float', scaling_factor: 10 },
        ip: { type: 'ip' },
        o: { properties: { a: { type: 'long', index: 'false' } } },
        g: { type: 'geo_shape', anything: 1 },
      },
    });
    expect(m.dynamic).toBe('strict');
    expect(m.properties.t.fields!.raw.ignore_above).toBe(10);
    expect(m.properties.o).toEqual({ type: 'object', properties: { a: { type: 'long', index: false } } });
    expect(m.properties.g).toEqual({ type: 'geo_shape', anything: 1 });
  });
  it('expands dotted field names into objects', () => {
    expect(parseMapping({ properties: { 'a.b': { type: 'keyword' }, a: { properties: { c: { type: 'long' } } } } }).properties.a).toEqual({
      type: 'object',
      properties: { b: { type: 'keyword' }, c: { type: 'long' } },
    });
  });
  it('refuses an unknown type with ES text', () => {
    const e = fail(() => parseMapping({ properties: { bar: { type: 'foo' } } }));
    expect(e.toBody()).toEqual({
      error: {
        root_cause: [{ type: 'mapper_parsing_exception', reason: 'No handler for type [foo] declared on field [bar]' }],
        type: 'mapper_parsing_exception',
        reason: 'Failed to parse mapping: No handler for type [foo] declared on field [bar]',
        caused_by: { type: 'mapper_parsing_exception', reason: 'No handler for type [foo] declared on field [bar]' },
      },
      status: 400,
    });
  });
  it('refuses unknown parameters, bad values and missing scaling_factor', () => {
    expect(fail(() => parseMapping({ properties: { f: { type: 'keyword', x: 1 } } })).message).toBe(
      'Failed to parse mapping: unknown parameter [x] on mapper [f] of type [keyword]',
    );
    const above = fail(() => parseMapping({ properties: { f: { type: 'keyword', ignore_above: -1 } } }));
    expect(above.message).toBe('Failed to parse mapping: [ignore_above] must be positive, got [-1]');
    expect(above.causedBy).toEqual({ type: 'illegal_argument_exception', reason: '[ignore_above] must be positive, got [-1]' });
    expect(fail(() => parseMapping({ properties: { f: { type: 'keyword', ignore_above: 'x' } } })).causedBy).toEqual({
      type: 'number_format_exception',
      reason: 'For input string: "x"',
    });
    expect(fail(() => parseMapping({ properties: { f: { type: 'scaled_float' } } })).message).toBe(
      'Failed to parse mapping: Field [scaling_factor] is required',
    );
    expect(fail(() => parseMapping({ properties: { f: { type: 'long', index: 'yes' } } })).message).toBe(
      'Failed to parse mapping: Failed to parse value [yes] as only [true] or [false] are allowed.',
    );
    expect(fail(() => parseMapping({ properties: { f: { type: 'date', format: 'yyyy-qq' } } })).message).toBe(
      'Failed to parse mapping: Invalid format: [yyyy-qq]: Unknown pattern letter: q',
    );
    expect(fail(() => parseMapping({ properties: { f: { index: true } } })).message).toBe('Failed to parse mapping: No type specified for field [f]');
    expect(fail(() => parseMapping({ properties: { o: { type: 'object', foo: 'bar' } } })).message).toBe(
      'Failed to parse mapping: Mapping definition for [o] has unsupported parameters:  [foo : bar]',
    );
  });
  it('refuses empty and dots-only field names', () => {
    const e = fail(() => parseMapping({ properties: { '': { type: 'keyword' } } }));
    expect(e.message).toBe('Failed to parse mapping: field name cannot be an empty string');
    expect(e.causedBy).toEqual({ type: 'illegal_argument_exception', reason: 'field name cannot be an empty string' });
    expect(fail(() => parseMapping({ properties: { '...': { type: 'keyword' } } })).message).toBe(
      'Failed to parse mapping: field name cannot contain only dots',
    );
  });
  it('checks the root: dynamic, metadata fields, unknown keys', () => {
    const d = fail(() => parseMapping({ dynamic: 'sometimes' }));
    expect(d.message).toBe('Failed to parse mapping: Could not convert [dynamic.dynamic] to boolean');
    expect(d.causedBy!.caused_by).toEqual({
      type: 'illegal_argument_exception',
      reason: 'Failed to parse value [sometimes] as only [true] or [false] are allowed.',
    });
    expect(fail(() => parseMapping({ _id: { enabled: true } })).message).toBe('Failed to parse mapping: _id is not configurable');
    expect(fail(() => parseMapping({ _source: { foo: 1 } })).message).toBe('Failed to parse mapping: unknown parameter [foo] on metadata field [_source]');
    expect(fail(() => parseMapping({ foo: { a: [1, 2] } })).message).toBe(
      'Failed to parse mapping: Root mapping definition has unsupported parameters:  [foo : {a=[1, 2]}]',
    );
    expect(fail(() => parseMapping({ properties: { _source: { type: 'keyword' } } })).message).toBe('Field [_source] is defined more than once');
  });
  it('refuses a typed create-index mapping', () => {
    expect(fail(() => refuseTypedCreateMapping({ _doc: { properties: {} } })).message).toBe(
      'The mapping definition cannot be nested under a type [_doc] unless include_type_name is set to true.',
    );
    refuseTypedCreateMapping({ properties: {} });
  });
  it('prints values as Java does', () => {
    expect(javaString({ a: [1, 'x'], b: null })).toBe('{a=[1, x], b=null}');
  });
});
