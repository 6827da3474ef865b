/**
 * `_source` storage, as Lucene stores fields: documents' JSON text as UTF-8, packed into blocks
 * of {@link SOURCE_BLOCK_DOCS} documents, each block compressed with LZ4 (Lucene's default
 * stored-fields codec, `BEST_SPEED`), plus a `Uint32Array` of uncompressed offsets. Reading one
 * document decompresses its block (a few µs); the last blocks read are kept decompressed
 * ({@link BLOCK_CACHE_BLOCKS}), so a merge or a page of neighbours decompresses each block once.
 * Measured on the cities corpus (166 B of raw `_source` per doc): 16 docs per block store
 * 54 B/doc + 4 B of offsets, and a block decompresses in about 8 µs (docs/performance.md).
 * JSON text from `JSON.stringify` is well-formed UTF-16 (lone surrogates are escaped), so the round
 * trip is exact. Compression uses lz4-napi (lz4_flex, the LZ4 block format with the size prepended).
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/Lucene90StoredFieldsFormat.html
 */
import { compressSync, uncompressSync } from 'lz4-napi';
import { runAtOnce, type SliceClock, type Steps } from '../../../shared/sliced-work.ts';

/** Documents per compressed block. */
export const SOURCE_BLOCK_DOCS = 16;
/** Decompressed blocks kept process-wide (least recently used out): about 2.7 KB each on the cities corpus. */
export const BLOCK_CACHE_BLOCKS = 512;

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

let nextSlabId = 1;
/** Decompressed blocks by `slabId:block`, in use order (Map insertion order). */
const blockCache = new Map<string, Uint8Array>();

/** Empties the process-wide block cache (benches measure cold reads with it). */
export function clearBlockCache(): void {
  blockCache.clear();
}

/** Immutable, block-compressed sources of one segment. */
export class SourceSlab {
  /** Process-unique id (the block cache's key). */
  readonly id = nextSlabId++;
  /** The compressed blocks back to back; block b is `blocks[blockOffsets[b] .. blockOffsets[b + 1])`. */
  readonly blocks: Uint8Array;
  readonly blockOffsets: Uint32Array;
  /** `maxDoc + 1` uncompressed byte offsets, ascending: doc d is `[offsets[d], offsets[d + 1])` of the uncompressed stream. */
  readonly offsets: Uint32Array;

  constructor(blocks: Uint8Array, blockOffsets: Uint32Array, offsets: Uint32Array) {
    this.blocks = blocks;
    this.blockOffsets = blockOffsets;
    this.offsets = offsets;
  }

  /** Number of documents. */
  get size(): number {
    return this.offsets.length - 1;
  }

  /** Doc `d`'s `_source` JSON text. */
  get(d: number): string {
    return decoder.decode(this.bytesOf(d));
  }

  /** Doc `d`'s UTF-8 bytes: a view into its decompressed block (valid until the block leaves the cache). */
  bytesOf(d: number): Uint8Array {
    const b = Math.floor(d / SOURCE_BLOCK_DOCS);
    const block = this.block(b);
    const base = this.offsets[b * SOURCE_BLOCK_DOCS];
    return block.subarray(this.offsets[d] - base, this.offsets[d + 1] - base);
  }

  /** Bytes held: compressed blocks plus both offset arrays. */
  get byteLength(): number {
    return this.blocks.byteLength + this.blockOffsets.byteLength + this.offsets.byteLength;
  }

  /** Uncompressed bytes of all documents (what the slab would hold without compression). */
  get rawByteLength(): number {
    return this.offsets[this.offsets.length - 1];
  }

  private block(b: number): Uint8Array {
    const key = `${this.id}:${b}`;
    let out = blockCache.get(key);
    if (out !== undefined) {
      blockCache.delete(key);
      blockCache.set(key, out);
      return out;
    }
    out = uncompressSync(this.blocks.subarray(this.blockOffsets[b], this.blockOffsets[b + 1]));
    blockCache.set(key, out);
    if (blockCache.size > BLOCK_CACHE_BLOCKS) blockCache.delete(blockCache.keys().next().value!);
    return out;
  }
}

/** Appends UTF-8 sources to a growing buffer and seals them into a block-compressed {@link SourceSlab}. */
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

  /** Compresses every block of {@link SOURCE_BLOCK_DOCS} documents and seals the slab. */
  build(): SourceSlab {
    return runAtOnce((clock) => this.buildSteps(clock));
  }

  /** {@link SourceSlabBuilder.build} as pausable steps (shared/sliced-work.ts): the clock is checked every 64 blocks. */
  *buildSteps(clock: SliceClock): Steps<SourceSlab> {
    const nBlocks = Math.ceil(this.n / SOURCE_BLOCK_DOCS);
    const parts: Buffer[] = new Array<Buffer>(nBlocks);
    const blockOffsets = new Uint32Array(nBlocks + 1);
    let total = 0;
    for (let b = 0; b < nBlocks; b++) {
      const from = this.offs[b * SOURCE_BLOCK_DOCS];
      const to = this.offs[Math.min((b + 1) * SOURCE_BLOCK_DOCS, this.n)];
      parts[b] = compressSync(this.buf.subarray(from, to));
      total += parts[b].byteLength;
      blockOffsets[b + 1] = total;
      if ((b & 63) === 63 && clock.due()) yield;
    }
    const blocks = new Uint8Array(total);
    for (let b = 0; b < nBlocks; b++) blocks.set(parts[b], blockOffsets[b]);
    return new SourceSlab(blocks, blockOffsets, this.offs.slice(0, this.n + 1));
  }
}
