import { describe, expect, it } from 'vitest';
import { LocalCheckpointTracker } from './local-checkpoint.ts';

describe('LocalCheckpointTracker', () => {
  it('advances only over contiguous seq_nos, holding out-of-order ones until the gap closes', () => {
    const t = new LocalCheckpointTracker();
    t.markProcessed(0);
    t.markProcessed(2);
    t.markProcessed(3);
    expect([t.checkpoint, t.pending]).toEqual([0, 2]);
    t.markProcessed(1);
    expect([t.checkpoint, t.pending]).toEqual([3, 0]);
    t.markProcessed(1); // a duplicate changes nothing
    expect(t.checkpoint).toBe(3);
  });

  it('fast-forwards over a copied range and then continues with the ops above it', () => {
    const t = new LocalCheckpointTracker();
    t.markProcessed(12);
    t.markProcessed(5);
    t.fastForward(10);
    expect([t.checkpoint, t.pending]).toEqual([10, 1]);
    t.markProcessed(11);
    expect(t.checkpoint).toBe(12);
    t.fastForward(4);
    expect(t.checkpoint).toBe(12);
    t.reset();
    expect([t.checkpoint, t.pending]).toEqual([-1, 0]);
  });
});
