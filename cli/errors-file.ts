/**
 * The errors file of `folio load` (`<index>.errors.ndjson` by default): one JSON line per record
 * that did not get indexed, with its input position, the ES status and error (or the parse
 * error), and the document (or the raw text that could not be parsed), so it can be fixed and
 * loaded again.
 */
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/** One line of the errors file. `line` is the input line (JSON array input: `record`, the element number). */
export interface ErrorEntry {
  line?: number;
  record?: number;
  /** The document's `_id`, when it had one. */
  id?: string;
  /** HTTP status of the bulk item; null for a record that could not be parsed. */
  status: number | null;
  /** The ES error object of the bulk item, or `{type: "parse_error", reason}`. */
  error: unknown;
  /** The document's source, or the raw input text for a parse error. */
  source?: unknown;
}

/** Longest raw input text kept in an entry. */
const MAX_RAW_CHARS = 10_000;

/** Appends {@link ErrorEntry} lines to a file, created lazily on the first entry. */
export class ErrorsFile {
  readonly path: string;
  private readonly append: boolean;
  private fh: FileHandle | undefined;
  /** Entries written by this process. */
  written = 0;

  /** `append` keeps earlier entries (a resumed load); otherwise the file is truncated on first write. */
  constructor(path: string, append: boolean) {
    this.path = path;
    this.append = append;
  }

  /** Writes entries (one `write` call for the lot). */
  async write(entries: readonly ErrorEntry[]): Promise<void> {
    if (entries.length === 0) return;
    this.fh ??= await open(this.path, this.append ? 'a' : 'w');
    await this.fh.write(entries.map((e) => JSON.stringify(e) + '\n').join(''));
    this.written += entries.length;
  }

  /** Closes the file (when it was opened). */
  async close(): Promise<void> {
    await this.fh?.close();
    this.fh = undefined;
  }
}

/** An entry for a record that could not be parsed (raw text truncated to 10,000 characters). */
export function parseErrorEntry(posKey: 'line' | 'record', position: number, reason: string, raw?: string): ErrorEntry {
  return { [posKey]: position, status: null, error: { type: 'parse_error', reason }, source: raw?.slice(0, MAX_RAW_CHARS) };
}
