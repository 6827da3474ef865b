/**
 * The per-document values aggregations read from a segment, as Lucene's doc values: a keyword
 * field's terms as ordinals into its sorted dictionary (`SORTED_SET`: one rank column when every
 * doc has at most one term, else every term of each doc, uninverted once per segment from the
 * postings), a text field with `fielddata: true` the same way over its analyzed terms, and numeric,
 * date (epoch ms) and boolean (0/1) fields as numbers (`SORTED_NUMERIC`).
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/index/SortedSetDocValues.html
 */
import type { FieldMapping } from '../../../protocol/mapping.ts';
import { isNumericDocValues, KEYWORD_LIKE_TYPES } from '../../../protocol/mapping.ts';
import type { NumericField, Segment } from '../segment.ts';
import type { RankColumn } from '../columns/columns.ts';
import { mergeSortedTerms } from '../columns/sorted-terms-merge.ts';

/** The live docs one bucket holds in one segment (ascending ordinals). */
export interface SegDocs {
  seg: Segment;
  docs: Int32Array;
}

/**
 * Ordinals of a string field in one segment: with `single`, doc d has ordinal `single[d] − 1`
 * (none when 0); otherwise its ordinals are `ords[starts[d] … starts[d+1])`, ascending.
 */
export interface OrdinalColumn {
  kind: 'ords';
  terms: readonly string[];
  single: RankColumn | null;
  starts: Int32Array | null;
  ords: Int32Array | null;
}

/** Numbers of a numeric, date or boolean field in one segment. */
export interface NumberColumn {
  kind: 'nums';
  nf: NumericField;
  /** True when no doc has two or more values (read `nf.min` alone). */
  single: boolean;
  /** `date_nanos` doc values are epoch ns; aggregations read them as epoch ms, as ES's date_histogram keys. */
  nanos?: boolean;
}

/** A field's values in one segment; null when the segment has none. */
export type ValuesColumn = OrdinalColumn | NumberColumn;

/** How a mapped field aggregates: by its string terms or by its numbers. */
export type ValuesKind = 'string' | 'number';

/** The kind of values a field type aggregates on (null: not aggregatable, e.g. `geo_point`, text without fielddata). */
export function valuesKind(fm: FieldMapping): ValuesKind | null {
  if (isNumericDocValues(fm)) return 'number';
  if (KEYWORD_LIKE_TYPES.has(fm.type) || (fm.type === 'text' && fm.fielddata === true)) return 'string';
  return null;
}

const uninverted = new WeakMap<Segment, Map<string, { starts: Int32Array; ords: Int32Array }>>();

/** Every term ordinal of every doc, from the postings of `field` over its sorted dictionary `terms` (ordinal r = `terms[r]`; cached per segment). */
function uninvert(seg: Segment, field: string, terms: readonly string[]): { starts: Int32Array; ords: Int32Array } {
  let perField = uninverted.get(seg);
  if (!perField) {
    perField = new Map();
    uninverted.set(seg, perField);
  }
  const hit = perField.get(field);
  if (hit) return hit;
  const postings = seg.inverted.get(field)!.terms;
  const counts = new Int32Array(seg.maxDoc + 1);
  const lists: Int32Array[] = [];
  for (let r = 0; r < terms.length; r++) {
    const docs = postings.docsOnce(r);
    lists.push(docs);
    for (let i = 0; i < docs.length; i++) counts[docs[i] + 1]++;
  }
  for (let d = 0; d < seg.maxDoc; d++) counts[d + 1] += counts[d];
  const starts = counts;
  const fill = starts.slice(0, seg.maxDoc);
  const ords = new Int32Array(starts[seg.maxDoc]);
  for (let r = 0; r < lists.length; r++) {
    const docs = lists[r];
    for (let i = 0; i < docs.length; i++) ords[fill[docs[i]]++] = r;
  }
  const built = { starts, ords };
  perField.set(field, built);
  return built;
}

/** The values column of a mapped field in one segment, or null when the segment holds no value of it. */
export function valuesColumn(seg: Segment, field: string, fm: FieldMapping): ValuesColumn | null {
  if (valuesKind(fm) === 'number') {
    const nf = seg.numeric.get(field);
    if (!nf) return null;
    // date_nanos: read through readValues (ms), never the raw column fast paths.
    return fm.type === 'date_nanos' ? { kind: 'nums', nf, single: false, nanos: true } : { kind: 'nums', nf, single: nf.max === nf.min };
  }
  if (KEYWORD_LIKE_TYPES.has(fm.type)) {
    const sv = seg.strings.get(field);
    if (!sv) return null;
    if (sv.max === sv.min) return { kind: 'ords', terms: sv.terms, single: sv.min, starts: null, ords: null };
    const { starts, ords } = uninvert(seg, field, sv.terms);
    return { kind: 'ords', terms: sv.terms, single: null, starts, ords };
  }
  if (!seg.inverted.has(field)) return null;
  const terms = seg.sortedTerms(field);
  const { starts, ords } = uninvert(seg, field, terms);
  return { kind: 'ords', terms, single: null, starts, ords };
}

/**
 * Writes doc `d`'s ordinals (string columns) or numbers (numeric columns) into `out` and returns
 * how many. Numbers of a multi-valued doc come sorted, duplicates kept beyond two values.
 */
export function readValues(col: ValuesColumn, d: number, out: number[]): number {
  if (col.kind === 'ords') {
    if (col.single) {
      const r = col.single[d];
      if (r === 0) return 0;
      out[0] = r - 1;
      return 1;
    }
    const from = col.starts![d];
    const to = col.starts![d + 1];
    for (let i = from; i < to; i++) out[i - from] = col.ords![i];
    return to - from;
  }
  const nf = col.nf;
  if (!nf.has[d]) return 0;
  if (col.nanos) {
    const n = readNumbers(nf, d, out);
    for (let i = 0; i < n; i++) out[i] = Math.floor(out[i] / 1e6);
    return n;
  }
  out[0] = nf.min[d];
  if (col.single) return 1;
  const many = nf.multi.get(d);
  if (many) {
    for (let i = 0; i < many.length; i++) out[i] = many[i];
    return many.length;
  }
  if (nf.max[d] === nf.min[d]) return 1;
  out[1] = nf.max[d];
  return 2;
}

/** The numbers of a multi-valued numeric doc (as {@link readValues} reads them). */
function readNumbers(nf: NumericField, d: number, out: number[]): number {
  out[0] = nf.min[d];
  const many = nf.multi.get(d);
  if (many) {
    for (let i = 0; i < many.length; i++) out[i] = many[i];
    return many.length;
  }
  if (nf.max[d] === nf.min[d]) return 1;
  out[1] = nf.max[d];
  return 2;
}

/** The key of a value read by {@link readValues}: the term of an ordinal, or the number itself. */
export function keyOf(col: ValuesColumn, v: number): string | number {
  return col.kind === 'ords' ? col.terms[v] : v;
}

/**
 * Global ordinals of a string field over one generation (ES `GlobalOrdinalsStringTermsAggregator`):
 * the union of the segments' sorted dictionaries as one sorted `terms` list, and per segment the
 * global ordinal of each of its ordinals. Built once per generation and field (a k-way merge of
 * the dictionaries), so counting terms at query time is array indexing, with no string compared.
 */
export interface GlobalOrdinals {
  terms: string[];
  /** Per segment: segment ordinal → global ordinal. */
  bySegment: Map<Segment, Int32Array>;
}

const globalCache = new WeakMap<object, Map<string, GlobalOrdinals>>();

/**
 * The global ordinals of a string field over `segments` (a generation's, cached on `owner`).
 * @param owner the generation the segments belong to (the cache key)
 */
export function globalOrdinals(owner: object, segments: readonly Segment[], field: string, fm: FieldMapping): GlobalOrdinals {
  let perField = globalCache.get(owner);
  if (!perField) {
    perField = new Map();
    globalCache.set(owner, perField);
  }
  const hit = perField.get(field);
  if (hit) return hit;
  const dicts: { seg: Segment; terms: readonly string[] }[] = [];
  for (const seg of segments) {
    const col = valuesColumn(seg, field, fm);
    if (col?.kind === 'ords') dicts.push({ seg, terms: col.terms });
  }
  const { terms, maps } = mergeSortedTerms(dicts.map((d) => d.terms));
  const bySegment = new Map<Segment, Int32Array>();
  dicts.forEach((d, i) => bySegment.set(d.seg, maps[i]));
  const built = { terms, bySegment };
  perField.set(field, built);
  return built;
}
