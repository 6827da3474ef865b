/**
 * The path prefix of the internal API and the identity every shard reply echoes.
 * Part of the internal shard-node protocol (docs/architecture.md lists its modules): the
 * coordinator calls the shard nodes on `/_internal/v1/…` with JSON or the binary wire format, and
 * every response echoes `node`, `index` and `shard`. Shapes mirror ES's transport actions: the query
 * phase returns sort keys only (`QuerySearchResult`), the fetch phase loads `_source` for the final
 * page (`FetchSearchResult`).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/SearchPhaseController.java
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
