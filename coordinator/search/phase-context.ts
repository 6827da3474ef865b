/**
 * What every shard call of one search shares, whichever phase makes it: the shard client, the
 * client's cancellation, the search deadline and the profiler. Built once per search (or per PIT
 * open, or per reindex walk) by {@link phaseContext}. Phase state lives elsewhere: the copies each
 * shard reads in the search's copy iterators (shard-copy-iterator.ts), the dfs and sample caches
 * in the search's dependencies (search.ts `SearchDeps`), passed to the phases that use them.
 * ES's counterpart is the `SearchTask` with its timeout, beside the search's `SearchShardIterator`s.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/AbstractSearchAsyncAction.java
 */
import type { ShardClient } from '../transport/shard-client.ts';
import { ShardProfiler } from './profile.ts';

/** Shared context of a search's shard calls (immutable). */
export interface PhaseContext {
  readonly client: ShardClient;
  /** Aborted when the client disconnects. */
  readonly signal: AbortSignal;
  /** Epoch ms when the search must have answered. */
  readonly deadline: number;
  /** Records every shard call's wall time when the search asked for `profile: true`. */
  readonly profile?: ShardProfiler;
}

/** What {@link phaseContext} builds a context from. */
export interface PhaseContextOptions {
  /** Time the search may take, in ms from `startedAt`. */
  timeoutMs: number;
  /** Epoch ms the search started (default: now). */
  startedAt?: number;
  /** The client's cancellation (default: never aborted). */
  signal?: AbortSignal;
  /** Profile the shard calls (`profile: true`). */
  profile?: boolean;
}

/** The context of one search's shard calls: deadline `startedAt + timeoutMs`, a profiler when asked. */
export function phaseContext(client: ShardClient, opts: PhaseContextOptions): PhaseContext {
  return {
    client,
    signal: opts.signal ?? new AbortController().signal,
    deadline: (opts.startedAt ?? Date.now()) + opts.timeoutMs,
    ...(opts.profile ? { profile: new ShardProfiler() } : {}),
  };
}
