import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { QueryPhaseResponse, SelectRangeResponse, SelectSampleResponse, ShardHit } from './search.ts';
import type { SortValue } from './sort.ts';
import { acceptsHits, decodeHits, encodeHits, isHitsContentType, HITS_CONTENT_TYPE } from './wire.ts';
import { WireDecodeError, WireEncodeError } from './wire-strings.ts';

const base = { node: 'n1', index: 'cities', shard: 2, generation: 7 };

/** Encodes then decodes, and checks the result equals JSON's round trip too. */
function roundTrip<T extends object>(res: T, field: 'hits' | 'keys'): T {
  const bytes = encodeHits(res, field);
  expect(bytes.byteLength % 8).toBe(0);
  return decodeHits<T>(bytes);
}

/** Object.is on every sort value and score (toEqual treats -0 and 0 alike). */
function expectBitExact(a: ShardHit[], b: ShardHit[]): void {
  expect(b.length).toBe(a.length);
  a.forEach((h, i) => {
    expect(b[i]._id).toBe(h._id);
    expect(Object.is(b[i]._score, h._score)).toBe(true);
    h.sort.forEach((v, j) => expect(Object.is(b[i].sort[j], v), `entry ${i} clause ${j}: ${String(v)} vs ${String(b[i].sort[j])}`).toBe(true));
  });
}

describe('wire codec', () => {
  it('round-trips a query-phase reply with numeric sorts and scores', () => {
    const res: QueryPhaseResponse = {
      ...base,
      total: { value: 1234, relation: 'gte' },
      max_score: 3.5,
      hits: [
        { _id: 'a', _score: 3.5, sort: [2 ** 53, -0] },
        { _id: 'b', _score: 1.25, sort: [-(2 ** 53), 0] },
        { _id: 'c', _score: 0.1, sort: [Number.MAX_VALUE, Number.MIN_VALUE] },
      ],
    };
    const out = roundTrip(res, 'hits');
    expect(out).toEqual(res);
    expectBitExact(res.hits, out.hits);
  });

  it("round-trips the fused fetch's sources (JSON texts, null where filtered out) beside the hits", () => {
    const res: QueryPhaseResponse = {
      ...base,
      total: { value: 3, relation: 'eq' },
      max_score: null,
      hits: [
        { _id: 'a', _score: null, sort: [3] },
        { _id: 'b', _score: null, sort: [2] },
        { _id: 'c', _score: null, sort: [1] },
      ],
      sources: ['{"name":"Zürich","pop":421878}', null, '{"emoji":"😀","q":"\\"x\\""}'],
    };
    const out = roundTrip(res, 'hits');
    expect(out).toEqual(res);
    expect(JSON.parse(out.sources![2]!)).toEqual({ emoji: '😀', q: '"x"' });
    const none = roundTrip({ ...res, hits: [], sources: [] }, 'hits');
    expect(none.sources).toEqual([]);
    expect('sources' in roundTrip({ ...res, sources: undefined }, 'hits')).toBe(false);
  });

  it('rejects sources that do not match the hits', () => {
    const res = { ...base, total: { value: 1, relation: 'eq' }, max_score: null, hits: [{ _id: 'a', _score: null, sort: [1] }] };
    expect(() => encodeHits({ ...res, sources: [] }, 'hits')).toThrow(WireEncodeError);
    expect(() => encodeHits({ ...res, sources: [''] }, 'hits')).toThrow(WireEncodeError);
    expect(() => encodeHits({ ...res, sources: [{}] }, 'hits')).toThrow(WireEncodeError);
  });

  it('keeps metadata exactly, including statsStale and an empty list', () => {
    const res: QueryPhaseResponse = { ...base, total: { value: 0, relation: 'eq' }, max_score: null, hits: [], statsStale: true };
    expect(roundTrip(res, 'hits')).toEqual(res);
  });

  it('round-trips null scores, null sort values and strings with astral characters', () => {
    const res: SelectRangeResponse = {
      ...base,
      before: 41,
      hits: [
        { _id: '𝒳-1', _score: null, sort: ['Zürich', null, 5] },
        { _id: 'é', _score: null, sort: [null, null, 6] },
        { _id: '', _score: null, sort: ['😀😀', null, null] },
      ],
    };
    const out = roundTrip(res, 'hits');
    expect(out).toEqual(res);
    expectBitExact(res.hits, out.hits);
  });

  it('round-trips sample keys (no _score) and a mixed number/string clause', () => {
    const res: SelectSampleResponse = {
      ...base,
      total: { value: 3, relation: 'eq' },
      max_score: null,
      keys: [
        { _id: 'x', sort: [1] },
        { _id: 'y', sort: ['N/A'] },
        { _id: 'z', sort: [null] },
      ],
    };
    const out = roundTrip(res, 'keys');
    expect(out).toEqual(res);
    expect(Object.keys(out.keys[0]).sort()).toEqual(['_id', 'sort']);
  });

  it('rejects NaN, lone surrogates, unsupported values and ragged sorts', () => {
    const hits = (h: unknown[]) => ({ ...base, hits: h });
    expect(() => encodeHits(hits([{ _id: 'a', _score: NaN, sort: [] }]), 'hits')).toThrow(WireEncodeError);
    expect(() => encodeHits(hits([{ _id: 'a', _score: 1, sort: [NaN] }]), 'hits')).toThrow(WireEncodeError);
    expect(() => encodeHits(hits([{ _id: '\ud800', _score: 1, sort: [1] }]), 'hits')).toThrow(WireEncodeError);
    expect(() => encodeHits(hits([{ _id: 'a', _score: 1, sort: [true] }]), 'hits')).toThrow(WireEncodeError);
    expect(() =>
      encodeHits(
        hits([
          { _id: 'a', _score: 1, sort: [1] },
          { _id: 'b', _score: 1, sort: [] },
        ]),
        'hits',
      ),
    ).toThrow(WireEncodeError);
    expect(() => encodeHits({ ...base }, 'hits')).toThrow(WireEncodeError);
  });

  it('rejects malformed bodies', () => {
    const good = encodeHits({ ...base, hits: [{ _id: 'a', _score: 1, sort: ['s'] }] }, 'hits');
    expect(() => decodeHits(new Uint8Array(8))).toThrow(WireDecodeError);
    const badMagic = new Uint8Array(good);
    badMagic[0] ^= 0xff;
    expect(() => decodeHits(badMagic)).toThrow(WireDecodeError);
    expect(() => decodeHits(good.subarray(0, good.byteLength - 8))).toThrow(WireDecodeError);
  });

  it('decodes from an unaligned buffer by copying', () => {
    const res = { ...base, before: 0, hits: [{ _id: 'a', _score: null, sort: [1.5] }] };
    const good = encodeHits(res, 'hits');
    const shifted = new Uint8Array(good.byteLength + 3);
    shifted.set(good, 3);
    expect(decodeHits(shifted.subarray(3))).toEqual(res);
  });

  it('negotiates by accept and content-type', () => {
    expect(acceptsHits(HITS_CONTENT_TYPE)).toBe(true);
    expect(acceptsHits(`${HITS_CONTENT_TYPE}, application/json;q=0.5`)).toBe(true);
    expect(acceptsHits('application/json')).toBe(false);
    expect(acceptsHits(undefined)).toBe(false);
    expect(isHitsContentType(HITS_CONTENT_TYPE)).toBe(true);
    expect(isHitsContentType('application/json; charset=UTF-8')).toBe(false);
  });
});

/** A sort value of one of the clause kinds (doubles incl. -0 and ±2^53, astral strings, nulls). */
const value = (kind: number): fc.Arbitrary<SortValue> => {
  const num = fc.oneof(fc.double({ noNaN: true }), fc.integer({ min: -(2 ** 53), max: 2 ** 53 }), fc.constantFrom(-0, 0, 2 ** 53));
  const str = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 12 }));
  const byKind = [num, str, fc.oneof(num, str)][kind];
  return fc.option(byKind, { nil: null, freq: 4 });
};

describe('wire codec properties', () => {
  it('round-trips random entries bit-exactly and equals the JSON-safe decode', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 4 }).chain((kinds) =>
          fc.record({
            keys: fc.boolean(),
            withScores: fc.boolean(),
            entries: fc.array(
              fc.record({
                _id: fc.oneof(fc.string({ unit: 'grapheme', maxLength: 10 }), fc.string({ unit: 'binary', maxLength: 10 })),
                score: fc.double({ noNaN: true }),
                sort: fc.tuple(...kinds.map(value)),
              }),
              { maxLength: 60 },
            ),
          }),
        ),
        ({ keys, withScores, entries }) => {
          const list = entries.map((e) => (keys ? { _id: e._id, sort: e.sort } : { _id: e._id, _score: withScores ? e.score : null, sort: e.sort }));
          const res = { ...base, total: { value: list.length, relation: 'eq' }, max_score: null, [keys ? 'keys' : 'hits']: list };
          const out = decodeHits<Record<string, ShardHit[]>>(encodeHits(res, keys ? 'keys' : 'hits'));
          expect(out).toEqual(res);
          const got = out[keys ? 'keys' : 'hits'];
          expectBitExact(list as ShardHit[], got);
          if (keys) for (const k of got) expect('_score' in k).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
