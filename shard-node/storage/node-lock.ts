/**
 * The shard node's exclusive lock on its data directory, as Lucene's `write.lock`
 * (`NativeFSLockFactory`) keeps two writers off one index and ES's `NodeEnvironment` keeps two nodes
 * off one data path: `<data>/node.lock` is created with O_EXCL and holds the owner's pid, host
 * name, start time and a start-time token. Node has no `fcntl`/`flock`, which the OS would release
 * on a crash, so a lock left behind by a dead process is recognised instead:
 * - its pid is not alive (`process.kill(pid, 0)` fails with ESRCH), or is this very process (a
 *   container restarted with the same pid);
 * - or the pid is alive but is another process than the one that wrote the lock: its start time
 *   (`/proc/<pid>/stat` field 22, on Linux) differs from the recorded token (pid reuse after a crash);
 * - or the lock was written on another host, whose processes cannot be checked (a container
 *   re-created with a new host name keeps its volume): taken over with a warning.
 * A stale lock is taken over with a log line; a live one refuses the start with an error that
 * names the holder. A clean shutdown removes the file.
 * @see https://lucene.apache.org/core/9_11_0/core/org/apache/lucene/store/NativeFSLockFactory.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/path-settings-overview.html
 */
import { closeSync, fsyncSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fsyncDir } from './durable-dir.ts';

/** File name of the lock inside the data directory. */
export const NODE_LOCK_FILE = 'node.lock';

/** What `node.lock` records about its holder (JSON). */
export interface NodeLockOwner {
  pid: number;
  hostname: string;
  /** Epoch ms when the lock was taken. */
  startedAt: number;
  /** The holder's process start time as the OS reports it (Linux: /proc/<pid>/stat starttime); null when unknown. */
  startToken: string | null;
}

/** Thrown when another live process holds the data directory. */
export class NodeLockedError extends Error {
  readonly owner: NodeLockOwner;
  constructor(dataDir: string, owner: NodeLockOwner) {
    super(
      `data directory [${dataDir}] is in use by another shard node: pid ${owner.pid} on host [${owner.hostname}], running since ${new Date(owner.startedAt).toISOString()} ` +
        `(${join(dataDir, NODE_LOCK_FILE)}); stop it, or give this node its own FOLIO_DATA`,
    );
    this.name = 'NodeLockedError';
    this.owner = owner;
  }
}

/** Where a lock check looks; injectable for tests. */
export interface NodeLockHost {
  pid: number;
  hostname: string;
  /** Whether a process with this pid exists. */
  isAlive(pid: number): boolean;
  /** The start-time token of a pid (null when the OS does not tell). */
  startToken(pid: number): string | null;
  now(): number;
}

/** The running process and OS. */
export const CURRENT_HOST: NodeLockHost = {
  pid: process.pid,
  hostname: hostname(),
  isAlive(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
    }
  },
  startToken: procStartToken,
  now: Date.now,
};

/** Linux: field 22 of /proc/<pid>/stat (start time in clock ticks since boot); null elsewhere. */
export function procStartToken(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null; // field 3 is fields[0], so field 22 is fields[19]
  } catch {
    return null;
  }
}

/** Why a recorded owner no longer holds the lock, or null when it still does. */
export function staleReason(owner: NodeLockOwner, host: NodeLockHost): string | null {
  if (owner.hostname !== host.hostname) return `written on another host [${owner.hostname}], whose processes cannot be checked from here`;
  if (owner.pid === host.pid) return 'written by an earlier process with this same pid';
  if (!host.isAlive(owner.pid)) return `process ${owner.pid} is not running`;
  const token = host.startToken(owner.pid);
  if (owner.startToken !== null && token !== null && token !== owner.startToken) return `pid ${owner.pid} now belongs to another process`;
  return null;
}

/** A held lock on a data directory. */
export class NodeLock {
  readonly path: string;
  readonly owner: NodeLockOwner;
  private released = false;

  private constructor(path: string, owner: NodeLockOwner) {
    this.path = path;
    this.owner = owner;
  }

  /**
   * Takes `<dataDir>/node.lock` (the directory must exist). A stale lock is replaced and `onTakeover`
   * told why.
   * @throws NodeLockedError when a live process holds it; an fs error when the file cannot be written
   */
  static acquire(dataDir: string, onTakeover: (previous: NodeLockOwner, reason: string) => void = () => {}, host: NodeLockHost = CURRENT_HOST): NodeLock {
    const path = join(dataDir, NODE_LOCK_FILE);
    const owner: NodeLockOwner = { pid: host.pid, hostname: host.hostname, startedAt: host.now(), startToken: host.startToken(host.pid) };
    for (let attempt = 0; ; attempt++) {
      if (createExclusive(path, owner)) {
        fsyncDir(dataDir);
        // Two processes replacing one stale lock at once: the later unlink-and-create wins, so
        // each checks the file is its own before going on.
        const now = readOwner(path);
        if (now && now.pid === owner.pid && now.startedAt === owner.startedAt && now.hostname === owner.hostname) return new NodeLock(path, owner);
        if (now) throw new NodeLockedError(dataDir, now);
      }
      const previous = readOwner(path);
      if (previous === null) {
        // Unreadable or half-written (a crash while creating it): nobody can hold it meaningfully.
        if (attempt > 2) throw new Error(`cannot take the lock ${path}: the file keeps changing`);
        removeIfPresent(path);
        continue;
      }
      const reason = staleReason(previous, host);
      if (reason === null) throw new NodeLockedError(dataDir, previous);
      if (attempt > 2) throw new NodeLockedError(dataDir, previous);
      onTakeover(previous, reason);
      removeIfPresent(path);
    }
  }

  /** Removes the lock file if it is still this process's (clean shutdown). Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    const now = readOwner(this.path);
    if (now && now.pid === this.owner.pid && now.startedAt === this.owner.startedAt) removeIfPresent(this.path);
  }
}

/** Creates `path` with O_EXCL holding `owner`, fsynced. @returns false when it exists already */
function createExclusive(path: string, owner: NodeLockOwner): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, JSON.stringify(owner) + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readOwner(path: string): NodeLockOwner | null {
  try {
    const o = JSON.parse(readFileSync(path, 'utf8')) as Partial<NodeLockOwner>;
    if (typeof o.pid !== 'number' || typeof o.hostname !== 'string' || typeof o.startedAt !== 'number') return null;
    return { pid: o.pid, hostname: o.hostname, startedAt: o.startedAt, startToken: typeof o.startToken === 'string' ? o.startToken : null };
  } catch {
    return null; // absent, or not (yet) a whole record
  }
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
