/**
 * Plan phase: everything checked before any fan-out. Resolves the shards to search, and fails,
 * per index, the shards whose index rejects the request (result window, sort field), exactly where
 * ES would fail them on the shard (`DefaultSearchContext.preProcess`, `SortBuilder`).
 */
import type { ErrorCause } from '../../shared/errors.ts';
import { flatFields } from '../../shared/mapping.ts';
import type { ContextRef, QueryAggs } from '../../shared/protocol.ts';
import type { SearchRequest } from '../../shared/search-request.ts';
import { SCORE_SORT, SHARD_DOC, sortNeedsScores, type SortField } from '../../shared/sort.ts';
import type { ClusterView } from '../cluster-view.ts';
import type { ShardTarget } from '../index-view.ts';
import { DEFAULT_MAX_RESULT_WINDOW } from '../index-settings.ts';
import type { ShardFailure } from './shard-failures.ts';

/**
 * How one shard is read when the search is pinned (PIT, scroll, `Folio-Snapshot`): a context or a
 * retained generation, on a given node, at a position for `_shard_doc`.
 */
export interface ShardPin {
  node?: number;
  generation?: number;
  context?: ContextRef;
  /** Position of the shard in its PIT or scroll: `_shard_doc` = shardIndex × 2^32 + doc. */
  shardIndex?: number;
}

/** The shards a cursor pins, keyed `index/shard`, and whether the implicit `_shard_doc` tiebreaker applies. */
export interface Pinning {
  pins: Map<string, ShardPin>;
  /** Append `_shard_doc` asc to the sort (PIT, scroll) unless the sort has it. */
  tiebreaker: boolean;
  /** The tiebreaker's value is kept out of the hits' `sort` (scroll: ES returns no such value). */
  hideTiebreaker?: boolean;
}

/** Multiplier of the shard index in `_shard_doc` values (ES packs shard index and doc id in a long). */
export const SHARD_DOC_SHARD_FACTOR = 2 ** 32;

/** Key of a shard in {@link Pinning.pins}. */
export const pinKey = (index: string, shard: number): string => `${index}/${shard}`;

/** What the query phase needs: effective sort, k, the shards to ask, and the shards already failed. */
export interface SearchPlan {
  req: SearchRequest;
  /** The effective sort (`_score` desc by default). */
  sort: SortField[];
  /** Compute scores (sort on `_score`, or `track_scores`). */
  needScores: boolean;
  /** Entries each shard returns: `from + size` (the paging rewrite happens here, once). */
  k: number;
  targets: ShardTarget[];
  /** Per target (parallel to `targets`): how it is pinned, or undefined (the shard's current generation). */
  pins: (ShardPin | undefined)[];
  /** Number of leading sort values the hits show (all but a hidden implicit tiebreaker). */
  shownSortValues: number;
  failures: ShardFailure[];
  totalShards: number;
  /** Aggregations the query phase collects beside the hits (set by the search when asked: aggs-phase.ts). */
  aggs?: QueryAggs;
}

/** ES's rejection of a `search_after` whose length differs from the sort's (`SearchAfterBuilder.buildFieldDoc`). */
export function searchAfterCause(req: SearchRequest, sort: readonly SortField[]): ErrorCause | null {
  if (req.searchAfter === null || req.searchAfter.length === sort.length) return null;
  return { type: 'illegal_argument_exception', reason: `search_after has ${req.searchAfter.length} value(s) but sort has ${sort.length}.` };
}

/** The sort a target shard is sent: `_shard_doc` carries the shard's offset (its position × 2^32). */
export function sortForTarget(plan: SearchPlan, i: number): SortField[] {
  const pin = plan.pins[i];
  if (!plan.sort.some((f) => f.field === SHARD_DOC)) return plan.sort;
  const offset = (pin?.shardIndex ?? i) * SHARD_DOC_SHARD_FACTOR;
  return plan.sort.map((f) => (f.field === SHARD_DOC ? { ...f, offset } : f));
}

/** The pin fields of a target's request (`generation` or `context`), empty when unpinned. */
export function pinFields(plan: SearchPlan, i: number): { generation?: number; context?: ContextRef } {
  const pin = plan.pins[i];
  if (pin?.context) return { context: pin.context };
  if (pin?.generation !== undefined) return { generation: pin.generation };
  return {};
}

/**
 * Largest `size` of one response (a page or a scroll batch) while `index.max_result_window` keeps
 * Folio's default: ES's default window, 10,000. Folio's default window (10,000,000) keeps deep
 * `from` cheap (distributed selection), but a page of millions of hits would be materialised whole;
 * an index whose `max_result_window` is set (to anything but the default) gets ES's rule alone.
 */
export const MAX_SIZE_WITH_DEFAULT_WINDOW = 10_000;

/**
 * ES's result-window rejection for one index (`DefaultSearchContext.preProcess`): `from + size`
 * (a scroll: its batch `size`) over `index.max_result_window`, or, with Folio's default window,
 * a `size` over {@link MAX_SIZE_WITH_DEFAULT_WINDOW}, reported with ES's text as if the window
 * were 10,000 (docs/compatibility.md, deviations).
 */
export function resultWindowCause(req: SearchRequest, maxResultWindow: number): ErrorCause | null {
  const sizeBound = maxResultWindow === DEFAULT_MAX_RESULT_WINDOW ? MAX_SIZE_WITH_DEFAULT_WINDOW : maxResultWindow;
  if (req.scroll !== null) {
    const limit = Math.min(maxResultWindow, sizeBound);
    if (req.size <= limit) return null;
    return {
      type: 'illegal_argument_exception',
      reason:
        `Batch size is too large, size must be less than or equal to: [${limit}] but was [${req.size}]. ` +
        'Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.',
    };
  }
  const window = req.from + req.size;
  if (window <= maxResultWindow && req.size <= sizeBound) return null;
  const limit = window > maxResultWindow ? maxResultWindow : sizeBound;
  return {
    type: 'illegal_argument_exception',
    reason:
      `Result window is too large, from + size must be less than or equal to: [${limit}] but was [${window}]. ` +
      'See the scroll api for a more efficient way to request large data sets. ' +
      'This limit can be set by changing the [index.max_result_window] index level setting.',
  };
}

/** ES's rejection of a sort clause for one index's mapping, or null when the clause is fine. */
export function sortFieldCause(field: SortField, fields: ReadonlyMap<string, { type: string; fielddata?: boolean }>, index: string, uuid: string): ErrorCause | null {
  if (field.kind !== 'field' || field.field === '_id') return null; // `_id` is sortable in Folio
  const fm = fields.get(field.field);
  if (!fm) {
    if (field.unmappedType !== undefined) return null;
    return { type: 'query_shard_exception', reason: `No mapping found for [${field.field}] in order to sort on`, index_uuid: uuid, index };
  }
  if (fm.type === 'text' && !fm.fielddata) {
    return {
      type: 'illegal_argument_exception',
      reason:
        'Text fields are not optimised for operations that require per-document field data like aggregations and sorting, ' +
        'so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on ' +
        `[${field.field}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
    };
  }
  if (fm.type === 'geo_point') {
    return { type: 'illegal_argument_exception', reason: "can't sort on geo_point field without using specific sorting feature, like geo_distance" };
  }
  return null;
}

/**
 * Builds the plan for `indices` (already resolved). Shards of an index that rejects the request are
 * listed in `failures` and not queried.
 */
export async function planSearch(req: SearchRequest, indices: readonly string[], view: ClusterView, pinning?: Pinning): Promise<SearchPlan> {
  const sort = req.sort.length > 0 ? [...req.sort] : [...SCORE_SORT];
  const implicit = pinning?.tiebreaker === true && !sort.some((f) => f.field === SHARD_DOC);
  if (implicit) sort.push({ kind: 'doc', field: SHARD_DOC, order: 'asc', missing: '_last', mode: 'min' });
  const targets: ShardTarget[] = [];
  const failures: ShardFailure[] = [];
  const picks = new Map<number, number>(); // this search's copy choices so far (adaptive replica selection)
  for (const name of indices) {
    const index = await view.get(name);
    const shards = view.targets(index, picks);
    const fields = flatFields(index.metadata.mappings);
    let cause = resultWindowCause(req, index.metadata.maxResultWindow);
    for (const f of sort) cause ??= sortFieldCause(f, fields, name, index.metadata.uuid);
    cause ??= searchAfterCause(req, sort);
    if (cause) {
      for (const t of shards) failures.push({ shard: t.shard, index: name, node: null, reason: cause, status: 400 });
    } else {
      targets.push(...shards);
    }
  }
  const pins = targets.map((t) => pinning?.pins.get(pinKey(t.index, t.shard)));
  pins.forEach((p, i) => {
    // A cursor reads its own copy (its context or generation lives there): no failover to another.
    if (p) targets[i] = { ...targets[i], ...(p.node !== undefined ? { node: p.node } : {}), alternates: [] };
  });
  return {
    req,
    sort,
    needScores: sortNeedsScores(sort) || req.trackScores,
    k: req.from + req.size,
    targets,
    pins,
    shownSortValues: implicit && pinning?.hideTiebreaker ? sort.length - 1 : sort.length,
    failures,
    totalShards: targets.length + failures.length,
  };
}
