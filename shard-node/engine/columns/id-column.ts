/**
 * A segment's `_id`s, ordinal → `_id`, as one buffer of code units and their start offsets instead
 * of a JavaScript string per document: Latin-1 ids (the usual case) take one byte per character plus
 * four bytes of offset, where a heap string costs 20+ bytes of header and a pointer in an array
 * (39 B per document measured on the bench corpus, docs/performance.md "Resident memory per copy").
 * Lucene keeps `_id` as a terms field on disk; Folio reads `_id`s per hit (fetch phase, collectors,
 * `_id` sorts) and per lookup (the `_id` hash compares in place, without making a string).
 * The layout is the segment file's `IDS ` section (code-unit lengths, then one blob in one charset).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-id-field.html
 */

/** Immutable list of a segment's `_id`s by ordinal. */
export class IdColumn {
  /** Number of ids (the segment's `maxDoc`). */
  readonly length: number;
  /** `length + 1` code-unit offsets: id `d` is units `[starts[d], starts[d + 1])`. */
  private readonly starts: Uint32Array;
  /** The code units: one byte each (Latin-1) or two (UTF-16LE, when some id needs it). */
  private readonly units: Buffer;
  private readonly wide: boolean;

  private constructor(starts: Uint32Array, units: Buffer, wide: boolean) {
    this.length = starts.length - 1;
    this.starts = starts;
    this.units = units;
    this.wide = wide;
  }

  /** The column over `ids` (ordinal = position). */
  static of(ids: readonly string[]): IdColumn {
    const lengths = new Uint32Array(ids.length);
    for (let i = 0; i < ids.length; i++) lengths[i] = ids[i].length;
    return IdColumn.fromParts(lengths, ids.join(''));
  }

  /**
   * The column from its encoded parts: each id's length in UTF-16 code units, and all ids
   * concatenated (`ByteWriter.strings`' layout). @throws RangeError when the lengths do not sum to the blob's
   */
  static fromParts(lengths: Uint32Array, blob: string): IdColumn {
    const starts = new Uint32Array(lengths.length + 1);
    for (let i = 0; i < lengths.length; i++) starts[i + 1] = starts[i] + lengths[i];
    if (starts[lengths.length] !== blob.length) throw new RangeError('id lengths do not match their blob');
    let wide = false;
    for (let i = 0; i < blob.length && !wide; i++) wide = blob.charCodeAt(i) > 0xff;
    return new IdColumn(starts, Buffer.from(blob, wide ? 'utf16le' : 'latin1'), wide);
  }

  /** The `_id` of ordinal `d`. */
  get(d: number): string {
    const a = this.starts[d];
    const b = this.starts[d + 1];
    return this.wide ? this.units.toString('utf16le', 2 * a, 2 * b) : this.units.toString('latin1', a, b);
  }

  /** Whether ordinal `d`'s `_id` is `id` (compared in place). */
  equals(d: number, id: string): boolean {
    const a = this.starts[d];
    const n = this.starts[d + 1] - a;
    if (n !== id.length) return false;
    const u = this.units;
    if (this.wide) {
      for (let i = 0; i < n; i++) if (u[2 * (a + i)] + (u[2 * (a + i) + 1] << 8) !== id.charCodeAt(i)) return false;
      return true;
    }
    for (let i = 0; i < n; i++) if (u[a + i] !== id.charCodeAt(i)) return false;
    return true;
  }

  /** Each id's length in code units (the segment file's layout). */
  lengths(): Uint32Array {
    const out = new Uint32Array(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.starts[i + 1] - this.starts[i];
    return out;
  }

  /** Every id concatenated, as one string (the segment file's blob). */
  blob(): string {
    return this.units.toString(this.wide ? 'utf16le' : 'latin1');
  }

  /** Every id, in ordinal order (a copy: tests and tools). */
  toArray(): string[] {
    return Array.from({ length: this.length }, (_, d) => this.get(d));
  }

  /** Bytes held (code units and offsets). */
  get byteLength(): number {
    return this.units.byteLength + this.starts.byteLength;
  }
}
