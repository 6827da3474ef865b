/**
 * What a shard node does with a copy one of whose segment files is corrupt (a checksum that fails
 * when the file is opened at start-up, or when a `_source` block or postings page is read on
 * demand), as ES does with a store that hit a `CorruptIndexException`: when the cluster has
 * another in-sync copy of the shard, the copy is **failed** (the node reports it, the cluster
 * manager takes it out of sync or promotes a replica in its place, and peer recovery rebuilds it
 * from the primary) and a corruption marker is written in its directory, so that a restart never
 * reopens it as it is (storage/corruption-marker.ts). Without another in-sync copy, a copy found
 * corrupt at start-up is rebuilt from its SQLite `docs` snapshot and translog, which every flush
 * keeps whole (docs/segment-files.md "Corruption"); one found corrupt by a read keeps serving
 * what it can, each read of the bad block failing that shard's part of the request.
 * Mirrors ES `IndexShard.failShard` with `Store.markStoreCorrupted` (`Engine.failEngine` on a
 * corruption exception) and `Store.failIfCorrupted` when the shard opens.
 * @see https://github.com/elastic/elasticsearch/blob/v8.15.0/server/src/main/java/org/elasticsearch/index/engine/Engine.java
 * @see https://github.com/elastic/elasticsearch/blob/v8.15.0/server/src/main/java/org/elasticsearch/index/store/Store.java
 */
import { dirname } from 'node:path';
import type { IndexMetadata } from '../protocol/metadata.ts';
import type { Logger } from '../shared/logger.ts';
import type { HostedIndex } from './hosted-index.ts';
import { writeCorruptionMarker } from './storage/corruption-marker.ts';

/**
 * True when the metadata has an in-sync copy of `shard` on another node than `ordinal`: one the
 * cluster can recover this copy from (or promote, when this one is the primary). False when
 * `ordinal` is unknown (null): the copy cannot tell which of the copies is its own.
 */
export function hasOtherInSyncCopy(metadata: IndexMetadata, ordinal: number | null, shard: number): boolean {
  if (ordinal === null) return false;
  return metadata.shardCopies?.[shard]?.some((c) => c.inSync && c.node !== ordinal) === true;
}

/**
 * Where the copy whose files are in the directory of `resource` (a segment file's path, as
 * `CorruptSegmentFileError.resource` names it) is hosted: its index record and shard number, or
 * null when no hosted copy keeps its files there (a copy dropped meanwhile, an in-memory node).
 */
export function copyOfFile(indices: Iterable<HostedIndex>, resource: string): { h: HostedIndex; shard: number } | null {
  const dir = dirname(resource);
  for (const h of indices) {
    for (const [shard, store] of h.stores) if (dirname(store.path) === dir) return { h, shard };
  }
  return null;
}

/** Why a copy failed for corruption, as its node reports it (`failed`) and its failed reads answer. */
export function corruptionReason(reason: string): string {
  return `the copy is corrupt: ${reason}`;
}

/**
 * Fails the copy `shard` of `h`, corrupt for `reason` (about the file `resource`), when another
 * in-sync copy exists ({@link hasOtherInSyncCopy}): writes the corruption marker in its directory
 * and marks it failed, so it serves nothing, its node reports it failed, and the cluster manager
 * recovers it (docs/reliability.md "Corrupt copies"). A copy already failed stays as it is.
 * @returns true when the copy is failed (now or before), false when it is the only in-sync copy
 *   and so stays in service
 */
export function failCorruptCopy(log: Logger | undefined, h: HostedIndex, shard: number, reason: string, resource: string): boolean {
  if (h.failed.has(shard)) return true;
  if (!hasOtherInSyncCopy(h.metadata, h.ordinal, shard)) return false;
  const store = h.stores.get(shard);
  const marker = store ? writeCorruptionMarker(dirname(store.path), reason, resource) : null;
  h.failed.set(shard, corruptionReason(reason));
  log?.error(
    { index: h.metadata.name, shard, resource, reason, marker },
    'shard copy failed: a segment file is corrupt; it will be recovered from another copy',
  );
  return true;
}

/**
 * A read found the segment file `resource` corrupt for `reason`: fails the copy of `indices` that
 * keeps it ({@link copyOfFile}) as {@link failCorruptCopy} does.
 * @returns true when the copy is failed, false when it stays in service (its only in-sync copy, or
 *   no hosted copy keeps that file)
 */
export function failCorruptFileCopy(log: Logger | undefined, indices: Iterable<HostedIndex>, resource: string, reason: string): boolean {
  const found = copyOfFile(indices, resource);
  return found !== null && failCorruptCopy(log, found.h, found.shard, reason, resource);
}
