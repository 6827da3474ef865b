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
 * - {@link ClusterStateWriter.changeIndices}: several indices changed or deleted in one txn (an
 *   `_aliases` call: ES applies all its actions in one cluster state update).
 *
 * Every write that changes which indices an alias names also rewrites the alias's name reservation
 * (keys.ts `ALIASES_PREFIX`) in the same txn, comparing its revision; a new index compares
 * the reservation of its own name absent, and a new alias the index key of its name absent, so an
 * index and an alias never share a name, even when two coordinators race.
 *
 * A write whose outcome is unknown (the store failed after sending it) is never blindly repeated:
 * the current value is read back and the mutation decides again, so nothing applies twice
 * (https://etcd.io/docs/v3.4/learning/api_guarantees/). When the store cannot be reached the change
 * fails with ES's 503 `cluster_block_exception` (no master).
 * @see docs/cluster-state.md
 * @see https://etcd.io/docs/v3.4/learning/api/#transaction
 */
import { illegalArgument, indexAlreadyExists, indexNotFound, invalidIndexName } from '../../protocol/errors.ts';
import type { Logger } from '../logger.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { isStateStoreError } from '../state-store/errors.ts';
import { MAX_TXN_OPS } from '../state-store/request-checks.ts';
import type { Compare, KeyValue, StateStore, TxnOp, TxnResult } from '../state-store/types.ts';
import { aliasNamesOf, failOnIndexNamedLikeAlias, reservationChanges, type AliasesByIndex } from './alias-reservations.ts';
import type { ClusterStateCache, StoredIndex } from './cluster-state-cache.ts';
import { aliasKey, BOOTSTRAPPED_KEY, GRAVEYARD_SIZE, graveyardKey, indexKey, INDICES_PREFIX } from './keys.ts';
import { noMasterBlock } from './no-master-block.ts';

/** Compare-and-swap attempts of one change before it fails as contended. */
export const CAS_ATTEMPTS = 20;

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

/** A change of several indices stored in one transaction ({@link ClusterStateWriter.changeIndices}). */
export interface IndicesChange {
  /** The next metadata of indices that were read (each one's `version` is set by the writer). */
  put: IndexMetadata[];
  /** Names of indices that were read to delete (their uuids go to the graveyard). */
  delete: string[];
}

/** What {@link ClusterStateWriter.changeIndices} stored. */
export interface IndicesChanged {
  stored: StoredIndex[];
  /** The deleted indices' metadata as they were. */
  deleted: IndexMetadata[];
}

/** The writes of an {@link IndicesChange} decided on the indices `current` holds. */
interface IndicesWrites {
  ops: TxnOp[];
  /** The value each put index key gets. */
  values: Map<string, string>;
  /** The aliases of each changed or deleted index before the change. */
  before: AliasesByIndex;
  /** The aliases of each changed index after it. */
  after: AliasesByIndex;
  /** The deleted indices' metadata as they were. */
  deleted: IndexMetadata[];
  /** Aliases whose metadata changes on an index that keeps them. */
  edited: Set<string>;
}

/**
 * The puts (each index's `version` raised by one) and the deletes with their graveyard entries of
 * `change`, and how its indices' aliases change.
 * @throws EsError 404 when `change` names an index that `current` does not hold
 */
function indicesWrites(change: IndicesChange, current: ReadonlyMap<string, StoredIndex>): IndicesWrites {
  const ops: TxnOp[] = [];
  const values = new Map<string, string>();
  const before: AliasesByIndex = new Map();
  const after: AliasesByIndex = new Map();
  for (const m of change.put) {
    const was = current.get(m.name);
    if (!was) throw indexNotFound(m.name);
    const value = JSON.stringify({ ...m, version: was.metadata.version + 1 } satisfies IndexMetadata);
    ops.push({ op: 'put', key: indexKey(m.name), value });
    values.set(indexKey(m.name), value);
    before.set(m.name, aliasNamesOf(was.metadata));
    after.set(m.name, aliasNamesOf(m));
  }
  const deleted: IndexMetadata[] = [];
  for (const n of change.delete) {
    const was = current.get(n);
    if (!was) throw indexNotFound(n);
    deleted.push(was.metadata);
    ops.push(
      { op: 'delete', key: indexKey(n) },
      { op: 'put', key: graveyardKey(was.metadata.uuid), value: JSON.stringify({ name: n, deletedAt: Date.now() }) },
    );
    before.set(n, aliasNamesOf(was.metadata));
  }
  // An alias whose metadata changes on an index (is_write_index, filter, …) without gaining or
  // losing it is compared too: its checks across indices were decided on what the others hold.
  const edited = new Set<string>();
  for (const m of change.put) {
    const was = current.get(m.name)!.metadata.aliases ?? {};
    for (const [alias, md] of Object.entries(m.aliases ?? {})) if (was[alias] && JSON.stringify(was[alias]) !== JSON.stringify(md)) edited.add(alias);
  }
  return { ops, values, before, after, deleted, edited };
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
   * Stores a new index. `metadata.version` is kept as given (1 for a new index). With aliases,
   * `checkAliases` gets the indices their reservations name now (read at the revision compared), so
   * the checks across an alias's indices see what the txn is decided on.
   * @throws EsError 400 `resource_already_exists_exception` (with the existing uuid) when the name is
   *   taken, `invalid_index_name_exception` when an alias holds it; what `checkAliases` throws; 503
   *   when the store cannot be reached
   */
  async create(metadata: IndexMetadata, checkAliases?: (others: readonly IndexMetadata[]) => void): Promise<StoredIndex> {
    const key = indexKey(metadata.name);
    const value = JSON.stringify(metadata);
    const aliases = aliasNamesOf(metadata);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const names = await reservationChanges(this.store, new Map(), new Map([[metadata.name, aliases]]), []);
      if (checkAliases && names.listed.length > 0) {
        const others: IndexMetadata[] = [];
        for (const n of new Set(names.listed)) {
          const st = this.cache.get(n) ?? (await this.readAfterFailure(n, undefined));
          if (st) others.push(st.metadata);
        }
        checkAliases(others);
      }
      const own = { key: aliasKey(metadata.name), createRevision: 0 };
      let r: TxnResult;
      try {
        r = await this.store.txn({ compare: [{ key, createRevision: 0 }, own, ...names.compare], ops: [{ op: 'put', key, value }, ...names.ops] });
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
      if (r.current.get(own.key)) throw invalidIndexName(metadata.name, 'already exists as alias');
      failOnIndexNamedLikeAlias(r, new Set([metadata.name]));
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
      const names = await reservationChanges(this.store, new Map([[name, aliasNamesOf(current.metadata)]]), new Map(), [name]);
      const ops: TxnOp[] = [
        { op: 'delete', key },
        { op: 'put', key: graveyardKey(uuid), value: JSON.stringify({ name, deletedAt: Date.now() }) },
        ...prune.map((t): TxnOp => ({ op: 'delete', key: graveyardKey(t.uuid) })),
        ...names.ops,
      ];
      let r: TxnResult;
      try {
        r = await this.store.txn({ compare: [{ key, modRevision: current.modRevision }, ...names.compare], ops });
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
   * Changes and deletes several indices in one transaction (ES applies an `_aliases` request's
   * actions in one cluster state update, `MetadataIndexAliasesService`): `decide` gets the current
   * metadata of the `names` that exist and returns what to store and delete, only among them (or
   * null: nothing). Every index in `names` is compared, present or absent, so the change is decided
   * on one consistent state; an index that a touched alias names and `names` lacks (the alias gained
   * it through another coordinator) is read and compared too, and `decide` runs again with it; after a lost race or an unknown outcome `decide` runs again on the
   * state now stored, so it must decide from its argument (and what it reads of the cache) alone.
   * Alias name reservations follow the change (module comment).
   * @throws EsError what `decide` throws; 400 `invalid_alias_name_exception` when an index took an
   *   added alias's name meanwhile; 400 when the change touches more keys than one etcd
   *   transaction takes ({@link MAX_TXN_OPS}); 503 when the store cannot be reached or the indices
   *   kept changing for {@link CAS_ATTEMPTS} attempts
   */
  async changeIndices(given: readonly string[], decide: (current: ReadonlyMap<string, IndexMetadata>) => IndicesChange | null): Promise<IndicesChanged> {
    /** The indices read and compared: those given, and any index a touched alias's reservation names. */
    const names = [...new Set(given)];
    const current = new Map<string, StoredIndex>();
    const readAll = async (err: unknown) => {
      current.clear();
      for (const n of names) {
        const s = err === undefined ? (this.cache.get(n) ?? (await this.readAfterFailure(n, undefined))) : await this.readAfterFailure(n, err);
        if (s) current.set(n, s);
      }
    };
    await readAll(undefined);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const change = decide(new Map([...current].map(([n, s]) => [n, s.metadata])));
      if (change === null || (change.put.length === 0 && change.delete.length === 0)) return { stored: [], deleted: [] };
      const compare: Compare[] = names.map((n) => {
        const s = current.get(n);
        return s ? { key: indexKey(n), modRevision: s.modRevision } : { key: indexKey(n), createRevision: 0 };
      });
      const { ops, values, before, after, deleted, edited } = indicesWrites(change, current);
      const reserved = await reservationChanges(this.store, before, after, change.delete, edited);
      // An index a touched alias names that `decide` did not see (another coordinator added the alias
      // to it meanwhile): read it and decide again, on every index of the alias.
      const unseen = [...new Set(reserved.listed)].filter((n) => !names.includes(n));
      if (unseen.length > 0) {
        for (const n of unseen) {
          names.push(n);
          const st = this.cache.get(n) ?? (await this.readAfterFailure(n, undefined));
          if (st) current.set(n, st);
        }
        continue;
      }
      compare.push(...reserved.compare.filter((c) => !compare.some((d) => d.key === c.key)));
      ops.push(...reserved.ops);
      if (ops.length > MAX_TXN_OPS)
        throw illegalArgument(
          `the change touches ${ops.length} keys of the cluster state, more than one transaction takes (${MAX_TXN_OPS}); split it into smaller requests`,
        );
      let r: TxnResult;
      try {
        r = await this.store.txn({ compare, ops });
      } catch (err) {
        // Unknown outcome: read back and decide again (an applied change then decides "nothing").
        await readAll(err);
        continue;
      }
      if (r.succeeded) {
        // Applied together (no await between), so a search of this process sees all of it or none.
        const stored = [...values].map(([key, value]) => this.noteWritten(key, value, r.revision));
        for (const m of deleted) this.cache.noteDeleted(indexKey(m.name), r.revision);
        return { stored, deleted };
      }
      for (const [key, kv] of r.current) {
        if (!key.startsWith(INDICES_PREFIX)) continue;
        if (kv) this.cache.noteKv(kv);
        else this.cache.noteDeleted(key, r.revision);
      }
      failOnIndexNamedLikeAlias(r, new Set(names));
      current.clear();
      for (const n of names) {
        const s = this.cache.get(n);
        if (s) current.set(n, s);
      }
    }
    throw noMasterBlock(`indices [${names.join(', ')}] kept changing concurrently for ${CAS_ATTEMPTS} attempts`);
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
        const r = await this.store.txn({
          compare: [{ key: indexKey(m.name), createRevision: 0 }],
          ops: [{ op: 'put', key: indexKey(m.name), value: JSON.stringify(m) }],
        });
        if (r.succeeded) imported++;
      }
      const done = await this.store.txn({
        compare: [{ key: BOOTSTRAPPED_KEY, createRevision: 0 }],
        ops: [{ op: 'put', key: BOOTSTRAPPED_KEY, value: JSON.stringify({ at: Date.now(), imported }) }],
      });
      if (done.succeeded) this.cache.noteKv({ key: BOOTSTRAPPED_KEY, value: '', createRevision: done.revision, modRevision: done.revision, version: 1 });
    } catch (err) {
      if (isStateStoreError(err)) throw noMasterBlock(err.message);
      throw err;
    }
    if (imported > 0) this.log?.info({ imported }, "cluster state bootstrapped from the shard nodes' metadata");
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
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows the caller's caught value unchanged
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
