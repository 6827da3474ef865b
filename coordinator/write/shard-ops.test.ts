import { describe, expect, it } from 'vitest';
import type { WriteOp } from '../../protocol/write.ts';
import { ShardOpsBuilder, shardOpsOf } from './shard-ops.ts';
import { shardBulkRequestBytes } from './replication.ts';

describe('ShardOpsBuilder', () => {
  it("holds the ops as the bytes of JSON.stringify(ops), with their items' positions and _ids", () => {
    const ops: WriteOp[] = [];
    for (let i = 0; i < 3_000; i++) {
      ops.push(
        i % 3 === 0
          ? { op: 'delete', _id: `d-${i}-\ud800` }
          : { op: 'index', _id: `é${i}`, source: JSON.stringify({ n: i, s: '😀'.repeat(i % 7) }), create: i % 2 === 0, routing: 'r' },
      );
    }
    const builder = new ShardOpsBuilder();
    ops.forEach((op, j) => builder.add(j * 2, op));
    const built = builder.build((p) => ops[p / 2]._id);
    expect(Buffer.concat(built.json).toString('utf8')).toBe(JSON.stringify(ops));
    expect([built.count, builder.position(5), built.id(4), built.id(3_000)]).toEqual([3_000, 10, 'é4', undefined]);
  });

  it('gives an empty list as []', () => {
    expect(Buffer.concat(shardOpsOf([]).json).toString()).toBe('[]');
    expect(Buffer.concat(shardOpsOf([{ op: 'delete', _id: 'x' }]).json).toString()).toBe('[{"op":"delete","_id":"x"}]');
  });
});

describe('shardBulkRequestBytes', () => {
  it('is the text JSON.stringify makes of the request with its ops', () => {
    const ops: WriteOp[] = [
      { op: 'delete', _id: 'a' },
      { op: 'index', _id: 'é', source: '{"x":1}', create: false },
    ];
    const head = { index: 'i', shard: 1, refresh: 'wait_for' as const, primaryTerm: 3, replication: { nodes: ['n'], inSyncReplicas: [1], timeoutMs: 5 } };
    expect(shardBulkRequestBytes(head, shardOpsOf(ops)).toString('utf8')).toBe(
      JSON.stringify({ index: 'i', shard: 1, ops, refresh: head.refresh, primaryTerm: 3, replication: head.replication }),
    );
    expect(shardBulkRequestBytes({ index: 'i', shard: 0, refresh: 'false' }, shardOpsOf([])).toString()).toBe(
      '{"index":"i","shard":0,"ops":[],"refresh":"false"}',
    );
  });
});
