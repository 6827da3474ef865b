/**
 * The shard node's internal routes of a peer recovery (ES `PeerRecoverySourceService` on the
 * primary, `PeerRecoveryTargetService` on the target), driven step by step by the coordinator
 * (coordinator/recovery.ts), since shard nodes never call each other:
 * - `POST /_internal/v1/recovery/state` (target): the copy's local checkpoint, max seq_no and
 *   instance id;
 * - `POST /_internal/v1/recovery/reset` (target): empties a copy left behind by a promotion, and
 *   answers the new instance's state;
 * - `POST /_internal/v1/recovery/start` (primary): tracks the target in the replication group and
 *   answers its missing ops (ops since its checkpoint when the translog has them, else every
 *   document and tombstone), in one synchronous step;
 * - `POST /_internal/v1/recovery/apply` (target): applies them idempotently, fsynced, on the copy
 *   instance the recovery started on (409 after a reset or a restart);
 * - `POST /_internal/v1/recovery/finalize` (primary): puts the target in sync in the primary's own
 *   metadata and answers the primary's max seq_no at that instant (the target must reach it).
 * Every primary-side step checks the primary term, so a demoted primary cannot recover anyone.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoverySourceHandler.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/shard-allocation-relocation-recovery.html
 */
import type { Context, Hono } from 'hono';
import { EsError } from '../shared/errors.ts';
import {
  INTERNAL_PREFIX,
  type ReplicaOp,
  type RecoveryApplyRequest,
  type RecoveryFinalizeRequest,
  type RecoveryFinalizeResponse,
  type RecoveryShardRequest,
  type RecoveryStartRequest,
  type RecoveryStartResponse,
  type RecoveryStateResponse,
} from '../shared/protocol.ts';
import type { TranslogOp } from './engine/translog.ts';
import type { IndexRegistry } from './index-registry.ts';
import { toTranslogOps } from './replica-ops.ts';

/** What the recovery routes need from the node's app. */
export interface RecoveryRouteDeps {
  registry: IndexRegistry;
  /** This node's id, echoed in every reply. */
  node: string;
  /** Reads and parses the internal JSON body (the app's reader). */
  readJson: <T>(c: Context) => Promise<T>;
}

/** A translog op as the target receives it (with its `source` text, byte for byte). */
export function toRecoveryOp(op: TranslogOp): ReplicaOp {
  return op.op === 'delete' ? { op: 'delete', _id: op._id, seqNo: op.seqNo, version: op.version } : { op: 'index', _id: op._id, seqNo: op.seqNo, version: op.version, source: op.json };
}

/** Registers the recovery routes on the node's internal API (behind its cluster-secret check). */
export function registerRecoveryRoutes(app: Hono, deps: RecoveryRouteDeps): void {
  const { registry, node } = deps;
  const p = `${INTERNAL_PREFIX}/recovery`;

  app.post(`${p}/state`, async (c) => {
    const req = await deps.readJson<RecoveryShardRequest>(c);
    const shard = registry.shard(req.index, req.shard);
    return c.json({ node, index: req.index, shard: req.shard, checkpoint: shard.localCheckpoint, maxSeqNo: shard.maxSeqNo, copyId: shard.copyId } satisfies RecoveryStateResponse);
  });

  app.post(`${p}/reset`, async (c) => {
    const req = await deps.readJson<RecoveryShardRequest>(c);
    const shard = registry.resetCopy(req.index, req.shard);
    return c.json({ node, index: req.index, shard: req.shard, checkpoint: shard.localCheckpoint, maxSeqNo: shard.maxSeqNo, copyId: shard.copyId } satisfies RecoveryStateResponse);
  });

  app.post(`${p}/start`, async (c) => {
    const req = await deps.readJson<RecoveryStartRequest>(c);
    const shard = registry.primaryShard(req.index, req.shard);
    registry.checkTerm(req.index, req.shard, req.primaryTerm, 'primary');
    // Synchronous from here to the reply's body: the ops are the state at the instant tracking began.
    registry.recoveries.track(req.index, req.shard, req.target);
    const since = req.full ? null : shard.opsSince(req.fromSeqNo);
    const ops = since ?? shard.snapshotOps();
    const res: RecoveryStartResponse = { node, index: req.index, shard: req.shard, mode: since ? 'ops' : 'full', ops: ops.map(toRecoveryOp), upTo: shard.maxSeqNo };
    return c.json(res);
  });

  app.post(`${p}/apply`, async (c) => {
    const req = await deps.readJson<RecoveryApplyRequest>(c);
    const shard = registry.shard(req.index, req.shard);
    registry.checkTerm(req.index, req.shard, req.primaryTerm, 'replica');
    if (req.copyId !== shard.copyId) {
      throw new EsError(409, 'illegal_state_exception', `[${req.index}][${req.shard}] the recovering copy was emptied or reopened since this recovery started`);
    }
    const applied = shard.applyRecovery(toTranslogOps(req.ops), req.upTo, req.fullRecoveryId);
    await shard.sync();
    if (req.upTo !== undefined) await registry.refresh(req.index, [req.shard]);
    return c.json({ node, index: req.index, shard: req.shard, applied: applied.length, checkpoint: shard.localCheckpoint });
  });

  app.post(`${p}/finalize`, async (c) => {
    const req = await deps.readJson<RecoveryFinalizeRequest>(c);
    const shard = registry.primaryShard(req.index, req.shard);
    registry.checkTerm(req.index, req.shard, req.primaryTerm, 'primary');
    if (!registry.recoveries.has(req.index, req.shard, req.target)) {
      throw new EsError(409, 'illegal_state_exception', `[${req.index}][${req.shard}] no recovery of the copy on node [${req.target}] is running on this primary`);
    }
    const metadata = registry.markInSync(req.index, req.shard, [req.target]);
    return c.json({ node, metadata, maxSeqNo: shard.maxSeqNo } satisfies RecoveryFinalizeResponse);
  });
}
