/**
 * Applying an index's metadata, as a coordinator pushes it, to the copies this node hosts: the
 * newer value is adopted (keeping the in-sync view ahead of it, shard-node/primary-in-sync-state.ts),
 * recovered copies it has in sync stop being tracked as recovering, the copies it places here are
 * opened and the ones it no longer places here dropped, and the copies take its primary terms,
 * with the global checkpoints moved over its in-sync set. Mirrors ES `IndicesClusterStateService`
 * (`createOrUpdateShards`, `removeShards`, `updateShard`).
 * @see https://github.com/elastic/elasticsearch/blob/v8.15.0/server/src/main/java/org/elasticsearch/indices/cluster/IndicesClusterStateService.java
 */
import type { IndexMetadata } from '../protocol/metadata.ts';
import { shardsOnNode } from '../shared/cluster-state/shard-copies.ts';
import { dropShardCopy, openShardCopy, type HostedIndex, type ShardCopyEnv } from './hosted-index.ts';
import { advanceGlobalCheckpoint, applyPrimaryTerms } from './hosted-replication.ts';
import type { RecoveryTracker } from './replication-tracker.ts';

/** What {@link applyIndexMetadata} applies besides the metadata. */
export interface MetadataApplication {
  /** True when `h` was just created for this metadata (nothing to adopt). */
  isNew: boolean;
  /** The shards to host when the metadata has no copy list naming this node. */
  shards: readonly number[];
  /** This node's ordinal in FOLIO_NODES, when the coordinator sent it. */
  ordinal: number | undefined;
  /** The copies this node's primaries are recovering (those now in sync are untracked). */
  recoveries: RecoveryTracker;
}

/**
 * Adopts `metadata` into `h` when it is not older than the value held, then places the copies and
 * applies terms and global checkpoints (see the module doc). Does not persist: the caller does.
 */
export function applyIndexMetadata(env: ShardCopyEnv, h: HostedIndex, metadata: IndexMetadata, app: MetadataApplication): void {
  const adopted = app.isNew || metadata.version >= h.metadata.version;
  if (!app.isNew && adopted) h.metadata = h.inSync.adopt(metadata, h.ordinal);
  // Recovered copies the cluster state now has in sync are no longer tracked as recovering (the
  // failures it has stored are no longer pending: PrimaryInSyncState.adopt).
  if (adopted) {
    metadata.shardCopies?.forEach((copies, s) => {
      for (const c of copies) if (c.inSync && !c.primary) app.recoveries.untrack(metadata.name, s, c.node);
    });
  }
  if (app.ordinal !== undefined) h.ordinal = app.ordinal;
  placeCopies(env, h, app.shards);
  applyPrimaryTerms(h, env.log);
  // A replica the cluster state now has out of sync no longer holds the global checkpoint back.
  for (const s of h.shards.keys()) advanceGlobalCheckpoint(h, s);
}

/** Opens the copies the metadata places here (else `explicit`), and removes the ones it no longer places here. */
export function placeCopies(env: ShardCopyEnv, h: HostedIndex, explicit: readonly number[]): void {
  const placed = shardsOnNode(h.metadata, h.ordinal);
  for (const s of placed ?? explicit) if (!h.shards.has(s)) openShardCopy(env, h, s);
  if (placed === null) return;
  for (const s of [...h.shards.keys()]) if (!placed.includes(s)) dropShardCopy(env, h, s);
}
