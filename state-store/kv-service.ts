/**
 * etcd's KV service over the embedded store: `Range` (current revision only), `Txn` (compares of
 * `MOD`/`CREATE` revisions or version 0, puts and deletes of one key or a prefix, failure-branch
 * reads of compared keys) and `Compact`.
 * @see https://etcd.io/docs/v3.4/learning/api/#key-value-api
 */
import type { Compare, TxnOp } from '../shared/state-store/types.ts';
import { readKeys, selectKeys } from './key-range.ts';
import { arrayField, objectField, leaseIdOf, refuseSet, unimplemented, type GatewayContext, type Json } from './gateway-io.ts';
import { decodeBool, decodeBytes, decodeEnum, decodeInt64, GatewayError, GRPC, keyText, wireKeyValue } from './wire.ts';

/** etcd's compare targets and results (`Compare.CompareTarget`, `Compare.CompareResult`). */
const COMPARE_TARGETS = ['VERSION', 'CREATE', 'MOD', 'VALUE', 'LEASE'] as const;
const COMPARE_RESULTS = ['EQUAL', 'GREATER', 'LESS', 'NOT_EQUAL'] as const;

/** KV.Range: the keys of one key, a prefix or everything, with `limit`, `keys_only` and `count_only`. */
export async function range(ctx: GatewayContext, body: Json): Promise<Json> {
  refuseSet(body, ['sort_order', 'sort_target', 'min_mod_revision', 'max_mod_revision', 'min_create_revision', 'max_create_revision'], 'range option');
  const selection = selectKeys(decodeBytes(body.key, 'key'), decodeBytes(body.range_end, 'range_end'));
  const limit = Number(decodeInt64(body.limit, 'limit'));
  const keysOnly = decodeBool(body.keys_only, 'keys_only');
  const countOnly = decodeBool(body.count_only, 'count_only');
  decodeBool(body.serializable, 'serializable'); // every read is local and current here
  const atRevision = Number(decodeInt64(body.revision, 'revision'));
  const { kvs, revision } = await readKeys(ctx.store, selection);
  if (atRevision > revision) throw new GatewayError(GRPC.OUT_OF_RANGE, 'etcdserver: mvcc: required revision is a future revision');
  if (atRevision > 0 && atRevision < revision) throw unimplemented('reads at a past revision');
  const out: Json = { header: ctx.header(revision) };
  const shown = countOnly ? [] : limit > 0 ? kvs.slice(0, limit) : kvs;
  if (shown.length > 0) out.kvs = shown.map((kv) => wireKeyValue(kv, keysOnly));
  if (!countOnly && shown.length < kvs.length) out.more = true;
  if (kvs.length > 0) out.count = String(kvs.length);
  return out;
}

/** One `Compare` of a txn request, as the store's compare. */
function compareOf(raw: unknown, i: number): Compare {
  const c = objectField(raw, `compare[${i}]`);
  const key = keyText(decodeBytes(c.key, 'key'));
  if (key === '') throw new GatewayError(GRPC.INVALID_ARGUMENT, 'etcdserver: key is not provided');
  if (decodeBytes(c.range_end, 'range_end').length > 0) throw unimplemented('compares over a key range');
  const target = decodeEnum(c.target, COMPARE_TARGETS, 'target');
  const result = decodeEnum(c.result, COMPARE_RESULTS, 'result');
  if (result !== 'EQUAL') throw unimplemented(`${result} compares`);
  if (target === 'MOD') return { key, modRevision: Number(decodeInt64(c.mod_revision, 'mod_revision')) };
  if (target === 'CREATE') return { key, createRevision: Number(decodeInt64(c.create_revision, 'create_revision')) };
  // version 0 ⇔ the key is absent ⇔ create revision 0.
  if (target === 'VERSION' && decodeInt64(c.version, 'version') === 0n) return { key, createRevision: 0 };
  throw unimplemented(`${target} compares${target === 'VERSION' ? ' other than version 0' : ''}`);
}

/** One success op: a put, or a delete of one key or of a prefix. */
function successOpOf(raw: unknown, i: number): TxnOp {
  const op = objectField(raw, `success[${i}]`);
  if (op.request_put !== undefined) {
    const put = objectField(op.request_put, 'request_put');
    refuseSet(put, ['prev_kv', 'ignore_value', 'ignore_lease'], 'put option');
    const key = keyText(decodeBytes(put.key, 'key'));
    const value = keyText(decodeBytes(put.value, 'value'), 'value');
    const lease = leaseIdOf(put.lease, 'lease');
    return lease === undefined ? { op: 'put', key, value } : { op: 'put', key, value, lease };
  }
  if (op.request_delete_range !== undefined) {
    const del = objectField(op.request_delete_range, 'request_delete_range');
    refuseSet(del, ['prev_kv'], 'delete option');
    const selection = selectKeys(decodeBytes(del.key, 'key'), decodeBytes(del.range_end, 'range_end'));
    if (selection.kind === 'key') return { op: 'delete', key: selection.key };
    if (selection.kind === 'prefix' && selection.prefix !== '') return { op: 'deletePrefix', prefix: selection.prefix };
    throw unimplemented('deletes of a key range other than a non-empty prefix');
  }
  if (op.request_range !== undefined) throw unimplemented('reads in the success branch of a txn');
  if (op.request_txn !== undefined) throw unimplemented('nested txns');
  throw new GatewayError(GRPC.INVALID_ARGUMENT, `success[${i}] has no request`);
}

/** One failure op: a plain read of one compared key (answered from the failed txn's `current`). */
function failureKeyOf(raw: unknown, i: number, compared: Set<string>): string {
  const op = objectField(raw, `failure[${i}]`);
  if (op.request_range === undefined) throw unimplemented('writes in the failure branch of a txn');
  const r = objectField(op.request_range, 'request_range');
  refuseSet(
    r,
    [
      'range_end',
      'limit',
      'revision',
      'sort_order',
      'sort_target',
      'keys_only',
      'count_only',
      'min_mod_revision',
      'max_mod_revision',
      'min_create_revision',
      'max_create_revision',
    ],
    'failure-branch range option',
  );
  const key = keyText(decodeBytes(r.key, 'key'));
  if (!compared.has(key)) throw unimplemented('failure-branch reads of keys the txn does not compare');
  return key;
}

/** KV.Txn: the compares, then the success ops or the failure reads, in one store transaction. */
export async function txn(ctx: GatewayContext, body: Json): Promise<Json> {
  const compare = arrayField(body.compare, 'compare').map(compareOf);
  const ops = arrayField(body.success, 'success').map(successOpOf);
  const compared = new Set(compare.map((c) => c.key));
  const failureKeys = arrayField(body.failure, 'failure').map((raw, i) => failureKeyOf(raw, i, compared));
  const { result, deletedKeys } = await ctx.store.txnWithDeletes({ compare, ops });
  const sub = { revision: String(result.revision) };
  if (!result.succeeded) {
    const out: Json = { header: ctx.header(result.revision) };
    if (failureKeys.length > 0) {
      out.responses = failureKeys.map((key) => {
        const kv = result.current.get(key);
        const response: Json = { header: sub };
        if (kv) Object.assign(response, { kvs: [wireKeyValue(kv)], count: '1' });
        return { response_range: response };
      });
    }
    return out;
  }
  // Each deleted key counts for the first delete op that covers it, as etcd applies ops in order.
  const remaining = new Set(deletedKeys);
  const responses = ops.map((op) => {
    if (op.op === 'put') return { response_put: { header: sub } };
    const covered = [...remaining].filter((k) => (op.op === 'delete' ? k === op.key : k.startsWith(op.prefix)));
    for (const k of covered) remaining.delete(k);
    const response: Json = { header: sub };
    if (covered.length > 0) response.deleted = String(covered.length);
    return { response_delete_range: response };
  });
  const out: Json = { header: ctx.header(result.revision), succeeded: true };
  if (responses.length > 0) out.responses = responses;
  return out;
}

/** KV.Compact: drops history before `revision`. */
export async function compaction(ctx: GatewayContext, body: Json): Promise<Json> {
  await ctx.store.compact(Number(decodeInt64(body.revision, 'revision')));
  return { header: ctx.header(ctx.store.currentRevision) };
}
