/**
 * Plan step for cursors: which indices a search reads and how each shard is pinned.
 * - PIT (`pit: {id, keep_alive}`): the PIT's indices, each shard read through its context (the
 *   keep-alive renewed), implicit `_shard_doc` tiebreaker; an index in the path is ES's error.
 * - scroll continuation: the scroll's indices and contexts (each batch starting after the position
 *   its context recorded), `_shard_doc` kept out of the hits.
 * - new scroll (`?scroll=`): the path's indices; contexts are opened once the plan is known.
 * - `Folio-Snapshot` header: the path's indices, each shard the token names read at its generation.
 * Each index also gets its alias filters and search routing, and its `indices_boost`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/paginate-search-results.html
 */
import { validationFailed } from '../../protocol/errors.ts';
import type { SearchRequest } from '../rest/search-request.ts';
import type { ClusterView } from '../cluster/cluster-view.ts';
import { resolveSearchScope } from '../cluster/index-expression.ts';
import { INDICES_OPTIONS, indicesOptionsFrom } from '../cluster/indices-options.ts';
import { resolveIndexBoosts } from './index-boosts.ts';
import { decodePitId, decodeSnapshot, type CursorShard, type ScrollState } from './cursor-ids.ts';
import { pinKey, type IndexScope, type Pinning, type ShardPin } from './plan.ts';

/** The indices to search, their alias filters and routing, and, for a cursor, how their shards are pinned. */
export interface ResolvedCursor {
  indices: string[];
  pinning?: Pinning;
  /** Alias filters and search routing per index (a PIT or scroll keeps the filters it was opened with). */
  scope?: IndexScope;
}

/** A cursor's stored alias filters as a scope (absent: none). */
const filtersScope = (filters: Record<string, Record<string, unknown>[]> | undefined): IndexScope | undefined =>
  filters ? { filters: new Map(Object.entries(filters)) } : undefined;

/** What the HTTP layer knows about cursors of one search call. */
export interface CursorInput {
  indexExpression: string | undefined;
  /** The URL parameters: `ignore_unavailable`, `allow_no_indices`, `expand_wildcards` shape the path's resolution. */
  params?: URLSearchParams;
  /** The `Folio-Snapshot` request header. */
  snapshot?: string;
  /** A scroll continuation: the scroll id as sent, decoded, and the `scroll` keep-alive renewal (ms). */
  scroll?: { id: string; state: ScrollState; keepAliveMs: number | undefined };
}

/** Pins each shard to its context; a scroll's contexts also give each batch its start (`scroll`). */
function contextPins(shards: readonly CursorShard[], keepAliveMs: number | undefined, scroll: boolean): Map<string, ShardPin> {
  const pins = new Map<string, ShardPin>();
  for (const s of shards) {
    const context = { id: s.context, ...(keepAliveMs !== undefined ? { keepAliveMs } : {}), ...(scroll ? { scroll } : {}) };
    pins.set(pinKey(s.index, s.shard), { node: s.node, context, shardIndex: s.shardIndex });
  }
  return pins;
}

/**
 * Resolves the cursor of a search.
 * @throws EsError 400 `action_request_validation_exception` for a PIT with indices in the path
 *   (ES's text), 400 for an undecodable PIT id or snapshot token, 404 for a missing index, 400
 *   `index_closed_exception` for a closed one (ES's search options refuse closed indices).
 */
export async function resolveCursor(input: CursorInput, req: SearchRequest, view: ClusterView): Promise<ResolvedCursor> {
  const cursor = await resolveCursorIndices(input, req, view);
  if (!req.indicesBoost) return cursor;
  const options = input.params ? indicesOptionsFrom(input.params, INDICES_OPTIONS.search) : INDICES_OPTIONS.search;
  return { ...cursor, scope: { ...cursor.scope, boosts: await resolveIndexBoosts(req.indicesBoost, view, options) } };
}

/** {@link resolveCursor} before `indices_boost`. */
async function resolveCursorIndices(input: CursorInput, req: SearchRequest, view: ClusterView): Promise<ResolvedCursor> {
  if (input.scroll) {
    const { state, keepAliveMs } = input.scroll;
    return {
      indices: state.indices,
      pinning: { pins: contextPins(state.shards, keepAliveMs, true), tiebreaker: true, hideTiebreaker: true },
      scope: filtersScope(state.filters),
    };
  }
  if (req.pit) {
    if (input.indexExpression !== undefined) {
      throw validationFailed(['[indices] cannot be used with point in time. Do not specify any index with point in time.']);
    }
    const pit = decodePitId(req.pit.id);
    return {
      indices: pit.indices,
      pinning: { pins: contextPins(pit.shards, req.pit.keepAliveMs ?? undefined, false), tiebreaker: true },
      scope: filtersScope(pit.filters),
    };
  }
  const options = input.params ? indicesOptionsFrom(input.params, INDICES_OPTIONS.search) : INDICES_OPTIONS.search;
  const { indices, filters, routing } = await resolveSearchScope(input.indexExpression, view, options, req.routing);
  const scope: IndexScope = { filters, routing };
  if (req.scroll !== null) return { indices, pinning: { pins: new Map(), tiebreaker: true, hideTiebreaker: true }, scope };
  if (input.snapshot !== undefined && input.snapshot !== '') {
    const pins = new Map<string, ShardPin>();
    for (const s of decodeSnapshot(input.snapshot))
      pins.set(pinKey(s.index, s.shard), { generation: s.generation, ...(s.node !== undefined ? { node: s.node } : {}) });
    return { indices, pinning: { pins, tiebreaker: false }, scope };
  }
  return { indices, scope };
}
