import { describe, expect, it } from 'vitest';
import { newShard } from '../../test/support/engine-shard.ts';
import { firstGenerationId } from './reader-manager.ts';

describe('generation ids', () => {
  it('never repeat across a restart of the shard (a new process starts above every earlier id)', () => {
    let clock = 1_795_000_000_000;
    const { shard: before } = newShard({ properties: {} }, () => clock);
    const ids = [before.generation];
    for (let i = 0; i < 500; i++) {
      before.apply([{ op: 'index', _id: `d${i}`, source: JSON.stringify({ i }), create: false }]);
      ids.push(before.refresh());
    }
    expect(new Set(ids).size).toBe(ids.length);
    clock += 1; // the node restarts one millisecond later, after 500 refreshes
    const { shard: after } = newShard({ properties: {} }, () => clock);
    expect(after.generation).toBeGreaterThan(Math.max(...ids));
    expect(firstGenerationId(clock)).toBeLessThan(Number.MAX_SAFE_INTEGER);
  });
});
