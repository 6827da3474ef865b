/**
 * Lucene's BM25 exactly as Lucene 9 / Elasticsearch 8 compute it, in 32-bit float arithmetic
 * (`Math.fround` at every step Java does float math), with the lossy one-byte length norms.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/similarities/BM25Similarity.java
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/util/SmallFloat.java
 */

const f = Math.fround;

/** BM25 `k1` (ES default). */
export const K1 = 1.2;
/** BM25 `b` (ES default). */
export const B = 0.75;

/** Lucene `SmallFloat.longToInt4`: 4-bit-mantissa float-like encoding of a non-negative integer. */
export function longToInt4(i: number): number {
  if (i < 0) throw new RangeError(`Only supports positive values, got ${i}`);
  const numBits = i === 0 ? 0 : Math.floor(Math.log2(i)) + 1;
  if (numBits < 4) return i; // subnormal
  const shift = numBits - 4;
  let encoded = Math.floor(i / 2 ** shift) & 0x07; // drop the implicit leading bit
  encoded |= (shift + 1) << 3;
  return encoded;
}

/** Lucene `SmallFloat.int4ToLong`, the inverse of {@link longToInt4} (up to precision loss). */
export function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

/** `255 - longToInt4(Integer.MAX_VALUE)` = 24: small values are stored exactly. */
export const NUM_FREE_VALUES = 255 - longToInt4(0x7fffffff);

/**
 * Lucene `SmallFloat.intToByte4`: encodes a field length (number of tokens) into one byte, exactly
 * below 24, then with a 4-bit mantissa. Returns the unsigned byte 0..255.
 * @throws RangeError for negative input.
 */
export function intToByte4(i: number): number {
  if (i < 0) throw new RangeError(`Only supports positive values, got ${i}`);
  if (i < NUM_FREE_VALUES) return i;
  return NUM_FREE_VALUES + longToInt4(i - NUM_FREE_VALUES);
}

/** Lucene `SmallFloat.byte4ToInt`: decodes an unsigned byte from {@link intToByte4} to a length. */
export function byte4ToInt(b: number): number {
  const i = b & 0xff;
  if (i < NUM_FREE_VALUES) return i;
  return NUM_FREE_VALUES + int4ToLong(i - NUM_FREE_VALUES);
}

/** BM25Similarity.LENGTH_TABLE: decoded length for each norm byte. */
export const LENGTH_TABLE: Float64Array = Float64Array.from({ length: 256 }, (_, i) => byte4ToInt(i));

/** Lucene's BM25 idf as a float: `ln(1 + (N - n + 0.5) / (n + 0.5))`. */
export function idf(docFreq: number, docCount: number): number {
  return f(Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)));
}

/** Sum of per-term idfs as Lucene does for phrases (float values summed in double, then cast). */
export function idfSum(stats: { docFreq: number }[], docCount: number): number {
  let s = 0;
  for (const t of stats) s += idf(t.docFreq, docCount);
  return f(s);
}

/** Lucene's `avgFieldLength`: `(float)(sumTotalTermFreq / (double) docCount)`; 1 when the field is empty. */
export function avgFieldLength(sumTotalTermFreq: number, docCount: number): number {
  if (docCount <= 0 || sumTotalTermFreq <= 0) return 1;
  return f(sumTotalTermFreq / docCount);
}

/**
 * A BM25 scorer for one term (or phrase) of one field: precomputes `weight = boost * idf` and the
 * 256-entry `1 / (k1 * (1 - b + b * dl / avgdl))` cache exactly as Lucene's `BM25Scorer`.
 *
 * Fields without norms (keyword, boolean): Lucene's `LeafSimScorer` passes norm value 1 when a
 * field omits norms, so `dl = LENGTH_TABLE[1] = 1`; use {@link NO_NORMS} as the encoded norm.
 */
export class Bm25Scorer {
  /** `boost * idf` as a float. */
  readonly weight: number;
  /** 1 / (k1 * ((1 - b) + b * LENGTH_TABLE[i] / avgdl)) per norm byte, floats. */
  readonly cache: Float64Array;

  constructor(boost: number, idfValue: number, avgdl: number) {
    this.weight = f(f(boost) * f(idfValue));
    const k1 = f(K1);
    const b = f(B);
    const oneMinusB = f(1 - b);
    const cache = new Float64Array(256);
    for (let i = 0; i < 256; i++) cache[i] = f(1 / f(k1 * f(oneMinusB + f(f(b * LENGTH_TABLE[i]) / f(avgdl)))));
    this.cache = cache;
  }

  /** `weight - weight / (1 + freq * cache[norm])` in floats (Lucene 9's monotonic rewrite of `weight * freq / (freq + k1 * ...)`). */
  score(freq: number, encodedNorm: number): number {
    const w = this.weight;
    return f(w - f(w / f(1 + f(f(freq) * this.cache[encodedNorm & 0xff]))));
  }
}

/** The encoded norm Lucene assumes for a field that omits norms (decodes to length 1). */
export const NO_NORMS = 1;
