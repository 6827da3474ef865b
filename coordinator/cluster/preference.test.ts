import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import { javaParseInt, parsePreference } from './preference.ts';
import { hashRouting } from './routing.ts';

/** The ES error `parsePreference(text)` throws, as `{status, type, reason}`. */
function errorOf(text: string): { status: number; type: string; reason: string } {
  try {
    parsePreference(text);
  } catch (err) {
    if (err instanceof EsError) return { status: err.status, type: err.type, reason: err.message };
    throw err;
  }
  throw new Error(`no error for [${text}]`);
}

describe('parsePreference (ES Preference.parse, OperationRouting.preferenceActiveShardIterator)', () => {
  it('has no preference for an absent or empty value', () => {
    expect(parsePreference(null)).toBeNull();
    expect(parsePreference(undefined)).toBeNull();
    expect(parsePreference('')).toBeNull();
  });

  it('reads a string not starting with _ as a custom preference hashed with ES Murmur3', () => {
    expect(parsePreference('user-42')).toEqual({ shards: null, copies: { kind: 'custom', hash: hashRouting('user-42') } });
    expect(parsePreference('a_b:c')).toEqual({ shards: null, copies: { kind: 'custom', hash: hashRouting('a_b:c') } });
  });

  it('reads _local (the normal order on a node without copies), _only_local and its camelCase alias', () => {
    expect(parsePreference('_local')).toEqual({ shards: null, copies: { kind: 'default' } });
    expect(parsePreference('_only_local')).toEqual({ shards: null, copies: { kind: 'only_local' } });
    expect(parsePreference('_onlyLocal')).toEqual({ shards: null, copies: { kind: 'only_local' } });
  });

  it('reads node lists: _prefer_nodes split on every comma, _only_nodes as Java split (trailing empties dropped)', () => {
    expect(parsePreference('_prefer_nodes:a,b')).toEqual({ shards: null, copies: { kind: 'prefer_nodes', ids: ['a', 'b'] } });
    expect(parsePreference('_only_nodes:shard-*,10.0.0.1,')).toEqual({ shards: null, copies: { kind: 'only_nodes', specs: ['shard-*', '10.0.0.1'] } });
    expect(parsePreference('_only_nodes:')).toEqual({ shards: null, copies: { kind: 'only_nodes', specs: [''] } });
  });

  it('reads _shards alone, and followed by | and another preference', () => {
    expect(parsePreference('_shards:0,2')).toEqual({ shards: new Set([0, 2]), copies: { kind: 'default' } });
    expect(parsePreference('_shards:1,,3|')).toEqual({ shards: new Set([1, 3]), copies: { kind: 'default' } });
    expect(parsePreference('_shards:1|_only_local')).toEqual({ shards: new Set([1]), copies: { kind: 'only_local' } });
    expect(parsePreference('_shards:0|custom')).toEqual({ shards: new Set([0]), copies: { kind: 'custom', hash: hashRouting('custom') } });
    expect(parsePreference('_shards:')).toEqual({ shards: new Set(), copies: { kind: 'default' } });
  });

  it("refuses an unknown _ preference with ES's 400 texts", () => {
    expect(errorOf('_xxx')).toEqual({ status: 400, type: 'illegal_argument_exception', reason: 'no Preference for [_xxx]' });
    expect(errorOf('_primary')).toEqual({ status: 400, type: 'illegal_argument_exception', reason: 'no Preference for [_primary]' });
    expect(errorOf('_nodes:a:b')).toEqual({ status: 400, type: 'illegal_argument_exception', reason: 'no Preference for [_nodes]' });
    expect(errorOf('_shards|x')).toEqual({ status: 400, type: 'illegal_argument_exception', reason: 'no Preference for [_shards|x]' });
    expect(errorOf('_shards:0|_bad')).toEqual({ status: 400, type: 'illegal_argument_exception', reason: 'no Preference for [_bad]' });
    expect(errorOf('_shards:0|_shards:1')).toEqual({ status: 400, type: 'illegal_argument_exception', reason: 'unknown preference [SHARDS]' });
  });

  it('refuses a shard number that is not a Java int', () => {
    expect(errorOf('_shards:0,x')).toEqual({ status: 400, type: 'number_format_exception', reason: 'For input string: "x"' });
    expect(errorOf('_shards: 1')).toEqual({ status: 400, type: 'number_format_exception', reason: 'For input string: " 1"' });
    expect(errorOf('_shards:2147483648')).toEqual({ status: 400, type: 'number_format_exception', reason: 'For input string: "2147483648"' });
  });

  it('answers a type written without its colon with the Java substring error, as a 400', () => {
    expect(errorOf('_shards')).toEqual({ status: 400, type: 'string_index_out_of_bounds_exception', reason: 'begin 8, end 7, length 7' });
    expect(errorOf('_only_nodes')).toEqual({ status: 400, type: 'string_index_out_of_bounds_exception', reason: 'begin 12, end 11, length 11' });
  });

  it('parses ints as Java Integer.parseInt', () => {
    expect(javaParseInt('+3')).toBe(3);
    expect(javaParseInt('-2147483648')).toBe(-(2 ** 31));
    expect(() => javaParseInt('')).toThrow('For input string: ""');
    expect(() => javaParseInt('1.0')).toThrow('For input string: "1.0"');
  });
});
