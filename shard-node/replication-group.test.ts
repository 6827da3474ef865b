// The primary's replication group around a recovery's finalize. The primary puts the recovered
// copy in sync in its own metadata (recovery step 5) before the coordinator stores the change
// (step 6). A value pushed in between (any other change of the index: a mapping, another shard's
// failure) predates that change: adopting it as is dropped the copy from the in-sync group, so the
// primary acknowledged writes without waiting for it and ignored its failures, and step 6 then
// stored it in sync without them. ES keeps such an allocation id in sync on the primary
// (`ReplicationTracker.updateFromMaster`).
import { describe, expect, it } from 'vitest';
import type { IndexMetadata, ShardCopy } from '../protocol/metadata.ts';
import { IndexRegistry } from './index-registry.ts';

const base: IndexMetadata = {
  name: 'rg',
  uuid: 'u-rg',
  numberOfShards: 1,
  numberOfReplicas: 1,
  routingNumShards: 1,
  maxResultWindow: 10_000,
  refreshIntervalMs: -1,
  mappings: { properties: {} },
  creationDate: 1,
  version: 1,
  shardCopies: [
    [
      { node: 0, primary: true, inSync: true },
      { node: 1, primary: false, inSync: false, failures: 1 },
    ],
  ],
};

/** `base` at `version` with the replica's copy replaced by `replica`, and the shard's term. */
const value = (version: number, replica: Partial<ShardCopy>, term = 1): IndexMetadata => ({
  ...base,
  version,
  primaryTerms: [term],
  shardCopies: [[base.shardCopies![0][0], { ...base.shardCopies![0][1], ...replica }]],
});

/** A primary on node 0 that has recovered the copy on node 1 and finalized it (in sync locally). */
function finalizedPrimary(): IndexRegistry {
  const registry = new IndexRegistry('p');
  registry.putIndex(value(1, {}), [], 0);
  registry.recoveries.track('rg', 0, 1);
  registry.markInSync('rg', 0, [1]);
  expect(registry.replicationGroup('rg', 0)).toEqual([{ node: 1, inSync: true }]);
  return registry;
}

describe('a copy the primary finalized, before the cluster state has it in sync', () => {
  it('stays in the in-sync group when a value that predates the stored change is pushed', () => {
    const registry = finalizedPrimary();
    registry.putIndex({ ...value(2, {}), mappings: { properties: { f: { type: 'keyword' } } } }, [], 0);
    expect(registry.replicationGroup('rg', 0)).toEqual([{ node: 1, inSync: true }]);
    expect(registry.list()[0].metadata.mappings.properties).toHaveProperty('f');
    // The stored in-sync change arrives: the copy is in sync by the cluster state from now on.
    registry.putIndex(value(3, { inSync: true }), [], 0);
    registry.putIndex(value(4, { inSync: false, failures: 2 }), [], 0);
    expect(registry.replicationGroup('rg', 0)).toEqual([]);
  });

  it('leaves the group when the pushed value shows a failure stored since (a higher failure count)', () => {
    const registry = finalizedPrimary();
    registry.putIndex(value(2, { failures: 2 }), [], 0);
    expect(registry.replicationGroup('rg', 0)).toEqual([{ node: 1, inSync: false }]); // still recovering, not waited for
  });

  it("leaves the group when the shard's term changed (a promotion)", () => {
    const registry = finalizedPrimary();
    registry.putIndex(value(2, {}, 2), [], 0);
    expect(registry.replicationGroup('rg', 0).filter((g) => g.inSync)).toEqual([]);
  });
});
