import { describe, expect, it } from 'vitest';
import { ReplicaCheckpoints } from './replica-checkpoints.ts';

describe('ReplicaCheckpoints', () => {
  it('the global checkpoint is the lowest local checkpoint of the primary and its in-sync replicas; one never heard from holds it at -1', () => {
    const t = new ReplicaCheckpoints();
    expect(t.globalCheckpoint(0, 9, [])).toBe(9);
    expect(t.globalCheckpoint(0, 9, [1])).toBe(-1);
    t.note(
      0,
      new Map([
        [1, 7],
        [2, 12],
      ]),
    );
    expect(t.globalCheckpoint(0, 9, [1, 2])).toBe(7);
    expect(t.globalCheckpoint(0, 9, [2])).toBe(9); // replica 1 left the in-sync set
    expect(t.globalCheckpoint(1, 9, [1])).toBe(-1); // another shard
  });

  it('an older answer does not move a replica back; forget drops what a shard knew', () => {
    const t = new ReplicaCheckpoints();
    t.note(0, new Map([[1, 7]]));
    t.note(0, new Map([[1, 5]]));
    expect(t.globalCheckpoint(0, 9, [1])).toBe(7);
    t.forget(0);
    expect(t.globalCheckpoint(0, 9, [1])).toBe(-1);
  });
});
