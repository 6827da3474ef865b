import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterStateCache } from '../shared/cluster-state/cluster-state-cache.ts';
import { nodeKey } from '../shared/cluster-state/keys.ts';
import { EmbeddedStore } from '../shared/state-store/embedded-store.ts';
import { StateStoreError } from '../shared/state-store/errors.ts';
import { NodeMembership } from './node-membership.ts';
import { eventually } from '../test/support/eventually.ts';

let dir: string;
let store: EmbeddedStore;
const opened: { close(): Promise<void> }[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'folio-membership-'));
  store = await EmbeddedStore.open({ dir });
});
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function cacheOf(): Promise<ClusterStateCache> {
  const cache = await ClusterStateCache.open(store);
  opened.push(cache);
  return cache;
}

function member(nodeId: string): NodeMembership {
  const m = new NodeMembership(store, nodeId, undefined, 1);
  opened.push({ close: () => m.stop() });
  return m;
}

describe("a shard node's membership key on its own lease", () => {
  it('is seen by every watcher while the node keeps it; a lease that ends marks the node departed until it registers again', async () => {
    const cache = await cacheOf();
    expect(cache.membership('shard-0')).toBe('unknown');
    const m = member('shard-0');
    m.start();
    await eventually(() => cache.membership('shard-0') === 'member' && m.registered);
    const kv = await store.get(nodeKey('shard-0'));
    expect(JSON.parse(kv!.value)).toMatchObject({ nodeId: 'shard-0' });
    // Kept past several TTLs by the renewals.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(cache.membership('shard-0')).toBe('member');
    // The lease ends (as when it expires while the node is paused or cut off from the store): the
    // key goes with it, watchers see the node departed, and the node registers again with a new lease.
    await store.revokeLease(kv!.lease!);
    await eventually(() => cache.membership('shard-0') === 'departed');
    await eventually(() => cache.membership('shard-0') === 'member');
    expect((await store.get(nodeKey('shard-0')))!.lease).not.toBe(kv!.lease);
  });

  it('stop revokes the lease: the key is gone at once; a process that never saw it knows nothing of the node', async () => {
    const cache = await cacheOf();
    const m = member('shard-1');
    m.start();
    await eventually(() => cache.membership('shard-1') === 'member');
    const t0 = performance.now();
    await m.stop();
    await eventually(() => cache.membership('shard-1') === 'departed');
    expect(performance.now() - t0).toBeLessThan(900); // well before the 1 s lease could expire
    expect(await store.get(nodeKey('shard-1'))).toBeUndefined();
    expect((await cacheOf()).membership('shard-1')).toBe('unknown');
  });

  it('retries until the store answers, when it was down at start', async () => {
    // The store refuses every lease grant until `up`: the node keeps trying and registers then.
    let up = false;
    let refused = 0;
    const flaky = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'grantLease' && !up) {
          return () => {
            refused++;
            return Promise.reject(new StateStoreError('unavailable', 'no endpoint answered'));
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const m = new NodeMembership(flaky, 'shard-2', undefined, 1);
    opened.push({ close: () => m.stop() });
    m.start();
    await eventually(() => refused >= 2);
    expect(m.registered).toBe(false);
    up = true;
    const cache = await cacheOf();
    await eventually(() => cache.membership('shard-2') === 'member' && m.registered);
  });
});
