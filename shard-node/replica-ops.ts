/**
 * The two ends of a replicated write on the shard nodes (pure functions): the primary turns the ops
 * its shard logged into the {@link ReplicaOp}s it forwards to its replicas, and a replica turns the ops it
 * receives back into translog ops to apply exactly as the primary did (its seq_no and version).
 * ES sends each replica the primary's request with the primary's seq_no and version the same way
 * (`TransportShardBulkAction.performOnReplica`).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/bulk/TransportShardBulkAction.java
 */
import { EsError } from '../protocol/errors.ts';
import type { ReplicaOp } from '../protocol/write.ts';
import type { TranslogOp } from './engine/translog.ts';

/**
 * The ops for the replicas of one primary bulk: one per op the shard logged (`logged`, in seq_no
 * order), each `index` op with the stored text (the request's `_source` byte for byte, or an
 * update's merged document).
 */
export function replicaOpsOf(logged: readonly TranslogOp[]): ReplicaOp[] {
  return logged.map((op): ReplicaOp =>
    op.op === 'delete'
      ? { op: 'delete', _id: op._id, seqNo: op.seqNo, version: op.version }
      : { op: 'index', _id: op._id, seqNo: op.seqNo, version: op.version, source: op.json, ...(op.routing !== undefined ? { routing: op.routing } : {}) },
  );
}

/**
 * The translog ops a replica applies for the ops it received.
 * @throws EsError 400 `illegal_argument_exception` for an `index` op without its `source`.
 */
export function toTranslogOps(ops: readonly ReplicaOp[]): TranslogOp[] {
  return ops.map((op): TranslogOp => {
    if (op.op === 'delete') return { op: 'delete', _id: op._id, seqNo: op.seqNo, version: op.version };
    if (op.source === undefined) throw new EsError(400, 'illegal_argument_exception', `replicated index op [${op._id}] has no source`);
    return { op: 'index', _id: op._id, json: op.source, seqNo: op.seqNo, version: op.version, ...(op.routing !== undefined ? { routing: op.routing } : {}) };
  });
}
