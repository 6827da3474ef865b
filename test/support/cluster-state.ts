/**
 * A cluster state for tests that build a coordinator's {@link ClusterView} in process: an embedded
 * state store in a fresh temporary directory and the cache that follows it
 * (docs/cluster-state.md). Tests that share one state between two views pass the same `access`.
 * @example
 * const state = await openTestClusterState();
 * const view = new ClusterView(client, 5_000, state.access);
 * afterAll(() => state.close());
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterStateAccess, type ClusterStateAccess } from '../../coordinator/cluster/cluster-view.ts';
import { ClusterStateCache } from '../../shared/cluster-state/cluster-state-cache.ts';
import { EmbeddedStore } from '../../shared/state-store/embedded-store.ts';

/** An open test cluster state; {@link TestClusterState.close} stops the watch and removes the directory. */
export interface TestClusterState {
  access: ClusterStateAccess;
  store: EmbeddedStore;
  close(): Promise<void>;
}

/** Opens an empty cluster state on an embedded store in a temporary directory. */
export async function openTestClusterState(): Promise<TestClusterState> {
  const dir = await mkdtemp(join(tmpdir(), 'folio-test-state-'));
  const store = await EmbeddedStore.open({ dir });
  const cache = await ClusterStateCache.open(store);
  return {
    access: clusterStateAccess(cache),
    store,
    async close() {
      await cache.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
