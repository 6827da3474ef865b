/**
 * Reads NDJSON line by line (constant memory). Each non-blank line is one document, with two
 * recognised shapes besides a plain object: an Elasticsearch bulk action line
 * (`{"index": {"_id": "1"}}` or `create`) followed by its source line, so `_bulk` files load as
 * they are, and `{"_id": …, "_source": {…}}` lines as `folio dump --with-id` writes them.
 * `update` and `delete` actions are reported as errors. The `_index` of an action line is
 * ignored: everything goes to `--index`.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { isPlainObject, recordOf } from './record.ts';
import type { InputRecord, RecordOptions } from './record.ts';

/** Bulk actions and the metadata keys their action line may carry. */
const ACTIONS = new Set(['index', 'create', 'update', 'delete']);
const ACTION_META = new Set([
  '_index',
  '_id',
  'routing',
  '_routing',
  'version',
  'version_type',
  'if_seq_no',
  'if_primary_term',
  'pipeline',
  'require_alias',
  'dynamic_templates',
  'op_type',
]);

/** The action name when `value` is a bulk action line (`{"index": {…metadata}}`), else undefined. */
export function bulkAction(value: unknown): { action: string; id?: string } | undefined {
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1 || !ACTIONS.has(keys[0])) return undefined;
  const meta = value[keys[0]];
  if (!isPlainObject(meta) || !Object.keys(meta).every((k) => ACTION_META.has(k))) return undefined;
  // An `_id` of any JSON type is taken as String() renders it (a non-scalar is not rejected here).
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  return { action: keys[0], id: meta._id === undefined ? undefined : String(meta._id) };
}

/** Parses one line; the error text names what was wrong. */
function parseLine(line: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(line) };
  } catch (err) {
    return { error: `invalid JSON: ${(err as Error).message}` };
  }
}

/**
 * Yields one record per document line (position = 1-based line number of the source line).
 * Lines at or before `skipThrough` are not parsed at all.
 */
export async function* readNdjson(input: Readable, opts: RecordOptions = {}): AsyncGenerator<InputRecord> {
  const skip = opts.skipThrough ?? 0;
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNo = 0;
  let pending: { action: string; id?: string; line: number } | undefined;
  for await (let line of lines) {
    lineNo++;
    if (lineNo <= skip) continue;
    if (lineNo === 1 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (line.trim() === '') continue;
    const parsed = parseLine(line);
    if (pending) {
      const { action, id } = pending;
      pending = undefined;
      if ('error' in parsed) yield { position: lineNo, error: `source of the [${action}] action: ${parsed.error}`, raw: line };
      else if (action === 'update') yield { position: lineNo, error: 'bulk action [update] is not supported by folio load', raw: line };
      else yield recordOf(lineNo, parsed.value, opts, id, line);
      continue;
    }
    if ('error' in parsed) {
      yield { position: lineNo, error: parsed.error, raw: line };
      continue;
    }
    const action = bulkAction(parsed.value);
    if (action?.action === 'delete') yield { position: lineNo, error: 'bulk action [delete] is not supported by folio load', raw: line };
    else if (action) pending = { ...action, line: lineNo };
    else yield recordOf(lineNo, parsed.value, opts, undefined, line);
  }
  if (pending) yield { position: pending.line, error: `bulk action [${pending.action}] on the last line has no source line` };
}
