import { describe, expect, it } from 'vitest';
import { nodeForShard } from './routing.ts';
import { allocateCopies, assignableReplicas, reallocateReplicas } from './shard-allocation.ts';

describe('shard copy allocation', () => {
  it('puts the primary where the placement formula does and replica r on (primary + r + 1) mod N', () => {
    const copies = allocateCopies('cities', 3, 1, 3);
    copies.forEach((list, s) => {
      const p = nodeForShard('cities', s, 3);
      expect(list).toEqual([
        { node: p, primary: true, inSync: true },
        { node: (p + 1) % 3, primary: false, inSync: true },
      ]);
    });
  });

  it('never puts two copies of a shard on one node, and each node holds as many copies as the others', () => {
    for (const [shards, replicas, nodes] of [
      [3, 2, 3],
      [5, 1, 4],
      [8, 3, 5],
      [1, 1, 2],
    ]) {
      const copies = allocateCopies('idx', shards, replicas, nodes);
      const perNode = new Array(nodes).fill(0);
      for (const list of copies) {
        expect(new Set(list.map((c) => c.node)).size).toBe(list.length);
        expect(list.length).toBe(1 + replicas);
        for (const c of list) perNode[c.node]++;
      }
      if (shards % nodes === 0) expect(new Set(perNode).size).toBe(1);
    }
  });

  it('leaves replicas beyond N − 1 unassigned (ES cannot place them either: yellow)', () => {
    expect(assignableReplicas(2, 2)).toBe(1);
    expect(assignableReplicas(1, 1)).toBe(0);
    expect(allocateCopies('x', 1, 5, 3)[0].map((c) => c.node)).toHaveLength(3);
    expect(allocateCopies('x', 2, 1, 1)).toEqual([[{ node: 0, primary: true, inSync: true }], [{ node: 0, primary: true, inSync: true }]]);
  });

  it('on a replicas change keeps the existing copies, adds new ones out of sync on free nodes, and drops the last ones first', () => {
    const before = [
      [
        { node: 2, primary: true, inSync: true },
        { node: 0, primary: false, inSync: false },
      ],
    ];
    const more = reallocateReplicas(before, 2, 4);
    expect(more).toEqual([
      [
        { node: 2, primary: true, inSync: true },
        { node: 0, primary: false, inSync: false },
        { node: 3, primary: false, inSync: false },
      ],
    ]);
    expect(reallocateReplicas(more, 1, 4)).toEqual([
      [
        { node: 2, primary: true, inSync: true },
        { node: 0, primary: false, inSync: false },
      ],
    ]);
    expect(reallocateReplicas(more, 0, 4)).toEqual([[{ node: 2, primary: true, inSync: true }]]);
    expect(reallocateReplicas(more, 9, 4)[0]).toHaveLength(4);
  });
});
