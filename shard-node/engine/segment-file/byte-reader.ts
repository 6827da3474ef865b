/**
 * Reads what a {@link ByteWriter} (byte-writer.ts) wrote, in the same order, checking every read
 * against the end of the buffer: a short or garbled file throws {@link CorruptSegmentFileError}
 * instead of reading past its end. Typed arrays are copied out of the file buffer (so the buffer
 * can be dropped once decoded: the segment holds what it held before it was written).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/store/DataInput.java
 */
import { CHARSET_LATIN1, CHARSET_UTF16 } from './byte-writer.ts';
import { CorruptSegmentFileError } from './corrupt-segment-file.ts';

/** A typed-array constructor the codec reads. */
type ArrayKind<T> = { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; BYTES_PER_ELEMENT: number };

/** Reads little-endian values from one buffer, front to back. */
export class ByteReader {
  private readonly buf: Buffer;
  /** Where the next read starts. */
  pos: number;
  private readonly end: number;
  /** Names the file in errors. */
  readonly resource: string;

  constructor(buf: Buffer, resource: string, from = 0, end = buf.length) {
    this.buf = buf;
    this.pos = from;
    this.end = end;
    this.resource = resource;
  }

  /** Throws a {@link CorruptSegmentFileError} about this file. */
  corrupt(reason: string): never {
    throw new CorruptSegmentFileError(reason, this.resource);
  }

  private need(n: number): number {
    const at = this.pos;
    if (!(n >= 0) || at + n > this.end) this.corrupt(`read past EOF: ${n} bytes at offset ${at} of ${this.end}`);
    this.pos = at + n;
    return at;
  }

  u8(): number {
    return this.buf[this.need(1)];
  }

  u32(): number {
    return this.buf.readUInt32LE(this.need(4));
  }

  u64(): number {
    const lo = this.u32();
    const hi = this.u32();
    if (hi >= 2 ** 21) this.corrupt(`integer out of range at offset ${this.pos - 8}`);
    return hi * 2 ** 32 + lo;
  }

  f64(): number {
    return this.buf.readDoubleLE(this.need(8));
  }

  varint(): number {
    let v = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.u8();
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 0x80;
    }
    return this.corrupt(`varint too long at offset ${this.pos}`);
  }

  /** A reader over the next `n` bytes (same buffer, absolute offsets), which this one skips. */
  sub(n: number): ByteReader {
    const at = this.need(n);
    return new ByteReader(this.buf, this.resource, at, at + n);
  }

  /** Bytes left before the end. */
  get remaining(): number {
    return this.end - this.pos;
  }

  /** True when every byte up to the end was read. */
  get atEnd(): boolean {
    return this.pos === this.end;
  }

  /** `n` raw bytes (a view into the file buffer). */
  bytes(n: number): Buffer {
    const at = this.need(n);
    return this.buf.subarray(at, at + n);
  }

  private skipAlign(): void {
    const pad = (8 - (this.pos % 8)) % 8;
    this.need(pad);
  }

  /** A typed array written by `ByteWriter.array`, copied into its own memory. */
  array<T>(kind: ArrayKind<T>): T {
    const n = this.u64();
    this.skipAlign();
    const at = this.need(n * kind.BYTES_PER_ELEMENT);
    const copy = new ArrayBuffer(n * kind.BYTES_PER_ELEMENT);
    new Uint8Array(copy).set(this.buf.subarray(at, at + n * kind.BYTES_PER_ELEMENT));
    return new kind(copy, 0, n);
  }

  /**
   * Where a typed array written by `ByteWriter.array` is, without copying it: its first byte's
   * offset in the buffer (the file) and its element count; the reader moves past it.
   */
  arrayPlace<T>(kind: ArrayKind<T>): { at: number; length: number } {
    const n = this.u64();
    this.skipAlign();
    return { at: this.need(n * kind.BYTES_PER_ELEMENT), length: n };
  }

  /** A view of `length` bytes at absolute offset `at` of the buffer (an {@link ByteReader.arrayPlace} read earlier). */
  view(at: number, length: number): Buffer {
    return this.buf.subarray(at, at + length);
  }

  /** One string written by `ByteWriter.string`. */
  string(): string {
    const charset = this.u8();
    const n = this.varint();
    if (charset === CHARSET_LATIN1) return this.bytes(n).toString('latin1');
    if (charset === CHARSET_UTF16) return this.bytes(2 * n).toString('utf16le');
    return this.corrupt(`unknown charset ${charset} at offset ${this.pos - 1}`);
  }

  /** Strings written by `ByteWriter.strings`: one decode of the blob, one slice per string. */
  strings(): string[] {
    const lengths = this.array(Uint32Array);
    const blob = this.string();
    const out = new Array<string>(lengths.length);
    let at = 0;
    for (let i = 0; i < lengths.length; i++) {
      out[i] = blob.slice(at, at + lengths[i]);
      at += lengths[i];
    }
    if (at !== blob.length) this.corrupt('string lengths do not match their blob');
    return out;
  }
}
