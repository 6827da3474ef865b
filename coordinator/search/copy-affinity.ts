/**
 * Copy affinity for the search caches: a cached dfs result or selection sample describes the
 * generations of the copies that produced it, so a search that reuses it must read those same
 * copies. Caches are keyed by shard (not by copy), and a hit moves the search's copy iterators
 * (shard-copy-iterator.ts) to the cached copies when they are still among the copies it may read;
 * otherwise it is a miss. A repeated
 * query thus keeps reading the copies it was cached on, as ES recommends a `preference` string for
 * cache reuse, while new queries follow adaptive replica selection.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-shard-routing.html#shard-and-node-preference
 */
import type { SearchTarget, ShardCopyIterator } from './shard-copy-iterator.ts';

/** `index/shard`: a shard's key in the search caches, whichever copy serves it. */
export function shardKeyOf(t: Pick<SearchTarget, 'index' | 'shard'>): string {
  return `${t.index}/${t.shard}`;
}

/**
 * Moves every iterator to the copy `nodeOf(target, i)` names (its former copy becomes its first
 * alternate), provided each named copy is the one it stands on or one of its alternates.
 * @returns false, moving nothing, when some target has no named copy or cannot read it (or its copy
 *   order is fixed by a `preference` and the named copy is not its first).
 */
export function preferCopies(copies: readonly ShardCopyIterator[], nodeOf: (t: SearchTarget, i: number) => number | undefined): boolean {
  const named = copies.map((c, i) => nodeOf(c.target, i));
  // A copy order fixed by a `preference` (a custom string, `_prefer_nodes`) is kept: the cache is a miss on another copy.
  const readable = copies.every((c, i) => named[i] !== undefined && (named[i] === c.node || (!c.target.fixedOrder && c.alternates.includes(named[i]))));
  if (!readable) return false;
  copies.forEach((c, i) => {
    const node = named[i]!;
    if (node !== c.node) c.moveTo({ node, rest: [c.node, ...c.alternates.filter((n) => n !== node)] });
  });
  return true;
}
