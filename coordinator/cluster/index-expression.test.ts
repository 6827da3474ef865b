// ES's IndexNameExpressionResolver under IndicesOptions: wildcards and exclusions, hidden and closed
// indices, ignore_unavailable, allow_no_indices, expand_wildcards, and ES's not-found and closed shapes.
import { describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { esErr } from '../../test/support/es-error.ts';
import { AliasLookup } from './aliases/alias-lookup.ts';
import type { ClusterView } from './cluster-view.ts';
import { aliasFiltersOf, resolveExpression, resolveIndices, resolveNames, searchRoutingOf, type IndexCatalog } from './index-expression.ts';
import { INDICES_OPTIONS, indicesOptionsFrom, type IndicesOptions } from './indices-options.ts';

/** Metadata of an index with the given state and hidden setting. */
function meta(name: string, o: { closed?: boolean; hidden?: boolean } = {}): IndexMetadata {
  return {
    name,
    uuid: `uuid-${name}`,
    numberOfShards: 1,
    numberOfReplicas: 0,
    routingNumShards: 1024,
    maxResultWindow: 10,
    refreshIntervalMs: 1000,
    mappings: { properties: {} },
    creationDate: 0,
    version: 1,
    settings: { 'index.number_of_shards': '1', 'index.number_of_replicas': '0', ...(o.hidden ? { 'index.hidden': 'true' } : {}) },
    ...(o.closed ? { state: 'close' as const } : {}),
  };
}

function catalog(list: IndexMetadata[]): IndexCatalog {
  const byName = new Map(list.map((m) => [m.name, m]));
  return { names: () => [...byName.keys()].sort(), metadata: (n) => byName.get(n) };
}

const cat = catalog([
  meta('cities'),
  meta('cities-at'),
  meta('mails'),
  meta('a.b'),
  meta('axb'),
  meta('shut', { closed: true }),
  meta('secret', { hidden: true }),
  meta('.dot-hidden', { hidden: true }),
  meta('.dot'),
]);
const search = INDICES_OPTIONS.search;
const withParams = (q: string, d: IndicesOptions = search) => indicesOptionsFrom(new URLSearchParams(q), d);
const resolve = (expr: string | undefined, o: IndicesOptions = search) => resolveNames(expr, cat, o);

describe('resolveNames: wildcards and exclusions', () => {
  it('expands * literally (`.` is no regex dot) and subtracts -patterns after a wildcard', () => {
    expect(resolve('cit*')).toEqual(['cities', 'cities-at']);
    expect(resolve('*,-cit*')).toEqual(['.dot', 'a.b', 'axb', 'mails']);
    expect(resolve('a.*')).toEqual(['a.b']);
    expect(resolve('*s')).toEqual(['cities', 'mails']);
    expect(resolve('cities,mails')).toEqual(['cities', 'mails']);
  });

  it("treats a leading - before any wildcard as a name, with ES's hint when it is missing", () => {
    expect(esErr(() => resolve('cities,-mails'))).toMatchObject({
      status: 404,
      type: 'index_not_found_exception',
      message: 'no such index [-mails] and if you intended to exclude this index, ensure that you use wildcards that include it before explicitly excluding it',
      metadata: { 'resource.type': 'index_or_alias', 'resource.id': '-mails', index_uuid: '_na_', index: '-mails' },
    });
  });

  it('answers adversarial wildcards at once', () => {
    const many = catalog(Array.from({ length: 200 }, (_, i) => meta('a'.repeat(60) + i)));
    const t0 = performance.now();
    expect(resolveNames('*a*a*a*a*a*a*a*a*a*a*a*a*b', many, search)).toEqual([]);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe('resolveNames: hidden indices', () => {
  it('leaves hidden indices out of *, _all and patterns; a name reaches them', () => {
    expect(resolve(undefined)).not.toContain('secret');
    expect(resolve('_all')).toEqual(['.dot', 'a.b', 'axb', 'cities', 'cities-at', 'mails']);
    expect(resolve('s*')).toEqual([]);
    expect(resolve('secret')).toEqual(['secret']);
  });

  it('reaches them with expand_wildcards hidden or all, and a dot-hidden one with a dot pattern', () => {
    expect(resolve('s*', withParams('expand_wildcards=open,hidden'))).toEqual(['secret']);
    expect(resolve('*', withParams('expand_wildcards=all', INDICES_OPTIONS.catIndices))).toEqual([
      '.dot',
      '.dot-hidden',
      'a.b',
      'axb',
      'cities',
      'cities-at',
      'mails',
      'secret',
      'shut',
    ]);
    expect(resolve('.*')).toEqual(['.dot', '.dot-hidden']);
    expect(resolve('*')).toEqual(['.dot', 'a.b', 'axb', 'cities', 'cities-at', 'mails']);
  });
});

describe('resolveNames: closed indices', () => {
  it('search refuses a closed index by name (400 index_closed_exception with its uuid), skips it with ignore_unavailable', () => {
    expect(esErr(() => resolve('shut'))).toMatchObject({
      status: 400,
      type: 'index_closed_exception',
      message: 'closed',
      metadata: { index_uuid: 'uuid-shut', index: 'shut' },
    });
    expect(resolve('shut,mails', withParams('ignore_unavailable=true'))).toEqual(['mails']);
    expect(resolve('sh*')).toEqual([]); // wildcards expand to open indices only
    expect(esErr(() => resolve('sh*', withParams('expand_wildcards=closed'))).type).toBe('index_closed_exception');
  });

  it('APIs that allow closed indices list them (wildcards per their defaults)', () => {
    expect(resolve('s*', INDICES_OPTIONS.openClosed)).toEqual(['shut']);
    expect(resolve('s*', INDICES_OPTIONS.strictOpen)).toEqual([]);
    expect(resolve('shut', INDICES_OPTIONS.strictOpen)).toEqual(['shut']);
    expect(resolve('*', INDICES_OPTIONS.openIndex)).toEqual(['shut']);
  });
});

describe('resolveNames: missing indices', () => {
  it("fails on a missing name (ES's shape), skips it with ignore_unavailable", () => {
    expect(esErr(() => resolve('nope'))).toMatchObject({
      status: 404,
      message: 'no such index [nope]',
      metadata: { 'resource.type': 'index_or_alias', 'resource.id': 'nope', index_uuid: '_na_', index: 'nope' },
    });
    expect(resolve('nope,mails', withParams('ignore_unavailable=true'))).toEqual(['mails']);
  });

  it('allow_no_indices=false: a wildcard matching nothing, all of nothing, several expressions resolving to nothing', () => {
    const strict = withParams('allow_no_indices=false');
    expect(esErr(() => resolve('zz*', strict))).toMatchObject({ status: 404, message: 'no such index [zz*]', metadata: { 'resource.id': 'zz*' } });
    expect(esErr(() => resolveNames('_all', catalog([]), strict))).toMatchObject({
      message: 'no such index [_all] and no indices exist',
      metadata: { 'resource.type': 'index_or_alias', 'resource.id': '_all', index: '_all' },
    });
    expect(esErr(() => resolve('nope,zz', withParams('allow_no_indices=false&ignore_unavailable=true')))).toMatchObject({
      message: 'no such index [null]',
      metadata: { 'resource.type': 'index_expression', 'resource.id': ['nope', 'zz'] },
    });
    expect(resolve('zz*')).toEqual([]);
  });
});

describe('resolveIndices over a view', () => {
  it('reads a name the cache does not know from the store, and resolves under the options', async () => {
    const stored = new Map([
      ['cities', meta('cities')],
      ['late', meta('late')],
    ]);
    const cached = ['cities'];
    const view = {
      reload: async () => {},
      names: () => [...cached],
      peek: (n: string) => (cached.includes(n) ? { metadata: stored.get(n) } : undefined),
      get: (n: string) => {
        const m = stored.get(n);
        return m ? Promise.resolve({ metadata: m }) : Promise.reject(esErr(() => resolveNames(n, catalog([]), search)));
      },
      aliasLookup: () => new AliasLookup([]),
      findAlias: () => Promise.resolve(undefined),
    } as unknown as ClusterView;
    expect(await resolveIndices('late,cities', view)).toEqual(['cities', 'late']);
    expect(await resolveIndices('*', view)).toEqual(['cities']);
    await expect(resolveIndices('gone', view)).rejects.toMatchObject({ status: 404 });
  });
});

describe('resolveExpression: aliases', () => {
  const m = (name: string, aliases: IndexMetadata['aliases'], o: { closed?: boolean; hidden?: boolean } = {}) => ({ ...meta(name, o), aliases });
  const list = [
    m('v1', { live: {}, red: { filter: { term: { c: 'red' } } }, hot: { search_routing: '1,2' } }),
    m('v2', { red: { filter: { term: { c: 'red' } } }, hot: { search_routing: '2' }, '.dotted': { is_hidden: true } }),
    m('old', { live: {}, quiet: { is_hidden: true } }, { closed: true }),
    m('hid', { shown: {} }, { hidden: true }),
  ];
  const byName = new Map(list.map((x) => [x.name, x]));
  const withAliases: IndexCatalog = { names: () => [...byName.keys()].sort(), metadata: (n) => byName.get(n), aliases: new AliasLookup(list) };
  const open = withParams('', INDICES_OPTIONS.strictOpen);

  it('stands for its indices, closed ones refused as a name would be', () => {
    expect(resolveExpression('red', withAliases, search)).toEqual({ indices: ['v1', 'v2'], reached: new Set(['red']) });
    expect(esErr(() => resolveExpression('live', withAliases, search))).toMatchObject({ status: 400, type: 'index_closed_exception' });
    expect(resolveExpression('live', withAliases, withParams('ignore_unavailable=true')).indices).toEqual(['v1']);
    expect(resolveExpression('live', withAliases, open).indices).toEqual(['old', 'v1']);
  });

  it("matches alias names with wildcards, an alias's closed indices only as expand_wildcards says, hidden aliases only with hidden", () => {
    expect(resolveExpression('li*', withAliases, open).indices).toEqual(['v1']);
    expect(resolveExpression('li*', withAliases, withParams('expand_wildcards=all', INDICES_OPTIONS.strictOpen)).indices).toEqual(['old', 'v1']);
    expect(resolveExpression('q*', withAliases, open).indices).toEqual([]);
    expect(resolveExpression('q*', withAliases, withParams('expand_wildcards=open,closed,hidden', INDICES_OPTIONS.strictOpen)).indices).toEqual(['old']);
    expect(resolveExpression('.d*', withAliases, open).indices).toEqual(['v2']);
    // a visible alias reaches a hidden index; `*` alone does not
    expect(resolveExpression('sh*', withAliases, open).indices).toEqual(['hid']);
    expect(resolveExpression('*', withAliases, open).indices).toEqual(['v1', 'v2']);
  });

  it('refuses aliases where only indices are taken', () => {
    expect(esErr(() => resolveExpression('red', withAliases, INDICES_OPTIONS.aliasActions)).message).toBe(
      'The provided expression [red] matches an alias, specify the corresponding concrete indices instead.',
    );
    expect(esErr(() => resolveExpression('red', withAliases, INDICES_OPTIONS.deleteIndex)).type).toBe('illegal_argument_exception');
    expect(esErr(() => resolveExpression('re*', withAliases, INDICES_OPTIONS.aliasActions))).toMatchObject({ status: 404, message: 'no such index [re*]' });
  });

  it('filters an index only when every name that reached it is a filtered alias (ES filteringAliases)', () => {
    const filters = (expr: string) => {
      const r = resolveExpression(expr, withAliases, search);
      return Object.fromEntries(r.indices.map((i) => [i, aliasFiltersOf(byName.get(i)!, r.reached) ?? null]));
    };
    expect(filters('red')).toEqual({ v1: [{ term: { c: 'red' } }], v2: [{ term: { c: 'red' } }] });
    expect(filters('red,v2')).toEqual({ v1: [{ term: { c: 'red' } }], v2: null });
    expect(filters('red,hot')).toEqual({ v1: null, v2: null });
    expect(filters('_all')).toEqual({ v1: null, v2: null });
  });

  it("routes searches through routing aliases, intersected with the request's routing (ES resolveSearchRouting)", () => {
    const routing = (expr: string, r: string | null = null) => {
      const res = searchRoutingOf(resolveExpression(expr, withAliases, search), withAliases, r);
      return res && Object.fromEntries([...res].map(([i, s]) => [i, [...s].sort()]));
    };
    expect(routing('hot')).toEqual({ v1: ['1', '2'], v2: ['2'] });
    expect(routing('hot', '1')).toEqual({ v1: ['1'] }); // v2 keeps no value: every shard, as ES
    expect(routing('hot,v2')).toEqual({ v1: ['1', '2'] });
    expect(routing('v1', '7')).toEqual({ v1: ['7'] });
    expect(routing('red')).toBeNull();
    expect(routing('_all', '3')).toEqual({ v1: ['3'], v2: ['3'] });
  });
});
