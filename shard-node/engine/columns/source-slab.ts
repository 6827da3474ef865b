/**
 * `_source` storage, as Lucene stores fields: documents' JSON text as UTF-8, packed into blocks
 * of {@link SOURCE_BLOCK_DOCS} documents, each block compressed with LZ4 (Lucene's default
 * stored-fields codec, `BEST_SPEED`), plus a `Uint32Array` of uncompressed offsets. Reading one
 * document decompresses its block (a few µs).
 * Measured on the cities corpus (166 B of raw `_source` per doc): 16 docs per block store
 * 54 B/doc + 4 B of offsets, and a block decompresses in about 8 µs (docs/performance.md).
 * Decompressed blocks live in the process-wide block cache, bounded in bytes (block-cache.ts), so a
 * merge or a page of neighbours decompresses each block once.
 *
 * Once a slab's segment is in a segment file ({@link SourceSlab.readFromFile}), its compressed blocks
 * leave the heap: a block is read from the file when it is not cached (one positioned read,
 * segment-file/segment-file-handle.ts) and checked against the CRC32 the slab keeps per block (4 B
 * per 16 docs) before it is decompressed; the offsets stay in memory.
 * JSON text from `JSON.stringify` is well-formed UTF-16 (lone surrogates are escaped), so the round
 * trip is exact. Compression uses lz4-napi (lz4_flex, the LZ4 block format with the size prepended).
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/Lucene90StoredFieldsFormat.html
 */
import { crc32 } from 'node:zlib';
import { compressSync, uncompressSync } from 'lz4-napi';
import { runAtOnce, type SliceClock, type Steps } from '../../../shared/sliced-work.ts';
import { CorruptSegmentFileError } from '../segment-file/corrupt-segment-file.ts';
import type { SegmentFileHandle } from '../segment-file/segment-file-handle.ts';
import { cachedBlock, hasCachedBlock } from './block-cache.ts';

/** Documents per compressed block. */
export const SOURCE_BLOCK_DOCS = 16;

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

let nextSlabId = 1;

/** Where a file-backed slab's blocks are: the open file, the blocks' byte offset in it, and each block's CRC32. */
interface SourceFile {
  handle: SegmentFileHandle;
  at: number;
  crcs: Uint32Array;
}

/** The CRC32 of every block of `blocks` (`blockOffsets.length - 1` of them). */
export function blockChecksums(blocks: Uint8Array, blockOffsets: Uint32Array): Uint32Array {
  const out = new Uint32Array(blockOffsets.length - 1);
  for (let b = 0; b < out.length; b++) out[b] = crc32(blocks.subarray(blockOffsets[b], blockOffsets[b + 1]));
  return out;
}

/** Immutable, block-compressed sources of one segment: in memory, or read from its segment file on demand. */
export class SourceSlab {
  /** Process-unique id (the block cache's key). */
  readonly id = nextSlabId++;
  readonly blockOffsets: Uint32Array;
  /** `maxDoc + 1` uncompressed byte offsets, ascending: doc d is `[offsets[d], offsets[d + 1])` of the uncompressed stream. */
  readonly offsets: Uint32Array;
  /** The compressed blocks back to back while in memory (null once read from a file). */
  private memory: Uint8Array | null;
  private file: SourceFile | null = null;
  /** The last block decompressed for a sequential read that bypasses the cache (a merge). */
  private streamed: { b: number; bytes: Uint8Array } | null = null;

  constructor(blocks: Uint8Array, blockOffsets: Uint32Array, offsets: Uint32Array) {
    this.memory = blocks;
    this.blockOffsets = blockOffsets;
    this.offsets = offsets;
  }

  /**
   * A slab whose compressed blocks stay in a segment file, at byte `at` of `handle`'s file, each
   * block with its CRC32 in `crcs` (computed when the file was verified on open).
   */
  static inFile(handle: SegmentFileHandle, at: number, blockOffsets: Uint32Array, offsets: Uint32Array, crcs: Uint32Array): SourceSlab {
    const slab = new SourceSlab(new Uint8Array(0), blockOffsets, offsets);
    slab.memory = null;
    slab.file = { handle, at, crcs };
    return slab;
  }

  /**
   * Moves the compressed blocks out of the heap once they are in a segment file (the flush that
   * wrote it): from now on they are read from `handle` at byte `at`. Readers see the same bytes
   * before and after (the switch happens between two synchronous reads).
   */
  readFromFile(handle: SegmentFileHandle, at: number): void {
    if (this.memory === null) return;
    const crcs = blockChecksums(this.memory, this.blockOffsets);
    this.file = { handle, at, crcs };
    this.memory = null;
  }

  /** Whether the compressed blocks are read from a segment file (not held in the heap). */
  get onDisk(): boolean {
    return this.file !== null;
  }

  /** The compressed blocks back to back (from the file when they are there: what a segment file stores). */
  get blocks(): Uint8Array {
    if (this.memory) return this.memory;
    const n = this.blockOffsets[this.blockOffsets.length - 1];
    const out = this.file!.handle.read(this.file!.at, n);
    for (let b = 0; b < this.blockOffsets.length - 1; b++) this.checkBlock(b, out.subarray(this.blockOffsets[b], this.blockOffsets[b + 1]));
    return out;
  }

  /** Number of documents. */
  get size(): number {
    return this.offsets.length - 1;
  }

  /** Doc `d`'s `_source` JSON text. */
  get(d: number): string {
    return decoder.decode(this.bytesOf(d));
  }

  /**
   * Doc `d`'s UTF-8 bytes: a view into its decompressed block (never written to). With
   * `cache: false` (a merge walking every doc once) a block not cached is decompressed without
   * entering the block cache, so a merge does not evict what searches keep warm.
   * @throws CorruptSegmentFileError when the block read from the file fails or fails its checksum
   */
  bytesOf(d: number, cache = true): Uint8Array {
    const b = Math.floor(d / SOURCE_BLOCK_DOCS);
    const block = cache ? this.block(b) : this.streamedBlock(b);
    const base = this.offsets[b * SOURCE_BLOCK_DOCS];
    return block.subarray(this.offsets[d] - base, this.offsets[d + 1] - base);
  }

  /** Bytes held in the heap: both offset arrays, the per-block checksums, and the compressed blocks while in memory. */
  get byteLength(): number {
    return (this.memory?.byteLength ?? 0) + (this.file?.crcs.byteLength ?? 0) + this.blockOffsets.byteLength + this.offsets.byteLength;
  }

  /** Uncompressed bytes of all documents (what the slab would hold without compression). */
  get rawByteLength(): number {
    return this.offsets[this.offsets.length - 1];
  }

  private key(b: number): string {
    return `${this.id}:${b}`;
  }

  private block(b: number): Uint8Array {
    return cachedBlock('source', this.key(b), () => this.decompress(b));
  }

  private streamedBlock(b: number): Uint8Array {
    if (this.streamed?.b === b) return this.streamed.bytes;
    if (hasCachedBlock(this.key(b))) return this.block(b);
    const bytes = this.decompress(b);
    this.streamed = { b, bytes };
    return bytes;
  }

  private decompress(b: number): Uint8Array {
    const from = this.blockOffsets[b];
    const to = this.blockOffsets[b + 1];
    if (this.memory) return uncompressSync(this.memory.subarray(from, to));
    const raw = this.file!.handle.read(this.file!.at + from, to - from);
    this.checkBlock(b, raw);
    try {
      return uncompressSync(raw);
    } catch (err) {
      throw new CorruptSegmentFileError(`_source block ${b} does not decompress: ${(err as Error).message}`, this.file!.handle.path);
    }
  }

  private checkBlock(b: number, raw: Uint8Array): void {
    const actual = crc32(raw);
    const stored = this.file!.crcs[b];
    if (actual !== stored) {
      throw new CorruptSegmentFileError(
        `_source block ${b} checksum failed (stored=${stored.toString(16)}, actual=${actual.toString(16)})`,
        this.file!.handle.path,
      );
    }
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
