/**
 * The plan's side of a search `preference` (coordinator/cluster/preference.ts, copy-preference.ts):
 * the preference resolved once per search, and the shards it leaves without a copy (`_only_local`:
 * the coordinator holds none). ES fails such a shard with `NoShardAvailableActionException` (503,
 * grouped under a null reason: `AbstractSearchAsyncAction.onShardFailure`), so a search of those
 * shards alone is "all shards failed"; with `allow_partial_search_results=false` it is refused before
 * any shard is read (`SearchPhase.doCheckNoMissingShards`).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/AbstractSearchAsyncAction.java
 */
import { allShardsFailed } from '../../protocol/errors.ts';
import type { ClusterView } from '../cluster/cluster-view.ts';
import { NO_COPY, resolvedPreference, type ResolvedPreference } from '../cluster/copy-preference.ts';
import type { ShardFailure } from './shard-failures.ts';
import type { SearchTarget } from './shard-copy-iterator.ts';

/**
 * The search's `preference` parsed and resolved against the shard nodes, or undefined for none
 * (and for a search of no index: ES applies it per shard, so such a search never fails on it).
 * @throws EsError 400 for a preference ES refuses (preference.ts)
 */
export function searchPreference(text: string | null, indices: readonly string[], view: Pick<ClusterView, 'nodeIdentities'>): ResolvedPreference | undefined {
  return indices.length === 0 ? undefined : resolvedPreference(text, view);
}

/**
 * The targets that have a copy to read; each one without ({@link NO_COPY}) is added to `failures`
 * as ES's `no_shard_available_action_exception` (503). `phase` names the phase in the error (`query`; a PIT's `open_pit`).
 * @throws EsError 503 `search_phase_execution_exception` `Search rejected due to missing shards [[i][0], …]. Consider using
 *   `allow_partial_search_results` setting to bypass this error.` when some target has none and partial results are not allowed
 */
export function withoutUnavailable(targets: SearchTarget[], failures: ShardFailure[], allowPartialSearchResults: boolean, phase = 'query'): SearchTarget[] {
  const missing = targets.filter((t) => t.node === NO_COPY);
  if (missing.length === 0) return targets;
  if (!allowPartialSearchResults) {
    const names = missing.map((t) => `[${t.index}][${t.shard}]`).join(', ');
    const reason = `Search rejected due to missing shards [${names}]. Consider using \`allow_partial_search_results\` setting to bypass this error.`;
    throw allShardsFailed(phase, [], 503, reason);
  }
  for (const t of missing) {
    failures.push({ shard: t.shard, index: t.index, node: null, reason: { type: 'no_shard_available_action_exception', reason: null }, status: 503 });
  }
  return targets.filter((t) => t.node !== NO_COPY);
}
