/**
 * Directories that survive a crash: creating a file or directory changes its parent directory, and
 * that change reaches the disk only when the parent itself is fsynced (POSIX leaves it to the
 * application; Lucene's `FSDirectory.syncMetaData` and ES's `IOUtils.fsync(dir, true)` do the same).
 * Without it, a power loss just after a shard's directory was created can lose the directory, and
 * the fsynced SQLite files inside it with it.
 * @see https://man7.org/linux/man-pages/man2/fsync.2.html (NOTES: "an explicit fsync() on a file descriptor for the directory is also needed")
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/util/IOUtils.java (fsync with isDir)
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Fsyncs a directory's entries. Platforms that cannot open a directory for fsync (Windows answers
 * EISDIR/EPERM) are skipped, as Lucene skips them; so is a directory that does not exist.
 */
export function fsyncDir(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if (isUnsupported(err) || (err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    fsyncSync(fd);
  } catch (err) {
    if (!isUnsupported(err)) throw err;
  } finally {
    closeSync(fd);
  }
}

function isUnsupported(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EISDIR' || code === 'EPERM' || code === 'EINVAL' || code === 'ENOTSUP';
}

/**
 * `mkdir -p` that is durable: creates `path` and any missing parents, then fsyncs every directory
 * it created and the parent of the topmost one, so each new entry is on disk when this returns.
 * @returns the directories created, topmost first (empty when `path` existed).
 */
export function mkdirDurable(path: string): string[] {
  const created: string[] = [];
  for (let p = resolve(path); !existsSync(p); p = dirname(p)) {
    created.unshift(p);
    if (dirname(p) === p) break;
  }
  if (created.length === 0) return created;
  mkdirSync(path, { recursive: true });
  fsyncDir(dirname(created[0]));
  for (const dir of created) fsyncDir(dir);
  return created;
}
