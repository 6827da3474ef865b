/**
 * File primitives of a shared filesystem snapshot repository (ES `FsBlobContainer`): every write
 * goes to a temporary file that is fsynced and renamed into place, then the directory is fsynced,
 * so a reader sees a blob whole or not at all, and a crash leaves only a `*.tmp` file behind
 * (ES `FsBlobContainer.writeBlobAtomic`). Copies stream through a bounded buffer with the
 * asynchronous `fs` API, so a large segment file never holds the event loop nor sits in memory whole.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/blobstore/fs/FsBlobContainer.java
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { link, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { RateLimiter } from './rate-limiter.ts';

/** Bytes read per step of a streaming copy (ES `FsBlobContainer` copies through an 8 KiB buffer; more is fewer syscalls). */
export const COPY_CHUNK_BYTES = 256 * 1024;

/** Lucene's `CodecUtil.FOOTER_MAGIC`, the footer word Folio's segment files and commit points end with (docs/segment-files.md). */
const FOOTER_MAGIC = 0xc02893e8;

/** Fsyncs a directory's entries (skipped where the platform cannot open a directory, as Lucene skips it). */
export async function fsyncDirectory(path: string): Promise<void> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    if (isUnsupported(err) || (err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    await fh.sync();
  } catch (err) {
    if (!isUnsupported(err)) throw err;
  } finally {
    await fh.close();
  }
}

function isUnsupported(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EISDIR' || code === 'EPERM' || code === 'EINVAL' || code === 'ENOTSUP';
}

/** A fresh temporary name beside `path` (`<path>.<random>.tmp`). */
function temporaryPath(path: string): string {
  return `${path}.${randomBytes(6).toString('hex')}.tmp`;
}

/** Creates `dir` and its missing parents (`mkdir -p`), fsyncing the parent of each one created. */
export async function ensureDirectory(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return;
  for (let d = dir; d.length >= first.length; d = dirname(d)) await fsyncDirectory(dirname(d));
}

/** Writes `data` to a new temporary file beside `path` (its directory made first) and fsyncs it. @returns the temporary file's path */
async function writeTemporary(path: string, data: string | Uint8Array): Promise<string> {
  await ensureDirectory(dirname(path));
  const tmp = temporaryPath(path);
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return tmp;
}

/** Writes `data` to `path` atomically: a temporary file, fsync, rename, fsync of the directory. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = await writeTemporary(path, data);
  await rename(tmp, path);
  await fsyncDirectory(dirname(path));
}

/**
 * Writes `data` to `path`, which must not exist yet, atomically: a temporary file, fsync, then a
 * hard link to `path` (which fails when another writer created it first, where a rename would
 * replace its file), fsync of the directory. A repository's `index-<N>` is written this way, so two
 * writers that read the same generation cannot both write the next one (ES compares the
 * repository generation in the cluster state for the same purpose).
 * @returns false when `path` exists (nothing written)
 */
export async function writeNewFileAtomic(path: string, data: string | Uint8Array): Promise<boolean> {
  const tmp = await writeTemporary(path, data);
  try {
    await link(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await rm(tmp, { force: true });
  }
  await fsyncDirectory(dirname(path));
  return true;
}

/** Writes `value` as JSON to `path` atomically ({@link writeFileAtomic}). */
export function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  return writeFileAtomic(path, JSON.stringify(value));
}

/** The JSON value stored at `path`; undefined when the file does not exist. @throws SyntaxError for an unreadable file */
export async function readJsonFile<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return JSON.parse(text) as T;
}

/**
 * Copies `src` to `dest` durably and atomically: streamed in {@link COPY_CHUNK_BYTES} chunks to a
 * temporary file, fsynced, renamed into place (the directory is fsynced by the caller once per
 * batch, {@link fsyncDirectory}); with `limiter`, no faster than its rate. @returns the bytes copied
 */
export async function copyFileDurably(src: string, dest: string, limiter?: RateLimiter): Promise<number> {
  await ensureDirectory(dirname(dest));
  const tmp = temporaryPath(dest);
  try {
    const read = createReadStream(src, { highWaterMark: COPY_CHUNK_BYTES });
    const write = createWriteStream(tmp, { highWaterMark: COPY_CHUNK_BYTES });
    if (limiter) {
      const throttle = async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          await limiter.pause(chunk.length);
          yield chunk;
        }
      };
      await pipeline(read, throttle, write);
    } else await pipeline(read, write);
    const fh = await open(tmp, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, dest);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return (await stat(dest)).size;
}

/** A file's identity as ES's `StoreFileMetadata` compares it: its length and its footer checksum. */
export interface FileIdentity {
  /** Bytes. */
  length: number;
  /** The CRC32 of the footer, base 36 (Lucene's `Store.digestToString`). */
  checksum: string;
}

/**
 * The length and footer checksum of a segment file or commit point (both end with Lucene's footer
 * magic then the CRC32 of every byte before it: docs/segment-files.md), read from its last 8 bytes.
 * @throws Error when the file is shorter than a footer or its footer magic is wrong
 */
export async function readFileIdentity(path: string): Promise<FileIdentity> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    if (size < 8) throw new Error(`[${path}] is too short for a footer (${size} bytes)`);
    const footer = Buffer.alloc(8);
    await fh.read(footer, 0, 8, size - 8);
    if (footer.readUInt32LE(0) !== FOOTER_MAGIC) throw new Error(`[${path}] has no footer magic`);
    return { length: size, checksum: footer.readUInt32LE(4).toString(36) };
  } finally {
    await fh.close();
  }
}

/** Removes the files `names` of `dir` (missing ones are fine), then fsyncs `dir`. */
export async function removeFiles(dir: string, names: Iterable<string>): Promise<number> {
  let removed = 0;
  for (const name of names) {
    await rm(join(dir, name), { force: true });
    removed++;
  }
  if (removed > 0) await fsyncDirectory(dir);
  return removed;
}
