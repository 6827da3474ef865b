/**
 * The replication state of the copies an index has on this node, read from and applied to a
 * {@link HostedIndex}: primary terms and promotion (gap filling), the primary's global checkpoint
 * over its in-sync replicas, its replication group, the in-sync set a recovery finalizes, the
 * operation-term check of a write, and the replicas a primary reopened after a stop reports.
 * Mirrors ES `ReplicationTracker` (`getReplicationGroup`, `markAllocationIdAsInSync`,
 * `updateGlobalCheckpointOnPrimary`) and `IndexShard.updateShardState` / `acquire*OperationPermit`.
 * @see https://github.com/elastic/elasticsearch/blob/v8.15.0/server/src/main/java/org/elasticsearch/index/seqno/ReplicationTracker.java
 */
import { EsError } from '../protocol/errors.ts';
import type { Logger } from '../shared/logger.ts';
import { primaryTermOf, type ShardCopy } from '../protocol/metadata.ts';
import type { GroupMember } from '../protocol/write.ts';
import { DEFAULT_GC_DELETES_MS } from './engine/tombstone-gc.ts';
import { withInSync } from '../shared/cluster-state/shard-copies.ts';
import type { HostedIndex } from './hosted-index.ts';

/**
 * Gives every shard hosted here its primary term and `index.gc_deletes` from the metadata; a copy
 * promoted here fills its seq_no gaps with no-ops (ES `IndexShard.updateShardState`, `fillSeqNoGaps`).
 */
export function applyPrimaryTerms(h: HostedIndex, log: Logger | undefined): void {
  for (const [s, shard] of h.shards) {
    const term = primaryTermOf(h.metadata, s);
    const promotedHere = term > shard.primaryTerm && h.metadata.shardCopies?.[s]?.some((c) => c.primary && c.node === h.ordinal) === true;
    // What a primary of another term heard from its replicas says nothing of this term's copies.
    if (term !== shard.primaryTerm) h.replicaCheckpoints.forget(s);
    shard.primaryTerm = term;
    shard.gcDeletesMs = h.metadata.gcDeletesMs ?? DEFAULT_GC_DELETES_MS;
    if (promotedHere) {
      // The new primary's gaps (ops of the old primary it never got) become no-ops (ES fillSeqNoGaps).
      const filled = shard.fillSeqNoGaps();
      log?.info({ index: h.metadata.name, shard: s, term, filled }, 'primary promoted');
    }
  }
}

/**
 * Moves the global checkpoint of the primary copy of `shard` here on (see `ReplicaCheckpoints`),
 * over the in-sync replicas of this node's metadata and `alsoInSync`; a no-op on a replica.
 */
export function advanceGlobalCheckpoint(h: HostedIndex, shard: number, alsoInSync: readonly number[] = []): void {
  const copy = h.shards.get(shard);
  const copies = h.metadata.shardCopies?.[shard];
  if (!copy || h.failed.has(shard) || h.ordinal === null || !copies?.some((c) => c.primary && c.node === h.ordinal)) return;
  const inSync = new Set([...alsoInSync, ...copies.filter((c) => c.inSync && !c.primary).map((c) => c.node)]);
  inSync.delete(h.ordinal);
  copy.advanceGlobalCheckpoint(h.replicaCheckpoints.globalCheckpoint(shard, copy.localCheckpoint, inSync));
}

/**
 * The copy lists with the copies of `shard` on `nodes` in sync (ES
 * `ReplicationTracker.markAllocationIdAsInSync`), each carrying at least `failures`, the copy's
 * failure count in the cluster state when its recovery started (this node may not have adopted the
 * value that counted its last failure yet). Returns `copies` itself when nothing changes.
 */
export function copiesWithFinalizedInSync(copies: ShardCopy[][], shard: number, nodes: readonly number[], failures: number | undefined): ShardCopy[][] {
  let next = withInSync(copies, shard, nodes);
  if (failures !== undefined && next[shard]?.some((c) => nodes.includes(c.node) && (c.failures ?? 0) < failures)) {
    next = next.map((l, s) => (s !== shard ? l : l.map((c) => (nodes.includes(c.node) && (c.failures ?? 0) < failures ? { ...c, failures } : c))));
  }
  return next;
}

/**
 * Puts the copies of `shard` on `nodes` back in the in-sync set of `h`'s metadata (recovery
 * finalize on the primary, ES `ReplicationTracker.markAllocationIdAsInSync`; see
 * `IndexRegistry.markInSync`), and notes them finalized in the primary's in-sync view. The version is
 * not bumped. @returns whether the metadata changed (the caller persists it)
 * @throws EsError 400 for an index without a copy list, or a node without a copy of the shard.
 */
export function finalizeInSync(h: HostedIndex, index: string, shard: number, nodes: readonly number[], failures: number | undefined): boolean {
  const copies = h.metadata.shardCopies;
  if (!copies) throw new EsError(400, 'illegal_argument_exception', `index [${index}] has no replica copies`);
  const next = copiesWithFinalizedInSync(copies, shard, nodes, failures);
  h.inSync.noteFinalized(h.metadata, shard, nodes, failures);
  if (next === copies) return false;
  h.metadata = { ...h.metadata, shardCopies: next };
  return true;
}

/**
 * Refuses an operation of another primary term than this node's for the shard (ES
 * `IndexShard.acquirePrimaryOperationPermit` / `acquireReplicaOperationPermit`): a primary takes only
 * its own term; a replica refuses an older one (a newer one means this node's metadata lags, and
 * the coordinator's next reload repairs it). Without a term (an older coordinator) nothing is checked.
 * @throws EsError 409 `illegal_state_exception`
 */
export function checkOperationTerm(h: HostedIndex, index: string, shard: number, term: number | undefined, role: 'primary' | 'replica'): void {
  if (term === undefined) return;
  const mine = Math.max(primaryTermOf(h.metadata, shard), h.permits.termFloor(shard));
  if (term < mine || (role === 'primary' && term !== mine)) {
    throw new EsError(
      409,
      'illegal_state_exception',
      `[${index}][${shard}] operation primary term [${term}] is ${term < mine ? 'too old' : "newer than this copy's"}, current [${mine}]`,
      {
        metadata: { index, shard: String(shard) },
      },
    );
  }
}

/**
 * The primary's replication group for a write (ES `ReplicationTracker.getReplicationGroup`): the
 * other copies in sync by this node's metadata and `recovering`, the copies being recovered here.
 */
export function replicationGroupOf(h: HostedIndex, shard: number, recovering: Iterable<number>): GroupMember[] {
  const group: GroupMember[] = (h.metadata.shardCopies?.[shard] ?? [])
    .filter((c) => c.node !== h.ordinal && c.inSync)
    .map((c) => ({ node: c.node, inSync: true }));
  for (const node of recovering) if (node !== h.ordinal && !group.some((g) => g.node === node)) group.push({ node, inSync: false });
  return group;
}

/**
 * A primary copy reopened after its node stopped (a crash, or a stop that cut writes short) may
 * hold ops it made durable but never got to forward: their writes were not acknowledged, but its
 * in-sync replicas lack them, and the failures it would have reported died with the process (the
 * fault suite's seeds 1076 and 1088: a SIGKILLed primary came back as the primary of its term,
 * nobody promoted meanwhile, and its replica stayed in sync without an op the primary had). Every
 * in-sync replica of such a primary is therefore reported as a pending failure, as if a forwarded
 * write had failed on it: the cluster manager takes it out of sync and it recovers by the ops above
 * its local checkpoint (ES never keeps a restarted copy as primary: the node's return is a new
 * allocation, and a promoted primary resyncs its replicas, `PrimaryReplicaSyncer`).
 */
export function suspectReplicasAfterRestart(h: HostedIndex, shard: number, log: Logger | undefined): void {
  const copies = h.metadata.shardCopies?.[shard];
  if (h.ordinal === null || !copies?.some((c) => c.primary && c.node === h.ordinal)) return;
  const replicas = copies.filter((c) => !c.primary && c.inSync).map((c) => c.node);
  if (replicas.length === 0) return;
  h.inSync.notePending(shard, replicas, copies);
  log?.info({ index: h.metadata.name, shard, replicas }, 'primary reopened after a stop: its in-sync replicas are reported for recovery');
}
