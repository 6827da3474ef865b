/**
 * Picks the reader for an input file: by `--format`, else by extension (`.ndjson`, `.jsonl`,
 * `.json`, `.csv`, `.tsv`), else by the first non-blank character (`[` = JSON array).
 */
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { readCsv } from './csv.ts';
import type { CsvOptions } from './csv.ts';
import { readJsonArray } from './json-array.ts';
import { readNdjson } from './ndjson.ts';
import type { InputRecord } from './record.ts';

/** Input formats `folio load` reads. */
export type InputFormat = 'ndjson' | 'json' | 'csv' | 'tsv';

/** The formats, for the `--format` choices. */
export const INPUT_FORMATS: readonly InputFormat[] = ['ndjson', 'json', 'csv', 'tsv'];

/** The format of `path`: from its extension, else sniffed from its first bytes. */
export async function detectFormat(path: string): Promise<InputFormat> {
  const ext = path.toLowerCase().match(/\.([a-z]+)$/)?.[1];
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  if (ext === 'csv') return 'csv';
  if (ext === 'tsv') return 'tsv';
  const fh = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(4096), 0, 4096, 0);
    const first = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart()[0];
    return first === '[' ? 'json' : 'ndjson';
  } finally {
    await fh.close();
  }
}

/** The records of `input` read as `format`. */
export function readRecords(input: Readable, format: InputFormat, opts: CsvOptions = {}): AsyncGenerator<InputRecord> {
  switch (format) {
    case 'ndjson':
      return readNdjson(input, opts);
    case 'json':
      return readJsonArray(input, opts);
    case 'csv':
      return readCsv(input, opts);
    case 'tsv':
      return readCsv(input, { ...opts, delimiter: '\t' });
  }
}
