// The alias APIs' request bodies read as ES's IndicesAliasesRequest, RestIndexPutAliasAction and
// Alias.fromXContent read them, with ES's texts for what they refuse.
import { describe, expect, it } from 'vitest';
import { esErr } from '../../../test/support/es-error.ts';
import { deleteAliasAction, parseAliasesBody, parseCreateIndexAliases, parsePutAliasBody, validateAlias } from './alias-requests.ts';

describe('POST /_aliases body', () => {
  it('reads add, remove and remove_index with their single and list forms', () => {
    const actions = parseAliasesBody({
      actions: [
        { add: { index: 'v2', alias: 'live', routing: 1, is_write_index: true, filter: { term: { a: 'b' } } } },
        { remove: { indices: ['v1', 'v0'], aliases: ['live', 'old*'], must_exist: true } },
        { remove_index: { index: 'tmp' } },
      ],
    });
    expect(actions).toEqual([
      {
        type: 'add',
        indices: ['v2'],
        aliases: ['live'],
        metadata: { filter: { term: { a: 'b' } }, index_routing: '1', search_routing: '1', is_write_index: true },
      },
      { type: 'remove', indices: ['v1', 'v0'], aliases: ['live', 'old*'], mustExist: true },
      { type: 'remove_index', indices: ['tmp'], aliases: [] },
    ]);
  });

  it("lets index_routing and search_routing override routing, in any of ES's spellings", () => {
    const [a] = parseAliasesBody({ actions: [{ add: { index: 'i', alias: 'a', routing: 'r', indexRouting: 'x', 'search-routing': 'y,z' } }] });
    expect(a.metadata).toEqual({ index_routing: 'x', search_routing: 'y,z' });
  });

  it("refuses missing parts with ES's validate() texts, as the root cause of the parse chain", () => {
    const err = esErr(() => parseAliasesBody({ actions: [{ add: { alias: 'a' } }] }));
    expect(err).toMatchObject({ status: 400, type: 'x_content_parse_exception', message: '[1:1] [aliases] failed to parse field [actions]' });
    expect(err.toBody().error.root_cause).toEqual([{ type: 'illegal_argument_exception', reason: 'One of [index] or [indices] is required' }]);
    expect(err.causedBy).toMatchObject({
      type: 'x_content_parse_exception',
      reason: '[1:1] [alias_action] failed to parse field [add]',
      caused_by: { reason: 'One of [index] or [indices] is required' },
    });
    expect(esErr(() => parseAliasesBody({ actions: [{ remove: { index: 'i' } }] })).toBody().error.root_cause[0].reason).toBe(
      'One of [alias] or [aliases] is required',
    );
    expect(esErr(() => parseAliasesBody({ actions: [{ remove_index: { index: 'i', alias: 'a' } }] })).toBody().error.root_cause[0].reason).toBe(
      '[alias] is unsupported for [REMOVE_INDEX]',
    );
    expect(esErr(() => parseAliasesBody({ actions: [{ add: { index: 'i', indices: ['j'], alias: 'a' } }] })).toBody().error.root_cause[0].reason).toBe(
      'Only one of [index] and [indices] is supported',
    );
  });

  it('refuses unknown fields and actions, several actions in one entry, and no actions', () => {
    expect(esErr(() => parseAliasesBody({ actions: [{ add: { index: 'i', alias: 'a', must_exist: true } }] })).toBody().error.root_cause[0].reason).toBe(
      '[1:1] [add] unknown field [must_exist]',
    );
    expect(esErr(() => parseAliasesBody({ actions: [{ rename: {} }] })).toBody().error.root_cause[0].reason).toBe(
      '[1:1] [alias_action] unknown field [rename]',
    );
    expect(
      esErr(() => parseAliasesBody({ actions: [{ add: { index: 'i', alias: 'a' }, remove: { index: 'i', alias: 'a' } }] })).toBody().error.root_cause[0].reason,
    ).toBe('Too many operations declared on operation entry');
    expect(esErr(() => parseAliasesBody({ acts: [] })).message).toBe('[1:1] [aliases] unknown field [acts]');
    expect(esErr(() => parseAliasesBody({ actions: [] })).message).toBe('Validation Failed: 1: Must specify at least one alias action;');
    expect(esErr(() => parseAliasesBody(undefined))).toMatchObject({ type: 'parse_exception', message: 'request body is required' });
  });
});

describe('PUT /{index}/_alias/{name} body', () => {
  it("takes the path, then the body's fields, ignoring others as ES does", () => {
    expect(parsePutAliasBody('a,b', 'x', undefined)).toEqual({ type: 'add', indices: ['a', 'b'], aliases: ['x'], metadata: {} });
    expect(parsePutAliasBody('a', 'x', { routing: 3, is_hidden: 'true', filter: { match_all: {} }, other: [1] })).toEqual({
      type: 'add',
      indices: ['a'],
      aliases: ['x'],
      metadata: { filter: { match_all: {} }, index_routing: '3', search_routing: '3', is_hidden: true },
    });
    expect(parsePutAliasBody('a', 'x', { index: 'c', alias: 'y' })).toMatchObject({ indices: ['c'], aliases: ['y'] });
  });

  it('reads DELETE /{index}/_alias/{name} as one remove of comma lists', () => {
    expect(deleteAliasAction('a,b', 'x,y*')).toEqual({ type: 'remove', indices: ['a', 'b'], aliases: ['x', 'y*'] });
  });
});

describe('create-index aliases', () => {
  it('reads each alias as Alias.fromXContent, checking names', () => {
    expect(parseCreateIndexAliases({ a: {}, b: { routing: 'r' }, c: { filter: { term: { f: 'v' } }, is_write_index: false } })).toEqual({
      a: {},
      b: { index_routing: 'r', search_routing: 'r' },
      c: { filter: { term: { f: 'v' } }, is_write_index: false },
    });
    expect(esErr(() => parseCreateIndexAliases({ a: { routing: 1 } })).message).toBe('Unknown token [VALUE_NUMBER] in alias [a]');
    expect(esErr(() => parseCreateIndexAliases({ a: { color: 'red' } })).message).toBe('Unsupported String type value [red] for field [color] in alias [a]');
    expect(esErr(() => parseCreateIndexAliases({ _a: {} }))).toMatchObject({
      type: 'invalid_alias_name_exception',
      message: "Invalid alias name [_a]: must not start with '_', '-', or '+'",
    });
  });

  it("validates alias names as ES's AliasValidator: any case, no wildcards, one index routing", () => {
    expect(() => validateAlias('MyAlias', {})).not.toThrow();
    expect(esErr(() => validateAlias('a*', {})).type).toBe('invalid_alias_name_exception');
    expect(esErr(() => validateAlias('', {})).message).toBe('alias name is required');
    expect(esErr(() => validateAlias('a', { index_routing: '1,2' })).message).toBe('alias [a] has several index routing values associated with it');
  });
});
