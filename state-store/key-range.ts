/**
 * etcd's key ranges (`key` + `range_end`, bytes) mapped onto the embedded store's reads, which
 * take one key or one prefix: an empty `range_end` is the one key, `range_end` = the prefix range
 * end of `key` is that prefix, `[0]` means "every key from `key` on", and any other pair is read
 * as a prefix of all keys filtered by bytes.
 * @see https://etcd.io/docs/v3.4/learning/api/#key-ranges
 */
import type { EmbeddedStore } from '../shared/state-store/embedded-store.ts';
import { prefixRangeEnd } from '../shared/state-store/request-checks.ts';
import type { KeyValue, Revision } from '../shared/state-store/types.ts';
import { GatewayError, GRPC } from './wire.ts';

/** A decoded key range: one key, a prefix (`''` = every key), or a byte interval (`end` null = open). */
export type KeySelection = { kind: 'key'; key: string } | { kind: 'prefix'; prefix: string } | { kind: 'interval'; from: Buffer; end: Buffer | null };

/** Decodes `key`/`range_end`. Throws INVALID_ARGUMENT ("key is not provided") for an empty key. */
export function selectKeys(key: Buffer, rangeEnd: Buffer): KeySelection {
  if (key.length === 0) throw new GatewayError(GRPC.INVALID_ARGUMENT, 'etcdserver: key is not provided');
  const text = key.toString('utf8');
  const isText = Buffer.from(text, 'utf8').equals(key);
  if (rangeEnd.length === 0) {
    if (!isText) throw new GatewayError(GRPC.INVALID_ARGUMENT, 'key is not valid UTF-8 (the embedded state store keeps keys as text)');
    return { kind: 'key', key: text };
  }
  const toEnd = rangeEnd.length === 1 && rangeEnd[0] === 0;
  if (toEnd && key.length === 1 && key[0] === 0) return { kind: 'prefix', prefix: '' };
  if (isText && rangeEnd.equals(prefixRangeEnd(key))) return { kind: 'prefix', prefix: text };
  return { kind: 'interval', from: key, end: toEnd ? null : rangeEnd };
}

/** True when `key` lies in the selection (compared as UTF-8 bytes, as etcd orders keys). */
export function selects(selection: KeySelection, key: string): boolean {
  switch (selection.kind) {
    case 'key':
      return key === selection.key;
    case 'prefix':
      return key.startsWith(selection.prefix);
    case 'interval': {
      const bytes = Buffer.from(key, 'utf8');
      return Buffer.compare(bytes, selection.from) >= 0 && (selection.end === null || Buffer.compare(bytes, selection.end) < 0);
    }
  }
}

/** The prefix the embedded store is asked for, before {@link selects} filters. */
export function storePrefixOf(selection: KeySelection): string {
  switch (selection.kind) {
    case 'key':
      return selection.key;
    case 'prefix':
      return selection.prefix;
    case 'interval':
      return '';
  }
}

/** Reads the selected keys (sorted by bytes) and the revision of that read, in one linearizable read. */
export async function readKeys(store: EmbeddedStore, selection: KeySelection): Promise<{ kvs: KeyValue[]; revision: Revision }> {
  const { kvs, revision } = await store.range(storePrefixOf(selection));
  return { kvs: selection.kind === 'prefix' ? kvs : kvs.filter((kv) => selects(selection, kv.key)), revision };
}
