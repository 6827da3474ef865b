/**
 * The sketch of `cardinality` above `precision_threshold`: HyperLogLog (Flajolet et al., 2007) over
 * 2^p one-byte registers with linear counting for small estimates, p chosen from the threshold as
 * ES's `HyperLogLogPlusPlus.precisionFromThreshold` does (p = 14 for the default 3,000: 16,384
 * registers, ≈ 0.8 % standard error). Values hash with MurmurHash3's 32-bit mix (strings by UTF-16
 * units, numbers by their float64 bits). Sketches of shards merge by the register-wise maximum.
 * Folio does not use HLL++'s bias tables: below the threshold the shards send exact values instead
 * (docs/aggregations.md), so the biased small range is never estimated from registers alone.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-metrics-cardinality-aggregation.html
 * @see https://algo.inria.fr/flajolet/Publications/FlFuGaMe07.pdf
 */

/** ES's precision for a `precision_threshold`: bits for ⌈threshold / 0.75⌉ × 4 bytes, within [4, 18]. */
export function precisionFor(threshold: number): number {
  const entries = Math.ceil(threshold / 0.75) * 4;
  const bits = entries <= 1 ? 0 : Math.ceil(Math.log2(entries));
  return Math.min(18, Math.max(4, bits));
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function mixIn(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** A 32-bit MurmurHash3-style hash of a string or number. */
export function hashValue(v: string | number): number {
  let h = 0x9747b28c;
  if (typeof v === 'number') {
    f64[0] = v + 0;
    h = mixIn(mixIn(h, u32[0]), u32[1]);
    return fmix32(h ^ 8);
  }
  for (let i = 0; i < v.length; i++) h = mixIn(h, v.charCodeAt(i));
  return fmix32(h ^ v.length);
}

/** 2^p registers. */
export class HyperLogLog {
  readonly p: number;
  readonly registers: Uint8Array;

  constructor(p: number, registers?: Uint8Array) {
    this.p = p;
    this.registers = registers ?? new Uint8Array(1 << p);
  }

  /** Adds a value. */
  add(v: string | number): void {
    this.addHash(hashValue(v));
  }

  /** Adds a 32-bit hash: the top p bits pick the register, the rank of the rest is kept if larger. */
  addHash(h: number): void {
    const idx = h >>> (32 - this.p);
    const rest = (h << this.p) >>> 0;
    const rank = rest === 0 ? 32 - this.p + 1 : Math.clz32(rest) + 1;
    if (rank > this.registers[idx]) this.registers[idx] = rank;
  }

  /** Merges another sketch of the same precision (register-wise maximum). */
  merge(other: HyperLogLog): void {
    const a = this.registers;
    const b = other.registers;
    for (let i = 0; i < a.length; i++) if (b[i] > a[i]) a[i] = b[i];
  }

  /** The estimated number of distinct values. */
  estimate(): number {
    const m = this.registers.length;
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < m; i++) {
      sum += 2 ** -this.registers[i];
      if (this.registers[i] === 0) zeros++;
    }
    const alpha = m === 16 ? 0.673 : m === 32 ? 0.697 : m === 64 ? 0.709 : 0.7213 / (1 + 1.079 / m);
    const e = (alpha * m * m) / sum;
    if (e <= 2.5 * m && zeros > 0) return Math.round(m * Math.log(m / zeros));
    return Math.round(e);
  }

  /** The registers as base64 (for the wire). */
  toBase64(): string {
    return Buffer.from(this.registers.buffer, this.registers.byteOffset, this.registers.byteLength).toString('base64');
  }

  /** A sketch from {@link HyperLogLog.toBase64}. */
  static fromBase64(p: number, text: string): HyperLogLog {
    return new HyperLogLog(p, new Uint8Array(Buffer.from(text, 'base64')));
  }
}
