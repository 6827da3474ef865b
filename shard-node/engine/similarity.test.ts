import { describe, expect, it } from 'vitest';
import { avgFieldLength, Bm25Scorer, byte4ToInt, idf, idfSum, intToByte4, NO_NORMS, NUM_FREE_VALUES } from './similarity.ts';

describe('SmallFloat', () => {
  it('stores small lengths exactly', () => {
    expect(NUM_FREE_VALUES).toBe(24);
    for (let i = 0; i < 24; i++) expect(byte4ToInt(intToByte4(i))).toBe(i);
    expect(byte4ToInt(intToByte4(25))).toBe(25);
    for (let i = 0; i < 24; i++) expect(intToByte4(i)).toBe(i);
  });
  it('matches hand-computed lossy values', () => {
    // 100 - 24 = 76 = 0b1001100: shift 3, mantissa 0b001, exponent 4 -> 33; 24 + 33 = 57.
    expect(intToByte4(100)).toBe(57);
    // 57 -> 24 + ((1 | 8) << 3) = 96
    expect(byte4ToInt(57)).toBe(96);
    expect(byte4ToInt(255)).toBe(2013265944);
  });
  it('round trips monotonically and never overestimates', () => {
    let prev = -1;
    for (let i = 0; i < 100_000; i += 7) {
      const b = intToByte4(i);
      expect(b).toBeGreaterThanOrEqual(prev);
      prev = b;
      expect(byte4ToInt(b)).toBeLessThanOrEqual(i);
      expect(intToByte4(byte4ToInt(b))).toBe(b);
    }
  });
});

describe('BM25', () => {
  it('idf as Lucene', () => {
    expect(idf(2, 10)).toBeCloseTo(Math.log(1 + 8.5 / 2.5), 6);
    expect(idfSum([{ docFreq: 2 }, { docFreq: 2 }], 10)).toBeCloseTo(2 * Math.log(4.4), 5);
    expect(avgFieldLength(12, 3)).toBe(4);
  });
  it('scores a hand-computed example', () => {
    // N=10, n=2, freq=1, dl=3, avgdl=4: 1.4816045 * 1 / (1 + 1.2 * (0.25 + 0.75 * 3 / 4)) = 0.7501795
    const s = new Bm25Scorer(1, idf(2, 10), 4);
    expect(s.score(1, intToByte4(3))).toBeCloseTo(0.7501795, 6);
    // freq 2, dl 3: 1.4816045 * 2 / (2 + 0.975) = 0.9960366
    expect(s.score(2, intToByte4(3))).toBeCloseTo(0.9960366, 6);
    // boost 2 doubles
    expect(new Bm25Scorer(2, idf(2, 10), 4).score(1, intToByte4(3))).toBeCloseTo(1.500359, 5);
  });
  it('uses dl = 1 for fields without norms', () => {
    // avgdl 1: tf part = 1 / (1 + 1.2) ; ES keyword term score on 1 of 1 docs: idf(1,1) = ln(1 + 0.5/1.5)
    const s = new Bm25Scorer(1, idf(1, 1), 1);
    expect(s.score(1, NO_NORMS)).toBeCloseTo(Math.log(4 / 3) / 2.2, 6);
  });
  it('uses the lossy length of long fields', () => {
    const s = new Bm25Scorer(1, 1, 100);
    // dl 100 decodes to 96
    expect(s.score(1, intToByte4(100))).toBeCloseTo(1 / (1 + 1.2 * (0.25 + (0.75 * 96) / 100)), 6);
  });
});
