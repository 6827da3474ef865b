/**
 * Opens the SQLite databases behind the shard node's durable state (Node's built-in `node:sqlite`,
 * no native install). WAL journal with `synchronous=FULL`: a `COMMIT` returns only after the WAL is
 * fsynced, and a torn last transaction (a crash mid-write) fails the WAL frame checksums and is
 * ignored on the next open, so a transaction is either wholly there or absent.
 * @see https://www.sqlite.org/wal.html
 * @see https://www.sqlite.org/pragma.html#pragma_synchronous
 * @see https://nodejs.org/docs/latest-v24.x/api/sqlite.html
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fsyncDir, mkdirDurable } from './durable-dir.ts';

/**
 * Opens (creating file and parent directories) a database at `path` in durable WAL mode. New
 * directories, and the directory of a new file, are fsynced (durable-dir.ts): the files' own
 * fsyncs do not make their directory entries durable.
 */
export function openDurableDatabase(path: string): DatabaseSync {
  const dir = dirname(path);
  mkdirDurable(dir);
  const created = !existsSync(path);
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA busy_timeout = 5000');
  if (created) fsyncDir(dir); // the new file and its -wal/-shm siblings
  return db;
}

/**
 * Runs `fn` inside one transaction (`BEGIN IMMEDIATE` … `COMMIT`, fsynced on return); rolls back
 * and rethrows when `fn` or the commit throws.
 */
export function inTransaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const out = fn();
    db.exec('COMMIT');
    return out;
  } catch (err) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw err;
  }
}
