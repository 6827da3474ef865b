/**
 * The search body's `highlight` (ES `HighlightBuilder.fromXContent`): global options, per-field
 * options that override them, and the defaults the highlighter applies (docs/highlight.md).
 * Parsed once on the coordinator (coordinator/rest/highlight-parse.ts); the shards receive the parsed form in
 * the fetch options.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/highlighting.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/fetch/subphase/highlight/HighlightBuilder.java
 */
import type { Query } from './query-ast.ts';

/** Options a field may set (each absent = inherit the global one, then the default). */
export interface HighlightOptions {
  /** `unified` (default), `plain` or `fvh` (on fields mapped with `term_vector: with_positions_offsets` only). */
  type?: string;
  preTags?: string[];
  postTags?: string[];
  /** Characters per fragment (default 100). */
  fragmentSize?: number;
  /** Fragments per field (default 5; 0 = each matching value whole). */
  numberOfFragments?: number;
  /** Characters from the start of the field when nothing matched (default 0: no fragment). */
  noMatchSize?: number;
  /** Only the query clauses on this field highlight it (default true). */
  requireFieldMatch?: boolean;
  /** Highlight the terms of this query instead of the search query's. */
  highlightQuery?: Query;
  /** `score`: fragments best first; `none` (default): in text order. */
  order?: 'none' | 'score';
  /** Stop analyzing each value at this many characters (-1 or absent: the index limit applies). */
  maxAnalyzedOffset?: number;
}

/** A parsed `highlight` object. */
export interface HighlightSpec {
  global: HighlightOptions;
  /** `html`: the text is HTML-escaped before the tags go in (default: as is). */
  encoder: 'default' | 'html';
  /** Field names or wildcard patterns, in request order, with their own options. */
  fields: { name: string; options: HighlightOptions }[];
}

/** The defaults of ES's highlighters (`HighlightBuilder`, `AbstractHighlighterBuilder`). */
export const HIGHLIGHT_DEFAULTS = {
  type: 'unified',
  preTags: ['<em>'],
  postTags: ['</em>'],
  fragmentSize: 100,
  numberOfFragments: 5,
  noMatchSize: 0,
  requireFieldMatch: true,
  order: 'none',
} as const;

/** A field's effective options: its own, else the global ones, else the defaults. */
export interface ResolvedHighlightOptions {
  type: string;
  preTags: string[];
  postTags: string[];
  fragmentSize: number;
  numberOfFragments: number;
  noMatchSize: number;
  requireFieldMatch: boolean;
  highlightQuery: Query | undefined;
  order: 'none' | 'score';
  maxAnalyzedOffset: number | undefined;
}

/** Resolves one field's options against the global ones and {@link HIGHLIGHT_DEFAULTS}. */
export function resolveHighlightOptions(global: HighlightOptions, field: HighlightOptions): ResolvedHighlightOptions {
  const d = HIGHLIGHT_DEFAULTS;
  const mao = field.maxAnalyzedOffset ?? global.maxAnalyzedOffset;
  return {
    type: field.type ?? global.type ?? d.type,
    preTags: field.preTags ?? global.preTags ?? [...d.preTags],
    postTags: field.postTags ?? global.postTags ?? [...d.postTags],
    fragmentSize: field.fragmentSize ?? global.fragmentSize ?? d.fragmentSize,
    numberOfFragments: field.numberOfFragments ?? global.numberOfFragments ?? d.numberOfFragments,
    noMatchSize: field.noMatchSize ?? global.noMatchSize ?? d.noMatchSize,
    requireFieldMatch: field.requireFieldMatch ?? global.requireFieldMatch ?? d.requireFieldMatch,
    highlightQuery: field.highlightQuery ?? global.highlightQuery,
    order: field.order ?? global.order ?? d.order,
    maxAnalyzedOffset: mao === undefined || mao === -1 ? undefined : mao,
  };
}
