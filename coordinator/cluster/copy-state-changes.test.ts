// The pure shard-copy decisions the cluster view stores: out of sync, in sync, promotion.
import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import type { IndexMetadata, ShardCopy } from '../../protocol/metadata.ts';
import { inSyncChange, outOfSyncChange, promotionChange } from './copy-state-changes.ts';

function metadata(copies: ShardCopy[][], primaryTerms?: number[]): IndexMetadata {
  return {
    name: 'idx',
    uuid: 'u1',
    numberOfShards: copies.length,
    numberOfReplicas: 1,
    routingNumShards: copies.length,
    maxResultWindow: 10_000,
    refreshIntervalMs: 1_000,
    mappings: { properties: {} },
    creationDate: 0,
    version: 3,
    shardCopies: copies,
    ...(primaryTerms ? { primaryTerms } : {}),
  };
}

const pair = (): ShardCopy[] => [
  { node: 0, primary: true, inSync: true },
  { node: 1, primary: false, inSync: true },
];

describe('outOfSyncChange', () => {
  it('takes the failed replica out of sync and raises its failures', () => {
    const d = outOfSyncChange(metadata([pair()]), 0, [1], 1);
    expect(d.storedTerm).toBe(1);
    expect(d.failing).toEqual([1]);
    expect(d.next?.shardCopies?.[0]).toEqual([
      { node: 0, primary: true, inSync: true },
      { node: 1, primary: false, inSync: false, failures: 1 },
    ]);
  });

  it('changes nothing when the write was of an older primary term', () => {
    const d = outOfSyncChange(metadata([pair()], [2]), 0, [1], 1);
    expect(d).toEqual({ storedTerm: 2, failing: [], next: null });
  });

  it('leaves the primary and nodes without a copy alone', () => {
    expect(outOfSyncChange(metadata([pair()]), 0, [0, 2], undefined)).toEqual({ storedTerm: 1, failing: [], next: null });
  });
});

describe('inSyncChange', () => {
  it('puts a recovered copy back in sync', () => {
    const m = metadata([
      [
        { node: 0, primary: true, inSync: true },
        { node: 1, primary: false, inSync: false, failures: 2 },
      ],
    ]);
    expect(inSyncChange(m, 0, 1, 2)?.shardCopies?.[0]?.[1]).toEqual({ node: 1, primary: false, inSync: true, failures: 2 });
    expect(inSyncChange(metadata([pair()]), 0, 1, undefined)).toBeNull();
  });

  it('refuses a copy that failed again during its recovery (409)', () => {
    const m = metadata([
      [
        { node: 0, primary: true, inSync: true },
        { node: 1, primary: false, inSync: false, failures: 3 },
      ],
    ]);
    const err = (() => {
      try {
        inSyncChange(m, 0, 1, 2);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(EsError);
    expect((err as EsError).status).toBe(409);
  });
});

describe('promotionChange', () => {
  it('promotes the in-sync replica in the next primary term and leaves the old primary to resync', () => {
    const next = promotionChange(metadata([pair(), pair()]), 1, 1, 1);
    expect(next?.primaryTerms).toEqual([1, 2]);
    expect(next?.shardCopies?.[1]).toEqual([
      { node: 1, primary: true, inSync: true },
      { node: 0, primary: false, inSync: false, resync: true, failures: 1 },
    ]);
    expect(next?.shardCopies?.[0]).toEqual(pair());
  });

  it('changes nothing when someone else changed the term meanwhile', () => {
    expect(promotionChange(metadata([pair()], [3]), 0, 1, 2)).toBeNull();
  });
});
