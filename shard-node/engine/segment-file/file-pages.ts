/**
 * A byte array that stays in its segment file and is read in fixed pages on demand, through the
 * process-wide block cache (columns/block-cache.ts, kind `postings`): a field's postings stream,
 * once its segment is in a file. Lucene reads a term's postings from the `.doc`/`.pos` files the
 * same way, through the OS page cache. Each page has a CRC32, computed from the bytes whose file
 * checksum was verified (or that were just written), and checked when the page is read: a
 * mismatch, a short read or an I/O error throws {@link CorruptSegmentFileError}.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/Lucene90PostingsFormat.html
 */
import { crc32 } from 'node:zlib';
import { blockCacheEpoch, cachedBlock, countBlockCacheHit, hasCachedBlock } from '../columns/block-cache.ts';
import { CorruptSegmentFileError } from './corrupt-segment-file.ts';
import type { SegmentFileHandle } from './segment-file-handle.ts';

/** Bytes per page (the OS page size: a term's postings usually sit in one). */
export const FILE_PAGE_BYTES = 4096;

let nextId = 1;

/** The CRC32 of every {@link FILE_PAGE_BYTES} page of `bytes` (the last one shorter). */
export function pageChecksums(bytes: Uint8Array): Uint32Array {
  const out = new Uint32Array(Math.ceil(bytes.length / FILE_PAGE_BYTES));
  for (let p = 0; p < out.length; p++) out[p] = crc32(bytes.subarray(p * FILE_PAGE_BYTES, Math.min((p + 1) * FILE_PAGE_BYTES, bytes.length)));
  return out;
}

/** `length` bytes at byte `at` of a segment file, read a page at a time. */
export class FilePages {
  /** Process-unique id (the block cache's key prefix). */
  private readonly id = nextId++;
  private readonly handle: SegmentFileHandle;
  private readonly at: number;
  /** Number of bytes. */
  readonly length: number;
  private readonly crcs: Uint32Array;
  /** The last page read past the cache (a merge's pass over every term). */
  private streamed: { p: number; bytes: Uint8Array } | null = null;
  /**
   * The last page read through the cache, kept here too: a multi-term query (prefix, wildcard,
   * range) reads many neighbouring terms' postings from the same page, and this skips a cache
   * lookup per term. One page per field and segment, outside the cache's byte bound; dropped when
   * the cache is emptied.
   */
  private recent: { p: number; bytes: Uint8Array; epoch: number } | null = null;

  /** @param crcs each page's CRC32 ({@link pageChecksums} of the same bytes) */
  constructor(handle: SegmentFileHandle, at: number, length: number, crcs: Uint32Array) {
    if (crcs.length !== Math.ceil(length / FILE_PAGE_BYTES)) throw new RangeError('one checksum per page is needed');
    this.handle = handle;
    this.at = at;
    this.length = length;
    this.crcs = crcs;
  }

  /** Bytes held in the heap (the checksums). */
  get byteLength(): number {
    return this.crcs.byteLength;
  }

  /**
   * Bytes `[from, to)`: a view into a cached page when they sit in one page, else a copy of the
   * pages they span. Never written to by callers. With `cache: false` (one pass over every term: a
   * merge, uninverting), pages not cached are read without entering the cache, so that the pass
   * does not evict what searches keep warm.
   * @throws CorruptSegmentFileError when a page fails its checksum or cannot be read
   */
  slice(from: number, to: number, cache = true): Uint8Array {
    if (!(from >= 0 && from <= to && to <= this.length)) throw new RangeError(`slice [${from}, ${to}) of ${this.length} bytes`);
    const first = Math.floor(from / FILE_PAGE_BYTES);
    const last = Math.floor(Math.max(from, to - 1) / FILE_PAGE_BYTES);
    const page = (p: number) => (cache ? this.page(p) : this.streamedPage(p));
    if (first === last) return page(first).subarray(from - first * FILE_PAGE_BYTES, to - first * FILE_PAGE_BYTES);
    const out = new Uint8Array(to - from);
    for (let p = first; p <= last; p++) {
      const bytes = page(p);
      const base = p * FILE_PAGE_BYTES;
      const a = Math.max(from, base) - base;
      const b = Math.min(to, base + bytes.length) - base;
      out.set(bytes.subarray(a, b), base + a - from);
    }
    return out;
  }

  /** Every byte (what a segment file stores again), read past the cache. */
  all(): Uint8Array {
    return this.slice(0, this.length, false);
  }

  private page(p: number): Uint8Array {
    if (this.recent?.p === p && this.recent.epoch === blockCacheEpoch()) {
      countBlockCacheHit('postings');
      return this.recent.bytes;
    }
    const bytes = cachedBlock('postings', `p${this.id}:${p}`, () => this.read(p));
    this.recent = { p, bytes, epoch: blockCacheEpoch() };
    return bytes;
  }

  private streamedPage(p: number): Uint8Array {
    if (this.streamed?.p === p) return this.streamed.bytes;
    if (hasCachedBlock(`p${this.id}:${p}`)) return this.page(p);
    const bytes = this.read(p);
    this.streamed = { p, bytes };
    return bytes;
  }

  private read(p: number): Uint8Array {
    const from = p * FILE_PAGE_BYTES;
    const bytes = this.handle.read(this.at + from, Math.min(FILE_PAGE_BYTES, this.length - from));
    const actual = crc32(bytes);
    if (actual !== this.crcs[p]) {
      throw new CorruptSegmentFileError(
        `postings page ${p} checksum failed (stored=${this.crcs[p].toString(16)}, actual=${actual.toString(16)})`,
        this.handle.path,
      );
    }
    return bytes;
  }
}
