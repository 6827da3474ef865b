/**
 * `indices_boost` resolved to concrete indices (ES `TransportSearchAction.resolveIndexBoosts`): each
 * entry's expression (an index, an alias, a wildcard) under the search's indices options, the first
 * entry that reaches an index giving its boost; and the query a boosted index's shards run.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-multiple-indices.html#index-boost
 */
import type { IndexBoost } from '../rest/indices-boost.ts';
import type { Query } from '../../protocol/query-ast.ts';
import type { ClusterView } from '../cluster/cluster-view.ts';
import { resolveIndices } from '../cluster/index-expression.ts';
import { type IndicesOptions } from '../cluster/indices-options.ts';

/**
 * The boost of each concrete index the entries reach (first entry wins), or undefined without entries.
 * @throws EsError 404 `index_not_found_exception` for an entry naming a missing index or alias
 *   (unless `ignore_unavailable`), as the search's own expression would
 */
export async function resolveIndexBoosts(
  boosts: readonly IndexBoost[] | undefined,
  view: ClusterView,
  options: IndicesOptions,
): Promise<Map<string, number> | undefined> {
  if (!boosts || boosts.length === 0) return undefined;
  const out = new Map<string, number>();
  for (const { index, boost } of boosts) {
    for (const name of await resolveIndices(index, view, options)) if (!out.has(name)) out.set(name, boost);
  }
  return out;
}

/** `query` with its scores multiplied by `boost` (ES wraps the shard's query in a `BoostQuery`). */
export function boosted(query: Query, boost: number): Query {
  return { kind: 'bool', must: [query], should: [], filter: [], mustNot: [], boost };
}
