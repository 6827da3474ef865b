/**
 * Low-level pieces of the binary hits format (protocol/wire.ts): 8-byte alignment, a sequential
 * writer over an exactly sized buffer, and string columns. A string column is one UTF-8 block plus
 * Uint32 offsets counted in UTF-16 code units, so the decoder turns the whole block into one JS
 * string with a single `TextDecoder` call and cuts entries with `slice` (no per-entry decoding).
 *
 * String block layout (all little-endian, starting 8-aligned):
 *   u32 utf8ByteLength, u32 0, u32 offsets[n + 1] (UTF-16 units, offsets[0] = 0), pad to 8,
 *   utf8 bytes, pad to 8.
 */

/** Rounds `x` up to a multiple of 8 (the alignment of every section). */
export function pad8(x: number): number {
  return (x + 7) & ~7;
}

/** Thrown when a reply cannot be encoded exactly (NaN, lone surrogates, unknown value types); callers answer JSON instead. */
export class WireEncodeError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'WireEncodeError';
  }
}

/** Thrown when a binary body is malformed (bad magic, version or lengths). */
export class WireDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireDecodeError';
  }
}

/** A string column prepared for writing: the joined text as UTF-8, and UTF-16 offsets. */
export interface StringColumn {
  utf8: Buffer;
  offsets: Uint32Array;
}

/**
 * Prepares `n` strings (`get(i)`, null/absent entries as "") for a block.
 * @throws WireEncodeError when the text is not well-formed UTF-16 (a lone surrogate would not survive UTF-8)
 */
export function prepareStrings(n: number, get: (i: number) => string): StringColumn {
  const offsets = new Uint32Array(n + 1);
  // Concatenation (a V8 rope, flattened once below) measured faster than Array.join here.
  let joined = '';
  for (let i = 0; i < n; i++) {
    joined += get(i);
    offsets[i + 1] = joined.length;
  }
  // Joined pieces that pair up into a valid surrogate pair still round-trip: slicing at the same
  // UTF-16 offsets splits them again. Only an unpaired surrogate would turn into U+FFFD.
  if (!joined.isWellFormed()) throw new WireEncodeError('string with a lone surrogate cannot be encoded as UTF-8');
  return { utf8: Buffer.from(joined, 'utf8'), offsets };
}

/** Bytes a prepared string block occupies (8-aligned). */
export function stringBlockSize(col: StringColumn): number {
  return 8 + pad8(col.offsets.byteLength) + pad8(col.utf8.byteLength);
}

/** Sequential writer over a zero-filled, exactly sized buffer whose sections start 8-aligned. */
export class WireWriter {
  /** The whole output (its own ArrayBuffer, offset 0, so 8-aligned). */
  readonly out: Uint8Array<ArrayBuffer>;
  readonly view: DataView;
  pos = 0;

  constructor(size: number) {
    const ab = new ArrayBuffer(size);
    this.out = new Uint8Array(ab);
    this.view = new DataView(ab);
  }

  /** Skips to the next multiple of 8 (padding bytes stay 0). */
  align(): void {
    this.pos = pad8(this.pos);
  }

  /** Copies raw bytes (a typed array's memory), then aligns. */
  bytes(src: ArrayBufferView): void {
    this.out.set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength), this.pos);
    this.pos += src.byteLength;
    this.align();
  }

  /** Writes a prepared string block. */
  strings(col: StringColumn): void {
    this.view.setUint32(this.pos, col.utf8.byteLength, true);
    this.pos += 8;
    this.bytes(col.offsets);
    this.bytes(col.utf8);
  }
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Sequential reader over an 8-aligned body; typed arrays are views into its buffer (no copies). */
export class WireReader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  pos: number;

  constructor(bytes: Uint8Array, start: number) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
  }

  /** Reserves `len` bytes at the cursor, then aligns. @throws WireDecodeError past the end */
  take(len: number): number {
    const at = this.pos;
    if (at + len > this.bytes.byteLength) throw new WireDecodeError(`body truncated at byte ${at} (+${len})`);
    this.pos = pad8(at + len);
    return at;
  }

  /** A Float64Array view of `n` values. */
  f64(n: number): Float64Array {
    return new Float64Array(this.bytes.buffer, this.bytes.byteOffset + this.take(8 * n), n);
  }

  /** A Uint32Array view of `n` values. */
  u32(n: number): Uint32Array {
    return new Uint32Array(this.bytes.buffer, this.bytes.byteOffset + this.take(4 * n), n);
  }

  /** A Uint8Array view of `n` bytes. */
  u8(n: number): Uint8Array {
    const at = this.take(n);
    return this.bytes.subarray(at, at + n);
  }

  /** Decodes `len` bytes of UTF-8. @throws WireDecodeError on invalid UTF-8 */
  utf8(len: number): string {
    const at = this.take(len);
    try {
      return utf8Decoder.decode(this.bytes.subarray(at, at + len));
    } catch (err) {
      throw new WireDecodeError(`invalid UTF-8 at byte ${at}: ${(err as Error).message}`);
    }
  }

  /**
   * Reads a string block of `n` entries.
   * @returns the joined text and its UTF-16 offsets (entry i = text.slice(offsets[i], offsets[i+1]))
   */
  strings(n: number): { text: string; offsets: Uint32Array } {
    const byteLen = this.view.getUint32(this.take(8), true);
    const offsets = this.u32(n + 1);
    const text = this.utf8(byteLen);
    if (offsets[0] !== 0 || offsets[n] !== text.length) throw new WireDecodeError('string offsets do not match the block');
    for (let i = 0; i < n; i++) if (offsets[i] > offsets[i + 1]) throw new WireDecodeError('string offsets are not monotonic');
    return { text, offsets };
  }
}
