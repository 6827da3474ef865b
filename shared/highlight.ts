/**
 * The search body's `highlight` (ES `HighlightBuilder.fromXContent`): global options, per-field
 * options that override them, and the defaults the highlighter applies (docs/highlight.md).
 * Parsed once on the coordinator; the shards receive the parsed form in the fetch options.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/highlighting.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/fetch/subphase/highlight/HighlightBuilder.java
 */
import { illegalArgument } from './errors.ts';
import { didYouMean, isObject, scalarText, tokenName, xContentBoolean, xContentError, xContentInt } from './params.ts';
import type { Query } from './query-ast.ts';
import { parseQuery } from './query-dsl.ts';

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

/** `tags_schema: styled` (ES `HighlightBuilder.DEFAULT_STYLED_PRE_TAG`). */
const STYLED_PRE_TAGS = Array.from({ length: 10 }, (_, i) => `<em class="hlt${i + 1}">`);

/** Keys both the top level and a field accept; the rest are accepted and have no effect in Folio. */
const COMMON_KEYS = [
  'pre_tags', 'post_tags', 'fragment_size', 'number_of_fragments', 'no_match_size', 'require_field_match', 'highlight_query',
  'order', 'type', 'fragmenter', 'max_analyzed_offset', 'max_analyzer_offset', 'highlight_filter', 'boundary_scanner', 'boundary_max_scan',
  'boundary_chars', 'boundary_scanner_locale', 'force_source', 'phrase_limit', 'options',
];
const TOP_KEYS = [...COMMON_KEYS, 'tags_schema', 'encoder', 'fields'];
const FIELD_KEYS = [...COMMON_KEYS, 'fragment_offset', 'matched_fields'];

function strings(parser: string, k: string, v: unknown): string[] {
  const arr = Array.isArray(v) ? v : [v];
  return arr.map((s) => {
    if (typeof s !== 'string') throw xContentError(`[${parser}] ${k} doesn't support values of type: ${tokenName(s)}`);
    return s;
  });
}

/** Applies one option key shared by the top level and fields; false when the key is not one of them. */
function applyCommon(o: HighlightOptions, parser: string, k: string, v: unknown): boolean {
  switch (k) {
    case 'pre_tags': o.preTags = strings(parser, k, v); return true;
    case 'post_tags': o.postTags = strings(parser, k, v); return true;
    case 'fragment_size': o.fragmentSize = xContentInt(v); return true;
    case 'number_of_fragments': o.numberOfFragments = xContentInt(v); return true;
    case 'no_match_size': o.noMatchSize = xContentInt(v); return true;
    case 'require_field_match': o.requireFieldMatch = xContentBoolean(v); return true;
    case 'highlight_query': o.highlightQuery = parseQuery(v); return true;
    case 'type': o.type = scalarText(v); return true;
    case 'order': {
      const s = scalarText(v).toLowerCase();
      o.order = s === 'score' ? 'score' : 'none'; // ES `Order.fromString`: anything but `score` is NONE
      return true;
    }
    case 'max_analyzed_offset':
    case 'max_analyzer_offset': { // OpenSearch's name of the same option
      const n = xContentInt(v);
      if (n < -1 || n === 0) throw illegalArgument('[max_analyzed_offset] must be a positive integer, or -1');
      o.maxAnalyzedOffset = n;
      return true;
    }
    case 'boundary_scanner': {
      const s = scalarText(v).toLowerCase();
      if (s !== 'chars' && s !== 'word' && s !== 'sentence') throw illegalArgument(`Invalid boundary_scanner type: ${scalarText(v)}`);
      return true;
    }
    case 'fragmenter': case 'highlight_filter': case 'boundary_max_scan': case 'boundary_chars': case 'boundary_scanner_locale':
    case 'force_source': case 'phrase_limit': case 'options':
      return true; // accepted; Folio's one highlighter has no use for them (docs/compatibility.md)
    default:
      return false;
  }
}

function parseFieldOptions(name: string, v: unknown): { name: string; options: HighlightOptions } {
  if (!isObject(v)) throw xContentError(`[highlight_field] ${name} doesn't support values of type: ${tokenName(v)}`);
  const options: HighlightOptions = {};
  for (const [k, x] of Object.entries(v)) {
    if (applyCommon(options, 'highlight_field', k, x)) continue;
    if (k === 'fragment_offset' || k === 'matched_fields') continue;
    throw xContentError(`[highlight_field] unknown field [${k}]${didYouMean(k, FIELD_KEYS)}`);
  }
  return { name, options };
}

/**
 * Parses the body's `highlight` object as ES does, key by key.
 * @throws EsError 400 `x_content_parse_exception` `[1:1] [highlight] unknown field [x]` (or
 *   `[highlight_field]` inside a field); `illegal_argument_exception` for `pre_tags` without
 *   `post_tags` (`pre_tags are set but post_tags are not set`), an unknown `tags_schema`, a bad
 *   `boundary_scanner` or `max_analyzed_offset` (`must be a positive integer, or -1`).
 * @example parseHighlight({fields: {body: {}}, pre_tags: ['<b>'], post_tags: ['</b>']})
 */
export function parseHighlight(v: unknown): HighlightSpec {
  if (!isObject(v)) throw xContentError(`[highlight] doesn't support values of type: ${tokenName(v)}`);
  const spec: HighlightSpec = { global: {}, encoder: 'default', fields: [] };
  let styled = false;
  for (const [k, x] of Object.entries(v)) {
    if (applyCommon(spec.global, 'highlight', k, x)) continue;
    if (k === 'encoder') spec.encoder = scalarText(x) === 'html' ? 'html' : 'default';
    else if (k === 'tags_schema') {
      const s = scalarText(x);
      if (s !== 'styled') throw illegalArgument(`Unknown tag schema [${s}]`);
      styled = true;
    } else if (k === 'fields') {
      if (Array.isArray(x)) {
        for (const entry of x) {
          if (!isObject(entry) || Object.keys(entry).length !== 1) throw xContentError('[highlight] failed to parse field [fields]', { type: 'illegal_argument_exception', reason: 'If highlighter fields is an array it must contain objects containing a single field' });
          const [name, opts] = Object.entries(entry)[0];
          spec.fields.push(parseFieldOptions(name, opts));
        }
      } else if (isObject(x)) {
        for (const [name, opts] of Object.entries(x)) spec.fields.push(parseFieldOptions(name, opts));
      } else throw xContentError(`[highlight] fields doesn't support values of type: ${tokenName(x)}`);
    } else throw xContentError(`[highlight] unknown field [${k}]${didYouMean(k, TOP_KEYS)}`);
  }
  if (styled) {
    spec.global.preTags ??= STYLED_PRE_TAGS;
    spec.global.postTags ??= ['</em>'];
  }
  const unpaired = [spec.global, ...spec.fields.map((f) => f.options)].some((o) => o.preTags !== undefined && o.postTags === undefined);
  if (unpaired && spec.global.postTags === undefined) throw illegalArgument('pre_tags are set but post_tags are not set');
  return spec;
}

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
