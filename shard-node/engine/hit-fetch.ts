/**
 * The shard's fetch sub-phases beyond `_source`: what a hit carries besides its `_id` and
 * `_source` (ES `FetchPhase` runs `FetchVersionPhase`, `FetchSeqNoPhase`, `StoredFieldsPhase`,
 * `FetchDocValuesPhase` and `FetchFieldsPhase` per hit, each only when the request asks for it).
 * A request's options are compiled once per fetch call against the index mapping
 * ({@link compileHitFetch}); per hit, a document without a custom routing and a request without
 * options cost one property read.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/fetch/FetchPhase.java
 */
import { IGNORED_FIELD } from './doc-parser.ts';
import { compileFieldFetch, type FieldFetch } from '../../shared/field-fetcher.ts';
import type { Mapping } from '../../protocol/mapping.ts';
import type { HitExtras, HitFetchOptions, SourceFilter } from '../../protocol/search.ts';
import { filterSource } from '../../shared/source-filter.ts';
import { storedSourceFilter } from '../../shared/source-mapping.ts';
import { analyzeTerms } from './analyzer.ts';
import { compileHighlight, highlightDoc, type HighlightFetch } from './highlight/highlight-fetch.ts';
import type { Segment } from './segment.ts';

/** A compiled {@link HitFetchOptions} for one fetch call. */
export interface HitFetch {
  version: boolean;
  seqNo: boolean;
  primaryTerm: number;
  /** False with `stored_fields: _none_`: no `_routing`. */
  metadata: boolean;
  fields: FieldFetch | null;
  /** ES `highlight` (highlight/highlight-fetch.ts), null when not asked. */
  highlight: HighlightFetch | null;
  /**
   * The mapping's `_source` view (shared/source-mapping.ts): `fields` and highlighting read only
   * what ES would have stored; `true` (the usual case) reads the source as is.
   */
  storedSource: SourceFilter;
}

/**
 * Compiles the options of a fetch against the index mapping; undefined options: `_routing` only.
 * @param primaryTerm the shard's primary term (reported as every hit's `_primary_term`: Folio keeps no term per document)
 * @param maxAnalyzedOffset the index's `index.highlight.max_analyzed_offset` (read only with a highlight)
 * @throws EsError 400 as {@link compileFieldFetch} (a format the field does not take, fielddata on text),
 *   and as {@link compileHighlight} (an unknown highlighter type).
 */
export function compileHitFetch(
  options: HitFetchOptions | undefined,
  mapping: Mapping,
  index: string,
  primaryTerm: number,
  maxAnalyzedOffset?: () => number,
): HitFetch {
  const o = options ?? {};
  const wantsFields = (o.fields?.length ?? 0) + (o.docvalueFields?.length ?? 0) + (o.storedFields?.length ?? 0) > 0;
  return {
    version: o.version === true,
    seqNo: o.seqNoPrimaryTerm === true,
    primaryTerm,
    metadata: o.noMetadata !== true,
    fields: wantsFields
      ? compileFieldFetch(mapping, { fields: o.fields, docvalueFields: o.docvalueFields, storedFields: o.storedFields }, index, analyzeTerms)
      : null,
    highlight: o.highlight ? compileHighlight(o.highlight, mapping, index, maxAnalyzedOffset?.()) : null,
    storedSource: storedSourceFilter(mapping),
  };
}

/** The `_ignored` field names of document `ord` (doc-parser.ts), sorted; undefined when none. */
export function ignoredFields(seg: Segment, ord: number): string[] | undefined {
  const inv = seg.inverted.get(IGNORED_FIELD);
  if (!inv || !inv.has[ord]) return undefined;
  const out: string[] = [];
  for (const name of inv.terms.keys()) {
    const docs = inv.terms.docs(name)!;
    let lo = 0;
    let hi = docs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (docs[mid] === ord) {
        out.push(name);
        break;
      }
      if (docs[mid] < ord) lo = mid + 1;
      else hi = mid - 1;
    }
  }
  return out.length > 0 ? out.sort() : undefined;
}

/**
 * What document `ord` of `seg` adds to its hit, or null when nothing (no option asked, no routing).
 * `parsed` gives its `_source` parsed (called only when fields are asked for).
 */
export function hitExtras(f: HitFetch, seg: Segment, ord: number, parse: () => Record<string, unknown>): HitExtras | null {
  const routing = f.metadata ? seg.routings?.get(ord) : undefined;
  const ignored = f.metadata ? ignoredFields(seg, ord) : undefined;
  if (!f.version && !f.seqNo && !f.fields && !f.highlight && routing === undefined && ignored === undefined) return null;
  let source: Record<string, unknown> | undefined;
  let shown: Record<string, unknown> | undefined;
  const parsed = (): Record<string, unknown> => (source ??= parse());
  const stored = f.storedSource;
  const visible = (): Record<string, unknown> => (stored === true ? parsed() : (shown ??= filterSource(parsed(), stored) ?? {}));
  const e: HitExtras = {};
  if (f.version) e._version = seg.versions[ord];
  if (f.seqNo) {
    e._seq_no = seg.seqNos[ord];
    e._primary_term = f.primaryTerm;
  }
  if (routing !== undefined) e._routing = routing;
  if (ignored !== undefined) e._ignored = ignored;
  if (f.fields) {
    const fields = f.fields.fields(parsed(), visible());
    if (fields) e.fields = fields;
  }
  if (f.highlight && f.highlight.fields.length > 0) {
    const highlight = highlightDoc(f.highlight, visible(), ord);
    if (highlight) e.highlight = highlight;
  }
  return e;
}
