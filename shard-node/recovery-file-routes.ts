/**
 * The shard node's internal routes of a file-based peer recovery's phase 1 (protocol/recovery-files.ts),
 * driven by the coordinator (coordinator/cluster/file-recovery.ts), and `recovery/done`:
 * - `POST /_internal/v1/recovery/files/start` (primary): refresh, flush, pin the last commit and
 *   hold the translog above it; answers the files (name, length, checksum) and a recovery id;
 * - `POST /_internal/v1/recovery/files/chunk` (primary): bytes of a pinned file, throttled;
 * - `POST /_internal/v1/recovery/files/plan`, `files/write`, `files/finish` (target):
 *   shard-node/recovery-file-target.ts;
 * - `POST /_internal/v1/recovery/done` (target): the recovery state's stage `done` (a failure leaves it).
 * `recovery/cancel` and `recovery/finalize` (recovery-routes.ts) release a file pin too. Every
 * primary-side step checks the primary term, every target-side step the replica's.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoverySourceHandler.java
 * @see docs/recovery.md
 */
import { join } from 'node:path';
import { EsError } from '../protocol/errors.ts';
import { RECOVERY_THROTTLED_MS_HEADER, type RecoveryFileWriteRequest } from '../protocol/recovery-files.ts';
import { rpc } from '../protocol/rpc.ts';
import { readFileIdentity } from '../shared/snapshots/repository-files.ts';
import type { IndexRegistry } from './index-registry.ts';
import type { FileRecoverySources } from './recovery-file-sources.ts';
import { FileRecoveryTargets } from './recovery-file-target.ts';
import type { RecoveryStates } from './recovery-states.ts';
import { serve, serveBytes, type RpcApp } from './rpc-serve.ts';

/** What the file recovery routes need. */
export interface FileRecoveryRouteDeps {
  registry: IndexRegistry;
  node: string;
  files: FileRecoverySources;
  states: RecoveryStates;
}

/** Binds the file-based recovery actions on the node's internal API. */
export function serveFileRecovery(app: RpcApp, deps: FileRecoveryRouteDeps): void {
  const { registry, node, files, states } = deps;
  const targets = new FileRecoveryTargets(registry, states);
  serve(app, rpc.recoveryFilesStart, async (req) => {
    registry.checkTerm(req.index, req.shard, req.primaryTerm, 'primary');
    const commit = await registry.snapshotCopy(req.index, req.shard).acquireRecoveryCommit();
    let metas;
    try {
      registry.checkTerm(req.index, req.shard, req.primaryTerm, 'primary'); // still the primary after the flush
      metas = await Promise.all(commit.files.map(async (name) => ({ name, ...(await readFileIdentity(join(commit.dir, name))) })));
    } catch (err) {
      commit.release();
      throw err;
    }
    const recoveryId = files.open(req.index, req.shard, req.target, { dir: commit.dir, files: metas, release: commit.release });
    const { seqNo, maxSeqNo, globalCheckpoint } = commit;
    return { node, index: req.index, shard: req.shard, recoveryId, commit: commit.commit, files: metas, seqNo, maxSeqNo, globalCheckpoint };
  });
  serve(app, rpc.recoveryFileChunk, async (req, c) => {
    registry.primaryShard(req.index, req.shard);
    registry.checkTerm(req.index, req.shard, req.primaryTerm, 'primary');
    const chunk = await files.read(req.recoveryId, req.index, req.shard, req.file, req.offset, req.length, req.maxBytesPerSec);
    return c.body(new Uint8Array(chunk.bytes.buffer as ArrayBuffer, chunk.bytes.byteOffset, chunk.bytes.byteLength), 200, {
      'content-type': 'application/octet-stream',
      [RECOVERY_THROTTLED_MS_HEADER]: String(Math.round(chunk.throttledMs)),
    });
  });
  serve(app, rpc.recoveryFilesPlan, (req) => targets.plan(req));
  serveBytes(app, rpc.recoveryFileWrite, (meta, body) => targets.write(parseWriteMeta(meta), body));
  serve(app, rpc.recoveryFilesFinish, (req) => targets.finish(req));
  serve(app, rpc.recoveryDone, (req) => {
    if (req.failure === undefined) states.stage(req.index, req.shard, 'done'); // a failed one stays at its stage until the next attempt
    return { node, index: req.index, shard: req.shard, acknowledged: true as const };
  });
}

/**
 * The `meta` query parameter of `recovery/files/write`, parsed.
 * @throws EsError 400 `illegal_argument_exception` when missing or malformed
 */
function parseWriteMeta(meta: unknown): RecoveryFileWriteRequest {
  const r = typeof meta === 'object' && meta !== null ? (meta as Partial<RecoveryFileWriteRequest>) : undefined;
  if (
    !r ||
    typeof r.index !== 'string' ||
    typeof r.shard !== 'number' ||
    typeof r.file !== 'string' ||
    typeof r.offset !== 'number' ||
    typeof r.primaryTerm !== 'number'
  )
    throw new EsError(400, 'illegal_argument_exception', 'recovery/files/write needs a [meta] parameter with index, shard, primaryTerm, file and offset');
  return { ...r, last: r.last === true, throttledMs: typeof r.throttledMs === 'number' && r.throttledMs > 0 ? r.throttledMs : 0 } as RecoveryFileWriteRequest;
}
