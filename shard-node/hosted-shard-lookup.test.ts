import { describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../protocol/metadata.ts';
import { hostIndex, openShardCopy, type ShardCopyEnv } from './hosted-index.ts';
import { checkIndexOpen, nodeIndexEntry, primaryShardOf, servingShardOf } from './hosted-shard-lookup.ts';

const meta: IndexMetadata = {
  name: 'idx',
  uuid: 'u1',
  numberOfShards: 2,
  numberOfReplicas: 1,
  routingNumShards: 2,
  maxResultWindow: 10_000,
  refreshIntervalMs: -1,
  mappings: { properties: {} },
  creationDate: 1,
  version: 1,
  shardCopies: [
    [
      { node: 0, primary: true, inSync: true },
      { node: 1, primary: false, inSync: true },
    ],
    [
      { node: 1, primary: true, inSync: true },
      { node: 0, primary: false, inSync: true },
    ],
  ],
};
const env: ShardCopyEnv = { storage: null, log: undefined, mergeMapping: () => meta };

function hosted() {
  const h = hostIndex(meta, () => {}, undefined);
  h.ordinal = 0;
  openShardCopy(env, h, 0);
  openShardCopy(env, h, 1);
  return h;
}

describe('shard lookup on a hosted index', () => {
  it('refuses a shard not hosted here, a failed copy, and a primary operation on a replica', () => {
    const h = hosted();
    expect(() => servingShardOf(h, 'n1', 'idx', 5)).toThrow('no such shard [idx][5] on node [n1]');
    expect(primaryShardOf(h, 'n1', 'idx', 0)).toBe(h.shards.get(0));
    expect(() => primaryShardOf(h, 'n1', 'idx', 1)).toThrow('CurrentState[STARTED] shard is not in primary mode');
    h.failed.set(0, 'disk gone');
    expect(() => servingShardOf(h, 'n1', 'idx', 0)).toThrow('[idx][0] the copy on node [n1] failed: disk gone');
    expect(nodeIndexEntry(h)).toMatchObject({ shards: [1], node: 0, failed: [0] });
  });

  it('refuses a closed index with ES index_closed_exception', () => {
    const h = hosted();
    expect(() => checkIndexOpen(h, 'idx')).not.toThrow();
    h.metadata = { ...h.metadata, state: 'close' };
    expect(() => checkIndexOpen(h, 'idx')).toThrow(expect.objectContaining({ status: 400, type: 'index_closed_exception' }) as Error);
  });
});
