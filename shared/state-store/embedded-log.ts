/**
 * The files that make {@link import('./embedded-store.ts').EmbeddedStore} durable, in its own
 * directory:
 *
 * - `LOCK`: the pid of the process that has the directory open. A second live process (or a
 *   second open in the same process) is refused with `locked`; a lock left by a dead process is
 *   taken over.
 * - `snapshot.json`: the whole state at one revision (keys, leases, counters), replaced atomically
 *   (write a temporary file, fsync, rename, fsync the directory).
 * - `wal.log`: the records written since that snapshot, one line each, `<crc32 hex> <json>\n`,
 *   appended and fsynced (`fdatasync`) before the write they describe is applied or acknowledged.
 *
 * Opening reads the snapshot and then the log. A last line that is incomplete or fails its
 * checksum is a write that was never acknowledged (the process died before its fsync returned),
 * so it is cut off; a bad line anywhere else is `corrupt`. Records at or below the snapshot's
 * revision are skipped, so a crash between writing a snapshot and emptying the log is harmless.
 * This is the snapshot + write-ahead-log scheme etcd itself uses (its `wal` and `snap` packages).
 * @see https://etcd.io/docs/v3.4/learning/persistent-storage-files/
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, open, readFile, rename, stat, truncate } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { StateStoreError } from './errors.ts';
import type { KeyValue } from './types.ts';

/** Snapshot file format version; a different one is refused as `corrupt`. */
const SNAPSHOT_FORMAT = 1;

/**
 * One durable change. Revisions are the store revision the change produced.
 * - `txn`: keys put (`[key, value, lease or null]`) and deleted at `rev`.
 * - `grant`: a lease was granted (no revision).
 * - `revoke`: a lease ended (revoked or expired); its keys were deleted at `rev` (`null` if it had none).
 * - `compact`: history before `rev` was discarded.
 */
export type LogRecord =
  | { t: 'txn'; rev: number; puts: Array<[string, string, string | null]>; dels: string[] }
  | { t: 'grant'; id: string; ttl: number }
  | { t: 'revoke'; id: string; rev: number | null; dels: string[] }
  | { t: 'compact'; rev: number };

/** The whole state at one revision, as `snapshot.json` holds it. */
export interface Snapshot {
  format: typeof SNAPSHOT_FORMAT;
  revision: number;
  compactRevision: number;
  /** The next lease id to hand out (decimal). */
  nextLeaseId: string;
  kvs: KeyValue[];
  leases: Array<{ id: string; ttlSeconds: number }>;
}

/** What {@link EmbeddedLog.open} found on disk: the last snapshot (if any) and the records after it. */
export interface Recovered {
  log: EmbeddedLog;
  snapshot: Snapshot | undefined;
  records: LogRecord[];
}

/** The durable side of the embedded store: lock, snapshot and write-ahead log of one directory. */
export class EmbeddedLog {
  readonly dir: string;
  private wal: FileHandle;
  private walBytes: number;
  private closed = false;

  private constructor(dir: string, wal: FileHandle, walBytes: number) {
    this.dir = dir;
    this.wal = wal;
    this.walBytes = walBytes;
  }

  /**
   * Locks `dir` (creating it) and reads back its snapshot and log. Throws `locked` if another live
   * process holds it, `corrupt` if the files cannot be read back.
   */
  static async open(dir: string): Promise<Recovered> {
    await mkdir(dir, { recursive: true });
    takeLock(dir);
    try {
      const snapshot = await readSnapshot(dir);
      const walPath = join(dir, 'wal.log');
      const { records, goodBytes } = await readWal(walPath);
      const size = await stat(walPath).then(
        (s) => s.size,
        () => 0,
      );
      if (size > goodBytes) await truncate(walPath, goodBytes);
      const wal = await open(walPath, 'a');
      return { log: new EmbeddedLog(dir, wal, goodBytes), snapshot, records };
    } catch (err) {
      releaseLock(dir);
      throw err;
    }
  }

  /** Bytes in the log since the last snapshot. */
  get logBytes(): number {
    return this.walBytes;
  }

  /** Appends one record and returns once it is on disk (`fdatasync`). */
  async append(record: LogRecord): Promise<void> {
    if (this.closed) throw new StateStoreError('closed', 'the embedded state store is closed');
    const line = encodeLine(record);
    await this.wal.write(line);
    await this.wal.datasync();
    this.walBytes += Buffer.byteLength(line);
  }

  /** Writes `snapshot` atomically and then empties the log, whose records it includes. */
  async writeSnapshot(snapshot: Snapshot): Promise<void> {
    if (this.closed) throw new StateStoreError('closed', 'the embedded state store is closed');
    const path = join(this.dir, 'snapshot.json');
    const tmp = `${path}.tmp`;
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(JSON.stringify(snapshot));
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
    await syncDir(this.dir);
    await this.wal.truncate(0);
    await this.wal.sync();
    this.walBytes = 0;
  }

  /** Closes the log and releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.wal.close();
    releaseLock(this.dir);
  }
}

/** The log line of a record: CRC-32 of the JSON, a space, the JSON, a newline. */
function encodeLine(record: LogRecord): string {
  const json = JSON.stringify(record);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** Reads every whole, checksummed line; stops at a torn last line. `corrupt` for a bad line before the end. */
async function readWal(path: string): Promise<{ records: LogRecord[]; goodBytes: number }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], goodBytes: 0 };
    throw err;
  }
  const records: LogRecord[] = [];
  let offset = 0;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    const line = nl < 0 ? text.slice(offset) : text.slice(offset, nl);
    const record = nl < 0 ? undefined : decodeLine(line);
    if (!record) {
      // Only the last line may be bad: it is a write whose fsync never returned.
      if (nl >= 0 && nl + 1 < text.length) {
        throw new StateStoreError('corrupt', `${path}: bad record at byte ${Buffer.byteLength(text.slice(0, offset))}`);
      }
      break;
    }
    records.push(record);
    offset = nl + 1;
  }
  return { records, goodBytes: Buffer.byteLength(text.slice(0, offset)) };
}

function decodeLine(line: string): LogRecord | undefined {
  const space = line.indexOf(' ');
  if (space !== 8) return undefined;
  const json = line.slice(9);
  if (crc32(json).toString(16).padStart(8, '0') !== line.slice(0, 8)) return undefined;
  try {
    return JSON.parse(json) as LogRecord;
  } catch {
    return undefined;
  }
}

async function readSnapshot(dir: string): Promise<Snapshot | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, 'snapshot.json'), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let snapshot: Snapshot;
  try {
    snapshot = JSON.parse(text) as Snapshot;
  } catch (err) {
    throw new StateStoreError('corrupt', `${join(dir, 'snapshot.json')}: not JSON`, { cause: err });
  }
  const format: unknown = snapshot?.format;
  if (format !== SNAPSHOT_FORMAT) throw new StateStoreError('corrupt', `${join(dir, 'snapshot.json')}: unknown format ${String(format)}`);
  return snapshot;
}

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Whether a process with this pid is running (signal 0 probes without sending). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Creates `LOCK` with our pid; takes over a lock whose process is gone. */
function takeLock(dir: string): void {
  const path = join(dir, 'LOCK');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
    if (Number.isInteger(holder) && holder > 0 && processAlive(holder)) {
      throw new StateStoreError('locked', `${dir} is in use by process ${holder}${holder === process.pid ? ' (this process)' : ''}`);
    }
    unlinkSync(path); // left by a process that died
  }
  throw new StateStoreError('locked', `${dir}: could not take ${path}`);
}

function releaseLock(dir: string): void {
  try {
    unlinkSync(join(dir, 'LOCK'));
  } catch {
    // already gone
  }
}
