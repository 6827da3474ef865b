/**
 * Reads CSV with a header row through `csv-parse` (streaming). Position = the 1-based line where
 * a record ends. Values stay strings unless `inferTypes`: then numbers become numbers,
 * `true`/`false` booleans, and empty cells null. A record with the wrong number of cells (or a
 * quoting error) is a per-record error and the read goes on.
 * @see https://csv.js.org/parse/options/
 */
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { CsvError } from 'csv-parse';
import { recordOf } from './record.ts';
import type { InputRecord, RecordOptions } from './record.ts';

/** CSV reader options. */
export interface CsvOptions extends RecordOptions {
  /** Cell delimiter (default `,`). */
  delimiter?: string;
  /** Convert numbers, booleans and empty cells (see the module doc). */
  inferTypes?: boolean;
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** One cell, typed when `inferTypes`. */
export function inferCell(cell: string): string | number | boolean | null {
  if (cell === '') return null;
  if (cell === 'true') return true;
  if (cell === 'false') return false;
  if (NUMBER.test(cell)) {
    const n = Number(cell);
    if (Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n))) return n;
  }
  return cell;
}

/** Yields one record per CSV row after the header. */
export async function* readCsv(input: Readable, opts: CsvOptions = {}): AsyncGenerator<InputRecord> {
  const skip = opts.skipThrough ?? 0;
  const skipped: InputRecord[] = [];
  const parser = parse({
    columns: true,
    bom: true,
    delimiter: opts.delimiter ?? ',',
    skip_empty_lines: true,
    info: true,
    raw: true,
    skip_records_with_error: true,
    on_skip: (err: CsvError | undefined, raw: string | undefined) => {
      const lines = err?.lines; // csv-parse sets the line number on its errors
      skipped.push({ position: typeof lines === 'number' ? lines : 0, error: `invalid CSV record: ${err?.message ?? 'unknown error'}`, raw });
    },
  });
  input.on('error', (err) => parser.destroy(err));
  input.pipe(parser);
  const flush = function* (before: number) {
    while (skipped.length > 0 && skipped[0].position < before) {
      const r = skipped.shift() as InputRecord;
      if (r.position > skip) yield r;
    }
  };
  for await (const row of parser as AsyncIterable<{ record: Record<string, string>; raw: string; info: { lines: number } }>) {
    const position = row.info.lines;
    yield* flush(position);
    if (position <= skip) continue;
    let source: Record<string, unknown> = row.record;
    if (opts.inferTypes) {
      source = {};
      for (const [k, v] of Object.entries(row.record)) source[k] = inferCell(v);
    }
    yield recordOf(position, source, opts, undefined, row.raw.replace(/\r?\n$/, ''));
  }
  yield* flush(Infinity);
}
