/**
 * A JSON value kept as its text: a document's `_source` exactly as it was indexed. Elasticsearch
 * stores the `_source` bytes and returns them unchanged, so integers above 2^53, decimals such as
 * `1.10`, `-0`, numbers beyond a double's range and the escapes a client chose all come back as
 * sent. Folio parses the text to index it but stores and returns the text; the coordinator's JSON
 * writer (coordinator/http/json-writer.ts) splices a {@link RawJson} into a reply verbatim.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-source-field.html
 */
import type { SourceFilter } from '../protocol/search.ts';
import { parseExact } from './exact-json.ts';
import { filterSource } from './source-filter.ts';

/** What a {@link RawJson} gives `JSON.stringify` while a writer collects raw texts (coordinator/http/json-writer.ts). */
export interface RawJsonCollector {
  /** Records `text` and returns the placeholder string the writer later replaces with it. */
  collect(text: string): string;
}

let activeCollector: RawJsonCollector | null = null;

/**
 * Runs `fn` (a synchronous `JSON.stringify`) with `collector` receiving every {@link RawJson} it
 * serializes, in output order; restores the previous collector afterwards.
 */
export function withRawJsonCollector<T>(collector: RawJsonCollector, fn: () => T): T {
  const prev = activeCollector;
  activeCollector = collector;
  try {
    return fn();
  } finally {
    activeCollector = prev;
  }
}

/**
 * A JSON value held as its (valid) JSON text. Within a writer's {@link withRawJsonCollector} it
 * serializes to a placeholder that the writer replaces with the text; anywhere else
 * `JSON.stringify` serializes the parsed value (correct, but numbers are doubles then).
 * @example new RawJson('{"big": 72057594037927937}').parse() // { big: 72057594037927940 }
 */
export class RawJson {
  /** The JSON text, exactly as stored. */
  readonly text: string;
  private parsed: unknown;
  private isParsed = false;

  /** `text` must be valid JSON (it was parsed when the document was indexed). */
  constructor(text: string) {
    this.text = text;
  }

  /** The parsed value (parsed once, then cached; callers must not mutate it). */
  parse(): unknown {
    if (!this.isParsed) {
      this.parsed = JSON.parse(this.text);
      this.isParsed = true;
    }
    return this.parsed;
  }

  /** `JSON.stringify` hook: the writer's placeholder while one collects, else the parsed value. */
  toJSON(): unknown {
    return activeCollector ? activeCollector.collect(this.text) : this.parse();
  }
}

/**
 * The value of a `_source` as a plain object for code that reads fields of it (reindex, update,
 * tests): parses a {@link RawJson}, returns anything else as is.
 */
export function sourceValue(source: unknown): unknown {
  return source instanceof RawJson ? source.parse() : source;
}

/**
 * Applies an ES `_source` filter to a stored `_source` text: the text itself (no parse) for `true`
 * or a filter without patterns, undefined for `false`, else the filtered document re-serialized
 * with every kept number written as it was sent ({@link parseExact}; key order kept, whitespace not,
 * as ES re-renders a filtered source from its parsed map).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-fields.html#source-filtering
 */
export function filterSourceText(text: string, filter: SourceFilter): string | undefined {
  if (filter === false) return undefined;
  if (filter === true || ((filter.includes ?? []).length === 0 && (filter.excludes ?? []).length === 0)) return text;
  const src = filterSource(parseExact(text) as Record<string, unknown>, filter);
  return src === undefined ? undefined : JSON.stringify(src);
}
