/**
 * Presorted permutations of doc ordinals for sorts made of field and `_doc` clauses, the role
 * index sorting and doc-value skippers play for Lucene's sort optimisations: with the documents
 * already in Folio's total order (each clause in turn with `missing` placed, then `_id` by code
 * point — exactly `compareHits`), the top k of `match_all` is a prefix, the rank of a key is a
 * binary search, and a filtered query is one pass of the permutation through its match set.
 *
 * Two levels, both built lazily at first use and cached on immutable objects:
 * - per segment and clause list: all ordinals in order (segments never change; segment-order.ts). Every clause
 *   becomes a numeric key column (`Float64Array`; keyword values as their rank column), the
 *   columns are folded into one dense rank, and the final sort is a native numeric sort of
 *   `rank × maxDoc + idRank` with no comparator callback (`idKeys` ranks `_id`s once per segment);
 * - per generation and clause list: the live documents of every segment merged into one order
 *   (a generation's live docs never change either), so deletions cost nothing at query time.
 * Both caches are bounded in count (order-cache.ts).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/DocValuesSkipper.java
 * @see docs/selection.md (3: shard cost)
 */
import type { FieldMapping } from '../../protocol/mapping.ts';
import type { SortField } from '../../protocol/sort.ts';
import { compareCodePoints } from '../../protocol/sort.ts';
import type { SegmentView } from './segment-merge.ts';
import { DEFAULT_SLICE_MS } from '../../shared/event-loop-slices.ts';
import { runAtOnce, runSliced, type SliceClock, type Steps } from '../../shared/sliced-work.ts';
import { idKeysSteps, stringKeys, type Column, type IdKeys } from './sort-keys.ts';
import { cachedOrder, rememberOrder } from './order-cache.ts';
import { dirOf, segmentOrder, type SegmentOrder } from './segment-order.ts';
import { kwayMergeSteps } from '../../shared/kway-merge.ts';

/**
 * The clauses that decide an order, normalised: `_score` clauses removed (the caller has proved
 * the score constant), unmapped clauses removed (every doc has the same value), everything after
 * the first `_doc` or `_id` clause removed (those are unique), and a final `_id` clause turned
 * into the direction of the `_id` tie-break.
 */
export interface OrderSpec {
  /** Field (not `_id`) and `_doc` clauses, in order. */
  readonly clauses: readonly SortField[];
  /** The `_id` tie-break runs descending (the sort's first `_id` clause is `desc`). */
  readonly idDesc: boolean;
  /** Cache key: everything that changes the order (field types guard remapping). */
  readonly key: string;
}

/**
 * The order spec of `sort`, or null when a presorted order cannot serve it (`_score` clauses
 * while scores vary per match). `scoreConstant`: every match has the same score.
 */
export function orderSpec(sort: readonly SortField[], scoreConstant: boolean, fields: Map<string, FieldMapping>): OrderSpec | null {
  const clauses: SortField[] = [];
  const parts: unknown[] = [];
  let idDesc = false;
  for (const sf of sort) {
    if (sf.kind === 'score') {
      if (!scoreConstant) return null;
      continue;
    }
    if (sf.kind === 'doc') {
      clauses.push(sf);
      parts.push(['_doc', sf.order]); // `_shard_doc`'s offset changes values, not the order
      break;
    }
    if (sf.field === '_id') {
      idDesc = sf.order === 'desc';
      break;
    }
    const fm = fields.get(sf.field);
    if (!fm && sf.unmappedType) continue;
    clauses.push(sf);
    parts.push([sf.field, sf.order, sf.mode, sf.numericType ?? null, sf.missing, fm?.type ?? null, fm?.fielddata ?? null]);
  }
  return { clauses, idDesc, key: JSON.stringify([parts, idDesc]) };
}

/** Live documents of a generation (or the matches of a query in it) in order: entry r is ordinal `ords[r]` of view `segs[r]`. */
export interface DocOrder {
  segs: Uint16Array;
  ords: Int32Array;
}

const generationCache = new WeakMap<object, Map<string, DocOrder | null>>();

/**
 * Global keys of one string clause for every view: the views' term dictionaries are merged
 * (k-way, by code point) into one, and each view's ranks are mapped into it.
 */
function* globalStringKeys(sf: SortField, cols: readonly Extract<Column, { t: 'str' }>[], clock: SliceClock): Steps<Float64Array[]> {
  const tables = cols.map((c) => new Int32Array(c.terms.length + 1));
  const terms: string[] = [];
  yield* kwayMergeSteps(
    cols.map((c) => c.terms.length),
    (a, i, b, j) => compareCodePoints(cols[a].terms[i], cols[b].terms[j]) < 0,
    (s, i) => {
      const t = cols[s].terms[i];
      if (terms.length === 0 || terms[terms.length - 1] !== t) terms.push(t);
      tables[s][i + 1] = terms.length;
    },
    clock,
  );
  const out: Float64Array[] = [];
  for (const [s, col] of cols.entries()) {
    out.push(stringKeys(col, sf, terms, tables[s]));
    if (clock.due()) yield;
  }
  return out;
}

/**
 * The live documents of `views` in the order of `spec`: each view's permutation without its
 * deleted docs, k-way merged on keys comparable across segments (numeric values, global keyword
 * ranks, `base + ord` for `_doc`), then `_id` (numeric codes when every segment has them). Cached
 * per `owner` (the immutable generation holding these views). Built in the calling task: a search
 * action first builds it in slices with {@link liveOrderSliced}, and this then finds it cached.
 * Null when some value has no exact key (callers then collect).
 * @throws EsError 400 for an unsortable field.
 */
export function liveOrder(
  owner: object,
  views: readonly SegmentView[],
  bases: readonly number[],
  spec: OrderSpec,
  fields: Map<string, FieldMapping>,
): DocOrder | null {
  let byGen = generationCache.get(owner);
  if (!byGen) {
    byGen = new Map();
    generationCache.set(owner, byGen);
  }
  const hit = cachedOrder(byGen, spec.key);
  if (hit !== undefined) return hit;
  const o = runAtOnce((clock) => buildLiveOrder(views, bases, spec, fields, clock));
  rememberOrder(byGen, spec.key, o);
  return o;
}

/** Orders being built in slices, per owner and spec key: concurrent requests share one build. */
const building = new WeakMap<object, Map<string, Promise<DocOrder | null>>>();

/**
 * {@link liveOrder} built in event-loop slices of about `sliceMs` (sliced-work.ts), so that the
 * first sort on a field after a refresh does not hold the shard node's event loop for the whole
 * build (docs/reliability.md). The result is cached as {@link liveOrder} caches it, and requests
 * for the same owner and spec while it is being built wait for that one build.
 * @throws EsError 400 for an unsortable field (the promise rejects).
 */
export function liveOrderSliced(
  owner: object,
  views: readonly SegmentView[],
  bases: readonly number[],
  spec: OrderSpec,
  fields: Map<string, FieldMapping>,
  sliceMs = DEFAULT_SLICE_MS,
): Promise<DocOrder | null> {
  const hit = generationCache.get(owner)?.get(spec.key);
  if (hit !== undefined) return Promise.resolve(hit);
  let inFlight = building.get(owner);
  if (!inFlight) {
    inFlight = new Map();
    building.set(owner, inFlight);
  }
  const running = inFlight.get(spec.key);
  if (running) return running;
  const byOwner = inFlight;
  const build = runSliced((clock) => buildLiveOrder(views, bases, spec, fields, clock), sliceMs)
    .then((o) => {
      let byGen = generationCache.get(owner);
      if (!byGen) {
        byGen = new Map();
        generationCache.set(owner, byGen);
      }
      rememberOrder(byGen, spec.key, o);
      return o;
    })
    .finally(() => byOwner.delete(spec.key));
  byOwner.set(spec.key, build);
  return build;
}

/** The steps of {@link liveOrder} (uncached at this level; segment orders are cached per segment). */
function* buildLiveOrder(
  views: readonly SegmentView[],
  bases: readonly number[],
  spec: OrderSpec,
  fields: Map<string, FieldMapping>,
  clock: SliceClock,
): Steps<DocOrder | null> {
  const orders: SegmentOrder[] = [];
  for (const v of views) {
    const o = yield* segmentOrder(v.segment, spec, fields, clock);
    if (o === null) return null;
    orders.push(o);
  }
  const runs: Int32Array[] = [];
  for (const [s, v] of views.entries()) {
    const perm = orders[s].perm;
    if (!v.live) {
      runs.push(perm);
      continue;
    }
    const out = new Int32Array(v.liveCount);
    for (let i = 0, j = 0; i < perm.length; i++) if (v.live[perm[i]]) out[j++] = perm[i];
    runs.push(out);
    if (clock.due()) yield;
  }
  const total = runs.reduce((s, r) => s + r.length, 0);
  const segs = new Uint16Array(total);
  if (views.length === 1) return { segs, ords: runs[0] };
  const ords = new Int32Array(total);
  // Keys and id codes gathered in run order, so the merge reads them sequentially.
  const gather = (k: Float64Array, run: Int32Array): Float64Array => {
    const out = new Float64Array(run.length);
    for (let i = 0; i < run.length; i++) out[i] = k[run[i]];
    return out;
  };
  const gk: Float64Array[][] = [];
  for (const perView of yield* globalKeys(views, bases, spec, orders, clock)) {
    gk.push(perView.map((k, s) => gather(k, runs[s])));
    if (clock.due()) yield;
  }
  const ids: IdKeys[] = [];
  for (const v of views) ids.push(yield* idKeysSteps(v.segment, clock));
  const codes = ids.every((x) => x.scheme !== 0 && x.scheme === ids[0].scheme) ? ids.map((x, s) => gather(x.code!, runs[s])) : null;
  const dir = spec.idDesc ? -1 : 1;
  let r = 0;
  yield* kwayMergeSteps(
    runs.map((x) => x.length),
    (a, i, b, j) => {
      for (let c = 0; c < gk.length; c++) {
        const x = gk[c][a][i];
        const y = gk[c][b][j];
        if (x !== y) return x < y;
      }
      if (codes) return dir * (codes[a][i] - codes[b][j]) < 0;
      return dir * compareCodePoints(views[a].segment.ids.get(runs[a][i]), views[b].segment.ids.get(runs[b][j])) < 0;
    },
    (s, i) => {
      segs[r] = s;
      ords[r++] = runs[s][i];
    },
    clock,
  );
  return { segs, ords };
}

/** Per clause and view, keys that compare across views. */
function* globalKeys(
  views: readonly SegmentView[],
  bases: readonly number[],
  spec: OrderSpec,
  orders: SegmentOrder[],
  clock: SliceClock,
): Steps<Float64Array[][]> {
  const out: Float64Array[][] = [];
  for (const [c, sf] of spec.clauses.entries()) {
    const col0 = orders[0]?.columns[c];
    if (!col0 || col0.t === 'num') out.push(orders.map((o) => o.keys[c]!));
    else if (col0.t === 'doc') {
      out.push(
        views.map((v, s) => {
          const k = new Float64Array(v.segment.maxDoc);
          for (let d = 0; d < k.length; d++) k[d] = dirOf(sf) * (bases[s] + d) + 0;
          return k;
        }),
      );
    } else
      out.push(
        yield* globalStringKeys(
          sf,
          orders.map((o) => o.columns[c] as Extract<Column, { t: 'str' }>),
          clock,
        ),
      );
    if (clock.due()) yield;
  }
  return out;
}

/**
 * Keeps the entries of `order` whose doc is in its segment's match set (one pass): the matches of
 * a query in sort order. `matched[s]` has a 1 per matching ordinal of view s.
 */
export function filterOrder(order: DocOrder, matched: readonly Uint8Array[]): DocOrder {
  const n = order.ords.length;
  let count = 0;
  for (let r = 0; r < n; r++) count += matched[order.segs[r]][order.ords[r]];
  const segs = new Uint16Array(count);
  const ords = new Int32Array(count);
  for (let r = 0, j = 0; r < n; r++) {
    const s = order.segs[r];
    const d = order.ords[r];
    if (matched[s][d]) {
      segs[j] = s;
      ords[j++] = d;
    }
  }
  return { segs, ords };
}
