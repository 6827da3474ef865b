/**
 * Plan step of a sliced scroll or PIT search (protocol/slice.ts): the checks ES makes on each shard
 * before slicing (`SliceBuilder.createSliceQuery`, `DefaultSearchContext.preProcess`), and, per
 * target shard, the query it runs: nothing (`match_none`) when the slice does not read it, the
 * request's query when the slice reads it whole, else the query filtered to the shard's sub-slice.
 * The shard's position is its place in the PIT or scroll (the `_shard_doc` one), the same for every
 * batch and every coordinator, so each slice is deterministic.
 */
import type { ErrorCause } from '../../protocol/errors.ts';
import { NUMERIC_TYPES, type FieldMapping } from '../../protocol/mapping.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import type { Query } from '../../protocol/query-ast.ts';
import type { SearchRequest } from '../rest/search-request.ts';
import { DEFAULT_MAX_SLICES_PER_SCROLL, shardSlice, type SliceSpec } from '../../protocol/slice.ts';

/** An index's `index.max_slices_per_scroll` (explicit settings, else ES's default, 1024). */
export function maxSlicesPerScroll(m: Pick<IndexMetadata, 'settings'>): number {
  const raw = m.settings?.['index.max_slices_per_scroll'];
  const n = typeof raw === 'string' || typeof raw === 'number' ? Number(raw) : NaN;
  return Number.isInteger(n) ? n : DEFAULT_MAX_SLICES_PER_SCROLL;
}

/** Field types with numeric doc values (`IndexNumericFieldData`): numbers, dates, booleans. */
function numericDocValues(fm: FieldMapping): boolean {
  return fm.doc_values !== false && (NUMERIC_TYPES.has(fm.type) || fm.type === 'date' || fm.type === 'boolean');
}

/**
 * ES's rejection of a request's `slice` on one index's shards, or null: a scroll's `max` over
 * `index.max_slices_per_scroll` (default 1024: {@link maxSlicesPerScroll}), `_id` slicing in a PIT, a `field` that is not mapped or has
 * no numeric doc values. Reported, as in ES, as a failure of each of the index's shards.
 */
export function sliceCause(
  req: SearchRequest,
  fields: ReadonlyMap<string, FieldMapping>,
  maxSlicesPerScroll = DEFAULT_MAX_SLICES_PER_SCROLL,
): ErrorCause | null {
  const slice = req.slice;
  if (slice === null) return null;
  const bad = (reason: string): ErrorCause => ({ type: 'illegal_argument_exception', reason });
  if (req.scroll !== null && slice.max > maxSlicesPerScroll) {
    return bad(
      `The number of slices [${slice.max}] is too large. It must be less than [${maxSlicesPerScroll}]. ` +
        'This limit can be set by changing the [index.max_slices_per_scroll] index level setting.',
    );
  }
  const field = slice.field;
  if (field === undefined) return null;
  if (field === '_id') return req.pit !== null ? bad('cannot slice on [_id] when using [point-in-time]') : null;
  const fm = fields.get(field);
  if (!fm) return bad(`field ${field} not found`);
  if (!numericDocValues(fm)) return bad(`cannot load numeric doc values on ${field}`);
  return null;
}

/** The query one shard runs for slice `slice`, at `shardIndex` of `numShards`. */
export function slicedQuery(query: Query, slice: SliceSpec, shardIndex: number, numShards: number): Query {
  const part = shardSlice(slice, shardIndex, numShards);
  if (part.kind === 'none') return { kind: 'match_none', boost: 1 };
  if (part.kind === 'all') return query;
  const filter: Query = { kind: 'slice', field: slice.field ?? '_id', id: part.id, max: part.max, boost: 1 };
  return { kind: 'bool', must: [query], should: [], filter: [filter], mustNot: [], boost: 1 };
}

/**
 * Per target (parallel to `shardIndexes`), the query it runs for the request's slice.
 * @param shardIndexes each target's position in the PIT or scroll.
 * @param numShards the number of shards the PIT or scroll holds.
 */
export function slicedQueries(req: SearchRequest, shardIndexes: readonly number[], numShards: number): Query[] {
  const slice = req.slice as SliceSpec;
  return shardIndexes.map((shardIndex) => slicedQuery(req.query, slice, shardIndex, numShards));
}
