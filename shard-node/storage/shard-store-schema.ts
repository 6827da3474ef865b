/**
 * The on-disk layout of a shard's SQLite file (shard-node/storage/shard-store.ts) and its
 * migrations: the `translog` (every op since the last flush; `source` NULL for a delete tombstone),
 * the `docs` flush snapshot (one row per `_id`) and `meta` (`flushed_seq_no`, `local_checkpoint`,
 * `global_checkpoint`); how a row reads back as a translog op, and what an op costs on disk.
 * Mirrors the file formats of ES's `Translog` (its operations and checkpoint file) and of the
 * Lucene commit the store's snapshot stands for.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules-translog.html
 * @see https://github.com/elastic/elasticsearch/blob/v8.15.0/server/src/main/java/org/elasticsearch/index/translog/Translog.java
 */
import type { DatabaseSync } from 'node:sqlite';
import type { TranslogOp } from '../engine/translog.ts';

/** The tables of a shard store (created when missing). */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS translog (seq_no INTEGER PRIMARY KEY, id TEXT NOT NULL, version INTEGER NOT NULL, source TEXT, routing TEXT);
CREATE TABLE IF NOT EXISTS docs (id TEXT PRIMARY KEY, seq_no INTEGER NOT NULL, version INTEGER NOT NULL, source TEXT, routing TEXT);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
`;

/** Rough on-disk cost of an op in bytes (`_id` + `_source` JSON + 24), for the flush threshold. */
export function opBytes(op: TranslogOp): number {
  return op._id.length + (op.op === 'index' ? op.json.length : 0) + 24;
}

/** A row of `translog` or `docs`. */
export interface Row {
  id: string;
  seq_no: number;
  version: number;
  source: string | null;
  /** The document's custom routing (null: none, or a delete). */
  routing: string | null;
}

/**
 * Adds the `routing` column to the tables of a store written before documents kept their custom
 * routing (their documents had none recorded: they read back without one).
 */
export function addRoutingColumns(db: DatabaseSync): void {
  for (const table of ['translog', 'docs']) {
    const cols = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
    if (!cols.some((c) => c.name === 'routing')) db.exec(`ALTER TABLE ${table} ADD COLUMN routing TEXT`);
  }
}

/** A stored row as the translog op it records (a NULL `source` is a delete tombstone). */
export function rowToOp(r: Row): TranslogOp {
  if (r.source === null) return { op: 'delete', _id: r.id, seqNo: r.seq_no, version: r.version };
  return { op: 'index', _id: r.id, json: r.source, seqNo: r.seq_no, version: r.version, ...(r.routing !== null ? { routing: r.routing } : {}) };
}

/** The ops in the `translog` table and their bytes as {@link opBytes} counts them. */
export function translogSize(db: DatabaseSync): { n: number; b: number } {
  return db.prepare('SELECT count(*) AS n, coalesce(sum(length(id) + coalesce(length(source), 0) + 24), 0) AS b FROM translog').get() as {
    n: number;
    b: number;
  };
}
