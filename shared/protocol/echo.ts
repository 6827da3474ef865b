/**
 * The path prefix of the internal API and the identity every shard reply echoes.
 * Part of the internal shard-node protocol; shared/protocol.ts re-exports every piece.
 */

/** Path prefix of every internal endpoint. */
export const INTERNAL_PREFIX = '/_internal/v1';

/**
 * The identity every shard reply echoes (the node's id and the index and shard it answered for), so
 * that the coordinator detects a mis-wired node (`checkIdentity` in coordinator/search/fan-out.ts).
 */
export interface ShardEcho {
  node: string;
  index: string;
  shard: number;
}
