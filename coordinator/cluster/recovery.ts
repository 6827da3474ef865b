/**
 * A peer recovery of one out-of-sync shard copy from its primary (ES `RecoverySourceHandler` and
 * `PeerRecoveryTargetService`), driven by the coordinator, since shard nodes never call each other:
 *
 * 1. read the target's checkpoints and copy instance (`recovery/state`, which first raises the
 *    copy's operation term to the primary's); a copy left behind by a promotion (`resync`) is
 *    emptied first (`recovery/reset`) when it holds ops above its global checkpoint (ops of the old
 *    term the new primary may lack: ES rolls such a copy back to the global checkpoint), and keeps
 *    what it has otherwise; a failed copy is always emptied, and so is a copy that gets a full copy
 *    (below);
 * 1b. a target that misses more than `FOLIO_RECOVERY_FILE_MIN_OPS` ops (empty, or far behind) gets
 *    the primary's pinned commit file by file first (coordinator/cluster/file-recovery.ts, ES
 *    file-based recovery's phase 1) and is reopened from it; the steps below then replay the ops
 *    above the commit (its retention hold keeps them), released once step 2 pinned them again;
 * 2. `recovery/start` on the primary: from now on the primary names the target in every write's
 *    replication group (live writes reach it), and, in the same synchronous step, pins what the
 *    target misses: the ops above its checkpoint when the primary's translog still has them (ES
 *    ops-based recovery; a retention hold keeps them from being flushed away), else a
 *    point-in-time snapshot of every document and tombstone with its `_version` and `_seq_no` (ES
 *    file-based recovery: a pinned commit plus the translog above it). It answers a recovery id
 *    and the primary's max seq_no at that instant (`upTo`);
 * 3. the copy, chunk by chunk with back-pressure: `recovery/chunk` on the primary reads the pin's
 *    next ops, at most {@link RecoveryDeps.chunkBytes} encoded, as a binary body that this
 *    coordinator relays untouched to `recovery/apply` on the target, which applies it idempotently
 *    by seq_no (so live writes that overtook the copy win, and a retried recovery is safe) and
 *    fsyncs it before answering; it is refused when the copy was emptied or reopened since step 1.
 *    The next chunk is read while one is applied, never more: memory is two chunks however large
 *    the shard is. The last chunk fast-forwards the target's checkpoint to `upTo` and releases the
 *    pin; a failure releases it (`recovery/cancel`), and the primary releases an idle one itself;
 * 4. wait until the target's checkpoint reaches `upTo` (the live writes have arrived; a live write
 *    the target missed keeps it below, and the recovery fails);
 * 5. `recovery/finalize` on the primary: the target joins the in-sync set in the primary's metadata
 *    (from then on a write that fails on it takes it out again), and the primary's max seq_no at
 *    that instant must be reached too (else the copy is marked out of sync again);
 * 6. the in-sync change in the cluster state, fenced by the cluster manager's guard (ES: the master
 *    marks the allocation id in sync).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoverySourceHandler.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/shard-allocation-relocation-recovery.html
 */
import { randomUUID } from 'node:crypto';
import { rpc } from '../../protocol/rpc.ts';
import { primaryTermOf } from '../../protocol/metadata.ts';
import {
  RECOVERY_CHUNK_DONE_HEADER,
  RECOVERY_CHUNK_OPS_HEADER,
  type RecoveryApplyRequest,
  type RecoveryChunkRequest,
  type RecoveryFinalizeRequest,
  type RecoveryIdentity,
  type RecoveryStartResponse,
} from '../../protocol/recovery.ts';
import { copyFilesIfFarBehind } from './file-recovery.ts';
import type { Compare } from '../../shared/state-store/types.ts';
import type { ClusterView } from './cluster-view.ts';
import type { IndexView } from './index-view.ts';
import type { ShardClient } from '../transport/shard-client.ts';

/** Default bound (bytes of encoded ops) of one recovery chunk (ES `indices.recovery.chunk_size` is 512 KB of file data). */
export const RECOVERY_CHUNK_BYTES = 4 * 1024 * 1024;
/** Ops per recovery chunk at most: bounds each chunk of tiny documents. */
export const RECOVERY_CHUNK_OPS = 20_000;
/** How long (ms) step 4 and 5 wait for live writes in flight to reach the target. */
export const RECOVERY_CATCH_UP_MS = 10_000;
/** Poll interval (ms) of the target's checkpoint while waiting. */
const CATCH_UP_POLL_MS = 50;
/** Content type of a chunk body (shard-node/recovery-wire.ts). */
const RECOVERY_OPS_CONTENT_TYPE = 'application/x-folio-recovery-ops';

/** Services a recovery uses. */
export interface RecoveryDeps {
  view: ClusterView;
  client: ShardClient;
  /** Deadline of each call (FOLIO_INTERNAL_TIMEOUT_MS). */
  timeoutMs: number;
  /** The cluster manager's election guard, in the compare of the final in-sync change (cluster-manager.ts). */
  guard?: Compare;
  /** Bytes of encoded ops per chunk (FOLIO_RECOVERY_CHUNK_BYTES; default {@link RECOVERY_CHUNK_BYTES}). */
  chunkBytes?: number;
  /** Ops per chunk at most (default {@link RECOVERY_CHUNK_OPS}). */
  chunkOps?: number;
  /** The file-based recovery rule's threshold (FOLIO_RECOVERY_FILE_MIN_OPS; default FILE_RECOVERY_MIN_OPS; negative: never). */
  fileRecoveryMinOps?: number;
  /** Bytes per file chunk (FOLIO_RECOVERY_FILE_CHUNK_BYTES; default FILE_CHUNK_BYTES). */
  fileChunkBytes?: number;
  /** The primary's recovery throttle, bytes/s (FOLIO_RECOVERY_MAX_BYTES_PER_SEC; 0: none; default 40mb). */
  maxBytesPerSec?: number;
}

/** What a finished recovery did. */
export interface RecoveryOutcome {
  index: string;
  shard: number;
  /** Node ordinal of the recovered copy. */
  target: number;
  /** `ops`: translog replay; `full`: every document copied; `files`: the primary's files, then the ops above their commit. */
  mode: 'ops' | 'full' | 'files';
  /** The copy was emptied first (left behind by a promotion). */
  reset: boolean;
  /** Ops sent by the primary (documents and tombstones in `full` mode). */
  ops: number;
  /** Chunks relayed, and their bytes (encoded ops). */
  chunks: number;
  bytes: number;
  /** The target's local checkpoint it started from (-1: empty). */
  fromSeqNo: number;
  /** The primary's max seq_no when the snapshot was pinned. */
  upTo: number;
  tookMs: number;
  /** A file-based recovery's phase 1: files and bytes sent, and reused from an interrupted attempt. */
  files?: { files: number; reusedFiles: number; bytes: number; reusedBytes: number; tookMs: number };
}

/** One chunk read from the primary. */
interface Chunk {
  bytes: Uint8Array;
  ops: number;
  done: boolean;
}

/**
 * Recovers the copy of `shard` on node `target` from its primary and puts it in sync (steps above;
 * a target far behind gets the primary's files first: coordinator/cluster/file-recovery.ts).
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
  const callOpts = { timeoutMs: deps.timeoutMs, uncounted: true as const };
  const checkpoint = () => deps.client.rpc(target, rpc.recoveryState, { index, shard }, callOpts).then((r) => r.checkpoint);

  // 1. Where the target is (or an empty copy). The first read raises the copy's operation term to the
  //    primary's, so no op of a demoted primary lands after it. A copy left behind by a promotion may
  //    hold ops of the old term above the global checkpoint, which the new primary may lack or hold
  //    otherwise: it is emptied, unless it holds nothing above its local and global checkpoints
  //    (a graceful stop's copy, whose every op its in-sync copies acknowledged). A failed copy holds
  //    memory its disk lacks: always emptied.
  const probe = copy.failed === true ? null : await deps.client.rpc(target, rpc.recoveryState, { index, shard, primaryTerm }, callOpts);
  let reset = probe === null || (copy.resync === true && probe.withinGlobalCheckpoint !== true);
  let initial = reset ? await deps.client.rpc(target, rpc.recoveryReset, { index, shard, primaryTerm }, callOpts) : probe!;
  // 1b. Far behind (or empty): the primary's commit, file by file; phase 2 below replays the ops above it.
  const identity: RecoveryIdentity = { id: randomUUID(), source: primary, opsTotal: -1 };
  const fileCtx = { client: deps.client, callOpts, index, shard, primary, target, primaryTerm, recovery: identity };
  const files = await copyFilesIfFarBehind(
    { ...fileCtx, chunkBytes: deps.fileChunkBytes, maxBytesPerSec: deps.maxBytesPerSec },
    initial.checkpoint,
    deps.fileRecoveryMinOps,
  );
  if (files) initial = files.state;
  // 2. Track the target on the primary and pin what it misses.
  const startOn = (from: number, full: boolean) =>
    deps.client.rpc(primary, rpc.recoveryStart, { index, shard, target, fromSeqNo: from, primaryTerm, ...(full ? { full: true } : {}) }, callOpts);
  let start = await startOn(initial.checkpoint, reset && !files);
  if (files) await deps.client.rpc(primary, rpc.recoveryCancel, { index, shard, recoveryId: files.start.recoveryId }, callOpts).catch(() => undefined);
  if (start.mode === 'full' && !reset && initial.maxSeqNo >= 0) {
    // The primary no longer has the ops above the target's checkpoint: a full copy, onto an emptied
    // copy (ES copies the files into a fresh store), so that nothing the primary deleted meanwhile
    // (a delete whose tombstone it has pruned, index.gc_deletes) survives on the target's disk.
    await deps.client.rpc(primary, rpc.recoveryCancel, { index, shard, recoveryId: start.recoveryId }, callOpts).catch(() => undefined);
    initial = await deps.client.rpc(target, rpc.recoveryReset, { index, shard, primaryTerm }, callOpts);
    reset = true;
    start = await startOn(initial.checkpoint, true);
  }
  const from = initial.checkpoint;
  // 3. Copy the ops, chunk by chunk (relayOps).
  const { ops, chunks, bytes } = await relayOps(deps, { index, shard, primary, target, primaryTerm, callOpts }, start, initial.copyId, {
    ...identity,
    opsTotal: start.upTo - from,
  });
  // 4. Live writes applied on the primary before now must have reached the target.
  await waitForCheckpoint(checkpoint, start.upTo, `${index}][${shard}`);
  // 5. In sync on the primary (from here on its writes treat the target as in sync) ...
  const finalizeReq: RecoveryFinalizeRequest = { index, shard, target, primaryTerm, failures: copy.failures ?? 0 };
  const fin = await deps.client.rpc(primary, rpc.recoveryFinalize, finalizeReq, callOpts);
  try {
    await waitForCheckpoint(checkpoint, fin.maxSeqNo, `${index}][${shard}`);
  } catch (err) {
    await deps.view.markOutOfSync(index, shard, [target]).catch(() => undefined);
    throw err;
  }
  // 6. ... and in the cluster state, fenced by the cluster manager's guard.
  await deps.view.markInSync(index, shard, target, deps.guard, copy.failures ?? 0);
  await deps.client.rpc(target, rpc.recoveryDone, { index, shard }, callOpts).catch(() => undefined); // the target's recovery state: done
  const fileStats = files
    ? { files: { files: files.files, reusedFiles: files.reusedFiles, bytes: files.bytes, reusedBytes: files.reusedBytes, tookMs: files.tookMs } }
    : {};
  return {
    index,
    shard,
    target,
    mode: files ? 'files' : start.mode,
    reset,
    ops,
    chunks,
    bytes,
    fromSeqNo: from,
    upTo: start.upTo,
    tookMs: Date.now() - started,
    ...fileStats,
  };
}

/** Where an ops copy runs: the copy and the call options. */
interface OpsCopyContext {
  index: string;
  shard: number;
  primary: number;
  target: number;
  primaryTerm: number;
  callOpts: { timeoutMs: number; uncounted: true };
}

/**
 * Step 3: the pinned ops, chunk by chunk: `recovery/chunk` on the primary, relayed untouched to
 * `recovery/apply` on the target (instance `copyId`); the last one fast-forwards the target's
 * checkpoint (and, for a full copy, drops what the primary no longer has: its deletes' tombstones
 * may be gone, index.gc_deletes). A failure releases the pin on the primary now rather than after
 * its idle timeout. @returns the ops, chunks and bytes relayed
 */
async function relayOps(
  deps: RecoveryDeps,
  c: OpsCopyContext,
  start: RecoveryStartResponse,
  copyId: string,
  recovery: RecoveryIdentity,
): Promise<{ ops: number; chunks: number; bytes: number }> {
  const { index, shard, primaryTerm, callOpts } = c;
  const chunkReq: RecoveryChunkRequest = {
    index,
    shard,
    recoveryId: start.recoveryId,
    primaryTerm,
    maxBytes: deps.chunkBytes ?? RECOVERY_CHUNK_BYTES,
    maxOps: deps.chunkOps ?? RECOVERY_CHUNK_OPS,
  };
  const pull = async (): Promise<Chunk> => {
    const r = await deps.client.rpcBytes(c.primary, rpc.recoveryChunk, chunkReq, callOpts);
    return { bytes: r.bytes, ops: Number(r.headers[RECOVERY_CHUNK_OPS_HEADER] ?? 0), done: r.headers[RECOVERY_CHUNK_DONE_HEADER] === 'true' };
  };
  const full = start.mode === 'full' ? { fullRecoveryId: randomUUID() } : {};
  const apply = (chunk: Chunk) => {
    const meta: RecoveryApplyRequest = { index, shard, primaryTerm, copyId, recovery, ...full, ...(chunk.done ? { upTo: start.upTo } : {}) };
    return deps.client.rpcBytes(c.target, rpc.recoveryApply, meta, { ...callOpts, body: chunk.bytes, contentType: RECOVERY_OPS_CONTENT_TYPE });
  };
  try {
    return await relayChunks(pull, apply);
  } catch (err) {
    await deps.client.rpc(c.primary, rpc.recoveryCancel, { index, shard, recoveryId: start.recoveryId }, callOpts).catch(() => undefined);
    throw err;
  }
}

/**
 * Relays chunks from the primary (`pull`) to the target (`apply`) until the last one is applied,
 * one chunk read ahead while one is applied, never more (back-pressure).
 * @returns the ops, chunks and bytes relayed
 * @throws the first failing pull's or apply's error
 */
async function relayChunks(pull: () => Promise<Chunk>, apply: (chunk: Chunk) => Promise<unknown>): Promise<{ ops: number; chunks: number; bytes: number }> {
  let ops = 0;
  let chunks = 0;
  let bytes = 0;
  let next: Promise<Chunk> | null = pull();
  for (;;) {
    const chunk: Chunk = await next!;
    next = null;
    // Back-pressure: one chunk is read ahead while this one is applied, never more.
    if (!chunk.done) {
      next = pull();
      next.catch(() => undefined); // awaited on the next turn; a failure of this apply must not leave it unhandled
    }
    await apply(chunk);
    ops += chunk.ops;
    bytes += chunk.bytes.byteLength;
    chunks++;
    if (chunk.done) return { ops, chunks, bytes };
  }
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
