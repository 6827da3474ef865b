/**
 * The query-phase collector: turns per-segment matches into this shard's top k in the global order
 * of `compareHits` (sort values, then `_id`), like Lucene's `TopFieldCollector` but with Folio's
 * `_id` tie-break. Small k uses a bounded binary heap; k close to the match count sorts everything.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/TopFieldCollector.java
 */
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import type { FieldMapping } from '../../protocol/mapping.ts';
import { isNumericDocValues, KEYWORD_LIKE_TYPES } from '../../protocol/mapping.ts';
import type { ShardHit } from '../../protocol/search.ts';
import type { SortField, SortKey, SortValue } from '../../protocol/sort.ts';
import { compareHits, compareSortValue } from '../../protocol/sort.ts';
import { DEFAULT_DATE_FORMAT, DEFAULT_DATE_NANOS_FORMAT, parseDateInstant } from '../../shared/date-format.ts';
import { encodeIp } from './ip-address.ts';
import type { Matches } from './query-exec.ts';
import { numericSortValues } from './multi-value-mode.ts';
import type { Segment } from './segment.ts';
import { nonNumericSortCause } from '../../protocol/sort.ts';

/** One segment's matches with its doc base (for `_doc`) and live docs (null = all live). */
export interface SegmentMatches {
  seg: Segment;
  base: number;
  live: Uint8Array | null;
  m: Matches;
}

/** What to collect: order, how many, and the optional search_after key. */
export interface CollectSpec {
  sort: readonly SortField[];
  k: number;
  searchAfter?: { sort: SortValue[]; _id?: string };
}

/** Result of collection: exact total, max score over all matches (null if not scoring), top hits. */
export interface Collected {
  total: number;
  maxScore: number | null;
  hits: ShardHit[];
}

/** Reads one sort clause's value of a doc (ordinal within its segment, and its score when scoring). */
export type Getter = (ord: number, score: number) => SortValue;

/**
 * The value a doc without one sorts as: null for `_first`/`_last`, else the `missing` substitute
 * (a numeric string parsed for numeric, date and boolean fields, as ES).
 */
export function missingValue(sf: SortField, fm: FieldMapping | undefined): SortValue {
  const m = sf.missing;
  if (m === '_last' || m === '_first') return null;
  if (typeof m === 'string' && fm && isNumericDocValues(fm)) {
    const n = Number(m);
    return Number.isFinite(n) ? n : m;
  }
  return m;
}

/**
 * `search_after` values as the sort values they stand for: a date given as text is parsed with the
 * field's `format` (epoch ms; `date_nanos` epoch ns), a numeric text read as a number, an IP address
 * encoded as its sortable form, as ES's `DocValueFormat` parses them; other values are unchanged.
 */
export function searchAfterValues(values: readonly SortValue[], sort: readonly SortField[], fields: Map<string, FieldMapping>): SortValue[] {
  return values.map((v, i) => {
    const sf = sort[i];
    if (typeof v !== 'string' || !sf || sf.kind !== 'field') return v;
    const fm = fields.get(sf.field);
    if (fm?.type === 'ip') return encodeIp(v) ?? v;
    if (!fm || !isNumericDocValues(fm)) return v;
    if (fm.type === 'date' || fm.type === 'date_nanos') {
      const i = parseDateInstant(v, fm.format ?? (fm.type === 'date' ? DEFAULT_DATE_FORMAT : DEFAULT_DATE_NANOS_FORMAT));
      if (i) return fm.type === 'date' ? i.ms : i.ms * 1e6 + i.nanos;
    }
    const n = Number(v);
    return v.trim() !== '' && Number.isFinite(n) ? n : v;
  });
}

/**
 * Builds the sort-value reader of one clause for one segment: doc values (per `mode` and
 * `numeric_type`: multi-value-mode.ts; keywords `min` or `max` only),
 * `missing` substituted, `_score`/`_doc` from the score and the doc base.
 * @throws EsError 400 for an unmapped field without `unmappedType` or an unsortable field (ES's texts).
 */
export function getter(sf: SortField, fields: Map<string, FieldMapping>, seg: Segment, base: number): Getter {
  if (sf.kind === 'score') return (_o, s) => s;
  if (sf.kind === 'doc') {
    const offset = sf.offset ?? 0; // `_shard_doc`: shard index within the PIT × 2^32
    return (o) => offset + base + o;
  }
  if (sf.field === '_id') return (o) => seg.ids.get(o); // Folio sorts on `_id` (ES 8 refuses by default)
  const fm = fields.get(sf.field);
  const miss = missingValue(sf, fm);
  if (!fm) {
    if (sf.unmappedType) return () => miss;
    throw new EsError(400, 'query_shard_exception', `No mapping found for [${sf.field}] in order to sort on`);
  }
  if (isNumericDocValues(fm)) {
    const nf = seg.numeric.get(sf.field);
    if (!nf) return () => miss;
    const arr = numericSortValues(nf, fm, sf);
    const has = nf.has;
    return (o) => (has[o] ? arr[o] : miss);
  }
  let sv;
  if (KEYWORD_LIKE_TYPES.has(fm.type) || fm.type === 'ip')
    sv = seg.strings.get(sf.field); // ip: the sortable hex form (ip-address.ts)
  else if (fm.type === 'text') {
    if (!fm.fielddata) {
      throw illegalArgument(
        `Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [${sf.field}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
      );
    }
    sv = seg.textFielddata(sf.field);
  } else throw illegalArgument(`can't sort on field [${sf.field}] of type [${fm.type}]`);
  const cause = nonNumericSortCause(sf, fm.type);
  if (cause) throw new EsError(400, cause.type, cause.reason);
  if (!sv) return () => miss;
  const ranks = sf.mode === 'max' ? sv.max : sv.min;
  const terms = sv.terms;
  return (o) => (ranks[o] > 0 ? terms[ranks[o] - 1] : miss);
}

/**
 * The `search_after` test: true for keys strictly after `searchAfter` in `compareHits` order, on
 * the sort values alone when it has no `_id` (a missing value in a short key counts as null).
 * Monotone along any list in `compareHits` order (false, then true).
 */
export function afterKey(searchAfter: { sort: SortValue[]; _id?: string }, sort: readonly SortField[]): (key: SortKey) => boolean {
  if (searchAfter._id !== undefined) {
    const after: SortKey = { _id: searchAfter._id, sort: searchAfter.sort };
    return (key) => compareHits(key, after, sort) > 0;
  }
  return (key) => {
    for (let i = 0; i < sort.length; i++) {
      const c = compareSortValue(key.sort[i], searchAfter.sort[i] ?? null, sort[i]);
      if (c !== 0) return c > 0;
    }
    return false;
  };
}

/** A bounded max-heap on `compareHits` holding the best k (the worst at the root). */
class TopK {
  readonly items: ShardHit[] = [];
  private readonly k: number;
  private readonly sort: readonly SortField[];
  constructor(k: number, sort: readonly SortField[]) {
    this.k = k;
    this.sort = sort;
  }
  /** True when a hit with this key would enter the heap. */
  wants(key: SortKey): boolean {
    return this.items.length < this.k || compareHits(key, this.items[0], this.sort) < 0;
  }
  push(h: ShardHit): void {
    const a = this.items;
    const cmp = (i: number, j: number) => compareHits(a[i], a[j], this.sort);
    if (a.length < this.k) {
      a.push(h);
      let i = a.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (cmp(i, p) <= 0) break;
        [a[i], a[p]] = [a[p], a[i]];
        i = p;
      }
      return;
    }
    a[0] = h;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && cmp(l, m) > 0) m = l;
      if (r < a.length && cmp(r, m) > 0) m = r;
      if (m === i) break;
      [a[i], a[m]] = [a[m], a[i]];
      i = m;
    }
  }
}

/**
 * Collects this shard's top `k` matches in `compareHits` order, after `searchAfter` if given
 * (strictly after the key; on sort values alone when the key has no `_id`). The total counts every
 * live match (exact; search_after does not reduce it, as in ES).
 * @throws EsError 400 for a sort on an unmapped field without `unmappedType` or on an unsortable field.
 */
export function collect(parts: SegmentMatches[], spec: CollectSpec, fields: Map<string, FieldMapping>): Collected {
  const { sort, k, searchAfter } = spec;
  let total = 0;
  let maxScore = -Infinity;
  let scored = false;
  for (const { m, live } of parts) {
    if (m.scores) scored = true;
    else if (!live) {
      total += m.docs.length; // no deletes, no scores: every match counts
      continue;
    }
    for (let i = 0; i < m.docs.length; i++) {
      if (live && !live[m.docs[i]]) continue;
      total++;
      if (m.scores && m.scores[i] > maxScore) maxScore = m.scores[i];
    }
  }
  const after = searchAfter ? afterKey(searchAfter, sort) : null;
  const full = k >= total || k * 4 >= total;
  const heap = full || k <= 0 ? null : new TopK(k, sort);
  const all: ShardHit[] = [];
  const scratch: SortKey = { _id: '', sort: new Array<SortValue>(sort.length) };
  if (k > 0) {
    for (const { seg, base, live, m } of parts) {
      const getters = sort.map((sf) => getter(sf, fields, seg, base));
      const { docs, scores } = m;
      for (let i = 0; i < docs.length; i++) {
        const d = docs[i];
        if (live && !live[d]) continue;
        const score = scores ? scores[i] : 0;
        scratch._id = seg.ids.get(d);
        for (let s = 0; s < getters.length; s++) scratch.sort[s] = getters[s](d, score);
        if (after && !after(scratch)) continue;
        if (heap && !heap.wants(scratch)) continue;
        const hit: ShardHit = { _id: scratch._id, _score: scores ? score : null, sort: scratch.sort.slice() };
        if (heap) heap.push(hit);
        else all.push(hit);
      }
    }
  }
  const hits = heap ? heap.items : all;
  hits.sort((a, b) => compareHits(a, b, sort));
  if (hits.length > k) hits.length = Math.max(0, k);
  return { total, maxScore: scored && total > 0 ? maxScore : null, hits };
}
