import { describe, expect, it } from 'vitest';
import type { ReplicaOp, WriteOp } from '../protocol/write.ts';
import { mergeMappings } from '../shared/dynamic-mapping.ts';
import type { Mapping } from '../protocol/mapping.ts';
import { Shard } from './engine/shard.ts';
import { MemoryTranslog, type TranslogOp } from './engine/translog.ts';
import { newShard } from '../test/support/engine-shard.ts';
import { replicaOpsOf, toTranslogOps } from './replica-ops.ts';

/** The live documents of a shard as `_id → [version, seq_no, source]`, for comparing copies. */
function contents(shard: ReturnType<typeof newShard>['shard'], ids: string[]): Record<string, unknown> {
  return Object.fromEntries(
    ids.map((id) => {
      const g = shard.get(id);
      return [id, g.found ? [g._version, g._seq_no, g._source] : null];
    }),
  );
}

/** Runs one primary bulk and returns what the primary forwards to its replicas. */
function primaryBulk(primary: ReturnType<typeof newShard>['shard'], ops: WriteOp[]): ReplicaOp[] {
  const logged: TranslogOp[] = [];
  primary.apply(ops, logged);
  return replicaOpsOf(logged);
}

describe('replicated writes on the shard engine', () => {
  const ids = ['a', 'b', 'c', 'd'];

  it('a replica applying the primary’s ops holds the same documents, versions and seq_nos', () => {
    const { shard: primary } = newShard();
    const { shard: replica } = newShard();
    const bulks: WriteOp[][] = [
      [
        { op: 'index', _id: 'a', source: JSON.stringify({ n: 1 }), create: false },
        { op: 'index', _id: 'b', source: JSON.stringify({ n: 2 }), create: true },
      ],
      [
        { op: 'update', _id: 'a', doc: { m: 5 }, docAsUpsert: false },
        { op: 'delete', _id: 'b' },
        { op: 'delete', _id: 'zz' },
      ],
      [
        { op: 'index', _id: 'b', source: JSON.stringify({ n: 3 }), create: false },
        { op: 'update', _id: 'c', doc: { u: 1 }, docAsUpsert: true },
      ],
      [
        { op: 'index', _id: 'a', source: JSON.stringify({ n: 1 }), create: true },
        { op: 'update', _id: 'c', doc: { u: 1 }, docAsUpsert: false },
      ], // a conflict and a noop: nothing to replicate
    ];
    const sent = bulks.map((ops) => primaryBulk(primary, ops));
    expect(sent[3]).toEqual([]);
    for (const ops of sent) replica.applyReplicated(toTranslogOps(ops));
    expect(contents(replica, [...ids, 'zz'])).toEqual(contents(primary, [...ids, 'zz']));
    expect(contents(replica, ids).a).toEqual([2, 2, '{"n":1,"m":5}']);
    expect(replica.maxSeqNo).toBe(primary.maxSeqNo);
  });

  it('a replica stores the primary’s source text byte for byte', () => {
    const { shard: primary } = newShard();
    const { shard: replica } = newShard();
    const text = '{"big": 72057594037927937, "d": 1.10, "s": "\\u00e9", "z": -0, "e": 1.5E+2}';
    for (const ops of [primaryBulk(primary, [{ op: 'index', _id: 'a', source: text, create: false }])]) replica.applyReplicated(toTranslogOps(ops));
    expect(replica.get('a')._source).toBe(text);
    replica.refresh();
    expect(replica.acquire().fetch(['a'])).toEqual([{ _id: 'a', _source: text }]);
  });

  it("forwards the request's source byte for byte, and an update's merged document", () => {
    const { shard: primary } = newShard();
    const ops: WriteOp[] = [
      { op: 'index', _id: 'a', source: '{ "n" : 1.10 }', create: false },
      { op: 'update', _id: 'a', doc: { m: 2 }, docAsUpsert: false },
    ];
    const logged: TranslogOp[] = [];
    primary.apply(ops, logged);
    expect(replicaOpsOf(logged)).toEqual([
      { op: 'index', _id: 'a', seqNo: 0, version: 1, source: '{ "n" : 1.10 }' },
      { op: 'index', _id: 'a', seqNo: 1, version: 2, source: expect.stringMatching(/"m":2/) },
    ]);
  });

  it('converges whatever the order replication requests arrive in, and ignores repeats', () => {
    const { shard: primary } = newShard();
    const { shard: replica } = newShard();
    const sent = [
      primaryBulk(primary, [
        { op: 'index', _id: 'a', source: JSON.stringify({ v: 1 }), create: false },
        { op: 'index', _id: 'b', source: JSON.stringify({ v: 1 }), create: false },
      ]),
      primaryBulk(primary, [
        { op: 'delete', _id: 'a' },
        { op: 'index', _id: 'b', source: JSON.stringify({ v: 2 }), create: false },
      ]),
      primaryBulk(primary, [
        { op: 'index', _id: 'a', source: JSON.stringify({ v: 3 }), create: false },
        { op: 'index', _id: 'c', source: JSON.stringify({ v: 3 }), create: false },
      ]),
    ];
    for (const i of [2, 0, 1, 2, 0]) replica.applyReplicated(toTranslogOps(sent[i]));
    expect(contents(replica, ids)).toEqual(contents(primary, ids));
  });

  it('appends to the translog only the ops it applied', () => {
    const translog = new MemoryTranslog();
    const { shard: primary } = newShard();
    const sent = primaryBulk(primary, [
      { op: 'index', _id: 'a', source: JSON.stringify({ v: 1 }), create: false },
      { op: 'index', _id: 'a', source: JSON.stringify({ v: 2 }), create: false },
    ]);
    const replica = shardOver(translog);
    expect(replica.applyReplicated(toTranslogOps(sent)).map((o) => o.seqNo)).toEqual([0, 1]);
    expect(replica.applyReplicated(toTranslogOps(sent))).toEqual([]);
    expect(translog.ops.map((o) => o.seqNo)).toEqual([0, 1]);
  });

  it('refuses an index op without its source', () => {
    expect(() => toTranslogOps([{ op: 'index', _id: 'a', seqNo: 0, version: 1 } as unknown as ReplicaOp])).toThrow(/has no source/);
  });
});

/** A shard over a given translog (to look at what it appends). */
function shardOver(translog: MemoryTranslog): Shard {
  let m: Mapping = { properties: {} };
  return new Shard({ index: 'idx', shard: 0, getMapping: () => m, updateMapping: (u) => (m = mergeMappings(m, u)), translog });
}

describe('custom routing on replicas', () => {
  it("the ops a primary forwards carry each document's routing, and the replica stores it", () => {
    const { shard: primary } = newShard();
    const { shard: replica } = newShard();
    const forwarded = primaryBulk(primary, [
      { op: 'index', _id: 'a', source: '{"n":1}', create: false, routing: 'r1' },
      { op: 'index', _id: 'b', source: '{"n":2}', create: false },
      { op: 'update', _id: 'a', doc: { n: 3 }, docAsUpsert: false },
    ]);
    expect(forwarded.map((o) => (o.op === 'index' ? o.routing : null))).toEqual(['r1', undefined, 'r1']);
    replica.applyReplicated(toTranslogOps(forwarded));
    expect([replica.get('a')._routing, replica.get('b')._routing]).toEqual(['r1', undefined]);
  });
});
