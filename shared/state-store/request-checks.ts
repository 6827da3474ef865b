/**
 * Checks shared by both state-store implementations, so a malformed request fails the same way
 * on each: key order by UTF-8 bytes, the range end of a prefix, and the txn rules etcd enforces.
 * @see https://github.com/etcd-io/etcd/blob/release-3.4/etcdserver/api/v3rpc/key.go (checkTxnRequest, checkIntervals)
 */
import { StateStoreError } from './errors.ts';
import type { TxnRequest } from './types.ts';

/** Most ops one transaction may carry (etcd's default `--max-txn-ops`). */
export const MAX_TXN_OPS = 128;

/** Orders two keys by their UTF-8 bytes, as etcd orders keys. */
export function compareKeyBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The exclusive end of the key range holding every key that starts with `prefix` (etcd's
 * `GetPrefixRangeEnd`): the prefix with its last byte below 0xff raised by one. An empty prefix,
 * or one of only 0xff bytes, gives `[0]`, which etcd reads as "to the end of the keyspace".
 * @see https://github.com/etcd-io/etcd/blob/release-3.4/clientv3/op.go (getPrefix)
 */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i] += 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

/** Throws `invalid_argument` unless `key` is a non-empty string. */
export function checkKey(key: unknown, what = 'key'): asserts key is string {
  if (typeof key !== 'string' || key.length === 0) throw new StateStoreError('invalid_argument', `${what} is not provided`);
}

/** Throws `invalid_argument` unless `ttlSeconds` is an integer from 1 to 2^31 − 1 seconds. */
export function checkTtl(ttlSeconds: number): void {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > 2 ** 31 - 1) {
    throw new StateStoreError('invalid_argument', `lease TTL must be an integer number of seconds from 1, got ${ttlSeconds}`);
  }
}

/**
 * Throws `invalid_argument` for a transaction etcd would refuse: a missing key, a negative or
 * fractional revision, more than {@link MAX_TXN_OPS} ops, a key put twice, or a put of a key that
 * the same transaction deletes ("duplicate key given in txn request"). Overlapping deletes are allowed.
 */
export function checkTxn(request: TxnRequest): void {
  if (!request || !Array.isArray(request.compare) || !Array.isArray(request.ops)) {
    throw new StateStoreError('invalid_argument', 'a transaction needs `compare` and `ops` arrays');
  }
  if (request.ops.length > MAX_TXN_OPS || request.compare.length > MAX_TXN_OPS) {
    throw new StateStoreError('invalid_argument', `too many operations in txn request (at most ${MAX_TXN_OPS})`);
  }
  for (const c of request.compare) {
    checkKey(c?.key, 'compare key');
    const rev = 'modRevision' in c ? c.modRevision : c.createRevision;
    if (!Number.isSafeInteger(rev) || rev < 0) throw new StateStoreError('invalid_argument', `compare revision must be an integer ≥ 0, got ${rev}`);
  }
  const puts = new Set<string>();
  const deletes: Array<(key: string) => boolean> = [];
  for (const op of request.ops) {
    if (op?.op === 'deletePrefix') {
      checkKey(op.prefix, 'prefix');
      const prefix = op.prefix;
      deletes.push((key) => key.startsWith(prefix));
    } else if (op?.op === 'delete') {
      checkKey(op.key);
      const deleted = op.key;
      deletes.push((key) => key === deleted);
    } else if (op?.op === 'put') {
      checkKey(op.key);
      if (typeof op.value !== 'string') throw new StateStoreError('invalid_argument', `value of ${op.key} must be a string`);
      if (op.lease !== undefined && !/^[1-9][0-9]{0,18}$/.test(op.lease))
        throw new StateStoreError('invalid_argument', `lease id must be a positive decimal integer, got ${op.lease}`);
      if (puts.has(op.key)) throw new StateStoreError('invalid_argument', 'duplicate key given in txn request');
      puts.add(op.key);
    } else {
      throw new StateStoreError('invalid_argument', `unknown txn op ${JSON.stringify((op as { op?: unknown })?.op)}`);
    }
  }
  // As etcd's checkIntervals: deletes may overlap each other, but no put may fall inside a delete.
  for (const key of puts) {
    if (deletes.some((covers) => covers(key))) throw new StateStoreError('invalid_argument', 'duplicate key given in txn request');
  }
}
