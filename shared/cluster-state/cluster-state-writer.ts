/**
 * Every change of the cluster state's index metadata, each one compare-and-swap transaction on the
 * mod revision it read (etcd's optimistic concurrency: a loser sees the winner's value in the same
 * reply and decides again). Each successful write raises the index's `version` by one, so versions
 * are one total order per index that shard nodes compare when they apply a pushed value.
 *
 * - {@link ClusterStateWriter.create}: one txn with `createRevision: 0` on the index key, so two
 *   coordinators creating the same name at once get one index with one uuid (issue 10, scenario 5).
 * - {@link ClusterStateWriter.update}: read-modify-write with the mutation re-evaluated on the
 *   current value after a lost race, optionally fenced by the cluster manager's election guard.
 * - {@link ClusterStateWriter.delete}: removes the key and records the uuid in the graveyard.
 *
 * A write whose outcome is unknown (the store failed after sending it) is never blindly repeated:
 * the current value is read back and the mutation decides again, so nothing applies twice
 * (https://etcd.io/docs/v3.4/learning/api_guarantees/). When the store cannot be reached the change
 * fails with ES's 503 `cluster_block_exception` (no master).
 * @see docs/cluster-state.md
 * @see https://etcd.io/docs/v3.4/learning/api/#transaction
 */
import { EsError, indexAlreadyExists, indexNotFound } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { IndexMetadata } from '../protocol.ts';
import { isStateStoreError } from '../state-store/errors.ts';
import type { Compare, KeyValue, StateStore, TxnOp, TxnResult } from '../state-store/types.ts';
import type { ClusterStateCache, StoredIndex } from './cluster-state-cache.ts';
import { BOOTSTRAPPED_KEY, GRAVEYARD_SIZE, graveyardKey, indexKey } from './keys.ts';

/** Compare-and-swap attempts of one change before it fails as contended. */
export const CAS_ATTEMPTS = 20;

/**
 * ES's error when no elected master can publish a change: 503 `cluster_block_exception`
 * ("blocked by: [SERVICE_UNAVAILABLE/2/no master];"); `detail` goes to the error's metadata.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/modules-discovery-settings.html (cluster.no_master_block)
 */
export function noMasterBlock(detail: string): EsError {
  return new EsError(503, 'cluster_block_exception', 'blocked by: [SERVICE_UNAVAILABLE/2/no master];', { metadata: { 'folio.detail': detail } });
}

/** Options of {@link ClusterStateWriter.update}. */
export interface UpdateOptions {
  /** Only change the index while it is this incarnation (a write for a deleted and re-created index must not land on the new one). */
  uuid?: string;
  /** An extra compare the txn must pass: the cluster manager's `Leadership.guard`, so a deposed manager's decision fails. */
  guard?: Compare;
}

/** Whether `compare` holds for the key as it is now (`kv` undefined: absent, revisions 0). */
function holds(compare: Compare, kv: KeyValue | undefined): boolean {
  return 'modRevision' in compare ? (kv?.modRevision ?? 0) === compare.modRevision : (kv?.createRevision ?? 0) === compare.createRevision;
}

/** See the module comment. */
export class ClusterStateWriter {
  private readonly cache: ClusterStateCache;
  private readonly store: StateStore;
  private readonly log: Logger | undefined;

  constructor(cache: ClusterStateCache, log?: Logger) {
    this.cache = cache;
    this.store = cache.store;
    this.log = log;
  }

  /**
   * Stores a new index. `metadata.version` is kept as given (1 for a new index).
   * @throws EsError 400 `resource_already_exists_exception` (with the existing uuid) when the name is taken; 503 when the store cannot be reached
   */
  async create(metadata: IndexMetadata): Promise<StoredIndex> {
    const key = indexKey(metadata.name);
    const value = JSON.stringify(metadata);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      let r: TxnResult;
      try {
        r = await this.store.txn({ compare: [{ key, createRevision: 0 }], ops: [{ op: 'put', key, value }] });
      } catch (err) {
        const now = await this.readAfterFailure(metadata.name, err);
        if (now?.metadata.uuid === metadata.uuid) return now;
        if (now) throw indexAlreadyExists(metadata.name, now.metadata.uuid);
        continue;
      }
      if (r.succeeded) return this.noteWritten(key, value, r.revision);
      const existing = r.current.get(key);
      if (existing) {
        this.cache.noteKv(existing);
        throw indexAlreadyExists(metadata.name, this.cache.get(metadata.name)?.metadata.uuid ?? '_na_');
      }
    }
    throw noMasterBlock(`creating index [${metadata.name}] kept conflicting`);
  }

  /**
   * Changes index `name`: `mutate` gets the current metadata and returns the next (its `version` is
   * set here) or null for "nothing to change". After a lost race or an unknown outcome it runs
   * again on the value now stored, so it must decide from that value alone (idempotent).
   * @returns the index as stored after the change (or unchanged).
   * @throws EsError 404 when the index (or the given uuid) is gone; what `mutate` throws; 503
   *   `cluster_block_exception` when the store cannot be reached, the guard no longer holds, or
   *   the index kept changing for {@link CAS_ATTEMPTS} attempts
   */
  async update(name: string, mutate: (current: IndexMetadata) => IndexMetadata | null, opts: UpdateOptions = {}): Promise<StoredIndex> {
    const key = indexKey(name);
    let current = this.cache.get(name) ?? (await this.readAfterFailure(name, undefined));
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      if (!current || (opts.uuid !== undefined && current.metadata.uuid !== opts.uuid)) throw indexNotFound(name);
      const next = mutate(current.metadata);
      if (next === null) return current;
      const value = JSON.stringify({ ...next, version: current.metadata.version + 1 } satisfies IndexMetadata);
      const compare: Compare[] = [{ key, modRevision: current.modRevision }, ...(opts.guard ? [opts.guard] : [])];
      let r: TxnResult;
      try {
        r = await this.store.txn({ compare, ops: [{ op: 'put', key, value }] });
      } catch (err) {
        current = await this.readAfterFailure(name, err);
        continue;
      }
      if (r.succeeded) return this.noteWritten(key, value, r.revision);
      if (opts.guard && !holds(opts.guard, r.current.get(opts.guard.key))) throw noMasterBlock('this coordinator is no longer the elected cluster manager');
      const now = r.current.get(key);
      if (!now) {
        this.cache.noteDeleted(key, r.revision);
        throw indexNotFound(name);
      }
      this.cache.noteKv(now);
      current = this.cache.get(name);
    }
    throw noMasterBlock(`index [${name}] kept changing concurrently for ${CAS_ATTEMPTS} attempts`);
  }

  /**
   * Deletes index `name` (whichever incarnation is stored now, as ES's `DELETE /{index}` does) and
   * records its uuid in the graveyard, forgetting the oldest tombstones past {@link GRAVEYARD_SIZE}.
   * @returns the deleted index's metadata.
   * @throws EsError 404 when the index does not exist; 503 when the store cannot be reached
   */
  async delete(name: string): Promise<IndexMetadata> {
    const key = indexKey(name);
    let current = this.cache.get(name) ?? (await this.readAfterFailure(name, undefined));
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      if (!current) throw indexNotFound(name);
      const uuid = current.metadata.uuid;
      const excess = this.cache.tombstones().filter((t) => t.uuid !== uuid);
      const prune = excess.slice(0, Math.max(0, excess.length + 1 - GRAVEYARD_SIZE));
      const ops: TxnOp[] = [
        { op: 'delete', key },
        { op: 'put', key: graveyardKey(uuid), value: JSON.stringify({ name, deletedAt: Date.now() }) },
        ...prune.map((t): TxnOp => ({ op: 'delete', key: graveyardKey(t.uuid) })),
      ];
      let r: TxnResult;
      try {
        r = await this.store.txn({ compare: [{ key, modRevision: current.modRevision }], ops });
      } catch (err) {
        const now = await this.readAfterFailure(name, err);
        // Gone, or another incarnation: our delete applied (a later create made the new one).
        if (!now || now.metadata.uuid !== uuid) return current.metadata;
        current = now;
        continue;
      }
      if (r.succeeded) {
        this.cache.noteDeleted(key, r.revision);
        return current.metadata;
      }
      const now = r.current.get(key);
      if (!now) throw indexNotFound(name);
      this.cache.noteKv(now);
      current = this.cache.get(name);
    }
    throw noMasterBlock(`index [${name}] kept changing concurrently for ${CAS_ATTEMPTS} attempts`);
  }

  /**
   * Imports the index metadata that shard nodes kept before the cluster state moved to the store
   * (each index only if its name is free), then marks the store bootstrapped (keys.ts
   * {@link BOOTSTRAPPED_KEY}), once for the cluster's lifetime.
   * @throws EsError 503 when the store cannot be reached (the next node reload tries again)
   */
  async bootstrap(indices: readonly IndexMetadata[]): Promise<number> {
    let imported = 0;
    try {
      for (const m of indices) {
        const r = await this.store.txn({ compare: [{ key: indexKey(m.name), createRevision: 0 }], ops: [{ op: 'put', key: indexKey(m.name), value: JSON.stringify(m) }] });
        if (r.succeeded) imported++;
      }
      const done = await this.store.txn({ compare: [{ key: BOOTSTRAPPED_KEY, createRevision: 0 }], ops: [{ op: 'put', key: BOOTSTRAPPED_KEY, value: JSON.stringify({ at: Date.now(), imported }) }] });
      if (done.succeeded) this.cache.noteKv({ key: BOOTSTRAPPED_KEY, value: '', createRevision: done.revision, modRevision: done.revision, version: 1 });
    } catch (err) {
      if (isStateStoreError(err)) throw noMasterBlock(err.message);
      throw err;
    }
    if (imported > 0) this.log?.info({ imported }, 'cluster state bootstrapped from the shard nodes\' metadata');
    return imported;
  }

  /** Applies this process's successful write to the cache and returns it as stored. */
  private noteWritten(key: string, value: string, revision: number): StoredIndex {
    this.cache.noteKv({ key, value, createRevision: revision, modRevision: revision, version: 1 });
    const name = key.slice(indexKey('').length);
    return this.cache.get(name) ?? { metadata: JSON.parse(value) as IndexMetadata, modRevision: revision };
  }

  /**
   * After a failed call (`err`; undefined for a plain read), reads the index back. Only an
   * `unavailable` store error is recovered this way; another store error fails as 503, anything
   * else is rethrown.
   * @throws EsError 503 when the store failed otherwise or the read fails too
   */
  private async readAfterFailure(name: string, err: unknown): Promise<StoredIndex | undefined> {
    if (err !== undefined) {
      if (!isStateStoreError(err)) throw err;
      if (err.code !== 'unavailable') throw noMasterBlock(err.message);
    }
    try {
      return await this.cache.read(name);
    } catch (readErr) {
      if (isStateStoreError(readErr)) throw noMasterBlock(readErr.message);
      throw readErr;
    }
  }
}
