/**
 * Sort specification and THE comparator that defines Folio's global hit order. Both the shard
 * (local top-k) and the coordinator (k-way merge) use {@link compareHits}, so every shard count gives
 * the same order: sort values in turn, then `_id` ascending as the final tie-breaker.
 *
 * Elasticsearch breaks ties on shard index then Lucene doc id (`TopDocs.merge`), which depends on
 * the shard layout; breaking on `_id` is layout-independent and gives a single-list oracle.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/TopDocs.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/sort-search-results.html
 */

/** A sort value on the wire and in responses: number, string (keyword), or null (missing). */
export type SortValue = number | string | null;

/** ES `SortMode` of a field sort clause. */
export type SortMode = 'min' | 'max' | 'sum' | 'avg' | 'median';

/** ES `numeric_type` values (`FieldSortBuilder.setNumericType`). */
export type NumericSortType = 'long' | 'double' | 'date' | 'date_nanos';

/** One normalized sort clause. */
export interface SortField {
  /** `field`: a mapped field; `score`: `_score`; `doc`: index order (`_doc`). */
  kind: 'field' | 'score' | 'doc';
  /** Field path for `kind: 'field'`, `_score` or `_doc` otherwise. */
  field: string;
  order: 'asc' | 'desc';
  /** Where documents without a value go: `'_last'` (default, both orders), `'_first'`, or a substitute value (a number or any other string). */
  missing: number | string;
  /**
   * ES `mode`, how a multi-valued field picks its sort value (`MultiValueMode`): default `min` for
   * asc, `max` for desc; `sum`, `avg` and `median` on numeric, date and boolean fields only.
   */
  mode: SortMode;
  /**
   * ES `numeric_type`: the numeric type the field's values are read as, so that indices mapping
   * the field differently sort together (`long` truncates, `date_nanos` reads a `date` in ns).
   */
  numericType?: NumericSortType;
  /** ES `unmapped_type`: treat an unmapped field as this type instead of failing. */
  unmappedType?: string;
  /**
   * `_shard_doc` only (kind `doc`): added to the shard-local doc number so that values are unique
   * within a PIT: the shard's index within the PIT × 2^32 (ES: shard index and Lucene doc id).
   */
  offset?: number;
}

/** Field name of the PIT tiebreaker (ES `ShardDocSortField.NAME`). */
export const SHARD_DOC = '_shard_doc';

/** ES's default sort: `_score` descending. */
export const SCORE_SORT: readonly SortField[] = Object.freeze([{ kind: 'score', field: '_score', order: 'desc', missing: '_last', mode: 'max' }]);

/** What the comparator reads from a hit: its sort values (one per SortField) and `_id`. */
export interface SortKey {
  _id: string;
  sort: SortValue[];
}

/**
 * Compares two strings by Unicode code point, which equals Lucene's unsigned UTF-8 byte order for
 * keyword terms and `_id`s (plain `<` on JS strings compares UTF-16 units, which differs above U+FFFF).
 * @returns negative, 0 or positive.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(i);
    if (ca === cb) continue;
    // Surrogates (0xD800-0xDFFF) encode code points above 0xFFFF; lift them above the BMP.
    if (ca >= 0xd800 && ca <= 0xdfff) ca += 0x10000;
    if (cb >= 0xd800 && cb <= 0xdfff) cb += 0x10000;
    return ca - cb;
  }
  return a.length - b.length;
}

/**
 * Compares one sort value under one clause, placing missing (null) values per `missing`.
 * Numbers compare numerically, strings by code point; a number sorts before a string (mixed
 * types only arise with custom `missing` values).
 */
export function compareSortValue(a: SortValue, b: SortValue, field: SortField): number {
  if (a === b) return 0;
  if (a === null || b === null) {
    // Missing values are placed regardless of order: `_last` is last in asc and in desc (ES).
    const missingFirst = field.missing === '_first';
    if (a === null) return missingFirst ? -1 : 1;
    return missingFirst ? 1 : -1;
  }
  let c: number;
  if (typeof a === 'number' && typeof b === 'number') c = a < b ? -1 : a > b ? 1 : 0;
  else if (typeof a === 'string' && typeof b === 'string') c = compareCodePoints(a, b);
  else c = typeof a === 'number' ? -1 : 1;
  return field.order === 'desc' ? -c : c;
}

/**
 * The global total order of hits: each sort clause in turn, then `_id` ascending by code point.
 * Deterministic and independent of the shard layout, so it is the paging oracle.
 * @returns negative when `a` comes first.
 */
export function compareHits(a: SortKey, b: SortKey, sort: readonly SortField[]): number {
  for (let i = 0; i < sort.length; i++) {
    const c = compareSortValue(a.sort[i], b.sort[i], sort[i]);
    if (c !== 0) return c;
  }
  return compareCodePoints(a._id, b._id);
}

/** True when the sort contains `_score` (scores must be computed, and `max_score` reported). */
export function sortNeedsScores(sort: readonly SortField[]): boolean {
  return sort.some((s) => s.kind === 'score');
}

/**
 * ES's rejection of a field sort clause on a field whose values are not numbers (keyword, text
 * fielddata) in `FieldSortBuilder.build`: `sum`, `avg` and `median` need numbers, and so does
 * `numeric_type`. Null when the clause is fine for a field of `type`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/sort/FieldSortBuilder.java
 */
export function nonNumericSortCause(field: SortField, type: string): { type: 'query_shard_exception'; reason: string } | null {
  if (field.mode === 'sum' || field.mode === 'avg' || field.mode === 'median') {
    return { type: 'query_shard_exception', reason: 'we only support AVG, MEDIAN and SUM on number based fields' };
  }
  if (field.numericType !== undefined) {
    return { type: 'query_shard_exception', reason: `[numeric_type] option cannot be set on a non-numeric field, got ${type}` };
  }
  return null;
}
