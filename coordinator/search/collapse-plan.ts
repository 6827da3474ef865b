/**
 * Plan step of a collapsed search (docs/collapse.md): ES's checks of the collapse field per index
 * (`CollapseBuilder.build`, `SearchService.parseSource`, `SearchAfterBuilder.buildFieldDoc`),
 * failing the shards of an index that refuses it as ES fails them on the shard, then the plan the
 * query phase runs: the sort with the collapse key as its last clause (groups tied on the sort
 * values are ordered by key), and what each shard returns for the group total.
 * A search without `collapse` returns its plan unchanged, at no cost.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/collapse-search-results.html
 */
import type { ErrorCause } from '../../protocol/errors.ts';
import { flatFields, NUMERIC_TYPES, withAliasTargets, type FieldMapping } from '../../protocol/mapping.ts';
import type { SearchRequest } from '../rest/search-request.ts';
import type { SortField } from '../../protocol/sort.ts';
import type { ClusterView } from '../cluster/cluster-view.ts';
import type { SearchPlan } from './plan.ts';
import type { ShardFailure } from './shard-failures.ts';

/** The sort clause of a collapse key: ascending, a missing key (the null group) last. */
export function collapseKeyClause(field: string): SortField {
  return { kind: 'field', field, order: 'asc', missing: '_last', mode: 'min' };
}

/**
 * ES's refusal of a collapse for one index, or null: with `search_after` unless sorted on the
 * collapse field alone, with `rescore` (a shard `search_exception`: ES answers 500, Folio 400, as bad input is a 4xx here:
 * docs/compatibility.md), a field the index does
 * not map, a field that is neither keyword nor numeric, without doc values, or not indexed when
 * inner hits are asked for.
 * @param sort the effective sort (a PIT's implicit `_shard_doc` included, as ES checks it)
 */
export function collapseCause(req: SearchRequest, sort: readonly SortField[], fields: ReadonlyMap<string, FieldMapping>): ErrorCause | null {
  const c = req.collapse;
  if (!c) return null;
  if (req.searchAfter !== null && (sort.length !== 1 || sort[0].field !== c.field)) {
    return {
      type: 'illegal_argument_exception',
      reason: 'Cannot use [collapse] in conjunction with [search_after] unless the search is sorted on the same field. Multiple sort fields are not allowed.',
    };
  }
  if (req.rescore.length > 0) return { type: 'search_exception', reason: 'cannot use `collapse` in conjunction with `rescore`' };
  const fm = fields.get(c.field);
  if (!fm) return { type: 'illegal_argument_exception', reason: `no mapping found for \`${c.field}\` in order to collapse on` };
  if (fm.type !== 'keyword' && !NUMERIC_TYPES.has(fm.type)) {
    return { type: 'illegal_argument_exception', reason: `collapse is not supported for the field [${c.field}] of the type [${fm.type}]` };
  }
  if (fm.doc_values === false) return { type: 'illegal_argument_exception', reason: `cannot collapse on field \`${c.field}\` without \`doc_values\`` };
  if (fm.index === false && c.innerHits.length > 0) {
    return {
      type: 'illegal_argument_exception',
      reason: `cannot expand \`inner_hits\` for collapse field \`${c.field}\`, only indexed field can retrieve \`inner_hits\``,
    };
  }
  return null;
}

/**
 * The plan of a collapsed search, from the plan of the same search without it: shards of indices
 * that refuse the collapse move to `failures` (400, ES's types and texts), the sort
 * gains the key clause, and each shard is told to send its keys for the group total when there are
 * several shards and totals are tracked (at most `track_total_hits` keys).
 */
export async function planCollapse(plan: SearchPlan, view: ClusterView): Promise<SearchPlan> {
  const c = plan.req.collapse;
  if (!c) return plan;
  const refused = new Map<string, ErrorCause>();
  for (const name of new Set(plan.targets.map((t) => t.index))) {
    const cause = collapseCause(plan.req, plan.sort, withAliasTargets(flatFields((await view.get(name)).metadata.mappings)));
    if (cause) refused.set(name, cause);
  }
  const failures: ShardFailure[] = [...plan.failures];
  const keep: number[] = [];
  plan.targets.forEach((t, i) => {
    const cause = refused.get(t.index);
    if (cause) failures.push({ shard: t.shard, index: t.index, node: null, reason: cause, status: 400 });
    else keep.push(i);
  });
  const targets = keep.map((i) => plan.targets[i]);
  const tracked = plan.req.trackTotalHits;
  let doubleSortValues = plan.doubleSortValues;
  if (doubleSortValues) doubleSortValues = new Map([...doubleSortValues].map(([index, d]) => [index, [...d, false]]));
  return {
    ...plan,
    sort: [...plan.sort, collapseKeyClause(c.field)],
    targets,
    pins: keep.map((i) => plan.pins[i]),
    ...(plan.queries ? { queries: keep.map((i) => plan.queries![i]) } : {}),
    ...(plan.aggsQueries ? { aggsQueries: keep.map((i) => plan.aggsQueries![i]) } : {}),
    failures,
    doubleSortValues,
    collapse: { field: c.field, groupKeysUpTo: targets.length > 1 && tracked >= 0 ? tracked : 0 },
  };
}
