/**
 * The fetch phase's highlight step (ES `HighlightPhase`): compiles a request's `highlight` once
 * per fetch call against the index mapping (field patterns expanded, options resolved, the query's
 * clauses extracted per field), then highlights each hit from its `_source`, bounded by
 * `index.highlight.max_analyzed_offset`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/fetch/subphase/highlight/HighlightPhase.java
 */
import { illegalArgument } from '../../../protocol/errors.ts';
import { fetchableFields, fetchableFieldsWithAliases, sourceValues } from '../../../shared/field-fetcher.ts';
import { resolveHighlightOptions, type ResolvedHighlightOptions } from '../../../protocol/highlight.ts';
import { flatFields, type Mapping } from '../../../protocol/mapping.ts';
import { setOwn } from '../../../shared/own-keys.ts';
import type { ShardHighlight } from '../../../protocol/search.ts';
import { isWildcardPattern, wildcardMatch } from '../../../shared/wildcard.ts';
import { highlightClauses, type HighlightClause } from './highlight-terms.ts';
import { highlightField } from './highlighter.ts';

/** ES's default `index.highlight.max_analyzed_offset` (`IndexSettings.MAX_ANALYZED_OFFSET_SETTING`). */
export const DEFAULT_MAX_ANALYZED_OFFSET = 1_000_000;

/** One field to highlight, ready for every hit. */
interface CompiledField {
  name: string;
  /** The field's mapping gives offsets (`index_options: offsets`, term vectors with offsets): ES reads them instead of analyzing, so `max_analyzed_offset` does not apply (unified, fvh). */
  indexedOffsets: boolean;
  sourcePath: string;
  keyword: boolean;
  ignoreAbove: number | undefined;
  options: ResolvedHighlightOptions;
  clauses: HighlightClause[];
}

/** A compiled `highlight` for one fetch call. */
export interface HighlightFetch {
  fields: CompiledField[];
  encoder: 'default' | 'html';
  index: string;
  /** `index.highlight.max_analyzed_offset` of the index. */
  maxAnalyzedOffset: number;
}

/** Field types the highlighter marks (ES's highlighters take text and keyword fields from a pattern). */
const HIGHLIGHTABLE = new Set(['text', 'keyword', 'match_only_text']);

/**
 * Compiles a request's highlight against the index mapping: patterns expand to the mapped text and
 * keyword fields they match (in mapping order), a name the mapping lacks highlights nothing.
 * `fvh` serves fields mapped with `term_vector: with_positions_offsets` (with the same highlighter:
 * Folio stores no term vectors, it analyzes the value) and skips the others of a pattern.
 * @throws EsError 400 `illegal_argument_exception` for an unknown highlighter `type`
 *   (`unknown highlighter type [x] for the field [f]`) or `fvh` on a field named explicitly that
 *   has no term vectors with offsets (ES's text).
 */
export function compileHighlight(h: ShardHighlight, mapping: Mapping, index: string, maxAnalyzedOffset = DEFAULT_MAX_ANALYZED_OFFSET): HighlightFetch {
  const leaves = fetchableFields(mapping);
  const flat = flatFields(mapping);
  const fields: CompiledField[] = [];
  const seen = new Set<string>();
  for (const entry of h.spec.fields) {
    const pattern = isWildcardPattern(entry.name);
    const names = pattern ? [...leaves.keys()].filter((n) => wildcardMatch(entry.name, n)) : [entry.name];
    for (const name of names) {
      // A field alias named explicitly highlights its target's text under its own name (ES resolves the alias's field type).
      const leaf = leaves.get(name) ?? (pattern ? undefined : fetchableFieldsWithAliases(mapping).get(name));
      if (!leaf || seen.has(name)) continue;
      const options = resolveHighlightOptions(h.spec.global, entry.options);
      if (options.type !== 'unified' && options.type !== 'plain' && options.type !== 'fvh') {
        throw illegalArgument(`unknown highlighter type [${options.type}] for the field [${name}]`);
      }
      const type = leaf.fm.type as string;
      if (!HIGHLIGHTABLE.has(type)) continue;
      const indexing = leaf.fm as { index_options?: unknown; term_vector?: unknown };
      const vectors = indexing.term_vector === 'with_positions_offsets' || indexing.term_vector === 'with_positions_offsets_payloads';
      if (options.type === 'fvh' && !vectors) {
        if (pattern) continue;
        throw illegalArgument(`the field [${name}] should be indexed with term vector with position offsets to be used with fast vector highlighter`);
      }
      seen.add(name);
      const query = options.highlightQuery ?? h.query;
      const clauses = highlightClauses(query, { field: name, requireFieldMatch: options.requireFieldMatch, fields: flat });
      if (clauses.length === 0 && options.noMatchSize <= 0) continue;
      const indexedOffsets = indexing.index_options === 'offsets' || vectors || indexing.term_vector === 'with_offsets';
      fields.push({ name, indexedOffsets, sourcePath: leaf.sourcePath, keyword: type === 'keyword', ignoreAbove: leaf.fm.ignore_above, options, clauses });
    }
  }
  return { fields, encoder: h.spec.encoder, index, maxAnalyzedOffset };
}

/** The text values of a field in a `_source` (scalars as their text; objects and nulls skipped). */
function textValues(source: Record<string, unknown>, path: string): string[] {
  const out: string[] = [];
  for (const v of sourceValues(source, path)) {
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
  }
  return out;
}

/**
 * The `highlight` of one hit: fragments by field, or null when no field has any.
 * @param doc the document's number in its segment (ES's `doc[n]` in the error text)
 * @throws EsError 400 `illegal_argument_exception` when a field's text is longer than the index's
 *   `max_analyzed_offset` and the request sets no smaller `max_analyzed_offset` (ES's text).
 */
export function highlightDoc(h: HighlightFetch, source: Record<string, unknown>, doc: number): Record<string, string[]> | null {
  let out: Record<string, string[]> | null = null;
  for (const f of h.fields) {
    const values = textValues(source, f.sourcePath);
    if (values.length === 0) continue;
    const length = f.options.type === 'plain' ? Math.max(...values.map((v) => v.length)) : values.reduce((s, v) => s + v.length + 1, -1);
    const asked = f.options.maxAnalyzedOffset;
    const analyzed = f.options.type === 'plain' || !f.indexedOffsets;
    if (analyzed && length > h.maxAnalyzedOffset && (asked === undefined || asked > h.maxAnalyzedOffset)) {
      throw illegalArgument(
        `The length [${length}] of field [${f.name}] in doc[${doc}]/index[${h.index}] exceeds the [index.highlight.max_analyzed_offset] limit [${h.maxAnalyzedOffset}]. ` +
          `To avoid this error, set the query parameter [max_analyzed_offset] to a value less than index setting [${h.maxAnalyzedOffset}] and this will tolerate long field values by truncating them.`,
      );
    }
    const fragments = highlightField({
      values,
      keyword: f.keyword,
      ...(f.ignoreAbove !== undefined ? { ignoreAbove: f.ignoreAbove } : {}),
      clauses: f.clauses,
      options: f.options,
      encoder: h.encoder,
      ...(asked !== undefined ? { analyzedLimit: asked } : {}),
    });
    if (fragments && fragments.length > 0) setOwn((out ??= {}), f.name, fragments); // a field may be called `__proto__`
  }
  return out;
}
