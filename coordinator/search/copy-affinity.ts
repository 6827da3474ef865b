/**
 * Copy affinity for the search caches: a cached dfs result or selection sample describes the
 * generations of the copies that produced it, so a search that reuses it must read those same
 * copies. Caches are keyed by shard (not by copy), and a hit re-points the search's targets to the
 * cached copies when they are still among the copies it may read; otherwise it is a miss. A repeated
 * query thus keeps reading the copies it was cached on, as ES recommends a `preference` string for
 * cache reuse, while new queries follow adaptive replica selection.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-shard-routing.html#shard-and-node-preference
 */
import type { ShardTarget } from '../cluster/index-view.ts';

/** `index/shard`: a shard's key in the search caches, whichever copy serves it. */
export function shardKeyOf(t: ShardTarget): string {
  return `${t.index}/${t.shard}`;
}

/**
 * Re-points every target to the copy `nodeOf(t, i)` names (its former copy becomes its first
 * alternate), provided each named copy is the target's own or one of its alternates.
 * @returns false, changing nothing, when some target has no named copy or cannot read it.
 */
export function preferCopies(targets: readonly ShardTarget[], nodeOf: (t: ShardTarget, i: number) => number | undefined): boolean {
  const named = targets.map((t, i) => nodeOf(t, i));
  const readable = targets.every((t, i) => named[i] !== undefined && (named[i] === t.node || (t.alternates ?? []).includes(named[i]!)));
  if (!readable) return false;
  targets.forEach((t, i) => {
    const node = named[i]!;
    if (node === t.node) return;
    t.alternates = [t.node, ...(t.alternates ?? []).filter((n) => n !== node)];
    t.node = node;
  });
  return true;
}
