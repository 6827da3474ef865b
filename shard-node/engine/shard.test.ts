import { describe, expect, it } from 'vitest';
import { SCORE_SORT } from '../../protocol/sort.ts';
import { MemoryTranslog, type TranslogOp } from './translog.ts';
import { mergeSegments } from './segment-merge.ts';
import { Shard } from './shard.ts';
import { byField, load, newShard, q } from '../../test/support/engine-shard.ts';
import { searcherOf } from './searcher.ts';

const ids = (shard: Shard, query = q.all()) =>
  searcherOf(shard.acquire())
    .query({ query, sort: [byField('n')], k: 100, trackTotalHits: 1e9 })
    .hits.map((h) => h._id)
    .sort();

describe('writes', () => {
  it('index creates then updates with versions and seq_no', () => {
    const { shard } = newShard();
    expect(shard.apply([{ op: 'index', _id: '1', source: JSON.stringify({ n: 1 }), create: false }])[0]).toEqual({
      _id: '1',
      status: 201,
      result: 'created',
      _version: 1,
      _seq_no: 0,
      _primary_term: 1,
    });
    expect(shard.apply([{ op: 'index', _id: '1', source: JSON.stringify({ n: 2 }), create: false }])[0]).toMatchObject({
      status: 200,
      result: 'updated',
      _version: 2,
      _seq_no: 1,
    });
  });
  it('create on an existing id is a version conflict', () => {
    const { shard } = newShard();
    shard.apply([{ op: 'index', _id: '1', source: JSON.stringify({ n: 1 }), create: true }]);
    const r = shard.apply([{ op: 'index', _id: '1', source: JSON.stringify({ n: 1 }), create: true }])[0];
    expect(r.status).toBe(409);
    expect(r.error).toMatchObject({
      type: 'version_conflict_engine_exception',
      reason: '[1]: version conflict, document already exists (current version [1])',
    });
  });
  it('delete found / not found, and versions continue after a delete', () => {
    const { shard } = newShard();
    shard.apply([{ op: 'index', _id: 'a', source: JSON.stringify({ n: 1 }), create: false }]);
    expect(shard.apply([{ op: 'delete', _id: 'a' }])[0]).toMatchObject({ status: 200, result: 'deleted', _version: 2, _seq_no: 1 });
    expect(shard.apply([{ op: 'delete', _id: 'zz' }])[0]).toMatchObject({ status: 404, result: 'not_found', _version: 1, _seq_no: 2 });
    expect(shard.apply([{ op: 'index', _id: 'a', source: JSON.stringify({ n: 1 }), create: true }])[0]).toMatchObject({
      status: 201,
      result: 'created',
      _version: 3,
    });
  });
  it('update merges deeply, detects noop, 404s without upsert', () => {
    const { shard } = newShard();
    shard.apply([{ op: 'index', _id: 'u', source: JSON.stringify({ a: { b: 1, c: 2 }, t: [1, 2] }), create: false }]);
    expect(shard.apply([{ op: 'update', _id: 'u', doc: { a: { b: 5 }, t: [3] }, docAsUpsert: false }])[0]).toMatchObject({
      status: 200,
      result: 'updated',
      _version: 2,
    });
    expect(JSON.parse(shard.get('u')._source!)).toEqual({ a: { b: 5, c: 2 }, t: [3] });
    expect(shard.apply([{ op: 'update', _id: 'u', doc: { a: { b: 5 } }, docAsUpsert: false }])[0]).toMatchObject({
      status: 200,
      result: 'noop',
      _version: 2,
      _seq_no: 1,
    });
    const miss = shard.apply([{ op: 'update', _id: 'x', doc: { a: 1 }, docAsUpsert: false }])[0];
    expect(miss).toMatchObject({ status: 404, error: { type: 'document_missing_exception', reason: '[x]: document missing' } });
    expect(shard.apply([{ op: 'update', _id: 'x', doc: { z: 1 }, docAsUpsert: true }])[0]).toMatchObject({ status: 201, result: 'created' });
    expect(shard.apply([{ op: 'update', _id: 'y', doc: { z: 1 }, docAsUpsert: false, upsert: { z: 9 } }])[0]).toMatchObject({ status: 201 });
    expect(JSON.parse(shard.get('y')._source!)).toEqual({ z: 9 });
  });
  it('coerces numeric strings and rejects garbage with document_parsing_exception', () => {
    const { shard } = newShard({ properties: { population: { type: 'long' }, d: { type: 'date' }, g: { type: 'geo_point' } } });
    const [ok, bad, date, geo, badGeo] = shard.apply([
      { op: 'index', _id: '1', source: JSON.stringify({ population: '12' }), create: false },
      { op: 'index', _id: 'X', source: JSON.stringify({ population: 'abc' }), create: false },
      { op: 'index', _id: '2', source: JSON.stringify({ d: '2015-01-01T00:00:01Z', g: '1.5,2.5' }), create: false },
      { op: 'index', _id: '3', source: JSON.stringify({ d: 1420070400000, g: [2.5, 1.5] }), create: false },
      { op: 'index', _id: '4', source: JSON.stringify({ g: { lat: 100, lon: 0 } }), create: false },
    ]);
    expect(ok.status).toBe(201);
    expect(bad).toMatchObject({
      status: 400,
      error: {
        type: 'document_parsing_exception',
        reason: "[1:2] failed to parse field [population] of type [long] in document with id 'X'. Preview of field's value: 'abc'",
      },
    });
    expect(date.status).toBe(201);
    expect(geo.status).toBe(201);
    expect(badGeo.status).toBe(400);
    shard.refresh();
    const g = shard.acquire();
    expect(
      searcherOf(g).query({
        query: { kind: 'term', field: 'population', value: 12, caseInsensitive: false, boost: 1 },
        sort: SCORE_SORT.slice(),
        k: 10,
        trackTotalHits: 100,
      }).total.value,
    ).toBe(1);
    const hits = searcherOf(g).query({ query: q.all(), sort: [byField('d')], k: 10, trackTotalHits: 100 }).hits;
    expect(hits.map((h) => [h._id, h.sort[0]])).toEqual([
      ['3', 1420070400000],
      ['2', 1420070401000],
      ['1', null],
    ]);
  });
  it('maps new fields dynamically, and strict mapping rejects them', () => {
    const { shard, mapping } = newShard();
    shard.apply([{ op: 'index', _id: '1', source: JSON.stringify({ name: 'x', n: 1 }), create: false }]);
    expect(mapping().properties.name.type).toBe('text');
    const strict = newShard({ dynamic: 'strict', properties: {} }).shard;
    expect(strict.apply([{ op: 'index', _id: '1', source: JSON.stringify({ f: 1 }), create: false }])[0]).toMatchObject({
      status: 400,
      error: { type: 'strict_dynamic_mapping_exception' },
    });
  });
  it('writes accepted ops to the translog', () => {
    const translog = new MemoryTranslog();
    let m = { properties: {} };
    const shard = new Shard({ index: 'i', shard: 0, getMapping: () => m, updateMapping: () => {}, translog });
    shard.apply([
      { op: 'index', _id: '1', source: JSON.stringify({}), create: false },
      { op: 'update', _id: '2', doc: {}, docAsUpsert: false },
      { op: 'delete', _id: '1' },
    ]);
    expect(translog.ops.map((o) => [o.op, o._id, o.seqNo])).toEqual([
      ['index', '1', 0],
      ['delete', '1', 1],
    ]);
    m = { properties: {} };
  });
});

describe('near-real-time generations', () => {
  it('writes are invisible until refresh; get is real-time', () => {
    const { shard } = newShard();
    shard.apply([{ op: 'index', _id: '1', source: JSON.stringify({ n: 1 }), create: false }]);
    expect(ids(shard)).toEqual([]);
    expect(shard.get('1')).toMatchObject({ found: true, _version: 1, _source: '{"n":1}' });
    expect(shard.hasPendingWrites).toBe(true);
    const g = shard.refresh();
    expect(ids(shard)).toEqual(['1']);
    expect(shard.refresh()).toBe(g);
  });
  it('an old generation keeps seeing old docs after overwrite and delete', () => {
    const { shard } = newShard();
    load(shard, [
      { _id: 'a', n: 1 },
      { _id: 'b', n: 2 },
    ]);
    const old = shard.acquire(undefined, 60_000);
    shard.apply([
      { op: 'delete', _id: 'a' },
      { op: 'index', _id: 'b', source: JSON.stringify({ n: 20 }), create: false },
    ]);
    shard.refresh();
    expect(ids(shard)).toEqual(['b']);
    const again = shard.acquire(old.id);
    expect(
      searcherOf(again)
        .query({ query: q.all(), sort: [byField('n')], k: 10, trackTotalHits: 10 })
        .hits.map((h) => h.sort[0]),
    ).toEqual([1, 2]);
    expect(again.fetch(['a', 'b', 'c'])).toEqual([{ _id: 'a', _source: '{"n":1}' }, { _id: 'b', _source: '{"n":2}' }, null]);
    expect(shard.acquire().fetch(['b'])).toEqual([{ _id: 'b', _source: '{"n":20}' }]);
    expect(shard.stats()).toMatchObject({ docs: 1, deleted: 0, segments: 1 }); // the first segment is fully deleted and dropped;
  });
  it('retained generations expire after keep-alive; unknown ids throw', () => {
    let t = 0;
    const { shard } = newShard(undefined, () => t);
    load(shard, [{ _id: 'a', n: 1 }]);
    const g = shard.acquire(undefined, 1000).id;
    load(shard, [{ _id: 'b', n: 1 }]);
    t = 900;
    expect(shard.acquire(g).id).toBe(g); // extends to 1900
    t = 1800;
    expect(shard.acquire(g).id).toBe(g);
    t = 5000;
    expect(() => shard.acquire(g)).toThrow(`No search context found for id [${g}]`);
    expect(() => shard.acquire(999)).toThrow('No search context found');
  });
  it('merges keep results identical and drop deleted docs', () => {
    const docs = Array.from({ length: 300 }, (_, i) => ({ _id: `d${i}`, n: i % 17, body: `w${i % 5} common w${i % 3}` }));
    const a = newShard().shard;
    load(a, docs);
    const b = newShard().shard;
    for (let i = 0; i < 30; i++) load(b, docs.slice(i * 10, i * 10 + 10));
    expect(b.stats().segments).toBeLessThanOrEqual(10);
    const run = (s: Shard) => searcherOf(s.acquire()).query({ query: q.match('body', 'w1 w2 common'), sort: SCORE_SORT.slice(), k: 300, trackTotalHits: 1e9 });
    expect(run(b)).toEqual(run(a));
    b.apply(docs.slice(0, 100).map((d) => ({ op: 'delete' as const, _id: d._id })));
    for (let i = 0; i < 12; i++) load(b, [{ _id: `x${i}`, n: 1 }]);
    expect(b.stats().docs).toBe(212);
    expect(b.stats().segments).toBeLessThanOrEqual(10);
    expect(searcherOf(b.acquire()).count(q.all())).toBe(212);
    expect(searcherOf(b.acquire()).count(q.match('body', 'common'))).toBe(200);
  });
});

describe('sliced writes (docs/reliability.md: no request holds the event loop)', () => {
  const ops = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      i % 3 === 2 ? { op: 'delete' as const, _id: `d${i - 1}` } : { op: 'index' as const, _id: `d${i % 50}`, source: JSON.stringify({ n: i }), create: false },
    );
  it('applySliced gives the same results, seq_nos and translog as apply, and yields between slices', async () => {
    const a = newShard().shard;
    const log = new MemoryTranslog();
    let m = { properties: {} };
    const b = new Shard({ index: 'idx', shard: 0, getMapping: () => m, updateMapping: (u) => (m = { ...m, ...u }), translog: log });
    const sync = a.apply(ops(3000));
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const logged: TranslogOp[] = [];
    let afterLastSawAll = false;
    const sliced = await b.applySliced(ops(3000), logged, 0, () => (afterLastSawAll = b.maxSeqNo === 2999));
    clearInterval(ticker);
    expect(sliced).toEqual(sync);
    expect(logged.map((o) => o.seqNo)).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    expect(log.ops.map((o) => o.seqNo)).toEqual(logged.map((o) => o.seqNo));
    expect(afterLastSawAll).toBe(true);
    expect(b.localCheckpoint).toBe(2999);
    expect(turns).toBeGreaterThan(0);
  });
  it('applyReplicatedSliced applies what applyReplicated applies', async () => {
    const primary = newShard().shard;
    const logged: TranslogOp[] = [];
    primary.apply(ops(2000), logged);
    const r1 = newShard().shard;
    const r2 = newShard().shard;
    expect((await r2.applyReplicatedSliced(logged, 0)).length).toBe(r1.applyReplicated(logged).length);
    r1.refresh();
    r2.refresh();
    expect(ids(r2)).toEqual(ids(r1));
    expect(r2.localCheckpoint).toBe(1999);
    expect(await r2.applyReplicatedSliced(logged, 0)).toEqual([]); // all stale now
  });
});

describe('custom routing (_routing)', () => {
  it('is kept with the document through refresh, merge, update, the translog and a recovery snapshot', () => {
    const translog = new MemoryTranslog();
    let m = { properties: {} };
    const shard = new Shard({
      index: 'idx',
      shard: 0,
      getMapping: () => m,
      updateMapping: (u) => (m = { properties: { ...m.properties, ...u.properties } }),
      translog,
    });
    const logged: TranslogOp[] = [];
    shard.apply(
      [
        { op: 'index', _id: 'a', source: '{"n":1}', create: false, routing: 'u1' },
        { op: 'index', _id: 'b', source: '{"n":2}', create: false },
      ],
      logged,
    );
    expect(logged.map((o) => (o.op === 'index' ? o.routing : null))).toEqual(['u1', undefined]);
    expect(shard.get('a')).toMatchObject({ found: true, _routing: 'u1' });
    expect(shard.get('b')._routing).toBeUndefined();
    shard.refresh();
    expect(shard.getRefreshed('a')).toMatchObject({ found: true, _routing: 'u1' }); // realtime=false reads it from the segment
    expect(shard.getRefreshed('b')._routing).toBeUndefined();
    shard.apply([{ op: 'index', _id: 'c', source: '{"n":3}', create: false, routing: 'u3' }]);
    shard.refresh();
    const merged = mergeSegments(shard.acquire().views).segment;
    expect(merged.ids.toArray().map((id) => merged.routings?.get(merged.idToOrd.get(id)))).toEqual(['u1', undefined, 'u3']);
    expect(shard.get('a')._routing).toBe('u1');
    expect(shard.get('c')._routing).toBe('u3');
    // An update without routing keeps the document's routing (as ES requires the same routing to reach it).
    shard.apply([{ op: 'update', _id: 'a', doc: { n: 5 }, docAsUpsert: false }]);
    expect(shard.get('a')).toMatchObject({ _version: 2, _routing: 'u1' });
    // A conditional update (if_seq_no on the primary) keeps it too; a stale condition writes nothing.
    const { _seq_no: seqNo } = shard.get('a');
    expect(shard.apply([{ op: 'update', _id: 'a', doc: { n: 6 }, docAsUpsert: false, ifSeqNo: seqNo! + 1, ifPrimaryTerm: 1 }])[0].status).toBe(409);
    expect(shard.apply([{ op: 'update', _id: 'a', doc: { n: 6 }, docAsUpsert: false, ifSeqNo: seqNo!, ifPrimaryTerm: 1 }])[0].result).toBe('updated');
    expect(shard.get('a')).toMatchObject({ _version: 3, _routing: 'u1' });
    const snap = shard.snapshotOps().filter((o) => o.op === 'index');
    expect(Object.fromEntries(snap.map((o) => [o._id, o.op === 'index' ? o.routing : null]))).toEqual({ a: 'u1', b: undefined, c: 'u3' });
    // A copy restored from those ops (peer recovery, store recovery) shows the same routings.
    const copy = newShard().shard;
    copy.restore(snap);
    copy.refresh();
    expect([copy.get('a')._routing, copy.get('b')._routing, copy.get('c')._routing]).toEqual(['u1', undefined, 'u3']);
  });
});
