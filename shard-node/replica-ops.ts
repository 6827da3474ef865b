/**
 * The two ends of a replicated write on the shard nodes (pure functions): the primary turns the ops
 * its shard logged into {@link ReplicaOp}s for its bulk reply, and a replica turns the ops it
 * receives back into translog ops to apply exactly as the primary did (its seq_no and version).
 * ES sends each replica the primary's request with the primary's seq_no and version the same way
 * (`TransportShardBulkAction.performOnReplica`).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/bulk/TransportShardBulkAction.java
 */
import { EsError } from '../shared/errors.ts';
import type { ReplicaOp, WriteOp, WriteResult } from '../shared/protocol.ts';
import type { TranslogOp } from './engine/translog.ts';

/**
 * The ops for the replicas of one primary bulk: one per op the shard logged (`logged`, in seq_no
 * order). An `index` op that a request `index`/`create` op produced leaves out its `source`
 * (`item` names the request op, whose source the coordinator already holds); one from an `update`
 * carries the merged document's text.
 * @param ops the primary's request ops; `results` their outcomes, parallel to `ops`.
 */
export function replicaOpsOf(ops: readonly WriteOp[], results: readonly WriteResult[], logged: readonly TranslogOp[]): ReplicaOp[] {
  const itemOfSeqNo = new Map<number, number>();
  results.forEach((r, j) => {
    // Only request `index` ops are looked up (deletes and updates never are): a bulk of deletes builds no map.
    if (ops[j].op === 'index' && r._seq_no !== undefined && r.error === undefined && r.result !== 'noop') itemOfSeqNo.set(r._seq_no, j);
  });
  return logged.map((op): ReplicaOp => {
    if (op.op === 'delete') return { op: 'delete', _id: op._id, seqNo: op.seqNo, version: op.version };
    const item = itemOfSeqNo.get(op.seqNo);
    if (item !== undefined && ops[item].op === 'index') return { op: 'index', _id: op._id, seqNo: op.seqNo, version: op.version, item };
    return { op: 'index', _id: op._id, seqNo: op.seqNo, version: op.version, source: op.json };
  });
}

/**
 * The translog ops a replica applies for the ops it received.
 * @throws EsError 400 `illegal_argument_exception` for an `index` op without its `source`.
 */
export function toTranslogOps(ops: readonly ReplicaOp[]): TranslogOp[] {
  return ops.map((op): TranslogOp => {
    if (op.op === 'delete') return { op: 'delete', _id: op._id, seqNo: op.seqNo, version: op.version };
    if (op.source === undefined) throw new EsError(400, 'illegal_argument_exception', `replicated index op [${op._id}] has no source`);
    return { op: 'index', _id: op._id, json: op.source, seqNo: op.seqNo, version: op.version };
  });
}
