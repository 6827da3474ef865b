// Aliases in the cluster state: several indices changed in one transaction, and the alias name
// reservations that keep index and alias names apart even when two processes race (ES: one master).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { EmbeddedStore } from '../state-store/embedded-store.ts';
import { ClusterStateCache } from './cluster-state-cache.ts';
import { ClusterStateWriter, type IndicesChange } from './cluster-state-writer.ts';
import { aliasKey, indexKey } from './keys.ts';

function metadata(name: string, uuid: string, extra: Partial<IndexMetadata> = {}): IndexMetadata {
  return {
    name,
    uuid,
    numberOfShards: 1,
    numberOfReplicas: 0,
    routingNumShards: 1,
    maxResultWindow: 10_000,
    refreshIntervalMs: 1_000,
    mappings: { properties: {} },
    creationDate: 0,
    version: 1,
    shardCopies: [[{ node: 0, primary: true, inSync: true }]],
    ...extra,
  };
}

let dir: string;
let store: EmbeddedStore;
const caches: ClusterStateCache[] = [];
async function process(): Promise<{ cache: ClusterStateCache; writer: ClusterStateWriter }> {
  const cache = await ClusterStateCache.open(store);
  caches.push(cache);
  return { cache, writer: new ClusterStateWriter(cache) };
}
const reserved = async (alias: string): Promise<unknown> => {
  const kv = await store.get(aliasKey(alias));
  return kv ? JSON.parse(kv.value) : undefined;
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'folio-alias-state-'));
  store = await EmbeddedStore.open({ dir });
});
afterEach(async () => {
  for (const c of caches.splice(0)) await c.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('alias changes on the store', () => {
  it('swaps an alias between two indices in one revision, with its reservation', async () => {
    const { cache, writer } = await process();
    await writer.create(metadata('v1', 'u1', { aliases: { live: {} } }));
    await writer.create(metadata('v2', 'u2'));
    expect(await reserved('live')).toEqual(['v1']);
    const out = await writer.changeIndices(['v1', 'v2'], (cur): IndicesChange => ({
      put: [
        { ...cur.get('v1')!, aliases: {} },
        { ...cur.get('v2')!, aliases: { live: {} } },
      ],
      delete: [],
    }));
    expect(out.stored.map((s) => s.metadata.name)).toEqual(['v1', 'v2']);
    // one transaction: both keys carry the same mod revision
    const [k1, k2] = [await store.get(indexKey('v1')), await store.get(indexKey('v2'))];
    expect(k1!.modRevision).toBe(k2!.modRevision);
    expect(await reserved('live')).toEqual(['v2']);
    expect(cache.get('v2')!.metadata.aliases).toEqual({ live: {} });
    expect(cache.get('v1')!.metadata.version).toBe(2);
  });

  it("an index may not take an alias's name, even one this process has not seen yet", async () => {
    const [a, b] = [await process(), await process()];
    await a.writer.create(metadata('logs-1', 'u1', { aliases: { logs: {} } }));
    // b's cache may lag: the create's compare on the reservation still refuses the name
    await expect(b.writer.create(metadata('logs', 'u2'))).rejects.toMatchObject({
      status: 400,
      type: 'invalid_index_name_exception',
      message: 'Invalid index name [logs], already exists as alias',
    });
    expect(await store.get(indexKey('logs'))).toBeUndefined();
  });

  it("an alias may not take an index's name created meanwhile by another process", async () => {
    const [a, b] = [await process(), await process()];
    await a.writer.create(metadata('data', 'u1'));
    await b.writer.create(metadata('x', 'ux'));
    // a decides on a state where `x` is unknown to it only if its watch lags; the txn compares `x` absent either way
    const adding = a.writer.changeIndices(['data'], (cur) => ({ put: [{ ...cur.get('data')!, aliases: { x: {} } }], delete: [] }));
    await expect(adding).rejects.toMatchObject({
      type: 'invalid_alias_name_exception',
      message: 'Invalid alias name [x]: an index or data stream exists with the same name as the alias',
    });
    expect(await reserved('x')).toBeUndefined();
  });

  it('remove_index and an alias of the removed name land together', async () => {
    const { cache, writer } = await process();
    await writer.create(metadata('old', 'u1', { aliases: { a: {} } }));
    await writer.create(metadata('new', 'u2'));
    await writer.changeIndices(['new', 'old'], (cur) => ({ put: [{ ...cur.get('new')!, aliases: { old: {}, a: {} } }], delete: ['old'] }));
    expect(cache.get('old')).toBeUndefined();
    expect(await reserved('old')).toEqual(['new']);
    expect(await reserved('a')).toEqual(['new']);
    expect((await store.range('folio/graveyard/')).kvs.map((kv) => JSON.parse(kv.value).name)).toEqual(['old']);
  });

  it("deleting an index drops it from its aliases' reservations, and frees an alias name no index holds", async () => {
    const { writer } = await process();
    await writer.create(metadata('i1', 'u1', { aliases: { both: {}, one: {} } }));
    await writer.create(metadata('i2', 'u2', { aliases: { both: {} } }));
    expect(await reserved('both')).toEqual(['i1', 'i2']);
    await writer.delete('i1');
    expect(await reserved('both')).toEqual(['i2']);
    expect(await reserved('one')).toBeUndefined();
    await writer.create(metadata('one', 'u3')); // the name is free again
  });

  it('a decision that throws stores nothing; one that changes nothing writes nothing', async () => {
    const { writer } = await process();
    await writer.create(metadata('i1', 'u1'));
    const before = (await store.get(indexKey('i1')))!.modRevision;
    await expect(
      writer.changeIndices(['i1'], () => {
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(await writer.changeIndices(['i1'], () => null)).toEqual({ stored: [], deleted: [] });
    expect((await store.get(indexKey('i1')))!.modRevision).toBe(before);
  });

  it('an edit of an alias on one index is compared against changes of the alias elsewhere', async () => {
    const { writer } = await process();
    await writer.create(metadata('i1', 'u1', { aliases: { w: {} } }));
    const rev = (await store.get(aliasKey('w')))!.modRevision;
    await writer.changeIndices(['i1'], (cur) => ({ put: [{ ...cur.get('i1')!, aliases: { w: { is_write_index: true } } }], delete: [] }));
    expect((await store.get(aliasKey('w')))!.modRevision).toBeGreaterThan(rev);
    expect(await reserved('w')).toEqual(['i1']);
  });

  it('a decision that did not see every index of a touched alias is made again with them', async () => {
    const [a, b] = [await process(), await process()];
    await a.writer.create(metadata('i1', 'u1'));
    await a.writer.create(metadata('i2', 'u2'));
    await a.writer.changeIndices(['i1'], (cur) => ({ put: [{ ...cur.get('i1')!, aliases: { w: { is_write_index: true } } }], delete: [] }));
    // b names only i2 (its lookup did not show w on i1 yet); the reservation lists i1, so b decides again with it
    const seen: string[][] = [];
    const adding = b.writer.changeIndices(['i2'], (cur) => {
      seen.push([...cur.keys()].sort());
      if ([...cur.values()].some((m) => m.aliases?.w?.is_write_index)) throw new Error('alias [w] has more than one write index');
      return { put: [{ ...cur.get('i2')!, aliases: { w: { is_write_index: true } } }], delete: [] };
    });
    await expect(adding).rejects.toThrow('more than one write index');
    expect(seen).toEqual([['i2'], ['i1', 'i2']]);
    expect(await reserved('w')).toEqual(['i1']);
  });

  it("a new index's aliases are checked against the indices their reservations name when it is stored", async () => {
    const [a, b] = [await process(), await process()];
    await a.writer.create(metadata('i1', 'u1', { aliases: { w: { is_write_index: true } } }));
    const check = (writer: boolean) => (others: readonly IndexMetadata[]) => {
      if (writer && others.some((m) => m.aliases?.w?.is_write_index)) throw new Error(`alias [w] has a write index [${others.map((m) => m.name).join(',')}]`);
    };
    await expect(b.writer.create(metadata('i2', 'u2', { aliases: { w: { is_write_index: true } } }), check(true))).rejects.toThrow(
      'alias [w] has a write index [i1]',
    );
    expect(await store.get(indexKey('i2'))).toBeUndefined();
    await b.writer.create(metadata('i3', 'u3', { aliases: { w: {} } }), check(false));
    expect(await reserved('w')).toEqual(['i1', 'i3']);
  });

  it("two processes changing one alias at once both land, each decided on the other's outcome", async () => {
    const [a, b] = [await process(), await process()];
    await a.writer.create(metadata('i1', 'u1'));
    await a.writer.create(metadata('i2', 'u2'));
    const add = (w: ClusterStateWriter, index: string) =>
      w.changeIndices(['i1', 'i2'], (cur) => ({ put: [{ ...cur.get(index)!, aliases: { shared: {} } }], delete: [] }));
    await Promise.all([add(a.writer, 'i1'), add(b.writer, 'i2')]);
    expect(await reserved('shared')).toEqual(['i1', 'i2']);
  });
});
