// Bulk items and single-document reads through aliases: the write index with its routing, the one
// index of a read, require_alias, and a plain bulk left as it is.
import { describe, expect, it } from 'vitest';
import type { AliasMetadata, IndexMetadata } from '../../../protocol/metadata.ts';
import type { BulkItem } from '../../rest/bulk-parse.ts';
import type { ClusterView } from '../cluster-view.ts';
import { AliasLookup } from './alias-lookup.ts';
import { readTarget, resolveBulkTargets, writeIndexName } from './alias-targets.ts';

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

/** A view over `indices`; `stored` are aliases only the store knows (another coordinator added them). */
function viewOf(indices: IndexMetadata[], stored: Record<string, IndexMetadata[]> = {}): ClusterView & { storeReads: string[] } {
  const byName = new Map(indices.map((m) => [m.name, m]));
  const lookup = new AliasLookup(indices);
  const storeReads: string[] = [];
  return {
    storeReads,
    aliasLookup: () => lookup,
    peek: (n: string) => (byName.has(n) ? { metadata: byName.get(n) } : undefined),
    findAlias: (n: string) => {
      storeReads.push(n);
      return Promise.resolve(lookup.targets(n) ?? stored[n]?.map((index) => ({ index, alias: index.aliases![n] })));
    },
    getOpen: (n: string) => Promise.resolve({ metadata: byName.get(n) }),
  } as unknown as ClusterView & { storeReads: string[] };
}
const item = (index: string, extra: Partial<BulkItem> = {}): BulkItem => ({ action: 'index', index, id: undefined, routing: undefined, source: {}, ...extra });

describe('resolveBulkTargets', () => {
  const view = viewOf([meta('v1', { live: {}, routed: { index_routing: 'k' } }), meta('v2', { many: {} }), meta('v3', { many: {} })]);

  it('sends each alias item to the write index with the alias routing, failing what cannot be written', async () => {
    const items = [item('live'), item('routed'), item('routed', { routing: 'x' }), item('many'), item('v1')];
    const failed = new Map<number, unknown>();
    const out = await resolveBulkTargets(items, failed, view);
    expect(out.map((i) => [i.index, i.routing])).toEqual([
      ['v1', undefined],
      ['v1', 'k'],
      ['routed', 'x'],
      ['many', undefined],
      ['v1', undefined],
    ]);
    expect([...failed.keys()]).toEqual([2, 3]);
    expect(failed.get(3)).toMatchObject({ type: 'illegal_argument_exception', message: expect.stringContaining('no write index is defined for alias [many]') });
  });

  it('refuses a name that is not an alias under require_alias, and leaves a plain bulk untouched', async () => {
    const failed = new Map<number, unknown>();
    const items = [item('v1', { requireAlias: true }), item('fresh', { requireAlias: true }), item('live', { requireAlias: true }), item('fresh2')];
    const out = await resolveBulkTargets(items, failed, view);
    expect([...failed.keys()]).toEqual([0, 1]);
    expect(failed.get(1)).toMatchObject({
      status: 404,
      type: 'index_not_found_exception',
      message: 'no such index [fresh] and [require_alias] request flag is [true] and [fresh] is not an alias',
    });
    expect(out[2].index).toBe('v1');
    const plain = [item('v1'), item('v2')];
    expect(await resolveBulkTargets(plain, new Map(), view)).toBe(plain);
  });

  it('asks the store only about names it knows as nothing', async () => {
    const v = viewOf([meta('v1')], { late: [meta('x1', { late: {} })] });
    const out = await resolveBulkTargets([item('v1'), item('late'), item('late')], new Map(), v);
    expect(out.map((i) => i.index)).toEqual(['v1', 'x1', 'x1']);
    expect(v.storeReads).toEqual(['late']);
  });
});

describe('single-document targets', () => {
  const view = viewOf([meta('v1', { one: { index_routing: 'r' } }), meta('v2', { two: {} }), meta('v3', { two: { is_write_index: true } })]);

  it("reads an alias's only index with its routing", async () => {
    const t = await readTarget(view, 'one', undefined);
    expect([t.view.metadata.name, t.routing]).toEqual(['v1', 'r']);
    await expect(readTarget(view, 'two', undefined)).rejects.toMatchObject({
      message: "alias [two] has more than one index associated with it [v2, v3], can't execute a single index op",
    });
    expect((await readTarget(view, 'v2', 'z')).routing).toBe('z');
  });

  it('names the write index of an alias for deletes', async () => {
    expect(await writeIndexName(view, 'two')).toBe('v3');
    expect(await writeIndexName(view, 'v1')).toBe('v1');
  });
});
