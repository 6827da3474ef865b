import { describe, expect, it } from 'vitest';
import { OperationPermits } from './operation-permits.ts';

describe('OperationPermits', () => {
  it('counts the writes in progress per shard and role; a release is idempotent', () => {
    const p = new OperationPermits();
    const a = p.beginPrimaryWrite(1);
    const b = p.beginPrimaryWrite(1);
    const r = p.beginReplicaWrite(0);
    expect(p.activePrimaryWrites()).toEqual([{ shard: 1, writes: 2 }]);
    expect(p.replicaWritesOf(0)).toBe(1);
    a();
    a();
    expect(p.activePrimaryWrites()).toEqual([{ shard: 1, writes: 1 }]);
    b();
    r();
    expect(p.activePrimaryWrites()).toEqual([]);
    expect(p.replicaWritesOf(0)).toBe(0);
  });

  it('the operation term only rises', () => {
    const p = new OperationPermits();
    expect(p.termFloor(0)).toBe(0);
    p.raiseTerm(0, 3);
    p.raiseTerm(0, 2);
    expect(p.termFloor(0)).toBe(3);
    expect(p.termFloor(1)).toBe(0);
  });
});
