/**
 * What every input reader yields, and the rules that turn one parsed JSON value into a document:
 * a plain object is a document; `{"_id": …, "_source": {…}}` (what `folio dump --with-id` writes)
 * is a document with its id; `--id-field` takes the id from a (dotted) field of the source.
 */
import type { BulkDocument } from '../bulk-sender.ts';

/**
 * One input record at `position` (NDJSON and CSV: the 1-based line where it ends; JSON array:
 * the 1-based element number): a document, or the reason it could not become one.
 */
export type InputRecord =
  { position: number; doc: BulkDocument; error?: undefined; raw?: undefined } | { position: number; doc?: undefined; error: string; raw?: string };

/** Options shared by the readers. */
export interface RecordOptions {
  /** Take `_id` from this source field (dots walk into objects); a record without it is an error. */
  idField?: string;
  /** Records at positions up to and including this one are skipped (`--resume`). */
  skipThrough?: number;
}

/** Keys of a `{_id, _source}` line besides `_source` (hit metadata that a dump may carry). */
const HIT_KEYS = new Set(['_id', '_index', '_source', '_score', 'sort']);

/** True for `{…}` that is not an array or null. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value at a dotted path (`a.b.c`), or undefined. */
function lookup(source: Record<string, unknown>, path: string): unknown {
  if (path in source) return source[path];
  let v: unknown = source;
  for (const part of path.split('.')) {
    if (!isPlainObject(v)) return undefined;
    v = v[part];
  }
  return v;
}

/**
 * Turns a parsed value into a document or an error text. `metaId` is an `_id` given by a bulk
 * action line; `--id-field`, when set, wins over it.
 */
export function toDocument(value: unknown, opts: RecordOptions, metaId?: string): { doc: BulkDocument } | { error: string } {
  if (!isPlainObject(value))
    return { error: `a document must be a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}` };
  let source: Record<string, unknown> = value;
  let id = metaId;
  if (isPlainObject(value._source) && Object.keys(value).every((k) => HIT_KEYS.has(k))) {
    source = value._source;
    // An `_id` of any JSON type is taken as String() renders it (a non-scalar is not rejected here).
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    if (value._id !== undefined) id = String(value._id);
  }
  if (opts.idField) {
    const v = lookup(source, opts.idField);
    if (typeof v !== 'string' && typeof v !== 'number') return { error: `id field [${opts.idField}] is missing or not a string or number` };
    id = String(v);
  }
  if (id === '') return { error: 'the document id is empty' };
  return { doc: id === undefined ? { source } : { _id: id, source } };
}

/** Builds the record for `value` at `position`. */
export function recordOf(position: number, value: unknown, opts: RecordOptions, metaId?: string, raw?: string): InputRecord {
  const r = toDocument(value, opts, metaId);
  return 'doc' in r ? { position, doc: r.doc } : { position, error: r.error, raw };
}
