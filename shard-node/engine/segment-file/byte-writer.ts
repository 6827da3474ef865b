/**
 * An append-only little-endian byte sink for the segment file codec (docs/segment-files.md): fixed
 * integers, LEB128 varints (Lucene's `DataOutput.writeVInt`), float64s, strings in a one-byte
 * charset (latin1 when every code unit fits, else UTF-16LE, so lone surrogates round-trip), and
 * typed arrays as their raw bytes, aligned to 8 bytes so that a later reader can view them in
 * place. Output is a list of chunks joined once ({@link ByteWriter.finish}), so large typed arrays
 * are copied only into the final file buffer.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/store/DataOutput.java
 */

/** Bytes of scratch space per small-value chunk. */
const SCRATCH_BYTES = 64 * 1024;

/** Charset byte of a string blob: every code unit < 256 (one byte each). */
export const CHARSET_LATIN1 = 0;
/** Charset byte of a string blob: UTF-16LE code units (two bytes each). */
export const CHARSET_UTF16 = 1;

/** The charset a string blob needs: latin1 when every code unit is below 256. */
export function charsetOf(s: string): number {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0xff) return CHARSET_UTF16;
  return CHARSET_LATIN1;
}

/** Appends values to a growing list of byte chunks. */
export class ByteWriter {
  private readonly chunks: Uint8Array[] = [];
  private scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  private used = 0;
  /** Bytes written before the current scratch chunk. */
  private flushed = 0;

  /** Bytes written so far. */
  get length(): number {
    return this.flushed + this.used;
  }

  private room(n: number): void {
    if (this.used + n <= this.scratch.length) return;
    this.cut();
    if (n > this.scratch.length) this.scratch = Buffer.allocUnsafe(n);
  }

  /** Moves the scratch bytes into the chunk list. */
  private cut(): void {
    if (this.used === 0) return;
    this.chunks.push(this.scratch.subarray(0, this.used));
    this.flushed += this.used;
    this.scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
    this.used = 0;
  }

  u8(v: number): void {
    this.room(1);
    this.scratch[this.used++] = v;
  }

  u32(v: number): void {
    this.room(4);
    this.scratch.writeUInt32LE(v >>> 0, this.used);
    this.used += 4;
  }

  /** An unsigned integer up to 2^53 as 8 bytes (low and high 32-bit words). */
  u64(v: number): void {
    this.u32(v % 2 ** 32);
    this.u32(Math.floor(v / 2 ** 32));
  }

  f64(v: number): void {
    this.room(8);
    this.scratch.writeDoubleLE(v, this.used);
    this.used += 8;
  }

  /** A non-negative integer below 2^53 as a LEB128 varint (7 bits a byte, low first). */
  varint(v: number): void {
    this.room(8);
    while (v >= 0x80) {
      this.scratch[this.used++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.scratch[this.used++] = v;
  }

  /** Raw bytes, copied. */
  bytes(b: Uint8Array): void {
    if (b.length <= 4096) {
      this.room(b.length);
      this.scratch.set(b, this.used);
      this.used += b.length;
      return;
    }
    this.cut();
    this.chunks.push(b);
    this.flushed += b.length;
  }

  /** The code units of `s` from `from` on, one byte each (latin1) or two (UTF-16LE), without a length. */
  chars(s: string, from: number, utf16: boolean): void {
    const n = (s.length - from) * (utf16 ? 2 : 1);
    this.room(n);
    this.used += this.scratch.write(from === 0 ? s : s.slice(from), this.used, n, utf16 ? 'utf16le' : 'latin1');
  }

  /** Zero bytes up to the next multiple of 8. */
  align8(): void {
    while (this.length % 8 !== 0) this.u8(0);
  }

  /** A typed array: its element count (u64), then its raw little-endian bytes at an 8-aligned offset. */
  array(a: ArrayBufferView & { length: number }): void {
    this.u64(a.length);
    this.align8();
    this.bytes(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  }

  /** One string: charset byte, code-unit count (varint), code units. */
  string(s: string): void {
    const charset = charsetOf(s);
    this.u8(charset);
    this.varint(s.length);
    this.bytes(Buffer.from(s, charset === CHARSET_LATIN1 ? 'latin1' : 'utf16le'));
  }

  /**
   * Many strings as one blob: count (u64), then their code-unit lengths as a Uint32Array, then the
   * concatenated code units in one charset. Reads back with one decode and a slice per string.
   */
  strings(list: readonly string[]): void {
    const lengths = new Uint32Array(list.length);
    for (let i = 0; i < list.length; i++) lengths[i] = list[i].length;
    this.array(lengths);
    this.string(list.join(''));
  }

  /** The whole output as one buffer. */
  finish(): Buffer {
    this.cut();
    return Buffer.concat(this.chunks, this.flushed);
  }
}
