/**
 * Streams the elements of a top-level JSON array with `stream-json` (constant memory for any
 * file size). Position = 1-based element number. An element that is not an object is a
 * per-record error; a syntax error ends the read (a broken array cannot be resynchronised).
 * @see https://github.com/uhop/stream-json/wiki/StreamArray
 */
import type { Readable } from 'node:stream';
import streamArray from 'stream-json/streamers/stream-array.js';
import { recordOf } from './record.ts';
import type { InputRecord, RecordOptions } from './record.ts';

/** Yields one record per array element; elements at or before `skipThrough` are skipped. */
export async function* readJsonArray(input: Readable, opts: RecordOptions = {}): AsyncGenerator<InputRecord> {
  const skip = opts.skipThrough ?? 0;
  const elements = input.pipe(streamArray.withParserAsStream());
  input.on('error', (err) => elements.destroy(err));
  for await (const { key, value } of elements as AsyncIterable<{ key: number; value: unknown }>) {
    const position = key + 1;
    if (position <= skip) continue;
    yield recordOf(position, value, opts, undefined, undefined);
  }
}
