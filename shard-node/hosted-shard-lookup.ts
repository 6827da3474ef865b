/**
 * Finding a shard copy this node hosts for an operation, with ES's refusals: a shard not hosted
 * here, a failed copy, a replica asked for a primary operation, a closed index; and the report of
 * an index's copies here (`GET /_internal/v1/indices`). Mirrors ES `IndexService.getShard`
 * (`ShardNotFoundException`), `TransportReplicationAction`'s primary-mode check and
 * `IndexClosedException`.
 * @see https://github.com/elastic/elasticsearch/blob/v8.15.0/server/src/main/java/org/elasticsearch/index/IndexService.java
 */
import { EsError } from '../protocol/errors.ts';
import type { NodeIndexEntry } from '../protocol/metadata.ts';
import type { Shard } from './engine/shard.ts';
import { hostedCopies } from '../shared/cluster-state/shard-copies.ts';
import type { HostedIndex } from './hosted-index.ts';

/**
 * The shard object of `index` hosted here, failed or not.
 * @throws EsError 404 shard_not_found_exception when this node does not host that shard (a
 *   mis-wired coordinator).
 */
export function hostedShardOf(h: HostedIndex, nodeId: string, index: string, shard: number): Shard {
  const s = h.shards.get(shard);
  if (!s) {
    throw new EsError(404, 'shard_not_found_exception', `no such shard [${index}][${shard}] on node [${nodeId}]`, {
      metadata: { index, shard: String(shard) },
    });
  }
  return s;
}

/**
 * The shard of `index` hosted here, for an operation: as {@link hostedShardOf}, and refused when
 * the copy failed.
 * @throws EsError 503 `no_shard_available_action_exception` for a failed copy; else as {@link hostedShardOf}.
 */
export function servingShardOf(h: HostedIndex, nodeId: string, index: string, shard: number): Shard {
  const s = hostedShardOf(h, nodeId, index, shard);
  const failure = h.failed.get(shard);
  if (failure !== undefined) {
    throw new EsError(503, 'no_shard_available_action_exception', `[${index}][${shard}] the copy on node [${nodeId}] failed: ${failure}`, {
      metadata: { index, shard: String(shard) },
    });
  }
  return s;
}

/**
 * The shard of `index` for a primary write: the copy here must be the primary by this node's
 * metadata (ES refuses a primary operation on a replica the same way).
 * @throws EsError 404 `shard_not_in_primary_mode_exception` when the copy here is a replica;
 *   else as {@link servingShardOf}.
 */
export function primaryShardOf(h: HostedIndex, nodeId: string, index: string, shard: number): Shard {
  const s = servingShardOf(h, nodeId, index, shard);
  const copy = h.ordinal === null ? undefined : h.metadata.shardCopies?.[shard]?.find((c) => c.node === h.ordinal);
  if (copy && !copy.primary) {
    throw new EsError(404, 'shard_not_in_primary_mode_exception', 'CurrentState[STARTED] shard is not in primary mode', {
      metadata: { index, shard: String(shard) },
    });
  }
  return s;
}

/**
 * Refuses a read or a primary write on a closed index (ES `IndexClosedException`), by this node's
 * copy of the metadata: a coordinator whose view is older than the close cannot reach the data
 * through this node. Replica ops and recoveries still run (a closed index keeps its copies).
 * @throws EsError 400 `index_closed_exception`
 */
export function checkIndexOpen(h: HostedIndex, index: string): void {
  const m = h.metadata;
  if (m.state === 'close') throw new EsError(400, 'index_closed_exception', 'closed', { metadata: { index_uuid: m.uuid, index } });
}

/** An index this node knows, with the shard copies it hosts, their role and in-sync state. */
export function nodeIndexEntry(h: HostedIndex): NodeIndexEntry {
  const shards = [...h.shards.keys()].filter((s) => !h.failed.has(s)).sort((a, b) => a - b);
  const failed = [...h.failed.keys()].sort((a, b) => a - b);
  const pendingFailures = h.inSync.pendingList();
  const activeWrites = h.permits.activePrimaryWrites();
  return {
    metadata: h.metadata,
    shards,
    ...(h.ordinal !== null ? { node: h.ordinal } : {}),
    copies: hostedCopies(h.metadata, h.ordinal, shards),
    ...(failed.length > 0 ? { failed } : {}),
    ...(pendingFailures.length > 0 ? { pendingFailures } : {}),
    ...(activeWrites.length > 0 ? { activeWrites } : {}),
  };
}
