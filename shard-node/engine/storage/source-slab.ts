/**
 * `_source` storage: every document's JSON text as UTF-8 bytes in one slab (`Uint8Array`) with a
 * `Uint32Array` of offsets, instead of one JS string per document: Lucene's stored-fields layout
 * without the compression. A document costs its UTF-8 length plus 4 bytes. JSON text from
 * `JSON.stringify` is well-formed UTF-16 (lone surrogates are escaped), so the round trip is exact.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/Lucene90StoredFieldsFormat.html
 * @see /work/shared/reference/performance-notes.md §3.4
 */

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Immutable sources of one segment: doc `d`'s bytes are `bytes[offsets[d] .. offsets[d + 1])`. */
export class SourceSlab {
  readonly bytes: Uint8Array;
  /** `maxDoc + 1` byte offsets, ascending. */
  readonly offsets: Uint32Array;

  constructor(bytes: Uint8Array, offsets: Uint32Array) {
    this.bytes = bytes;
    this.offsets = offsets;
  }

  /** Number of documents. */
  get size(): number {
    return this.offsets.length - 1;
  }

  /** Doc `d`'s `_source` JSON text (decoded from UTF-8 on each call). */
  get(d: number): string {
    return decoder.decode(this.bytes.subarray(this.offsets[d], this.offsets[d + 1]));
  }

  /** Bytes held: the slab plus the offsets. */
  get byteLength(): number {
    return this.bytes.byteLength + this.offsets.byteLength;
  }
}

/** Appends UTF-8 sources to a growing buffer and seals them into a {@link SourceSlab}. */
export class SourceSlabBuilder {
  private buf: Buffer = Buffer.allocUnsafe(1 << 16);
  private used = 0;
  private offs = new Uint32Array(1025);
  private n = 0;

  /** Number of sources added. */
  get size(): number {
    return this.n;
  }

  /** Appends JSON text; returns its doc ordinal. */
  add(json: string): number {
    this.reserve(json.length * 3);
    this.used += this.buf.write(json, this.used, 'utf8');
    return this.push();
  }

  /** Appends raw UTF-8 bytes (a merge copying from another slab); returns its doc ordinal. */
  addBytes(bytes: Uint8Array): number {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.used);
    this.used += bytes.length;
    return this.push();
  }

  /** The JSON text of a source added earlier (for real-time get of unrefreshed docs). */
  get(d: number): string {
    return this.buf.toString('utf8', this.offs[d], this.offs[d + 1]);
  }

  private reserve(extra: number): void {
    if (this.used + extra <= this.buf.length) return;
    if (this.used + extra > 0xffffffff) throw new RangeError('segment _source slab would exceed 4 GiB');
    const b = Buffer.allocUnsafe(Math.max(this.used + extra, this.buf.length * 2));
    this.buf.copy(b, 0, 0, this.used);
    this.buf = b;
  }

  private push(): number {
    const d = this.n++;
    if (this.n + 1 > this.offs.length) {
      const o = new Uint32Array(this.offs.length * 2);
      o.set(this.offs);
      this.offs = o;
    }
    this.offs[this.n] = this.used;
    return d;
  }

  /** Exact-size copies of the bytes and offsets. */
  build(): SourceSlab {
    return new SourceSlab(new Uint8Array(this.buf.subarray(0, this.used)), this.offs.slice(0, this.n + 1));
  }
}
