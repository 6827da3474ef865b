/**
 * What shard-side aggregation reads and the doc-set operations every aggregation shares: the
 * generation and its fields, the live docs of a query or of the whole shard, intersections with a
 * filter, and the walk over each doc's distinct values (its keys) with a `missing` substitute.
 * @see docs/aggregations.md
 */
import type { FieldMapping } from '../../../protocol/mapping.ts';
import { parseDateValue } from '../../../shared/aggs/date-format.ts';
import type { Query } from '../../../protocol/query-ast.ts';
import type { AggNode, AggValue } from '../../../protocol/agg-request.ts';
import type { AggPartial, BucketKey } from '../../../protocol/aggs.ts';
import type { Generation } from '../generation.ts';
import type { Searcher } from '../searcher.ts';
import { evaluate } from '../query-exec.ts';
import { keyOf, readValues, valuesColumn, valuesKind, type SegDocs, type ValuesColumn } from './doc-values.ts';

/** What collection reads: the generation, its searcher and its flattened mapping. */
export interface AggContext {
  gen: Generation;
  /** Evaluates the queries of filters and the scores `top_hits` reads (the generation's searcher). */
  searcher: Searcher;
  fields: Map<string, FieldMapping>;
  /** Terms a top-level `count` list carries (default: shared/aggs/terms-plan.ts `TOP_LEVEL_CANDIDATES`; tests make it small). */
  candidates?: number;
  /** The index the shard belongs to: the value of the `_index` metadata field of every doc. */
  index?: string;
  /** The query the aggregations run on (for `top_hits` scores). */
  query?: Query;
  /**
   * collect.ts `collectAggs`, which bucket collectors (terms-collect.ts, composite-collect.ts) call
   * for their buckets' sub-aggregations: carried here so that they need not import collect.ts,
   * which imports them.
   */
  collectAggs: (nodes: readonly AggNode[], docs: SegDocs[], ctx: AggContext, topLevel: boolean) => AggPartial[];
}

/** The metadata field whose value is the index name (aggregatable like a keyword, as in ES). */
export const INDEX_FIELD = '_index';

/** A reusable buffer for {@link readValues}. */
export const scratch: number[] = [];

/** Every live doc of the generation (the `global` bucket). */
export function liveDocs(gen: Generation): SegDocs[] {
  return gen.views.map((v) => {
    const live = v.live;
    if (!live) return { seg: v.segment, docs: Int32Array.from({ length: v.segment.maxDoc }, (_, i) => i) };
    const out: number[] = [];
    for (let d = 0; d < v.segment.maxDoc; d++) if (live[d]) out.push(d);
    return { seg: v.segment, docs: Int32Array.from(out) };
  });
}

/** The live matches of `query` per segment. */
export function matchingDocs(searcher: Searcher, query: Query): SegDocs[] {
  return searcher.segmentMatches(query, undefined, false).map(({ seg, live, m }) => {
    if (!live) return { seg, docs: m.docs };
    const out: number[] = [];
    for (let i = 0; i < m.docs.length; i++) if (live[m.docs[i]]) out.push(m.docs[i]);
    return { seg, docs: Int32Array.from(out) };
  });
}

/** `docs` ∩ matches of `query` (both ascending), per segment. */
export function filterDocs(docs: SegDocs[], query: Query, ctx: AggContext): SegDocs[] {
  const plan = ctx.searcher.plan(query, undefined);
  return docs.map(({ seg, docs: ds }) => {
    const m = evaluate(plan, seg, false).docs;
    const out: number[] = [];
    let j = 0;
    for (let i = 0; i < ds.length; i++) {
      const d = ds[i];
      while (j < m.length && m[j] < d) j++;
      if (j < m.length && m[j] === d) out.push(d);
    }
    return { seg, docs: Int32Array.from(out) };
  });
}

/** Docs of `docs` that are not in any of `parts` (the `filters` other bucket). */
export function subtractDocs(docs: SegDocs[], parts: SegDocs[][]): SegDocs[] {
  return docs.map(({ seg, docs: ds }, s) => {
    const taken = new Set<number>();
    for (const p of parts) for (const d of p[s].docs) taken.add(d);
    return { seg, docs: ds.filter((d) => !taken.has(d)) };
  });
}

/** How many documents `docs` holds over all its segments (a bucket's `doc_count`). */
export const countDocs = (docs: SegDocs[]): number => docs.reduce((n, s) => n + s.docs.length, 0);

/** The column of `field` in `seg`, or null (unmapped, or no value in the segment). */
export function column(ctx: AggContext, field: string, seg: SegDocs['seg']): ValuesColumn | null {
  const fm = ctx.fields.get(field);
  return fm && valuesKind(fm) ? valuesColumn(seg, field, fm) : null;
}

/** The number a `missing` substitute stands for on a numeric/date/boolean field. */
export function numericMissing(v: unknown, fm: FieldMapping | undefined): number {
  if (fm?.type === 'date') return parseDateValue(v);
  if (v === true || v === 'true') return 1;
  if (v === false || v === 'false') return 0;
  return Number(v);
}

/**
 * Calls `fn(key)` once per distinct value of each doc (keys as terms or numbers), and for docs
 * without a value with `missing` when given. Returns nothing; `fn` may record the doc.
 */
export function forEachKey(
  ctx: AggContext,
  field: string,
  missing: AggValue | undefined,
  docs: SegDocs[],
  fn: (key: BucketKey, s: number, d: number) => void,
): void {
  const fm = ctx.fields.get(field);
  const numeric = fm !== undefined && valuesKind(fm) === 'number';
  const miss: BucketKey | undefined = missing === undefined ? undefined : numeric ? numericMissing(missing, fm) : String(missing);
  if (field === INDEX_FIELD && ctx.index !== undefined) {
    const index = ctx.index;
    docs.forEach(({ docs: ds }, s) => ds.forEach((d) => fn(index, s, d)));
    return;
  }
  docs.forEach(({ seg, docs: ds }, s) => {
    const col = column(ctx, field, seg);
    for (let i = 0; i < ds.length; i++) {
      const d = ds[i];
      const n = col ? readValues(col, d, scratch) : 0;
      if (n === 0) {
        if (miss !== undefined) fn(miss, s, d);
        continue;
      }
      for (let j = 0; j < n; j++) {
        const v = scratch[j];
        let dup = false;
        for (let k = 0; k < j; k++) if (scratch[k] === v) dup = true;
        if (!dup) fn(keyOf(col!, v), s, d);
      }
    }
  });
}

/** Groups docs per bucket key (only keys `want` accepts, when given). */
export function groupDocs(
  docs: SegDocs[],
  each: (fn: (key: BucketKey, s: number, d: number) => void) => void,
  want?: (key: BucketKey) => boolean,
): Map<BucketKey, number[][]> {
  const groups = new Map<BucketKey, number[][]>();
  each((key, s, d) => {
    if (want && !want(key)) return;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = docs.map(() => [])));
    const list = g[s];
    if (list[list.length - 1] !== d) list.push(d);
  });
  return groups;
}

/** Per-segment doc lists (`lists[s]` for `docs[s].seg`, ascending) as {@link SegDocs}, the shape sub-aggregations collect on. */
export const asSegDocs = (docs: SegDocs[], lists: number[][]): SegDocs[] => docs.map(({ seg }, s) => ({ seg, docs: Int32Array.from(lists[s]) }));
