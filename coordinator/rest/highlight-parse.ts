/**
 * Parses the search body's `highlight` (ES `HighlightBuilder.fromXContent`) into the
 * {@link HighlightSpec} the shards receive in the fetch options (protocol/highlight.ts holds the
 * types and the defaults the highlighter applies).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/highlighting.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/fetch/subphase/highlight/HighlightBuilder.java
 */
import { illegalArgument } from '../../protocol/errors.ts';
import type { HighlightOptions, HighlightSpec } from '../../protocol/highlight.ts';
import { didYouMean, isObject, scalarText, tokenName, xContentBoolean, xContentError, xContentInt } from './params.ts';
import { parseQuery } from './query-dsl.ts';

/** `tags_schema: styled` (ES `HighlightBuilder.DEFAULT_STYLED_PRE_TAG`). */
const STYLED_PRE_TAGS = Array.from({ length: 10 }, (_, i) => `<em class="hlt${i + 1}">`);

/** Keys both the top level and a field accept; the rest are accepted and have no effect in Folio. */
const COMMON_KEYS = [
  'pre_tags',
  'post_tags',
  'fragment_size',
  'number_of_fragments',
  'no_match_size',
  'require_field_match',
  'highlight_query',
  'order',
  'type',
  'fragmenter',
  'max_analyzed_offset',
  'max_analyzer_offset',
  'highlight_filter',
  'boundary_scanner',
  'boundary_max_scan',
  'boundary_chars',
  'boundary_scanner_locale',
  'force_source',
  'phrase_limit',
  'options',
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
    case 'pre_tags':
      o.preTags = strings(parser, k, v);
      return true;
    case 'post_tags':
      o.postTags = strings(parser, k, v);
      return true;
    case 'fragment_size':
      o.fragmentSize = xContentInt(v);
      return true;
    case 'number_of_fragments':
      o.numberOfFragments = xContentInt(v);
      return true;
    case 'no_match_size':
      o.noMatchSize = xContentInt(v);
      return true;
    case 'require_field_match':
      o.requireFieldMatch = xContentBoolean(v);
      return true;
    case 'highlight_query':
      o.highlightQuery = parseQuery(v);
      return true;
    case 'type':
      o.type = scalarText(v);
      return true;
    case 'order': {
      const s = scalarText(v).toLowerCase();
      o.order = s === 'score' ? 'score' : 'none'; // ES `Order.fromString`: anything but `score` is NONE
      return true;
    }
    case 'max_analyzed_offset':
    case 'max_analyzer_offset': {
      // OpenSearch's name of the same option
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
    case 'fragmenter':
    case 'highlight_filter':
    case 'boundary_max_scan':
    case 'boundary_chars':
    case 'boundary_scanner_locale':
    case 'force_source':
    case 'phrase_limit':
    case 'options':
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
          if (!isObject(entry) || Object.keys(entry).length !== 1)
            throw xContentError('[highlight] failed to parse field [fields]', {
              type: 'illegal_argument_exception',
              reason: 'If highlighter fields is an array it must contain objects containing a single field',
            });
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
