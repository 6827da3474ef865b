/**
 * Integer byte codings for the postings codec: variable-byte ints (Lucene `DataOutput.writeVInt`:
 * 7 bits per byte, low bits first, high bit set on every byte but the last) and frame-of-reference
 * bit packing of a block of unsigned ints at one bit width (Lucene `ForUtil`), little-endian
 * bit order, `ceil(n · bits / 8)` bytes. Values are unsigned 32-bit (0 ≤ v < 2³²).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/store/DataOutput.java
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/codecs/lucene99/ForUtil.java
 */

/** Bits needed to store `v` (0 ≤ v < 2³²): 0 for 0, 32 for values ≥ 2³¹. */
export function bitsRequired(v: number): number {
  return 32 - Math.clz32(v);
}

/** An append-only byte buffer (grows by doubling) for writing an encoded stream. */
export class ByteWriter {
  /** The bytes; only the first {@link ByteWriter.length} are written. */
  buf: Uint8Array;
  length = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
  }

  private ensure(extra: number): void {
    const need = this.length + extra;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  /** Appends one byte (0-255). */
  byte(b: number): void {
    this.ensure(1);
    this.buf[this.length++] = b;
  }

  /** Appends `src[from, to)`. */
  bytes(src: Uint8Array, from: number, to: number): void {
    this.ensure(to - from);
    if (to - from > 32) this.buf.set(src.subarray(from, to), this.length);
    else for (let i = from, p = this.length; i < to; i++) this.buf[p++] = src[i];
    this.length += to - from;
  }

  /** Appends `v` (0 ≤ v < 2³²) as a variable-byte int: 1 byte below 128, at most 5. */
  vint(v: number): void {
    this.ensure(5);
    const buf = this.buf;
    let p = this.length;
    while (v >= 0x80) {
      buf[p++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    buf[p++] = v;
    this.length = p;
  }

  /** Appends `n` values of `src` from `from`, packed at `bits` (0-32) each; every value must fit. */
  pack(src: ArrayLike<number>, from: number, n: number, bits: number): void {
    const bytes = (n * bits + 7) >>> 3;
    this.ensure(bytes);
    packInto(src, from, n, bits, this.buf, this.length);
    this.length += bytes;
  }

  /** The written bytes, copied into an array of their exact length. */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** Packs `n` values of `src` from `from` at `bits` each into `out` at byte `at` (LSB first). */
function packInto(src: ArrayLike<number>, from: number, n: number, bits: number, out: Uint8Array, at: number): void {
  if (bits === 0) return;
  let p = at;
  if (bits <= 24) {
    // Pending bits (< 8) plus a value fit a 32-bit int: the fast path.
    let acc = 0;
    let accBits = 0;
    for (let i = 0; i < n; i++) {
      acc |= src[from + i] << accBits;
      accBits += bits;
      while (accBits >= 8) {
        out[p++] = acc;
        acc >>>= 8;
        accBits -= 8;
      }
    }
    if (accBits > 0) out[p] = acc;
    return;
  }
  // The accumulator holds fewer than 8 pending bits plus one value: up to 39 bits, kept as a
  // Number (exact below 2⁵³), flushed a byte at a time.
  let acc = 0;
  let accBits = 0;
  for (let i = 0; i < n; i++) {
    acc += (src[from + i] >>> 0) * 2 ** accBits;
    accBits += bits;
    while (accBits >= 8) {
      out[p++] = acc & 0xff;
      acc = Math.floor(acc / 256);
      accBits -= 8;
    }
  }
  if (accBits > 0) out[p] = acc;
}

/** A read cursor over an encoded byte stream. */
export class ByteReader {
  readonly buf: Uint8Array;
  /** Offset of the next byte to read. */
  pos: number;

  constructor(buf: Uint8Array, pos = 0) {
    this.buf = buf;
    this.pos = pos;
  }

  /** Reads one byte. */
  byte(): number {
    return this.buf[this.pos++];
  }

  /** Reads a variable-byte int written by {@link ByteWriter.vint}. */
  vint(): number {
    const buf = this.buf;
    let b = buf[this.pos++];
    if (b < 0x80) return b;
    let v = b & 0x7f;
    let scale = 128;
    do {
      b = buf[this.pos++];
      v += (b & 0x7f) * scale;
      scale *= 128;
    } while (b >= 0x80);
    return v;
  }

  /**
   * Reads `n` values packed at `bits` each into `out` from `at` (as unsigned: values ≥ 2³¹ wrap
   * in an Int32Array, as Java ints do). `bits` of 0 fills zeros.
   */
  unpack(n: number, bits: number, out: Int32Array, at: number): void {
    if (bits === 0) {
      out.fill(0, at, at + n);
      return;
    }
    const buf = this.buf;
    let p = this.pos;
    if (bits <= 24) {
      // Pending bits (< 8) plus a value fit a 32-bit int: the fast path.
      const mask = (1 << bits) - 1;
      let acc = 0;
      let accBits = 0;
      for (let i = 0; i < n; i++) {
        while (accBits < bits) {
          acc |= buf[p++] << accBits;
          accBits += 8;
        }
        out[at + i] = acc & mask;
        acc >>>= bits;
        accBits -= bits;
      }
    } else {
      const scale = 2 ** bits;
      let acc = 0;
      let accBits = 0;
      for (let i = 0; i < n; i++) {
        while (accBits < bits) {
          acc += buf[p++] * 2 ** accBits;
          accBits += 8;
        }
        const v = acc % scale;
        out[at + i] = v;
        acc = (acc - v) / scale;
        accBits -= bits;
      }
    }
    this.pos += (n * bits + 7) >>> 3;
  }
}
