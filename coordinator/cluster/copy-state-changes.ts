/**
 * The cluster-state changes of shard copies, decided on the stored metadata of an index (ES's
 * master applying `ShardStateAction`'s shard-failed and shard-started messages, and promoting a
 * replica when a primary's node leaves): take failed replicas out of the in-sync set, put a
 * recovered copy in sync, promote an in-sync replica in the next primary term. Each decision is
 * pure: it returns the next metadata, or null when there is nothing to change, so it can run again
 * on the value now stored after a lost compare-and-swap (coordinator/cluster/cluster-view.ts).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/action/shard/ShardStateAction.java
 */
import { EsError } from '../../protocol/errors.ts';
import { primaryTermOf, type IndexMetadata } from '../../protocol/metadata.ts';
import { promoted, withInSync, withoutInSync } from '../../shared/cluster-state/shard-copies.ts';
import type { IndexView } from './index-view.ts';

/**
 * The primary of a write was demoted while its failed replicas were being taken out of sync: the
 * stored primary term of the shard is newer than the write's (ES `RetryOnPrimaryException`, whose
 * text this keeps). The write must not be acknowledged; `view` is the stored state that shows the
 * new primary, on which the write may be retried. An EsError 503, so a caller that does not retry
 * answers it as is.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/support/replication/ReplicationOperation.java
 */
export class PrimaryDemotedError extends EsError {
  /** The stored state that demoted the write's primary. */
  readonly view: IndexView;

  constructor(index: string, shard: number, primaryTerm: number, view: IndexView) {
    super(
      503,
      'retry_on_primary_exception',
      `primary shard [${index}][${shard}] of term [${primaryTerm}] was demoted while failing replica shard (current term [${primaryTermOf(view.metadata, shard)}])`,
      {
        metadata: { index, shard: String(shard) },
      },
    );
    this.view = view;
  }
}

/** What {@link outOfSyncChange} decided. */
export interface OutOfSyncChange {
  /** The shard's stored primary term. */
  storedTerm: number;
  /** The replicas taken out of sync (empty when nothing changes). */
  failing: number[];
  /** The next metadata, or null: nothing to change. */
  next: IndexMetadata | null;
}

/**
 * Takes the replicas of `shard` on `nodes` out of the in-sync set of `m`. Copies that are
 * primaries or out of sync already are left as they are; nothing changes when `primaryTerm` (the
 * failed write's) is no longer the shard's stored term.
 */
export function outOfSyncChange(m: IndexMetadata, shard: number, nodes: readonly number[], primaryTerm: number | undefined): OutOfSyncChange {
  const storedTerm = primaryTermOf(m, shard);
  const none = { storedTerm, failing: [], next: null };
  if (primaryTerm !== undefined && storedTerm !== primaryTerm) return none;
  const copies = m.shardCopies;
  if (!copies) return none;
  const failing = nodes.filter((n) => copies[shard]?.some((c) => c.node === n && !c.primary));
  if (failing.length === 0) return none;
  const next = withoutInSync(copies, shard, failing);
  if (next === copies) return none;
  return { storedTerm, failing, next: { ...m, shardCopies: next } };
}

/**
 * Puts the copy of `shard` on `node` in sync in `m`, unless it failed since its recovery started
 * (`failures`: its {@link ShardCopy.failures} then).
 * @throws EsError 409 `illegal_state_exception` when the copy failed during its recovery
 */
export function inSyncChange(m: IndexMetadata, shard: number, node: number, failures: number | undefined): IndexMetadata | null {
  if (!m.shardCopies) return null;
  const copy = m.shardCopies[shard]?.find((c) => c.node === node);
  if (failures !== undefined && copy && (copy.failures ?? 0) !== failures) {
    throw new EsError(
      409,
      'illegal_state_exception',
      `[${m.name}][${shard}] the copy on node [${node}] failed during its recovery (failures ${copy.failures ?? 0}, ${failures} when it started)`,
    );
  }
  const next = withInSync(m.shardCopies, shard, [node]);
  return next === m.shardCopies ? null : { ...m, shardCopies: next };
}

/**
 * Promotes the in-sync replica of `shard` on `node` in `m` to primary in the next primary term;
 * nothing changes when the shard's term is no longer `expectedTerm` (promoted or demoted by
 * someone else meanwhile).
 * @throws EsError 400 when `node` holds no in-sync copy ({@link promoted})
 */
export function promotionChange(m: IndexMetadata, shard: number, node: number, expectedTerm: number): IndexMetadata | null {
  if (!m.shardCopies) return null;
  const term = primaryTermOf(m, shard);
  if (term !== expectedTerm) return null; // promoted (or demoted) by someone else meanwhile
  const terms = Array.from({ length: m.numberOfShards }, (_, s) => (s === shard ? term + 1 : primaryTermOf(m, s)));
  return { ...m, shardCopies: promoted(m.shardCopies, shard, node), primaryTerms: terms };
}
