import { describe, expect, it } from 'vitest';
import type { IndexMetadata, ShardCopy } from '../protocol/metadata.ts';
import { hostIndex } from './hosted-index.ts';
import { checkOperationTerm, copiesWithFinalizedInSync, replicationGroupOf } from './hosted-replication.ts';

const copies: ShardCopy[][] = [
  [
    { node: 0, primary: true, inSync: true },
    { node: 1, primary: false, inSync: true },
    { node: 2, primary: false, inSync: false, failures: 1 },
  ],
];
const meta: IndexMetadata = {
  name: 'idx',
  uuid: 'u1',
  numberOfShards: 1,
  numberOfReplicas: 2,
  routingNumShards: 1,
  maxResultWindow: 10_000,
  refreshIntervalMs: -1,
  mappings: { properties: {} },
  creationDate: 1,
  version: 3,
  primaryTerms: [2],
  shardCopies: copies,
};
const hosted = () => {
  const h = hostIndex(meta, () => {}, undefined);
  h.ordinal = 0;
  return h;
};

describe('replication state of a hosted index', () => {
  it('the replication group is the other in-sync copies plus the recovering ones, once each', () => {
    expect(replicationGroupOf(hosted(), 0, [2, 1, 0])).toEqual([
      { node: 1, inSync: true },
      { node: 2, inSync: false },
    ]);
  });

  it('a primary takes only its own term; a replica refuses an older one; no term is not checked', () => {
    const h = hosted();
    expect(() => checkOperationTerm(h, 'idx', 0, 1, 'replica')).toThrow(/\[1\] is too old, current \[2\]/);
    expect(() => checkOperationTerm(h, 'idx', 0, 3, 'primary')).toThrow(/newer than this copy's/);
    expect(() => checkOperationTerm(h, 'idx', 0, 3, 'replica')).not.toThrow();
    expect(() => checkOperationTerm(h, 'idx', 0, 2, 'primary')).not.toThrow();
    expect(() => checkOperationTerm(h, 'idx', 0, undefined, 'primary')).not.toThrow();
  });

  it('finalizing puts a copy in sync and raises its failure count to the one its recovery started with', () => {
    expect(copiesWithFinalizedInSync(copies, 0, [1], undefined)).toBe(copies); // already in sync: unchanged
    const next = copiesWithFinalizedInSync(copies, 0, [2], 4);
    expect(next[0][2]).toMatchObject({ node: 2, inSync: true, failures: 4 });
    expect(copiesWithFinalizedInSync(copies, 0, [2], 0)[0][2]).toMatchObject({ inSync: true, failures: 1 });
  });
});
