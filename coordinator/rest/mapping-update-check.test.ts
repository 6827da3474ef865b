// A mapping update checked against the current mapping, with ES's texts.
import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import { mergeMappings } from '../../shared/dynamic-mapping.ts';
import { parseMapping } from './mapping-parse.ts';
import { checkMappingUpdate } from './mapping-update-check.ts';

function fail(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    if (e instanceof EsError) return e;
    throw e;
  }
  throw new Error('expected an EsError');
}

describe('checkMappingUpdate', () => {
  const current = parseMapping({ properties: { o: { properties: { x: { type: 'long' } } }, n: { type: 'long' }, k: { type: 'keyword', index: false } } });
  it('refuses object <-> leaf changes and type changes', () => {
    expect(fail(() => checkMappingUpdate(current, parseMapping({ properties: { o: { type: 'keyword' } } }))).message).toBe(
      "can't merge a non object mapping [o] with an object mapping",
    );
    expect(fail(() => checkMappingUpdate(current, parseMapping({ properties: { n: { properties: { a: { type: 'long' } } } } }))).message).toBe(
      'mapper [n] cannot be changed from type [long] to [object]',
    );
    expect(fail(() => checkMappingUpdate(current, parseMapping({ properties: { n: { type: 'keyword' } } }))).message).toBe(
      'mapper [n] cannot be changed from type [long] to [keyword]',
    );
    expect(fail(() => checkMappingUpdate(current, parseMapping({ properties: { o: { type: 'nested' } } }))).message).toBe(
      "object mapping [o] can't be changed from non-nested to nested",
    );
  });
  it('refuses changes of non-updateable parameters, allows updateable ones', () => {
    expect(fail(() => checkMappingUpdate(current, parseMapping({ properties: { k: { type: 'keyword' } } }))).message).toBe(
      'Mapper for [k] conflicts with existing mapper:\n\tCannot update parameter [index] from [false] to [true]',
    );
    const update = parseMapping({ properties: { k: { type: 'keyword', index: false, ignore_above: 5 }, o: { properties: { y: { type: 'text' } } } } });
    checkMappingUpdate(current, update);
    const merged = mergeMappings(current, update);
    expect(merged.properties.k).toEqual({ type: 'keyword', index: false, ignore_above: 5 });
    expect(Object.keys(merged.properties.o.properties!)).toEqual(['x', 'y']);
  });
});
