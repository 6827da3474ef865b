/**
 * Shard failures as data: collected per search and reported in `_shards.failures`, or turned into
 * ES's `search_phase_execution_exception` when every shard failed (or when partial results are
 * not allowed).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/ShardSearchFailure.java
 */
import { allShardsFailed, type ErrorCause, type EsError } from '../../protocol/errors.ts';
import { ShardCallError } from '../transport/shard-call-error.ts';

/** One failed shard, in the `_shards.failures[]` shape plus its HTTP status. */
export interface ShardFailure {
  shard: number;
  index: string;
  node: string | null;
  reason: ErrorCause;
  status: number;
}

/** Builds a failure entry from anything a shard call threw. */
export function shardFailure(index: string, shard: number, node: string | null, err: unknown): ShardFailure {
  if (err instanceof ShardCallError) return { shard, index, node: err.node, reason: err.cause_, status: err.status };
  const message = err instanceof Error ? err.message : String(err);
  return { shard, index, node, reason: { type: 'exception', reason: message }, status: 500 };
}

/**
 * The error for a search whose shards all failed: status is the first 5xx among the failures if
 * any (ES prefers 502–504), else the first failure's status.
 */
export function allFailedError(phase: string, failures: readonly ShardFailure[], message = 'all shards failed'): EsError {
  const gateway = failures.find((f) => f.status >= 502 && f.status <= 504);
  const server = failures.find((f) => f.status >= 500);
  const status = (gateway ?? server ?? failures[0])?.status ?? 503;
  return allShardsFailed(
    phase,
    failures.map(({ status: _s, ...f }) => f),
    status,
    message,
  );
}

/** `_shards.failures[]` as ES prints it: one entry per failed shard. */
export function failuresForResponse(failures: readonly ShardFailure[]): Omit<ShardFailure, 'status'>[] {
  return failures.map(({ status: _s, ...f }) => f);
}
