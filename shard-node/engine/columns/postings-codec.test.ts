import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ByteReader, ByteWriter } from './packed-ints.ts';
import { BLOCK_SIZE, decodeDocs, decodeDocsFreqs, decodePostings, encodePostings, postingsStats } from './postings-codec.ts';

const MAX_DOC = 2 ** 31 - 1;

/** Ascending distinct docs from arbitrary non-negative ints. */
function ascending(xs: number[]): number[] {
  return [...new Set(xs)].sort((a, b) => a - b);
}

interface Term {
  docs: number[];
  freqs: number[];
  positions: number[];
}

/** Encodes `terms` back to back (as a field's stream), returns the bytes and each term's offset. */
function encodeAll(terms: Term[], positional: boolean): { bytes: Uint8Array; offsets: number[] } {
  const w = new ByteWriter(4);
  const offsets: number[] = [];
  for (const t of terms) {
    offsets.push(w.length);
    encodePostings(w, t.docs.length, [-9, ...t.docs], 1, positional ? t.freqs : null, positional ? [-9, -9, ...t.positions] : null, 2);
  }
  return { bytes: w.toBytes(), offsets };
}

/** A term with positional data for `docs`: freq 1-4 per doc, positions ascending within each doc. */
const termArb = (docs: fc.Arbitrary<number[]>) =>
  docs.chain((ds) =>
    fc.array(fc.array(fc.integer({ min: 0, max: 1 << 20 }), { minLength: 1, maxLength: 4 }), { minLength: ds.length, maxLength: ds.length }).map((ps) => ({
      docs: ds,
      freqs: ps.map((p) => p.length),
      positions: ps.flatMap((p) => p.sort((a, b) => a - b)),
    })),
  );

const docsArb = fc.oneof(
  fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 700 }).map(ascending),
  fc.array(fc.integer({ min: 0, max: MAX_DOC }), { maxLength: 300 }).map(ascending),
  fc.integer({ min: 0, max: 3 }).map((k) => Array.from({ length: k * BLOCK_SIZE + (k % 2) }, (_, i) => i)),
);

function check(terms: Term[], positional: boolean): void {
  const { bytes, offsets } = encodeAll(terms, positional);
  terms.forEach((t, i) => {
    expect([...decodeDocs(bytes, offsets[i], positional)]).toEqual(t.docs);
    const pl = decodePostings(bytes, offsets[i], positional);
    const df = decodeDocsFreqs(bytes, offsets[i], positional);
    expect([[...df.docs], df.freqs && [...df.freqs], df.positions, df.totalTermFreq]).toEqual([t.docs, positional ? t.freqs : null, null, pl.totalTermFreq]);
    expect([...pl.docs]).toEqual(t.docs);
    const ttf = positional ? t.positions.length : t.docs.length;
    expect(pl.totalTermFreq).toBe(ttf);
    expect(postingsStats(bytes, offsets[i], positional)).toEqual({ docFreq: t.docs.length, totalTermFreq: ttf });
    if (!positional) return expect(pl.freqs).toBeNull();
    expect([...pl.freqs!]).toEqual(t.freqs);
    expect([...pl.positions!.subarray(0, pl.posStarts![t.docs.length])]).toEqual(t.positions);
    t.docs.forEach((_, d) => expect(pl.posStarts![d + 1] - pl.posStarts![d]).toBe(t.freqs[d]));
  });
}

describe('postings codec', () => {
  it('round-trips DOCS-only postings (property)', () => {
    fc.assert(fc.property(fc.array(termArb(docsArb), { maxLength: 4 }), (terms) => check(terms, false)));
  });

  it('round-trips positional postings (property)', () => {
    fc.assert(fc.property(fc.array(termArb(docsArb), { maxLength: 4 }), (terms) => check(terms, true)));
  });

  it('round-trips the edge cases: empty, one doc, exactly a block, huge gaps, 2^31-1', () => {
    const one = (docs: number[]): Term => ({ docs, freqs: docs.map(() => 1), positions: docs.map(() => 0) });
    const block = Array.from({ length: BLOCK_SIZE }, (_, i) => i * 3);
    const cases = [
      one([]),
      one([0]),
      one([MAX_DOC]),
      one(block),
      one([...block, 1000]),
      one([0, MAX_DOC]),
      one(Array.from({ length: 2 * BLOCK_SIZE }, (_, i) => i * 2 ** 23)),
    ];
    const big = { docs: [5], freqs: [3], positions: [0, 2 ** 31 - 2, 2 ** 31 - 1] };
    for (const positional of [false, true]) check([...cases, big], positional);
  });

  it('packs a dense block of docs in its header alone (0 bits per doc)', () => {
    const docs = Array.from({ length: BLOCK_SIZE }, (_, i) => i);
    const { bytes } = encodeAll([{ docs, freqs: [], positions: [] }], false);
    // vint docFreq (2 bytes: 128), docBits, vint lastDoc delta (128), vint body 0.
    expect(bytes.length).toBe(2 + 1 + 2 + 1);
  });

  it('rejects docs that do not ascend', () => {
    expect(() => encodePostings(new ByteWriter(), 2, [3, 3], 0, null, null, 0)).toThrow(/ascend/);
  });
});

describe('packed ints', () => {
  it('round-trips vints and packed blocks at every width (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 32 }), fc.array(fc.nat({ max: 0xffffffff }), { maxLength: 200 }), (bits, raw) => {
        const mask = bits === 32 ? 0xffffffff : 2 ** bits - 1;
        const values = raw.map((v) => (bits === 32 ? v : v % (mask + 1)));
        const w = new ByteWriter(1);
        for (const v of values) w.vint(v);
        w.pack(values, 0, values.length, bits);
        const r = new ByteReader(w.toBytes());
        for (const v of values) expect(r.vint()).toBe(v);
        const out = new Int32Array(values.length);
        r.unpack(values.length, bits, out, 0);
        expect([...out].map((v) => v >>> 0)).toEqual(values);
        expect(r.pos).toBe(w.length);
      }),
    );
  });
});
