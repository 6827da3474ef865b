/**
 * A peer recovery of one out-of-sync shard copy from its primary (ES `RecoverySourceHandler` and
 * `PeerRecoveryTargetService`), driven by the coordinator, since shard nodes never call each other:
 *
 * 1. read the target's local checkpoint and copy instance (`recovery/state`); a copy left behind by
 *    a promotion (`resync`) is emptied first (`recovery/reset`): it may hold ops of the old term;
 * 2. `recovery/start` on the primary: from now on the primary names the target in every write's
 *    replication group (live writes reach it), and answers, in the same synchronous step, the ops
 *    above the checkpoint when its translog still has them (ES ops-based recovery), else every
 *    document and tombstone with its `_version` and `_seq_no` (ES file-based recovery: a pinned
 *    commit plus the translog above it);
 * 3. `recovery/apply` on the target in chunks of {@link RECOVERY_CHUNK_OPS}, idempotent by seq_no
 *    (so live writes that overtook the copy win, and a retried recovery is safe), refused when the
 *    copy was emptied or reopened since step 1; the last chunk fast-forwards the target's local
 *    checkpoint to the primary's max seq_no at step 2;
 * 4. wait until the target's checkpoint reaches the primary's max seq_no (the live writes have
 *    arrived; a live write the target missed keeps it below, and the recovery fails);
 * 5. `recovery/finalize` on the primary: the target joins the in-sync set in the primary's metadata
 *    (from then on a write that fails on it takes it out again), and the primary's max seq_no at
 *    that instant must be reached too (else the copy is marked out of sync again);
 * 6. the in-sync change in the cluster state, fenced by the cluster manager's guard (ES: the master
 *    marks the allocation id in sync).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoverySourceHandler.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/shard-allocation-relocation-recovery.html
 */
import { randomUUID } from 'node:crypto';
import {
  INTERNAL_PREFIX,
  primaryTermOf,
  type RecoveryApplyRequest,
  type RecoveryFinalizeRequest,
  type RecoveryFinalizeResponse,
  type RecoveryStartRequest,
  type RecoveryStartResponse,
  type RecoveryStateResponse,
} from '../shared/protocol.ts';
import type { Compare } from '../shared/state-store/types.ts';
import type { ClusterView, IndexView } from './cluster-view.ts';
import type { ShardClient } from './shard-client.ts';

/** Ops per `recovery/apply` call: bounds each request body and each pause of the target's event loop. */
export const RECOVERY_CHUNK_OPS = 2_000;
/** How long (ms) step 4 and 5 wait for live writes in flight to reach the target. */
export const RECOVERY_CATCH_UP_MS = 10_000;
/** Poll interval (ms) of the target's checkpoint while waiting. */
const CATCH_UP_POLL_MS = 50;

/** Services a recovery uses. */
export interface RecoveryDeps {
  view: ClusterView;
  client: ShardClient;
  /** Deadline of each call (FOLIO_INTERNAL_TIMEOUT_MS). */
  timeoutMs: number;
  /** The cluster manager's election guard, in the compare of the final in-sync change (cluster-manager.ts). */
  guard?: Compare;
}

/** What a finished recovery did. */
export interface RecoveryOutcome {
  index: string;
  shard: number;
  /** Node ordinal of the recovered copy. */
  target: number;
  /** `ops`: translog replay; `full`: every document copied. */
  mode: 'ops' | 'full';
  /** The copy was emptied first (left behind by a promotion). */
  reset: boolean;
  /** Ops sent by the primary (documents and tombstones in `full` mode). */
  ops: number;
  tookMs: number;
}

/**
 * Recovers the copy of `shard` on node `target` from its primary and puts it in sync (steps above).
 * @throws the failing call's error (ShardCallError or EsError), or Error when the target does not
 *   catch up within {@link RECOVERY_CATCH_UP_MS}; the copy then stays (or is put back) out of sync,
 *   and the next attempt starts over safely.
 */
export async function recoverCopy(deps: RecoveryDeps, view: IndexView, shard: number, target: number): Promise<RecoveryOutcome> {
  const started = Date.now();
  const index = view.metadata.name;
  const primary = view.placement[shard];
  const primaryTerm = primaryTermOf(view.metadata, shard);
  const copy = view.copies[shard].find((c) => c.node === target);
  if (!copy || copy.primary || primary === target) throw new Error(`[${index}][${shard}] node [${target}] holds no replica to recover`);
  const call = <T>(node: number, step: string, body: unknown) => deps.client.call<T>(node, `${INTERNAL_PREFIX}/recovery/${step}`, body, { timeoutMs: deps.timeoutMs, uncounted: true });
  const state = () => call<RecoveryStateResponse>(target, 'state', { index, shard });
  const checkpoint = () => state().then((r) => r.checkpoint);

  // 1. Where the target is (or an empty copy, after a promotion).
  const reset = copy.resync === true;
  const initial = reset ? await call<RecoveryStateResponse>(target, 'reset', { index, shard }) : await state();
  const from = initial.checkpoint;
  // 2. Track the target on the primary and take what it misses.
  const startReq: RecoveryStartRequest = { index, shard, target, fromSeqNo: from, primaryTerm, ...(reset ? { full: true } : {}) };
  const start = await call<RecoveryStartResponse>(primary, 'start', startReq);
  // 3. Copy, in chunks; the last one fast-forwards the target's checkpoint (and, for a full copy,
  //    drops what the primary no longer has: its deletes' tombstones may be gone, index.gc_deletes).
  const full = start.mode === 'full' ? { fullRecoveryId: randomUUID() } : {};
  for (let i = 0; i === 0 || i < start.ops.length; i += RECOVERY_CHUNK_OPS) {
    const last = i + RECOVERY_CHUNK_OPS >= start.ops.length;
    const body: RecoveryApplyRequest = { index, shard, ops: start.ops.slice(i, i + RECOVERY_CHUNK_OPS), primaryTerm, copyId: initial.copyId, ...full, ...(last ? { upTo: start.upTo } : {}) };
    await call(target, 'apply', body);
  }
  // 4. Live writes applied on the primary before now must have reached the target.
  await waitForCheckpoint(checkpoint, start.upTo, `${index}][${shard}`);
  // 5. In sync on the primary (from here on its writes treat the target as in sync) ...
  const finalizeReq: RecoveryFinalizeRequest = { index, shard, target, primaryTerm };
  const fin = await call<RecoveryFinalizeResponse>(primary, 'finalize', finalizeReq);
  try {
    await waitForCheckpoint(checkpoint, fin.maxSeqNo, `${index}][${shard}`);
  } catch (err) {
    await deps.view.markOutOfSync(index, shard, [target]).catch(() => undefined);
    throw err;
  }
  // 6. ... and on a quorum of the nodes.
  await deps.view.markInSync(index, shard, target, deps.guard);
  return { index, shard, target, mode: start.mode, reset, ops: start.ops.length, tookMs: Date.now() - started };
}

/** Polls `checkpoint()` until it reaches `seqNo`. @throws Error after {@link RECOVERY_CATCH_UP_MS} */
async function waitForCheckpoint(checkpoint: () => Promise<number>, seqNo: number, what: string): Promise<void> {
  const deadline = Date.now() + RECOVERY_CATCH_UP_MS;
  for (;;) {
    const cp = await checkpoint();
    if (cp >= seqNo) return;
    if (Date.now() >= deadline) throw new Error(`[${what}] the recovering copy's local checkpoint [${cp}] did not reach the primary's [${seqNo}]`);
    await new Promise((r) => setTimeout(r, CATCH_UP_POLL_MS));
  }
}
