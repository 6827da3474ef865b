/**
 * The copies one search reads, shard by shard: ES's `SearchShardIterator`. A plan's targets are
 * frozen ({@link SearchTarget}: the copy adaptive replica selection ranked first, then the other
 * in-sync copies, best first); each search makes one iterator per target ({@link copyIterators}).
 * The fan-out (fan-out.ts) moves an iterator to the copy that answered, or past a copy that failed
 * when another is left, so the search's later rounds (query after dfs, range after sample, fetch)
 * read the copy the round before read; copy affinity (copy-affinity.ts) moves it to the copy a
 * cached result came from. A phase that may fail over without moving the search (fetch) reads a
 * {@link ShardCopyIterator.fork}; one that reads a single copy's generation (aggregation
 * refinement) reads {@link ShardCopyIterator.only}.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/SearchShardIterator.java
 */
import type { ShardTarget } from '../cluster/index-view.ts';

/**
 * A shard of a search plan, read-only: index, shard, the copy to read first (node ordinal) and the
 * other in-sync copies, best first (absent or empty: none).
 */
export type SearchTarget = Readonly<Omit<ShardTarget, 'alternates'>> & { readonly alternates?: readonly number[] };

/** Where an iterator stands: the copy read now and the copies left, best first (immutable). */
export interface CopyPosition {
  readonly node: number;
  readonly rest: readonly number[];
}

/** The position after `p` (its first copy left), or null when no copy is left. */
export function nextCopy(p: CopyPosition): CopyPosition | null {
  return p.rest.length > 0 ? { node: p.rest[0], rest: p.rest.slice(1) } : null;
}

/** One shard's copies in the order one search reads them, with the copy it reads now. */
export class ShardCopyIterator {
  /** The plan's target (never written). */
  readonly target: SearchTarget;
  #at: CopyPosition;

  /** Starts at `at`, by default the target's first copy with its alternates. */
  constructor(target: SearchTarget, at?: CopyPosition) {
    this.target = target;
    this.#at = at ?? { node: target.node, rest: (target.alternates ?? []).filter((n) => n !== target.node) };
  }

  /** An iterator over the single copy `node` of shard `s` (no failover). */
  static only(s: Pick<SearchTarget, 'index' | 'shard'>, node: number): ShardCopyIterator {
    return new ShardCopyIterator({ index: s.index, shard: s.shard, node }, { node, rest: [] });
  }

  /** The copy the search reads now (node ordinal). */
  get node(): number {
    return this.#at.node;
  }

  /** The copies left to fail over to, best first. */
  get alternates(): readonly number[] {
    return this.#at.rest;
  }

  /** The current position (immutable). */
  get position(): CopyPosition {
    return this.#at;
  }

  /** Moves to `at` (the copy that answered, the next copy after a failure, a cached result's copy). */
  moveTo(at: CopyPosition): void {
    this.#at = at;
  }

  /** A new iterator at this one's position, which moves on its own. */
  fork(): ShardCopyIterator {
    return new ShardCopyIterator(this.target, this.#at);
  }
}

/** One iterator per target, in plan order: the copies one search reads. */
export function copyIterators(targets: readonly SearchTarget[]): ShardCopyIterator[] {
  return targets.map((t) => new ShardCopyIterator(t));
}
