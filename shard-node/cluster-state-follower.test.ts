import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterStateCache } from '../shared/cluster-state/cluster-state-cache.ts';
import { ClusterStateWriter } from '../shared/cluster-state/cluster-state-writer.ts';
import { primaryTermOf, type IndexMetadata } from '../protocol/metadata.ts';
import { promoted } from '../shared/cluster-state/shard-copies.ts';
import { EmbeddedStore } from '../shared/state-store/embedded-store.ts';
import { eventually } from '../test/support/eventually.ts';
import { ClusterStateFollower } from './cluster-state-follower.ts';
import { IndexRegistry } from './index-registry.ts';

/** One shard with its primary on node 0 and an in-sync replica on node 1. */
function metadata(name: string, uuid: string): IndexMetadata {
  return {
    name,
    uuid,
    numberOfShards: 1,
    numberOfReplicas: 1,
    routingNumShards: 1,
    maxResultWindow: 10_000,
    refreshIntervalMs: 1_000,
    mappings: { properties: {} },
    creationDate: 0,
    version: 1,
    shardCopies: [
      [
        { node: 0, primary: true, inSync: true },
        { node: 1, primary: false, inSync: true },
      ],
    ],
  };
}

let dir: string;
let store: EmbeddedStore;
let cache: ClusterStateCache;
let writer: ClusterStateWriter;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'folio-follower-'));
  store = await EmbeddedStore.open({ dir });
  cache = await ClusterStateCache.open(store);
  writer = new ClusterStateWriter(cache);
  await writer.bootstrap([]);
});
afterEach(async () => {
  await cache.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a shard node following the stored cluster state', () => {
  it('adopts a promotion stored while no coordinator pushed it, and drops a deleted index named by the graveyard', async () => {
    // The node (ordinal 1) holds the replica, as a coordinator's push left it.
    const registry = new IndexRegistry('shard-1');
    const created = await writer.create(metadata('logs', 'u1'));
    registry.putIndex(created.metadata, [], 1);
    const follower = new ClusterStateFollower(registry, cache);
    follower.start();
    expect(follower.applied.adopted).toBe(0); // the node holds the stored version already

    // The cluster manager promotes the replica on node 1 (term 2); no push reaches the node.
    await writer.update('logs', (m) => ({ ...m, shardCopies: promoted(m.shardCopies!, 0, 1), primaryTerms: [2] }));
    await eventually(() => registry.termOf('logs', 0) === 2);
    const held = registry.metadataList().find((m) => m.name === 'logs')!;
    expect(held.version).toBe(2);
    expect(held.shardCopies![0].find((c) => c.node === 1)).toMatchObject({ primary: true, inSync: true });
    expect(primaryTermOf(held, 0)).toBe(2);

    // Deleted while the node missed the coordinator's DELETE: the graveyard names its uuid.
    await writer.delete('logs');
    await eventually(() => registry.metadataList().length === 0);
    expect(follower.applied).toEqual({ adopted: 1, dropped: 1 });
    follower.stop();
  });

  it('does nothing before a coordinator told the node its ordinal, and never drops an index the store only lacks', async () => {
    const registry = new IndexRegistry('shard-2');
    const follower = new ClusterStateFollower(registry, cache);
    follower.start();
    await writer.create(metadata('a', 'ua'));
    await eventually(() => cache.get('a') !== undefined);
    follower.apply();
    expect(registry.metadataList()).toEqual([]); // no ordinal yet: copies could not be named
    registry.putIndex(metadata('kept', 'uk'), [], 0); // known to the node, absent from the store (dangling)
    follower.apply();
    expect(
      registry
        .metadataList()
        .map((m) => m.name)
        .sort(),
    ).toEqual(['a', 'kept']);
    follower.stop();
  });
});
