/**
 * `folio dump`: writes an index (or the hits of a query) as NDJSON, one `_source` per line, or
 * `{"_id", "_source"}` with `--with-id` (which `folio load` reads back with the same ids).
 * Walks with a point in time and `search_after` ({@link walkIndex}), with `--slices N` as N sliced
 * walks of the PIT in parallel.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { Agent } from 'undici';
import { trimUrl } from './http.ts';
import { walkIndex } from './pit-walk.ts';
import { createProgress, docsPerSecond } from './progress.ts';

/** Options of {@link runDump} (the flags of `folio dump`). */
export interface DumpCommandOptions {
  url: string;
  index: string;
  query?: unknown;
  sort?: unknown[];
  /** Output file; `-` or undefined = stdout. */
  out?: string;
  withId?: boolean;
  pageSize?: number;
  /** Sliced PIT walks run in parallel (`--slices`); the lines then come in no overall order. */
  slices?: number;
  quiet?: boolean;
}

/** What a dump wrote. */
export interface DumpSummary {
  docs: number;
  total?: number;
  elapsedMs: number;
  docsPerSecond: number;
}

/** Writes `text`, waiting for `drain` when the stream's buffer is full. */
async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/** Runs `folio dump`. */
export async function runDump(o: DumpCommandOptions): Promise<DumpSummary> {
  const base = trimUrl(o.url);
  const dispatcher = new Agent({ connections: Math.max(2, o.slices ?? 1) });
  const toFile = o.out !== undefined && o.out !== '-';
  const out: Writable = toFile ? createWriteStream(o.out as string) : process.stdout;
  const progress = createProgress(`dump ${o.index}`, !o.quiet && toFile);
  let total: number | undefined;
  let docs = 0;
  try {
    let chunk = '';
    for await (const hit of walkIndex(dispatcher, base, {
      index: o.index,
      query: o.query,
      sort: o.sort,
      pageSize: o.pageSize,
      slices: o.slices,
      onTotal: (t) => (total = t),
    })) {
      chunk += JSON.stringify(o.withId ? { _id: hit._id, _source: hit._source } : hit._source) + '\n';
      docs++;
      if (chunk.length >= 1 << 16) {
        await write(out, chunk);
        chunk = '';
        progress.update({ docs, totalDocs: total, errors: 0 });
      }
    }
    if (chunk) await write(out, chunk);
    progress.update({ docs, totalDocs: total, errors: 0 });
  } finally {
    if (toFile) {
      out.end();
      await finished(out).catch(() => undefined);
    }
    await dispatcher.close();
  }
  const elapsedMs = progress.stop();
  return { docs, total, elapsedMs, docsPerSecond: docsPerSecond(docs, elapsedMs) };
}
