// Alias actions applied all or nothing as ES's MetadataIndexAliasesService applies them, and the
// lookups of one alias (write index, single index, routing) with ES's texts.
import { describe, expect, it } from 'vitest';
import type { AliasMetadata, IndexMetadata } from '../../../protocol/metadata.ts';
import { esErr } from '../../../test/support/es-error.ts';
import { applyAliasActions, checkNewIndexAliases, matchAliases, type ResolvedAliasAction } from './alias-actions.ts';
import { aliasIndexRouting, AliasLookup, singleTargetOf, writeTargetOf } from './alias-lookup.ts';
import { catAliasesRows, getAliasesAnswer, missingAliases } from './alias-responses.ts';

function meta(name: string, aliases?: Record<string, AliasMetadata>): IndexMetadata {
  return {
    name,
    uuid: `u-${name}`,
    numberOfShards: 1,
    numberOfReplicas: 0,
    routingNumShards: 1,
    maxResultWindow: 10,
    refreshIntervalMs: 1000,
    mappings: { properties: {} },
    creationDate: 0,
    version: 1,
    ...(aliases ? { aliases } : {}),
  };
}
const state = (...list: IndexMetadata[]) => new Map(list.map((m) => [m.name, m]));
const add = (concrete: string[], alias: string, metadata: AliasMetadata = {}): ResolvedAliasAction => ({
  type: 'add',
  indices: concrete,
  concrete,
  aliases: [alias],
  metadata,
});
const remove = (concrete: string[], aliases: string[], mustExist?: boolean): ResolvedAliasAction => ({
  type: 'remove',
  indices: concrete,
  concrete,
  aliases,
  ...(mustExist !== undefined ? { mustExist } : {}),
});
const noIndex = () => false;

describe('applyAliasActions', () => {
  it('swaps an alias from one index to another in one outcome', () => {
    const out = applyAliasActions([remove(['v1'], ['live']), add(['v2'], 'live')], state(meta('v1', { live: {} }), meta('v2')), noIndex);
    expect(out.put.map((m) => [m.name, m.aliases])).toEqual([
      ['v1', undefined],
      ['v2', { live: {} }],
    ]);
    expect(out.delete).toEqual([]);
    expect(out.results.map((r) => r.status)).toEqual([200, 200]);
  });

  it('deletes remove_index indices first, so an alias may take the removed name', () => {
    const out = applyAliasActions(
      [add(['new'], 'old'), { type: 'remove_index', indices: ['old'], concrete: ['old'], aliases: [] }],
      state(meta('old'), meta('new')),
      (n) => n === 'old',
    );
    expect(out.delete).toEqual(['old']);
    expect(out.put[0].aliases).toEqual({ old: {} });
  });

  it('refuses an alias named like an index, and an action on an index an earlier remove_index deleted', () => {
    expect(esErr(() => applyAliasActions([add(['a'], 'b')], state(meta('a'), meta('b')), noIndex))).toMatchObject({
      type: 'invalid_alias_name_exception',
      message: 'Invalid alias name [b]: an index or data stream exists with the same name as the alias',
    });
    expect(esErr(() => applyAliasActions([add(['a'], 'elsewhere')], state(meta('a')), (n) => n === 'elsewhere')).type).toBe('invalid_alias_name_exception');
    const gone = esErr(() =>
      applyAliasActions([{ type: 'remove_index', indices: ['a'], concrete: ['a'], aliases: [] }, add(['a'], 'x')], state(meta('a')), noIndex),
    );
    expect(gone).toMatchObject({ status: 404, type: 'index_not_found_exception', message: 'no such index [a]' });
  });

  it('reports a remove that found nothing as a 404 result, and fails the whole change with must_exist', () => {
    const out = applyAliasActions([remove(['a'], ['nope']), add(['a'], 'x')], state(meta('a')), noIndex);
    expect(out.results[0]).toEqual({
      action: { type: 'remove', indices: ['a'], aliases: ['nope'] },
      status: 404,
      error: { type: 'aliases_not_found_exception', reason: 'aliases [nope] missing', 'resource.type': 'aliases', 'resource.id': 'nope' },
    });
    expect(esErr(() => applyAliasActions([remove(['a'], ['nope'], true)], state(meta('a')), noIndex))).toMatchObject({
      status: 404,
      type: 'resource_not_found_exception',
      message: 'required alias [nope] does not exist',
    });
  });

  it('removes by pattern with exclusions (Metadata.findAliases)', () => {
    const out = applyAliasActions([remove(['a'], ['l*', '-lx'])], state(meta('a', { l1: {}, l2: {}, lx: {}, k: {} })), noIndex);
    expect(Object.keys(out.put[0].aliases!)).toEqual(['lx', 'k']);
    expect(matchAliases(['_all'], ['a', 'b'])).toEqual(['a', 'b']);
    expect(matchAliases([], ['a'])).toEqual(['a']);
  });

  it("replaces an alias's metadata on add, and changes nothing when it is the same", () => {
    const current = state(meta('a', { x: { index_routing: '1', search_routing: '1' } }));
    expect(applyAliasActions([add(['a'], 'x', { index_routing: '1', search_routing: '1' })], current, noIndex).put).toEqual([]);
    expect(applyAliasActions([add(['a'], 'x', { is_write_index: true })], current, noIndex).put[0].aliases).toEqual({ x: { is_write_index: true } });
  });

  it('checks every alias afterwards: one write index, one is_hidden value (ES texts, 400)', () => {
    const current = state(meta('a', { w: { is_write_index: true } }), meta('b'));
    expect(esErr(() => applyAliasActions([add(['b'], 'w', { is_write_index: true })], current, noIndex))).toMatchObject({
      status: 400,
      type: 'illegal_state_exception',
      message: 'alias [w] has more than one write index [a,b]',
    });
    // moving the write index in one request is fine
    const moved = applyAliasActions([add(['b'], 'w', { is_write_index: true }), add(['a'], 'w', { is_write_index: false })], current, noIndex);
    expect(moved.put.map((m) => m.aliases!.w.is_write_index)).toEqual([false, true]);
    expect(esErr(() => applyAliasActions([add(['b'], 'h', { is_hidden: true })], state(meta('a', { h: {} }), meta('b')), noIndex)).message).toBe(
      'alias [h] has is_hidden set to true on indices [[b/u-b]] but does not have is_hidden set to true on indices [[a/u-a]]; alias must have the same is_hidden setting on all indices',
    );
  });

  it('refuses a filter that is not a query', () => {
    const err = esErr(() => applyAliasActions([add(['a'], 'f', { filter: { nonsense: {} } })], state(meta('a')), noIndex));
    expect(err).toMatchObject({ type: 'illegal_argument_exception', message: 'failed to parse filter for alias [f]' });
    expect(err.causedBy?.type).toBe('parsing_exception');
  });

  it("checks a new index's aliases against existing names", () => {
    expect(
      esErr(() =>
        checkNewIndexAliases(
          'logs',
          {},
          noIndex,
          (n) => n === 'logs',
          () => [],
        ),
      ),
    ).toMatchObject({
      type: 'invalid_index_name_exception',
      message: 'Invalid index name [logs], already exists as alias',
      metadata: { index: 'logs' },
    });
    expect(esErr(() => checkNewIndexAliases('i', { i: {} }, noIndex, noIndex, () => [])).type).toBe('invalid_alias_name_exception');
    expect(
      esErr(() => checkNewIndexAliases('i', { w: { is_write_index: true } }, noIndex, noIndex, () => [meta('j', { w: { is_write_index: true } })])).message,
    ).toBe('alias [w] has more than one write index [i,j]');
  });
});

describe('one alias: write index, single index, routing', () => {
  const lookup = new AliasLookup([
    meta('a', { one: {}, two: {}, off: { is_write_index: false } }),
    meta('b', { two: { is_write_index: true } }),
    meta('c', { three: {} }),
    meta('d', { three: {} }),
  ]);

  it('writes to the only index unless disabled, else to the one marked', () => {
    expect(writeTargetOf('one', lookup.targets('one')!).index.name).toBe('a');
    expect(writeTargetOf('two', lookup.targets('two')!).index.name).toBe('b');
    const text =
      'The write index may be explicitly disabled using is_write_index=false or the alias points to multiple indices without one being designated as a write index';
    expect(esErr(() => writeTargetOf('three', lookup.targets('three')!))).toMatchObject({
      status: 400,
      type: 'illegal_argument_exception',
      message: `no write index is defined for alias [three]. ${text}`,
    });
    expect(esErr(() => writeTargetOf('off', lookup.targets('off')!)).message).toBe(`no write index is defined for alias [off]. ${text}`);
  });

  it('reads one index only', () => {
    expect(singleTargetOf('one', lookup.targets('one')!).index.name).toBe('a');
    expect(esErr(() => singleTargetOf('three', lookup.targets('three')!)).message).toBe(
      "alias [three] has more than one index associated with it [c, d], can't execute a single index op",
    );
  });

  it("routes with the alias's index routing, refusing another", () => {
    expect(aliasIndexRouting('r', { index_routing: 'k' }, undefined)).toBe('k');
    expect(aliasIndexRouting('r', { index_routing: 'k' }, 'k')).toBe('k');
    expect(aliasIndexRouting('r', {}, 'x')).toBe('x');
    expect(esErr(() => aliasIndexRouting('r', { index_routing: 'k' }, 'x')).message).toBe(
      'Alias [r] has index routing associated with it [k], and was provided with routing value [x], rejecting operation',
    );
  });

  it('lists names sorted and targets by index name', () => {
    expect(lookup.names()).toEqual(['off', 'one', 'three', 'two']);
    expect(lookup.targets('two')!.map((t) => t.index.name)).toEqual(['a', 'b']);
    expect(lookup.targets('nope')).toBeUndefined();
  });
});

describe('GET _alias and _cat/aliases', () => {
  const indices = [
    meta('a', { x: {}, y: { filter: { match_all: {} }, index_routing: '1', search_routing: '1,2' } }),
    meta('b'),
    meta('c', { x: { is_write_index: true } }),
  ];

  it('lists every index without names, only the matching ones with names', () => {
    expect(getAliasesAnswer(indices, null)).toEqual({
      status: 200,
      body: { a: { aliases: { x: {}, y: indices[0].aliases!.y } }, b: { aliases: {} }, c: { aliases: { x: { is_write_index: true } } } },
    });
    expect(getAliasesAnswer(indices, ['x'])).toEqual({ status: 200, body: { a: { aliases: { x: {} } }, c: { aliases: { x: { is_write_index: true } } } } });
    expect(getAliasesAnswer(indices, ['_all']).body).toHaveProperty('a');
  });

  it("answers 404 with ES's error string for explicit names no index has", () => {
    expect(getAliasesAnswer(indices, ['x', 'nope'])).toEqual({
      status: 404,
      body: { error: 'alias [nope] missing', status: 404, a: { aliases: { x: {} } }, c: { aliases: { x: { is_write_index: true } } } },
    });
    expect(getAliasesAnswer(indices, ['n1', 'n2']).body).toEqual({ error: 'aliases [n1,n2] missing', status: 404 });
    expect(getAliasesAnswer(indices, ['z*']).status).toBe(200);
    expect(missingAliases(['nope', '*', '-nope'], new Set())).toEqual([]);
  });

  it('shows cat rows sorted, with * for a filter and - for what is unset', () => {
    expect(catAliasesRows(indices, null)).toEqual([
      ['x', 'a', '-', '-', '-', '-'],
      ['x', 'c', '-', '-', '-', 'true'],
      ['y', 'a', '*', '1', '1,2', '-'],
    ]);
  });
});
