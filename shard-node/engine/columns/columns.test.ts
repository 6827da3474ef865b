import { describe, expect, it, onTestFinished } from 'vitest';
import { byField, load, newShard, q } from '../../../test/support/engine-shard.ts';
import { narrowNumbers, PresencePool, rankColumn } from './columns.ts';
import { PostingsBuilder } from './postings-builder.ts';
import { configureBlockCache, defaultBlockCacheBytes } from './block-cache.ts';
import { SOURCE_BLOCK_DOCS, SourceSlabBuilder } from './source-slab.ts';
import { searcherOf } from '../searcher.ts';

const UNICODE = [
  '{}',
  '{"a":"é ü ß"}',
  '{"cjk":"東京都 とうきょう"}',
  '{"emoji":"😀👍🏽","astral":"𝔘𝔫𝔦"}',
  '{"lone":"\\ud800x"}',
  '{"bom":"\ufeffstart"}',
  '{"e":""}',
];

describe('source slab', () => {
  it('round-trips unicode JSON text exactly, from the builder and sealed', () => {
    const b = new SourceSlabBuilder();
    for (const s of UNICODE) b.add(s);
    UNICODE.forEach((s, i) => expect(b.get(i)).toBe(s));
    const slab = b.build();
    expect(slab.size).toBe(UNICODE.length);
    UNICODE.forEach((s, i) => expect(slab.get(i)).toBe(s));
    expect(slab.rawByteLength).toBe(UNICODE.reduce((n, s) => n + Buffer.byteLength(s), 0));
  });
  it('grows past its initial buffers', () => {
    const b = new SourceSlabBuilder();
    const docs = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ i, t: 'ж'.repeat(i % 97) }));
    for (const d of docs) b.add(d);
    const slab = b.build();
    docs.forEach((d, i) => expect(slab.get(i)).toBe(d));
  });
});

describe('source slab compression', () => {
  it('compresses blocks of documents and reads any document back, past the block cache', () => {
    configureBlockCache(512 * 1024); // about 400 of the 552 blocks below
    onTestFinished(() => configureBlockCache(defaultBlockCacheBytes()));
    const b = new SourceSlabBuilder();
    const docs = Array.from({ length: SOURCE_BLOCK_DOCS * 552 + 5 }, (_, i) =>
      JSON.stringify({ name: `city ${i % 1000}`, country: 'AT', population: i * 37, n: i }),
    );
    for (const d of docs) b.add(d);
    const slab = b.build();
    expect(slab.size).toBe(docs.length);
    expect(slab.rawByteLength).toBe(docs.reduce((n, d) => n + Buffer.byteLength(d), 0));
    expect(slab.byteLength).toBeLessThan(slab.rawByteLength / 2);
    for (let round = 0; round < 2; round++) docs.forEach((d, i) => expect(slab.get(i)).toBe(d));
    for (const i of [docs.length - 1, 0, SOURCE_BLOCK_DOCS, SOURCE_BLOCK_DOCS - 1, 7777]) expect(slab.get(i)).toBe(docs[i]);
    expect(new SourceSlabBuilder().build().size).toBe(0);
  });
});

describe('segments on slabs', () => {
  it('fetch and get return the unicode sources after refreshes, deletes and merges', () => {
    const { shard } = newShard();
    const docs = Array.from({ length: 60 }, (_, i) => ({ _id: `d${i}`, n: i, s: UNICODE[i % UNICODE.length], k: ['x', '😀', 'ä'][i % 3] }));
    // 12 refreshes of 5 docs: more than MAX_SEGMENTS, so merges run.
    for (let i = 0; i < docs.length; i += 5) load(shard, docs.slice(i, i + 5));
    shard.apply(docs.filter((_, i) => i % 4 === 0).map((d) => ({ op: 'delete' as const, _id: d._id })));
    // Overwrite some docs twice before one refresh: only the last copy may be searchable.
    shard.apply([
      { op: 'index', _id: 'd1', source: JSON.stringify({ n: 1, s: 'first' }), create: false },
      { op: 'index', _id: 'd1', source: JSON.stringify({ n: 1, s: 'ß second' }), create: false },
    ]);
    expect(shard.get('d1')._source).toBe('{"n":1,"s":"ß second"}');
    shard.refresh();
    for (let i = 0; i < 15; i++) load(shard, [{ _id: `e${i}`, n: 100 + i, s: '𝔘' }]);
    expect(shard.stats().segments).toBeLessThanOrEqual(10);
    const gen = shard.acquire();
    const live = docs.filter((_, i) => i % 4 !== 0 && i !== 1);
    const fetched = gen.fetch(live.map((d) => d._id));
    fetched.forEach((f, i) => {
      const { _id, ...source } = live[i];
      expect(f).toEqual({ _id, _source: JSON.stringify(source) });
    });
    expect(gen.fetch(['d0', 'd4'])).toEqual([null, null]);
    expect(gen.fetch(['d1'])[0]!._source).toBe('{"n":1,"s":"ß second"}');
    expect(searcherOf(gen).count(q.match('s', 'second'))).toBe(1);
    expect(searcherOf(gen).count(q.match('s', 'first'))).toBe(0);
    expect(searcherOf(gen).count()).toBe(live.length + 1 + 15);
    // Keyword doc values survive merges as ranks into the merged dictionary.
    const byK = searcherOf(gen).query({ query: q.all(), sort: [byField('k.keyword', 'desc'), byField('n')], k: 3, trackTotalHits: 1e9 }).hits;
    expect(byK.map((h) => h.sort[0])).toEqual(['😀', '😀', '😀']);
    const byN = searcherOf(gen).query({ query: q.all(), sort: [byField('n', 'desc')], k: 2, trackTotalHits: 1e9 }).hits;
    expect(byN.map((h) => h._id)).toEqual(['e14', 'e13']);
  });
});

describe('compact columns', () => {
  it('narrows integer columns only when exact', () => {
    expect(narrowNumbers(Float64Array.of(1, -2, 2 ** 31 - 1))).toBeInstanceOf(Int32Array);
    expect(narrowNumbers(Float64Array.of(1, 2 ** 31))).toBeInstanceOf(Float64Array);
    expect(narrowNumbers(Float64Array.of(0.5))).toBeInstanceOf(Float64Array);
    expect(narrowNumbers(Float64Array.of(-0))).toBeInstanceOf(Float64Array);
  });
  it('sizes rank columns by dictionary size and shares equal presence flags', () => {
    expect(rankColumn(4, 254)).toBeInstanceOf(Uint8Array);
    expect(rankColumn(4, 255)).toBeInstanceOf(Uint16Array);
    expect(rankColumn(4, 70_000)).toBeInstanceOf(Uint32Array);
    const pool = new PresencePool();
    const a = pool.share(Uint8Array.of(1, 0, 1));
    expect(pool.share(Uint8Array.of(1, 0, 1))).toBe(a);
    expect(pool.share(Uint8Array.of(1, 1, 1))).not.toBe(a);
  });
  it('builds postings with freqs and absolute positions, docs ascending', () => {
    const pb = new PostingsBuilder(true);
    const a = pb.termId('a');
    const b = pb.termId('b');
    pb.add(a, 0, 0);
    pb.add(b, 0, 1);
    pb.add(a, 0, 2);
    pb.add(b, 3, 0);
    const { terms, sorted } = pb.build(true);
    expect(sorted).toEqual(['a', 'b']);
    const pa = terms.get('a')!;
    expect([...pa.docs]).toEqual([0]);
    expect([...pa.freqs!]).toEqual([2]);
    expect([...pa.positions!.subarray(pa.posStarts![0], pa.posStarts![1])]).toEqual([0, 2]);
    const pbl = terms.get('b')!;
    expect([...pbl.docs]).toEqual([0, 3]);
    expect([...pbl.positions!.subarray(pbl.posStarts![1], pbl.posStarts![2])]).toEqual([0]);
    expect(pbl.totalTermFreq).toBe(2);
  });
  it('keeps postings in flat arrays: lookups, docs-only fields, iteration order and misses', () => {
    const text = new PostingsBuilder(true);
    const z = text.termId('z');
    const y = text.termId('y');
    text.add(z, 1, 0);
    text.add(y, 1, 1);
    text.add(z, 1, 2);
    text.add(z, 4, 0);
    text.add(y, 5, 3);
    const t = text.build(false).terms;
    // Every field's terms iterate by code point (the term dictionary is sorted), as Lucene's TermsEnum.
    expect([t.size, [...t.keys()], t.has('z'), t.has('x'), t.get('x'), t.docs('x')]).toEqual([2, ['y', 'z'], true, false, undefined, undefined]);
    const zl = t.get('z')!;
    expect([[...zl.docs], [...zl.freqs!], zl.totalTermFreq, [...t.docs('z')!]]).toEqual([[1, 4], [2, 1], 3, [1, 4]]);
    expect([...zl.docs].map((_, i) => [...zl.positions!.subarray(zl.posStarts![i], zl.posStarts![i + 1])])).toEqual([[0, 2], [0]]);
    const yl = t.get('y')!;
    expect([...yl.docs].map((_, i) => [...yl.positions!.subarray(yl.posStarts![i], yl.posStarts![i + 1])])).toEqual([[1], [3]]);
    expect([...t].map(([term, pl]) => [term, [...pl.docs]])).toEqual([
      ['y', [1, 5]],
      ['z', [1, 4]],
    ]);
    const kw = new PostingsBuilder(false);
    for (const [term, doc] of [
      ['m', 0],
      ['c', 0],
      ['m', 2],
      ['a', 3],
    ] as const)
      kw.add(kw.termId(term), doc, 0);
    const k = kw.build(true);
    expect(k.sorted).toEqual(['a', 'c', 'm']);
    expect([...k.terms].map(([term, pl]) => [term, [...pl.docs], pl.freqs, pl.positions, pl.totalTermFreq])).toEqual([
      ['a', [3], null, null, 1],
      ['c', [0], null, null, 1],
      ['m', [0, 2], null, null, 2],
    ]);
  });
});
