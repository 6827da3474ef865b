/**
 * The shard node's internal routes of a peer recovery (ES `PeerRecoverySourceService` on the
 * primary, `PeerRecoveryTargetService` on the target), driven step by step by the coordinator
 * (coordinator/cluster/recovery.ts), since shard nodes never call each other:
 * - `POST /_internal/v1/recovery/state` (target): the copy's local and global checkpoints, max
 *   seq_no and instance id, and whether it holds nothing above them; with the recovering primary's
 *   term, it first refuses older terms and waits for the replica writes it admitted before;
 * - `POST /_internal/v1/recovery/reset` (target): empties a copy left behind by a promotion, and
 *   answers the new instance's state;
 * - `POST /_internal/v1/recovery/start` (primary): tracks the target in the replication group and
 *   pins what it misses in the same synchronous step (ops since its checkpoint when the translog
 *   has them, else a point-in-time snapshot of every document and tombstone), answering a recovery
 *   id (shard-node/recovery-sources.ts);
 * - `POST /_internal/v1/recovery/chunk` (primary): the pin's next ops, bounded in bytes, as a binary
 *   body (shard-node/recovery-wire.ts) built in event-loop slices; the last one releases the pin;
 * - `POST /_internal/v1/recovery/cancel` (primary): releases a pin (a failed recovery);
 * - `POST /_internal/v1/recovery/apply` (target): applies one chunk idempotently, in slices,
 *   fsynced, on the copy instance the recovery started on (409 after a reset or a restart);
 * - `POST /_internal/v1/recovery/finalize` (primary): puts the target in sync in the primary's own
 *   metadata, releases its pins, and answers the primary's max seq_no at that instant (the target
 *   must reach it).
 * Every primary-side step checks the primary term, so a demoted primary cannot recover anyone.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoverySourceHandler.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/shard-allocation-relocation-recovery.html
 */
import type { Context } from 'hono';
import { EsError } from '../protocol/errors.ts';
import {
  RECOVERY_CHUNK_DONE_HEADER,
  RECOVERY_CHUNK_OPS_HEADER,
  type RecoveryApplyRequest,
  type RecoveryApplyResponse,
  type RecoveryChunkRequest,
  type RecoveryFinalizeRequest,
  type RecoveryFinalizeResponse,
  type RecoveryShardRequest,
  type RecoveryStartRequest,
  type RecoveryStartResponse,
  type RecoveryStateResponse,
} from '../protocol/recovery.ts';
import { rpc } from '../protocol/rpc.ts';
import type { ActionModule } from './action-module.ts';
import type { IndexRegistry } from './index-registry.ts';
import { FileRecoverySources } from './recovery-file-sources.ts';
import { serveFileRecovery } from './recovery-file-routes.ts';
import { RecoverySources } from './recovery-sources.ts';
import { copyRecoveryState, RecoveryStates } from './recovery-states.ts';
import { decodeRecoveryOps, RECOVERY_OPS_CONTENT_TYPE } from './recovery-wire.ts';
import { serve, serveBytes, type RpcApp } from './rpc-serve.ts';

/** Longest wait (ms) of a `state` call for the replica writes admitted before its term. */
const DRAIN_REPLICA_WRITES_MS = 5_000;

/** What the recovery actions need from the node. */
export interface RecoveryRouteDeps {
  registry: IndexRegistry;
  /** This node's id, echoed in every reply. */
  node: string;
  /** The primary's pinned recoveries (default: a new set for this app). */
  sources?: RecoverySources;
  /** The primary's pinned commits of file-based recoveries (default: a new set for this app). */
  files?: FileRecoverySources;
  /** This node's recovery states (default: a new set for this app). */
  states?: RecoveryStates;
}

/** See the module comment. */
export const recoveryActions: ActionModule = {
  name: 'recovery',
  bind(app, { registry, node, recoveryStates }) {
    serveRecovery(app, { registry, node, states: recoveryStates });
  },
};

/** Binds the recovery actions on the node's internal API (behind its cluster-secret check). @returns the pinned recoveries */
export function serveRecovery(app: RpcApp, deps: RecoveryRouteDeps): RecoverySources {
  const { registry, node } = deps;
  const sources = deps.sources ?? new RecoverySources();
  const files = deps.files ?? new FileRecoverySources();
  const states = deps.states ?? new RecoveryStates();
  serveFileRecovery(app, { registry, node, files, states });
  serve(app, rpc.recoveryState, (req) => recoveryState(deps, req));
  serve(app, rpc.recoveryReset, (req) => {
    if (req.primaryTerm !== undefined) registry.raiseOperationTerm(req.index, req.shard, req.primaryTerm);
    return copyRecoveryState(node, req, registry.resetCopy(req.index, req.shard));
  });
  serve(app, rpc.recoveryStart, (req) => startRecovery(deps, sources, req));
  serve(app, rpc.recoveryChunk, (req, c) => readChunk(deps, sources, req, c));
  serve(app, rpc.recoveryCancel, (req) => {
    sources.release(req.recoveryId);
    files.release(req.recoveryId);
    return { node, index: req.index, shard: req.shard, acknowledged: true };
  });
  serveBytes(app, rpc.recoveryApply, (meta, body) => applyChunk(deps, states, parseApplyMeta(meta), body));
  serve(app, rpc.recoveryFinalize, (req) => {
    files.releaseTarget(req.index, req.shard, req.target);
    return finalizeRecovery(deps, sources, req);
  });
  return sources;
}

/**
 * `recovery/state` (target). With the recovering primary's term, first refuses older terms and
 * waits for the replica writes admitted before.
 * @throws EsError 503 when those writes are still running after {@link DRAIN_REPLICA_WRITES_MS}
 */
async function recoveryState({ registry, node }: RecoveryRouteDeps, req: RecoveryShardRequest): Promise<RecoveryStateResponse> {
  registry.shard(req.index, req.shard); // 404 before any wait for a copy that is not here
  if (req.primaryTerm !== undefined) {
    // No op of an older primary lands here from now on, and none admitted before is still applying.
    registry.raiseOperationTerm(req.index, req.shard, req.primaryTerm);
    const deadline = Date.now() + DRAIN_REPLICA_WRITES_MS;
    while (registry.replicaWritesOf(req.index, req.shard) > 0) {
      if (Date.now() >= deadline)
        throw new EsError(
          503,
          'unavailable_shards_exception',
          `[${req.index}][${req.shard}] replica writes still in progress after ${DRAIN_REPLICA_WRITES_MS} ms`,
        );
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  return copyRecoveryState(node, req, registry.shard(req.index, req.shard));
}

/** `recovery/start` (primary): tracks the target and pins what it misses, in one synchronous step. */
function startRecovery({ registry, node }: RecoveryRouteDeps, sources: RecoverySources, req: RecoveryStartRequest): RecoveryStartResponse {
  const shard = registry.primaryShard(req.index, req.shard);
  registry.checkTerm(req.index, req.shard, req.primaryTerm, 'primary');
  // Synchronous from tracking to the pin: the snapshot is the state at the instant tracking began.
  registry.recoveries.track(req.index, req.shard, req.target);
  const snapshot = shard.openRecoverySnapshot(req.full ? null : req.fromSeqNo);
  const recoveryId = sources.open(req.index, req.shard, req.target, snapshot);
  return { node, index: req.index, shard: req.shard, mode: snapshot.mode, recoveryId, upTo: snapshot.upTo };
}

/** `recovery/chunk` (primary): the pin's next ops as a binary body, their count and whether it was the last in headers. */
async function readChunk({ registry }: RecoveryRouteDeps, sources: RecoverySources, req: RecoveryChunkRequest, c: Context): Promise<Response> {
  registry.primaryShard(req.index, req.shard);
  registry.checkTerm(req.index, req.shard, req.primaryTerm, 'primary');
  const chunk = await sources.chunk(req.recoveryId, req.index, req.shard, req.maxBytes, req.maxOps);
  return c.body(new Uint8Array(chunk.body.buffer as ArrayBuffer, chunk.body.byteOffset, chunk.body.byteLength), 200, {
    'content-type': RECOVERY_OPS_CONTENT_TYPE,
    [RECOVERY_CHUNK_OPS_HEADER]: String(chunk.ops),
    [RECOVERY_CHUNK_DONE_HEADER]: String(chunk.done),
  });
}

/**
 * `recovery/apply` (target): one chunk, applied idempotently in slices and fsynced, on the copy
 * instance the recovery started on.
 * @throws EsError 409 when the copy was emptied or reopened since (checked again after each wait)
 */
async function applyChunk(
  { registry, node }: RecoveryRouteDeps,
  states: RecoveryStates,
  req: RecoveryApplyRequest,
  body: () => Promise<Uint8Array>,
): Promise<RecoveryApplyResponse> {
  const sameCopy = () => {
    const shard = registry.shard(req.index, req.shard);
    registry.checkTerm(req.index, req.shard, req.primaryTerm, 'replica');
    if (req.copyId !== shard.copyId) {
      throw new EsError(409, 'illegal_state_exception', `[${req.index}][${req.shard}] the recovering copy was emptied or reopened since this recovery started`);
    }
    return shard;
  };
  sameCopy();
  const ops = await decodeRecoveryOps(await body());
  // Checked again after each wait: a reset while the chunk was read makes it another instance.
  const shard = sameCopy();
  const r = req.recovery;
  if (r) {
    const uuid = registry.metadataList().find((m) => m.name === req.index)?.uuid ?? '';
    states.ensurePeer(req.index, uuid, req.shard, r.id, r.source);
  }
  const applied = await shard.applyRecoverySliced(ops, req.upTo, req.fullRecoveryId);
  states.translogOps(req.index, req.shard, ops.length, r?.opsTotal);
  if (req.upTo !== undefined) states.stage(req.index, req.shard, 'finalize');
  await shard.sync();
  sameCopy();
  if (req.upTo !== undefined) await registry.refresh(req.index, [req.shard]);
  return { node, index: req.index, shard: req.shard, applied: applied.length, checkpoint: shard.localCheckpoint };
}

/**
 * `recovery/finalize` (primary): the target in sync in the primary's metadata, its pins released.
 * @throws EsError 409 when no recovery of that copy runs on this primary
 */
function finalizeRecovery({ registry, node }: RecoveryRouteDeps, sources: RecoverySources, req: RecoveryFinalizeRequest): RecoveryFinalizeResponse {
  const shard = registry.primaryShard(req.index, req.shard);
  registry.checkTerm(req.index, req.shard, req.primaryTerm, 'primary');
  sources.releaseTarget(req.index, req.shard, req.target);
  if (!registry.recoveries.has(req.index, req.shard, req.target)) {
    throw new EsError(
      409,
      'illegal_state_exception',
      `[${req.index}][${req.shard}] no recovery of the copy on node [${req.target}] is running on this primary`,
    );
  }
  const metadata = registry.markInSync(req.index, req.shard, [req.target], req.failures);
  return { node, metadata, maxSeqNo: shard.maxSeqNo };
}

/**
 * The `meta` query parameter of `recovery/apply` (JSON of {@link RecoveryApplyRequest}), parsed.
 * @throws EsError 400 `illegal_argument_exception` when missing or malformed
 */
function parseApplyMeta(meta: unknown): RecoveryApplyRequest {
  const req = typeof meta === 'object' && meta !== null ? (meta as Partial<RecoveryApplyRequest>) : undefined;
  if (!req || typeof req.index !== 'string' || typeof req.shard !== 'number' || typeof req.copyId !== 'string' || typeof req.primaryTerm !== 'number') {
    throw new EsError(400, 'illegal_argument_exception', 'recovery/apply needs a [meta] parameter with index, shard, primaryTerm and copyId');
  }
  return req as RecoveryApplyRequest;
}
