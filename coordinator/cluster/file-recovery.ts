/**
 * Phase 1 of a file-based peer recovery (ES `RecoverySourceHandler.phase1`), driven by the
 * coordinator as the ops-based copy is (coordinator/cluster/recovery.ts), and the rule that
 * chooses it:
 *
 * 1. `recovery/files/start` on the primary: it refreshes, flushes, pins its last commit's files
 *    and holds the translog's ops above the commit's seq_no (phase 2 replays them);
 * 2. `recovery/files/plan` on the target: the files its staging directory holds whole with the
 *    same name, length and checksum are reused (an interrupted recovery resumes with them);
 * 3. every other file (the commit point first), in chunks of {@link FILE_CHUNK_BYTES} (ES `indices.recovery.chunk_size`),
 *    read from the primary through its throttle (ES `indices.recovery.max_bytes_per_sec`, default
 *    40mb) and written on the target, one chunk read ahead while one is written;
 * 4. `recovery/files/finish` on the target: every file verified, its store filled from the
 *    segments, the copy replaced by the staged one and opened from its commit point.
 * The pin is released by the caller once phase 2 has pinned the ops above the commit, or here on
 * a failure (`recovery/cancel`).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoverySourceHandler.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/recovery.html
 * @see docs/recovery.md
 */
import type { RecoveryIdentity, RecoveryStateResponse } from '../../protocol/recovery.ts';
import { RECOVERY_THROTTLED_MS_HEADER, type RecoveryFilesStartResponse } from '../../protocol/recovery-files.ts';
import { rpc } from '../../protocol/rpc.ts';
import type { ShardClient } from '../transport/shard-client.ts';

/** Bytes of one file chunk (ES `indices.recovery.chunk_size` is 512kb; FOLIO_RECOVERY_FILE_CHUNK_BYTES). */
export const FILE_CHUNK_BYTES = 1024 * 1024;
/**
 * The choice rule's threshold: a target that misses more than this many ops (the primary's max
 * seq_no minus the target's local checkpoint; an empty target misses them all) gets the primary's
 * files; one closer than that gets the ops (FOLIO_RECOVERY_FILE_MIN_OPS; ES chooses files whenever
 * its retained history does not cover the target, docs/recovery.md).
 */
export const FILE_RECOVERY_MIN_OPS = 10_000;
/**
 * Deadline (ms) of `files/start` (a refresh and flush of the whole primary) and `files/finish` (the
 * target fills its store from every segment) when the internal timeout is shorter: both grow with
 * the shard, unlike a chunk.
 */
export const FILE_STEP_TIMEOUT_MS = 10 * 60_000;

/**
 * Whether a target at local checkpoint `targetCheckpoint` recovers from the primary's files
 * (`files`) or its operations (`ops`), the primary's max seq_no being `primaryMaxSeqNo`.
 */
export function chooseRecoveryType(targetCheckpoint: number, primaryMaxSeqNo: number, minOps = FILE_RECOVERY_MIN_OPS): 'files' | 'ops' {
  return primaryMaxSeqNo - targetCheckpoint > minOps ? 'files' : 'ops';
}

/** What phase 1 needs: the client, the call options, the copy and its recovery's identity. */
export interface FileCopyContext {
  client: ShardClient;
  callOpts: { timeoutMs: number; uncounted: true };
  index: string;
  shard: number;
  primary: number;
  target: number;
  primaryTerm: number;
  recovery: RecoveryIdentity;
  /** Bytes per chunk (default {@link FILE_CHUNK_BYTES}). */
  chunkBytes?: number;
  /** The throttle on the primary, bytes/s (0: none; undefined: its default, 40mb). */
  maxBytesPerSec?: number;
}

/** What phase 1 did: the pin (to release), the new copy's state, and the files and bytes sent and reused. */
export interface FileCopyOutcome {
  start: RecoveryFilesStartResponse;
  state: RecoveryStateResponse;
  files: number;
  reusedFiles: number;
  bytes: number;
  reusedBytes: number;
  /** ms phase 1 took. */
  tookMs: number;
}

/** One chunk to copy: the file, where it starts, its length, and whether it ends the file. */
interface ChunkRef {
  file: string;
  offset: number;
  length: number;
  last: boolean;
}

/** The chunks of the files not reused, in order. */
export function chunksOf(files: readonly { name: string; length: number }[], chunkBytes: number): ChunkRef[] {
  const out: ChunkRef[] = [];
  for (const f of files) {
    for (let offset = 0; offset < f.length; offset += chunkBytes) {
      const length = Math.min(chunkBytes, f.length - offset);
      out.push({ file: f.name, offset, length, last: offset + length >= f.length });
    }
  }
  return out;
}

/**
 * Runs phase 1 (steps above). @throws the failing call's error, after releasing the primary's pin
 * (the target keeps the files it received whole, for the next attempt)
 */
export async function copyFiles(c: FileCopyContext): Promise<FileCopyOutcome> {
  const started = Date.now();
  const { client, callOpts, index, shard, primary, target, primaryTerm } = c;
  const longOpts = { ...callOpts, timeoutMs: Math.max(callOpts.timeoutMs, FILE_STEP_TIMEOUT_MS) };
  const start = await client.rpc(primary, rpc.recoveryFilesStart, { index, shard, target, primaryTerm }, longOpts);
  try {
    const plan = await client.rpc(target, rpc.recoveryFilesPlan, { index, shard, primaryTerm, files: start.files, recovery: c.recovery }, callOpts);
    const reused = new Set(plan.reused);
    // The commit point first: the target then writes each segment's rows into its store as the segment arrives.
    const missing = start.files.filter((f) => !reused.has(f.name)).sort((a, b) => Number(b.name === start.commit) - Number(a.name === start.commit));
    const pull = (ref: ChunkRef) =>
      client.rpcBytes(
        primary,
        rpc.recoveryFileChunk,
        {
          index,
          shard,
          recoveryId: start.recoveryId,
          primaryTerm,
          file: ref.file,
          offset: ref.offset,
          length: ref.length,
          ...(c.maxBytesPerSec !== undefined ? { maxBytesPerSec: c.maxBytesPerSec } : {}),
        },
        callOpts,
      );
    const chunks = chunksOf(missing, c.chunkBytes ?? FILE_CHUNK_BYTES);
    let next = chunks.length > 0 ? pull(chunks[0]) : null;
    for (let i = 0; i < chunks.length; i++) {
      const ref = chunks[i];
      const { bytes, headers } = await next!;
      // Back-pressure: one chunk is read ahead while this one is written, never more.
      next = i + 1 < chunks.length ? pull(chunks[i + 1]) : null;
      next?.catch(() => undefined);
      const throttledMs = Number(headers[RECOVERY_THROTTLED_MS_HEADER] ?? 0);
      const meta = { index, shard, primaryTerm, file: ref.file, offset: ref.offset, last: ref.last, throttledMs };
      await client.rpcBytes(target, rpc.recoveryFileWrite, meta, { ...callOpts, body: bytes, contentType: 'application/octet-stream' });
    }
    const state = await client.rpc(
      target,
      rpc.recoveryFilesFinish,
      { index, shard, primaryTerm, commit: start.commit, globalCheckpoint: start.globalCheckpoint },
      longOpts,
    );
    const sum = (fs: readonly { length: number }[]) => fs.reduce((n, f) => n + f.length, 0);
    const kept = start.files.filter((f) => reused.has(f.name));
    return { start, state, files: missing.length, reusedFiles: kept.length, bytes: sum(missing), reusedBytes: sum(kept), tookMs: Date.now() - started };
  } catch (err) {
    await client.rpc(primary, rpc.recoveryCancel, { index, shard, recoveryId: start.recoveryId }, callOpts).catch(() => undefined);
    throw err;
  }
}

/**
 * Phase 1 when {@link chooseRecoveryType} says `files` for a target at `targetCheckpoint` (the
 * primary's max seq_no read first); null when it says `ops`, when `minOps` is negative, or when the
 * primary or the target has no data directory (no segment files: the ops path copies everything).
 * @throws as {@link copyFiles}
 */
export async function copyFilesIfFarBehind(c: FileCopyContext, targetCheckpoint: number, minOps = FILE_RECOVERY_MIN_OPS): Promise<FileCopyOutcome | null> {
  if (minOps < 0) return null;
  const p = await c.client.rpc(c.primary, rpc.recoveryState, { index: c.index, shard: c.shard }, c.callOpts);
  if (chooseRecoveryType(targetCheckpoint, p.maxSeqNo, minOps) !== 'files') return null;
  try {
    return await copyFiles(c);
  } catch (err) {
    if (/has no data directory/.test((err as Error).message)) return null;
    throw err;
  }
}
