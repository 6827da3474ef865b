// cluster.max_shards_per_node: ES's ShardLimitValidator arithmetic and exact error text.
import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { checkShardLimit, configuredShards, replicaIncrease, totalShards } from './shard-limit.ts';

describe('checkShardLimit', () => {
  it("allows up to max_shards_per_node × data nodes copies, and refuses one more with ES's text", () => {
    expect(() => checkShardLimit({ newShards: 10, currentShards: 2990, maxShardsPerNode: 1000, dataNodes: 3 })).not.toThrow();
    const e = esErr(() => checkShardLimit({ newShards: 11, currentShards: 2990, maxShardsPerNode: 1000, dataNodes: 3 }));
    expect([e.status, e.type, e.message]).toEqual([
      400,
      'validation_exception',
      'Validation Failed: 1: this action would add [11] shards, but this cluster currently has [2990]/[3000] maximum normal shards open;',
    ]);
  });

  it('checks nothing without data nodes or when nothing is added', () => {
    expect(() => checkShardLimit({ newShards: 5000, currentShards: 0, maxShardsPerNode: 1, dataNodes: 0 })).not.toThrow();
    expect(() => checkShardLimit({ newShards: -4, currentShards: 9999, maxShardsPerNode: 1, dataNodes: 3 })).not.toThrow();
  });
});

describe('shard counts', () => {
  it('counts primaries × (1 + replicas), and a replica change as its delta across the indices', () => {
    expect(configuredShards({ numberOfShards: 1024, numberOfReplicas: 1 })).toBe(2048);
    expect(
      totalShards([
        { numberOfShards: 3, numberOfReplicas: 1 },
        { numberOfShards: 1, numberOfReplicas: 0 },
      ]),
    ).toBe(7);
    expect(
      replicaIncrease(
        [
          { numberOfShards: 3, numberOfReplicas: 1 },
          { numberOfShards: 2, numberOfReplicas: 0 },
        ],
        2,
      ),
    ).toBe(3 + 4);
    expect(replicaIncrease([{ numberOfShards: 3, numberOfReplicas: 2 }], 0)).toBe(-6);
  });
});
