/**
 * Plan phase: everything checked before any fan-out. Resolves the shards to search, and fails,
 * per index, the shards whose index rejects the request (result window, sort field), exactly where
 * ES would fail them on the shard (`DefaultSearchContext.preProcess`, `SortBuilder`).
 */
import { illegalArgument, type ErrorCause } from '../../protocol/errors.ts';
import { flatFields, withAliasTargets } from '../../protocol/mapping.ts';
import type { QueryAggs } from '../../protocol/aggs.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import type { ContextRef, ShardCollapse } from '../../protocol/search.ts';
import type { Query } from '../../protocol/query-ast.ts';
import { shardForRouting } from '../cluster/routing.ts';
import type { SearchRequest } from '../rest/search-request.ts';
import { nonNumericSortCause, SCORE_SORT, SHARD_DOC, sortNeedsScores, type SortField } from '../../protocol/sort.ts';
import type { ClusterView } from '../cluster/cluster-view.ts';
import { intValue } from '../cluster/index-setting-definitions.ts';
import { withAliasFilters } from './alias-filters.ts';
import {
  DEFAULT_MAX_REGEX_LENGTH,
  DEFAULT_MAX_SCRIPT_FIELDS,
  DEFAULT_MAX_TERMS_COUNT,
  regexpLengthCause,
  rescoreCause,
  resultWindowCause,
  scriptFieldsCause,
  termsCountCause,
} from './index-limits.ts';
import { fetchOptionsCause } from './fetch-options.ts';
import { boosted } from './index-boosts.ts';
import type { ShardFailure } from './shard-failures.ts';
import type { SearchTarget } from './shard-copy-iterator.ts';
import { maxSlicesPerScroll, sliceCause, slicedQueries } from './slice-plan.ts';
import { searchPreference, withoutUnavailable } from './preference-plan.ts';

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
  /** Compute scores (sort on `_score` when hits are asked for, i.e. `from + size > 0`; or `track_scores`). */
  needScores: boolean;
  /** Entries each shard returns: `from + size` (the paging rewrite happens here, once). */
  k: number;
  targets: readonly SearchTarget[];
  /** Per target (parallel to `targets`): how it is pinned, or undefined (the shard's current generation). */
  pins: (ShardPin | undefined)[];
  /** Number of leading sort values the hits show (all but a hidden implicit tiebreaker). */
  shownSortValues: number;
  failures: ShardFailure[];
  totalShards: number;
  /**
   * Per index, which sort clauses ES renders as doubles (`1.0`, not `1`): `_score`, floating fields,
   * `numeric_type: double`. Null when no clause does in any index (the common case: no per-hit work).
   */
  doubleSortValues: Map<string, boolean[]> | null;
  /**
   * Per target, the query it runs when it is not `req.query` (a sliced search: slice-plan.ts; an
   * index reached through filtered aliases, or boosted); see {@link queryForTarget}.
   */
  queries?: Query[];
  /** A collapsed search: what each shard groups by (collapse-plan.ts; `sort` then ends with the key clause). */
  collapse?: ShardCollapse;
  /** Aggregations the query phase collects beside the hits (set by the search when asked: aggs-phase.ts). */
  aggs?: QueryAggs;
  /** With `post_filter` and `aggs`: per target, the query its aggregations read (alias filters and slice, no `post_filter`). */
  aggsQueries?: Query[];
  /** The indices whose query rounds may be answered from the shard request cache (set by the search: request-cache-policy.ts). */
  requestCache?: ReadonlySet<string>;
}

/** What the index expression gave each index beyond its name: alias filters and search routing (index-expression.ts `SearchScope`). */
export interface IndexScope {
  /** Per index reached only through filtered aliases: their filters (ES query DSL). */
  filters?: ReadonlyMap<string, readonly Record<string, unknown>[]>;
  /** Per index: the routing values whose shards are read (absent index: every shard). */
  routing?: ReadonlyMap<string, ReadonlySet<string>> | null;
  /** Per index: the `indices_boost` its hits' scores are multiplied by (absent index: 1). */
  boosts?: ReadonlyMap<string, number>;
}

/** The query target `i` runs: its slice of `req.query` with its index's alias filters and boost, or `req.query` itself. */
export function queryForTarget(plan: SearchPlan, i: number): Query {
  return plan.queries?.[i] ?? plan.req.query;
}

/**
 * The query target `i`'s aggregations read: {@link queryForTarget} without the `post_filter` (ES
 * collects aggregations on the query, then narrows the hits: `SearchService.parseSource`).
 */
export function aggsQueryForTarget(plan: SearchPlan, i: number): Query {
  return plan.aggsQueries?.[i] ?? queryForTarget(plan, i);
}

/** Field types ES sorts as doubles (`NumericType.DOUBLE`/`FLOAT`/`HALF_FLOAT`, scaled floats). */
const FLOATING_SORT_TYPES: ReadonlySet<string> = new Set(['double', 'float', 'half_float', 'scaled_float']);

/**
 * Which clauses of `sort` have double sort values in an index with these fields, as ES's
 * `DocValueFormat.RAW` prints them: a Java `Double`/`Float` keeps its `.0`, a `Long` does not.
 */
export function doubleSortClauses(sort: readonly SortField[], fields: ReadonlyMap<string, { type: string }>): boolean[] {
  return sort.map((f) => {
    if (f.kind === 'score') return true;
    if (f.kind === 'doc' || f.field === '_id') return false;
    if (f.numericType !== undefined) return f.numericType === 'double';
    const type = fields.get(f.field)?.type ?? f.unmappedType;
    return type !== undefined && FLOATING_SORT_TYPES.has(type);
  });
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

/** ES's rejection of a sort clause for one index's mapping, or null when the clause is fine. */
export function sortFieldCause(
  field: SortField,
  fields: ReadonlyMap<string, { type: string; fielddata?: boolean }>,
  index: string,
  uuid: string,
): ErrorCause | null {
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
  if (fm.type === 'keyword' || fm.type === 'text') {
    const cause = nonNumericSortCause(field, fm.type);
    if (cause) return { ...cause, index_uuid: uuid, index };
  }
  return null;
}

/**
 * The shards of one index a search with `routing` reads (ES `OperationRouting.searchShards`): those
 * the routing values route to (ES's routing formula, coordinator/cluster/routing.ts), or all without routing.
 */
export function routedShards<T extends { shard: number }>(
  shards: T[],
  m: Pick<IndexMetadata, 'numberOfShards' | 'routingNumShards'>,
  routing: ReadonlySet<string> | undefined,
): T[] {
  if (!routing) return shards;
  const wanted = new Set([...routing].map((r) => shardForRouting(r, m.numberOfShards, m.routingNumShards)));
  return shards.filter((t) => wanted.has(t.shard));
}

/**
 * Why one index rejects the request, checked in ES's order: its limits (index-limits.ts), each sort
 * clause against its mapping, `search_after`, the fetch options and `slice`; null when it accepts it.
 */
function requestCause(
  req: SearchRequest,
  sort: readonly SortField[],
  name: string,
  m: IndexMetadata,
  fields: ReturnType<typeof withAliasTargets>,
): ErrorCause | null {
  const settings = m.settings ?? {};
  let cause = regexpLengthCause(req, intValue(settings['index.max_regex_length'], DEFAULT_MAX_REGEX_LENGTH), name, m.uuid);
  cause ??= scriptFieldsCause(req, intValue(settings['index.max_script_fields'], DEFAULT_MAX_SCRIPT_FIELDS));
  cause ??= termsCountCause(req, intValue(settings['index.max_terms_count'], DEFAULT_MAX_TERMS_COUNT), name, m.uuid);
  cause ??= resultWindowCause(req, m.maxResultWindow);
  for (const f of sort) cause ??= sortFieldCause(f, fields, name, m.uuid);
  const rescoreWindow = settings['index.max_rescore_window'];
  cause ??= rescoreCause(req, sort, {
    maxResultWindow: m.maxResultWindow,
    ...(rescoreWindow !== undefined ? { maxRescoreWindow: intValue(rescoreWindow, m.maxResultWindow) } : {}),
  });
  cause ??= searchAfterCause(req, sort);
  cause ??= fetchOptionsCause(req, m);
  cause ??= sliceCause(req, fields, maxSlicesPerScroll(m));
  return cause;
}

/**
 * Builds the plan for `indices` (already resolved). Shards of an index that rejects the request are
 * listed in `failures` and not queried. `scope`: the alias filters each index's shards add to the
 * query, and the routing that limits which of its shards are read (ES `OperationRouting.searchShards`).
 * A PIT's or scroll's search reads the shards it pinned, no others. A `preference` chooses the shards and
 * copies read (preference-plan.ts); a shard it leaves without a copy is a failure.
 */
export async function planSearch(
  req: SearchRequest,
  indices: readonly string[],
  view: ClusterView,
  pinning?: Pinning,
  scope: IndexScope = {},
  aggsQuery?: Query,
): Promise<SearchPlan> {
  const sort = req.sort.length > 0 ? [...req.sort] : [...SCORE_SORT];
  const implicit = pinning?.tiebreaker === true && !sort.some((f) => f.field === SHARD_DOC);
  if (implicit) sort.push({ kind: 'doc', field: SHARD_DOC, order: 'asc', missing: '_last', mode: 'min' });
  let targets: SearchTarget[] = [];
  const failures: ShardFailure[] = [];
  const picks = new Map<number, number>(); // this search's copy choices so far (adaptive replica selection)
  const preference = searchPreference(req.preference, indices, view); // undefined without one: the default path
  let doubleSortValues: Map<string, boolean[]> | null = null;
  for (const name of indices) {
    const index = await view.get(name);
    let shards = routedShards(view.targets(index, picks, preference), index.metadata, scope.routing?.get(name));
    // A cursor's contexts are its shards (a PIT opened with routing holds some shards only).
    if (pinning?.tiebreaker && pinning.pins.size > 0) shards = shards.filter((t) => pinning.pins.has(pinKey(name, t.shard)));
    const fields = withAliasTargets(flatFields(index.metadata.mappings)); // an alias checks as its target (ES field type lookup)
    const cause = requestCause(req, sort, name, index.metadata, fields);
    if (cause) {
      for (const t of shards) failures.push({ shard: t.shard, index: name, node: null, reason: cause, status: 400 });
    } else {
      targets.push(...shards);
      const doubles = doubleSortClauses(sort, fields);
      if (doubles.some((d) => d)) (doubleSortValues ??= new Map()).set(name, doubles);
    }
  }
  if (preference) targets = withoutUnavailable(targets, failures, req.allowPartialSearchResults);
  if (req.scriptFields > 0 && req.size > 0 && targets.length > 0) {
    throw illegalArgument('[script_fields] are not supported by Folio: it has no scripting (docs/compatibility.md)');
  }
  const pins = targets.map((t) => pinning?.pins.get(pinKey(t.index, t.shard)));
  pins.forEach((p, i) => {
    // A cursor reads its own copy (its context or generation lives there): no failover to another.
    if (p) targets[i] = { ...targets[i], ...(p.node !== undefined ? { node: p.node } : {}), alternates: [] };
  });
  // A slice's shards are numbered by their place in the PIT or scroll (a new scroll's: its targets' order).
  const numShards = pinning && pinning.pins.size > 0 ? pinning.pins.size : targets.length + failures.length;
  const shardIndexes = pins.map((p, i) => p?.shardIndex ?? i);
  // Then each index's alias filters and `indices_boost` around its target's query.
  const { filters, boosts } = scope;
  const queryOf = (index: string, base: Query): Query => {
    const f = filters?.get(index);
    const q = f ? withAliasFilters(base, f) : base;
    const boost = boosts?.get(index) ?? 1;
    return boost === 1 ? q : boosted(q, boost);
  };
  const perIndex = (filters !== undefined && filters.size > 0) || (boosts !== undefined && boosts.size > 0);
  const scoped = (base: Query): Query[] | undefined => {
    const sliced = req.slice ? slicedQueries({ ...req, query: base }, shardIndexes, numShards) : undefined;
    return perIndex ? targets.map((t, i) => queryOf(t.index, sliced?.[i] ?? base)) : sliced;
  };
  const queries = scoped(req.query);
  const aggsQueries = aggsQuery ? (scoped(aggsQuery) ?? targets.map(() => aggsQuery)) : undefined;
  return {
    req,
    sort,
    // A count (k 0) scores nothing, as ES's TotalHitCountCollector (max_score null): no dfs round, no BM25 per match.
    needScores: (req.from + req.size > 0 && sortNeedsScores(sort)) || req.trackScores,
    k: req.from + req.size,
    targets,
    pins,
    shownSortValues: implicit && pinning?.hideTiebreaker ? sort.length - 1 : sort.length,
    failures,
    totalShards: targets.length + failures.length,
    doubleSortValues,
    ...(queries ? { queries } : {}),
    ...(aggsQueries ? { aggsQueries } : {}),
  };
}
