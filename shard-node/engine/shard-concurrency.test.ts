import { describe, expect, it } from 'vitest';
import type { TranslogOp } from './translog.ts';
import { newShard } from '../../test/support/engine-shard.ts';

const doc = (o: Record<string, unknown>) => JSON.stringify(o);

describe('optimistic concurrency on the primary', () => {
  it('if_seq_no + if_primary_term: a stale pair conflicts without taking a seq_no; the current one writes', () => {
    const { shard } = newShard();
    shard.apply([{ op: 'index', _id: '1', source: doc({ n: 1 }), create: false }]);
    const stale = shard.apply([{ op: 'index', _id: '1', source: doc({ n: 2 }), create: false, ifSeqNo: 5, ifPrimaryTerm: 1 }])[0];
    expect(stale).toMatchObject({
      status: 409,
      error: {
        type: 'version_conflict_engine_exception',
        reason: '[1]: version conflict, required seqNo [5], primary term [1]. current document has seqNo [0] and primary term [1]',
        shard: '0',
        index: 'idx',
      },
    });
    expect(shard.maxSeqNo).toBe(0);
    expect(shard.apply([{ op: 'index', _id: '1', source: doc({ n: 2 }), create: false, ifSeqNo: 0, ifPrimaryTerm: 1 }])[0]).toMatchObject({
      status: 200,
      _seq_no: 1,
      _version: 2,
    });
    expect(shard.apply([{ op: 'delete', _id: '1', ifSeqNo: 0, ifPrimaryTerm: 1 }])[0]).toMatchObject({ status: 409 });
    expect(shard.apply([{ op: 'delete', _id: '1', ifSeqNo: 1, ifPrimaryTerm: 1 }])[0]).toMatchObject({ status: 200, result: 'deleted', _seq_no: 2 });
    expect(shard.apply([{ op: 'index', _id: '1', source: doc({ n: 3 }), create: false, ifSeqNo: 2, ifPrimaryTerm: 1 }])[0].error?.reason).toBe(
      '[1]: version conflict, required seqNo [2], primary term [1]. but no document was found',
    );
  });

  it("the primary term checked is the shard's (a write after a promotion needs the new term)", () => {
    const { shard } = newShard();
    shard.apply([{ op: 'index', _id: '1', source: doc({ n: 1 }), create: false }]);
    shard.primaryTerm = 2;
    expect(shard.apply([{ op: 'index', _id: '1', source: doc({ n: 2 }), create: false, ifSeqNo: 0, ifPrimaryTerm: 1 }])[0].status).toBe(409);
    expect(shard.apply([{ op: 'index', _id: '1', source: doc({ n: 2 }), create: false, ifSeqNo: 0, ifPrimaryTerm: 2 }])[0]).toMatchObject({
      status: 200,
      _primary_term: 2,
    });
  });

  it('ops on one _id in one request are serialized: of two writes made against the same seq_no, only the first wins', async () => {
    const { shard } = newShard();
    shard.apply([{ op: 'index', _id: 'c', source: doc({ n: 0 }), create: false }]);
    const results = await shard.applySliced(
      [
        { op: 'update', _id: 'c', doc: { n: 1 }, docAsUpsert: false, ifSeqNo: 0, ifPrimaryTerm: 1 },
        { op: 'update', _id: 'c', doc: { n: 2 }, docAsUpsert: false, ifSeqNo: 0, ifPrimaryTerm: 1 },
      ],
      undefined,
      0,
    );
    expect(results.map((r) => r.status)).toEqual([200, 409]);
    expect(JSON.parse(shard.get('c')._source!)).toEqual({ n: 1 });
  });

  it("external versions: the document takes the version given; replicas apply the primary's version", () => {
    const { shard: primary } = newShard();
    const logged: TranslogOp[] = [];
    expect(primary.apply([{ op: 'index', _id: 'e', source: doc({ n: 1 }), create: false, version: 5, versionType: 'external' }], logged)[0]).toMatchObject({
      status: 201,
      _version: 5,
    });
    expect(primary.apply([{ op: 'index', _id: 'e', source: doc({ n: 1 }), create: false, version: 5, versionType: 'external' }], logged)[0].error?.reason).toBe(
      '[e]: version conflict, current version [5] is higher or equal to the one provided [5]',
    );
    expect(primary.apply([{ op: 'index', _id: 'e', source: doc({ n: 2 }), create: false, version: 5, versionType: 'external_gte' }], logged)[0]).toMatchObject({
      status: 200,
      _version: 5,
    });
    expect(primary.apply([{ op: 'delete', _id: 'e', version: 9, versionType: 'external' }], logged)[0]).toMatchObject({ result: 'deleted', _version: 9 });
    expect(primary.apply([{ op: 'index', _id: 'e', source: doc({ n: 3 }), create: false, version: 8, versionType: 'external' }], logged)[0].status).toBe(409);
    const { shard: replica } = newShard();
    replica.applyReplicated(logged);
    replica.apply([{ op: 'index', _id: 'other', source: doc({}), create: false }]); // unrelated, just a later op
    expect(logged.map((op) => [op.op, op.version])).toEqual([
      ['index', 5],
      ['index', 5],
      ['delete', 9],
    ]);
    expect(replica.get('e').found).toBe(false);
    expect(replica.snapshotOps().find((op) => op._id === 'e')).toMatchObject({ op: 'delete', version: 9, seqNo: 2 });
  });
});

describe("update: detect_noop and the source for the reply's get", () => {
  it('a noop answers the current version and seq_no and writes nothing; detect_noop false writes', () => {
    const { shard } = newShard();
    shard.apply([{ op: 'index', _id: '1', source: doc({ foo: 'bar' }), create: false }]);
    expect(shard.apply([{ op: 'update', _id: '1', doc: { foo: 'bar' }, docAsUpsert: false }])[0]).toEqual({
      _id: '1',
      status: 200,
      result: 'noop',
      _version: 1,
      _seq_no: 0,
      _primary_term: 1,
    });
    expect(shard.maxSeqNo).toBe(0);
    expect(shard.apply([{ op: 'update', _id: '1', doc: { foo: 'bar' }, docAsUpsert: false, detectNoop: false }])[0]).toMatchObject({
      result: 'updated',
      _version: 2,
      _seq_no: 1,
    });
  });
  it('fetchSource returns the stored source after the update, the upsert, or as it is for a noop', () => {
    const { shard } = newShard();
    const up = shard.apply([{ op: 'update', _id: 'u', doc: { foo: 'baz' }, docAsUpsert: false, upsert: { foo: 'bar' }, fetchSource: true }])[0];
    expect(up).toMatchObject({ result: 'created', source: '{"foo":"bar"}' });
    expect(shard.apply([{ op: 'update', _id: 'u', doc: { n: 1 }, docAsUpsert: false, fetchSource: true }])[0]).toMatchObject({
      result: 'updated',
      source: '{"foo":"bar","n":1}',
    });
    expect(shard.apply([{ op: 'update', _id: 'u', doc: { n: 1 }, docAsUpsert: false, fetchSource: true }])[0]).toMatchObject({
      result: 'noop',
      source: '{"foo":"bar","n":1}',
    });
    expect(shard.apply([{ op: 'update', _id: 'u', doc: { n: 2 }, docAsUpsert: false }])[0].source).toBeUndefined();
  });
  it('if_seq_no on an update checks the document read (ES getForUpdate); a missing one is 404', () => {
    const { shard } = newShard();
    expect(shard.apply([{ op: 'update', _id: 'm', doc: { a: 1 }, docAsUpsert: false, ifSeqNo: 1, ifPrimaryTerm: 1 }])[0].status).toBe(404);
    shard.apply([{ op: 'index', _id: 'm', source: doc({ a: 0 }), create: false }]);
    expect(shard.apply([{ op: 'update', _id: 'm', doc: { a: 1 }, docAsUpsert: false, ifSeqNo: 234, ifPrimaryTerm: 1 }])[0].error?.reason).toBe(
      '[m]: version conflict, required seqNo [234], primary term [1]. current document has seqNo [0] and primary term [1]',
    );
    expect(shard.apply([{ op: 'update', _id: 'm', doc: { a: 1 }, docAsUpsert: false, ifSeqNo: 0, ifPrimaryTerm: 1 }])[0]).toMatchObject({
      result: 'updated',
      _seq_no: 1,
    });
  });
});

describe('non-real-time get', () => {
  it('sees only what the last refresh published; the real-time get sees the latest write', () => {
    const { shard } = newShard();
    shard.apply([{ op: 'index', _id: '1', source: doc({ v: 1 }), create: false }]);
    expect(shard.getRefreshed('1').found).toBe(false);
    expect(shard.get('1')).toMatchObject({ found: true, _version: 1 });
    shard.refresh();
    shard.apply([{ op: 'index', _id: '1', source: doc({ v: 2 }), create: false }]);
    expect(shard.getRefreshed('1')).toEqual({ found: true, _version: 1, _seq_no: 0, _primary_term: 1, _source: '{"v":1}' });
    expect(shard.get('1')).toMatchObject({ _version: 2, _source: '{"v":2}' });
    shard.apply([{ op: 'delete', _id: '1' }]);
    expect(shard.getRefreshed('1').found).toBe(true);
    shard.refresh();
    expect(shard.getRefreshed('1').found).toBe(false);
  });
});
