/**
 * An open segment file for positioned reads on demand (the `_source` blocks a fetch needs), as
 * Lucene's `IndexInput` reads a stored-fields block from an open file. One file descriptor per
 * segment file, opened read-only; reads are `fs.readSync` at an offset (`pread`): the fetch phase is
 * synchronous, a block is about 1 KB, and from the OS page cache a read costs a few µs
 * (docs/performance.md, "On-demand `_source` blocks", has the figures and why not mmap).
 *
 * Lifetime: the descriptor stays open as long as the handle is reachable, and is closed when the
 * handle is garbage collected (a `FinalizationRegistry`). A segment that reads from the handle holds
 * it, and every reader (a refresh generation, a point in time, a scroll, an in-flight fetch) holds
 * the segment: so a merge that drops a segment, and the flush that then deletes its file from the
 * directory, never break a reader that still has it. On POSIX an unlinked file stays readable
 * through an open descriptor, as Lucene's `IndexFileDeleter` relies on for open readers; the disk
 * space is released when the last reader is gone.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/store/IndexInput.java
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { CorruptSegmentFileError } from './corrupt-segment-file.ts';

/** Closes a descriptor whose handle was collected (errors ignored: nothing is left to tell). */
const closer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/** Descriptors open now (for tests and figures). */
let openCount = 0;
const counted = new FinalizationRegistry<null>(() => openCount--);

/** One open segment file. */
export class SegmentFileHandle {
  /** The file's path when it was opened (names it in errors). */
  readonly path: string;
  private readonly fd: number;

  /** Opens `path` read-only. @throws the `fs` error when it cannot be opened */
  constructor(path: string) {
    this.path = path;
    this.fd = openSync(path, 'r');
    closer.register(this, this.fd);
    openCount++;
    counted.register(this, null);
  }

  /** Segment file descriptors open in this process. */
  static get openCount(): number {
    return openCount;
  }

  /**
   * `length` bytes at `position` in a new buffer.
   * @throws CorruptSegmentFileError when the file ends before them or the read fails (an I/O
   *   error): the caller's search fails on this shard, the process does not
   */
  read(position: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    let got = 0;
    try {
      while (got < length) {
        const n = readSync(this.fd, out, got, length - got, position + got);
        if (n === 0) throw new CorruptSegmentFileError(`read past EOF: ${length} bytes at offset ${position}`, this.path);
        got += n;
      }
    } catch (err) {
      if (err instanceof CorruptSegmentFileError) throw err;
      throw new CorruptSegmentFileError(`read of ${length} bytes at offset ${position} failed: ${(err as Error).message}`, this.path);
    }
    return out;
  }
}
