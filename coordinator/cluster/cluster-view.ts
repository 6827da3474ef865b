/**
 * The coordinator's view of the cluster: index metadata and every copy of every shard (primary and replicas, with their in-sync
 * state). The metadata is the cluster state in the state store (etcd, or the embedded store `npm start` serves), followed through
 * an {@link ClusterStateCache} watch; every change is one compare-and-swap on it ({@link ClusterStateWriter}), so coordinators stay
 * stateless, several can run side by side, and two of them can no longer decide differently (ES: one elected master publishes
 * versioned cluster states).
 *
 * Shard nodes keep a copy of each index's metadata: this view pushes each new value to them after it is stored, and the node
 * reload (once a second) repairs a node that lags (node-metadata-sync.ts). The reload also tells {@link ClusterView.onLoaded}
 * which nodes missed it, the hook of promotions and recoveries (copy-maintenance.ts), and which copies each node hosts. Each
 * index is handed out as an immutable {@link IndexView} value, with the pure routing over it (index-view.ts); what each node
 * reported is node-reports.ts.
 * @see docs/cluster-state.md
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-state-publishing.html
 */
import { ClusterStateWriter, type IndicesChange } from '../../shared/cluster-state/cluster-state-writer.ts';
import { noMasterBlock } from '../../shared/cluster-state/no-master-block.ts';
import { aliasKey } from '../../shared/cluster-state/keys.ts';
import type { ClusterStateCache, StoredIndex } from '../../shared/cluster-state/cluster-state-cache.ts';
import { indexNotFound } from '../../protocol/errors.ts';
import { mergeMappings } from '../../shared/dynamic-mapping.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Mapping } from '../../protocol/mapping.ts';
import { type IndexMetadata, primaryTermOf } from '../../protocol/metadata.ts';
import { isStateStoreError } from '../../shared/state-store/errors.ts';
import type { Compare, StateStore } from '../../shared/state-store/types.ts';
import { AliasLookup, type AliasTarget } from './aliases/alias-lookup.ts';
import { inSyncChange, outOfSyncChange, PrimaryDemotedError, promotionChange } from './copy-state-changes.ts';
import { checkOpen } from './index-state.ts';
import { preferredShardTargets, type ResolvedPreference } from './copy-preference.ts';
import { hostOfUrl, type NodeIdentity } from './node-specs.ts';
import { shardTargets, viewOf, type IndexView, type ShardTarget } from './index-view.ts';
import { checkAliasesOfNewIndex, newIndexMetadata, type NewIndexSpec } from './new-index.ts';
import { NodeMetadataSync } from './node-metadata-sync.ts';
import { NodeReports } from './node-reports.ts';
import type { ShardClient } from '../transport/shard-client.ts';
import { reallocateReplicas } from './shard-allocation.ts';

/** A reload older than this (ms) is refreshed in the background by the next {@link ClusterView.get}. */
export const VIEW_MAX_AGE_MS = 1_000;
/** The cluster state a view reads and writes: the cache that follows the store, and its writer. */
export interface ClusterStateAccess {
  cache: ClusterStateCache;
  writer: ClusterStateWriter;
}

/** A cache's {@link ClusterStateAccess}: the cache and a writer over it. */
export function clusterStateAccess(cache: ClusterStateCache, log?: Logger): ClusterStateAccess {
  return { cache, writer: new ClusterStateWriter(cache, log) };
}

/** Cluster view over the stored cluster state, with the shard nodes' reports of what they host. */
export class ClusterView {
  private readonly client: ShardClient;
  private readonly state: ClusterStateAccess;
  private readonly log: Logger | undefined;
  private loading: Promise<void> | null = null;
  private loadedAt = 0;
  /** What the nodes answered the last load (coordinator/cluster/node-reports.ts). */
  private readonly reports: NodeReports;
  /** Views built, by index name, with the stored revision and load they reflect. */
  private readonly memo = new Map<string, { modRevision: number; epoch: number; view: IndexView }>();
  /** In-sync removals in flight, keyed `index/shard/nodes`: concurrent failed writes share one. */
  private readonly marking = new Map<string, Promise<IndexView>>();
  /** Pushes stored changes to the nodes and repairs the nodes that lag. */
  private readonly sync: NodeMetadataSync;
  /** The alias lookup and the cache's indices generation it was built at. */
  private aliasMemo: { generation: number; lookup: AliasLookup } | null = null;
  /**
   * Called after each completed load with each node's consecutive missed loads and whether it has
   * departed ({@link ClusterView.departedNodes}): the hook that starts promotions and recoveries
   * (coordinator/cluster/copy-maintenance.ts). Never awaited; must not throw.
   */
  onLoaded: ((missedLoads: readonly number[], departed: readonly boolean[]) => void) | null = null;

  /** `timeoutMs` bounds each call to a node (FOLIO_INTERNAL_TIMEOUT_MS); `state` is the stored cluster state. */
  constructor(client: ShardClient, timeoutMs: number, state: ClusterStateAccess, log?: Logger) {
    this.client = client;
    this.state = state;
    this.log = log;
    this.reports = new NodeReports(client.nodes.length);
    this.sync = new NodeMetadataSync({ client, timeoutMs, cache: state.cache, writer: state.writer, reports: this.reports, log });
  }

  /**
   * Asks every reachable node what it hosts (which copies, which metadata version), pushes the stored metadata to nodes that lag, and
   * deletes copies of indices the graveyard names. On a store that has never held the cluster's indices, imports the nodes' metadata
   * first (once). Concurrent calls share one load. Never slower than `VIEW_LOAD_TIMEOUT_MS` (node-metadata-sync.ts) per node. Its
   * calls are left out of the shard call counters (`GET /_folio/stats`).
   */
  reload(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  /** The cluster-state store itself, for the parts of the cluster state this view does not cache (snapshot repositories). */
  get stateStore(): StateStore {
    return this.state.cache.store;
  }

  /** Names of all known indices, sorted. */
  names(): string[] {
    return this.state.cache.names();
  }

  /** Each node's consecutive missed loads (0: it answered the last one, or none has run). */
  missedLoadCounts(): readonly number[] {
    return this.reports.missedLoadCounts();
  }

  /**
   * `departed[node]`: the node has left the cluster by the store, its membership key (its lease: shard-node/node-membership.ts) gone
   * after this process saw it. A node whose id no load has told yet, or that keeps no lease, is not departed (missed loads decide).
   */
  departedNodes(): boolean[] {
    return this.reports.departed((id) => this.state.cache.membership(id));
  }

  /** Whether node `node` answered the last load (true before the first one). */
  nodeReplied(node: number): boolean {
    return this.reports.replied(node);
  }

  /** The index if known locally (no store read). */
  peek(name: string): IndexView | undefined {
    const stored = this.state.cache.get(name);
    return stored && this.viewFor(stored);
  }

  /**
   * The index view; a name the cache does not know is read from the store (another coordinator may have made it). Reloads nodes past {@link VIEW_MAX_AGE_MS}.
   * @throws EsError 404 index_not_found_exception; 503 cluster_block_exception when the store cannot be reached
   */
  async get(name: string): Promise<IndexView> {
    if (this.loading === null && Date.now() - this.loadedAt >= VIEW_MAX_AGE_MS) void this.reload().catch(() => undefined);
    const stored = this.state.cache.get(name) ?? (await this.readStored(name));
    if (!stored) throw indexNotFound(name);
    return this.viewFor(stored);
  }

  /**
   * The view of an open index, for the document APIs (read or write one index by name).
   * @throws EsError 400 `index_closed_exception` for a closed index; else as {@link ClusterView.get}
   */
  async getOpen(name: string): Promise<IndexView> {
    const view = await this.get(name);
    checkOpen(view.metadata);
    return view;
  }

  /**
   * Every shard of the index with the in-sync copy to read first (adaptive replica selection: coordinator/transport/replica-selection.ts)
   * and the others as alternates ({@link shardTargets}). `picks` carries one search's choices across indices (a pick counts as an
   * outstanding request, as ES's per-search node counts). With a `preference`, its shards and copy order instead (copy-preference.ts).
   */
  targets(view: IndexView, picks: Map<number, number> = new Map(), preference?: ResolvedPreference): ShardTarget[] {
    if (preference) return preferredShardTargets(view, preference, this.client.selection, picks);
    return shardTargets(view, (ready) => this.client.selection.order(ready, picks));
  }

  /** The shard nodes by ordinal as a preference names them (node-specs.ts): id (from their last reply) and host. */
  nodeIdentities(): NodeIdentity[] {
    return this.client.nodes.map((url, node) => ({ id: this.reports.nodeId(node), host: hostOfUrl(url) }));
  }

  /**
   * Creates an index: one compare-and-swap that takes the name in the cluster state (so two coordinators cannot create it twice
   * with two uuids), then the metadata pushed to every node, each of which opens the copies placed on it ({@link allocateCopies}).
   * A node that cannot be reached gets it from the next reload (its shards are unassigned until then, as in ES).
   * @throws EsError 400 resource_already_exists_exception; 503 cluster_block_exception when the store cannot be reached
   */
  async create(name: string, spec: NewIndexSpec): Promise<IndexView> {
    const metadata = newIndexMetadata(name, spec, this.client.nodes.length);
    // An alias of the new index must still pass ES's checks with the indices it names when stored.
    const check = metadata.aliases ? (others: readonly IndexMetadata[]) => checkAliasesOfNewIndex(metadata, others) : undefined;
    const stored = await this.state.writer.create(metadata, check);
    await this.sync.publish(stored.metadata);
    return this.viewFor(stored);
  }

  /**
   * Every alias of the known indices (coordinator/cluster/aliases/alias-lookup.ts), built again only after
   * an index changed: a search through an alias costs one map lookup.
   */
  aliasLookup(): AliasLookup {
    const generation = this.state.cache.indicesGeneration;
    if (this.aliasMemo?.generation !== generation) {
      const indices = this.state.cache.names().map((n) => this.state.cache.get(n)!.metadata);
      this.aliasMemo = { generation, lookup: new AliasLookup(indices) };
    }
    return this.aliasMemo.lookup;
  }

  /**
   * The indices alias `name` names, from the store when this process does not know the alias (it may
   * have just been added through another coordinator: its name reservation lists its indices, read
   * from the store too). Undefined when there is no such alias.
   * @throws EsError 503 cluster_block_exception when the store cannot be reached
   */
  async findAlias(name: string): Promise<readonly AliasTarget[] | undefined> {
    const known = this.aliasLookup().targets(name);
    if (known) return known;
    let indices: unknown;
    try {
      const kv = await this.state.cache.store.get(aliasKey(name));
      indices = kv ? JSON.parse(kv.value) : undefined;
    } catch (err) {
      if (isStateStoreError(err)) throw noMasterBlock(err.message);
      if (err instanceof SyntaxError) return undefined;
      throw err;
    }
    if (!Array.isArray(indices)) return undefined;
    for (const i of indices) if (typeof i === 'string' && !this.state.cache.get(i)) await this.readStored(i);
    return this.aliasLookup().targets(name);
  }

  /**
   * Changes and deletes several indices in one compare-and-swap ({@link ClusterStateWriter.changeIndices}:
   * `decide` gets the stored metadata of the `names` that exist), then publishes the changed indices
   * to the nodes and drops the deleted ones from them, as {@link ClusterView.delete}.
   * @returns the changed indices' views and the deleted indices' metadata
   * @throws EsError what `decide` throws; 503 cluster_block_exception when the store cannot be reached
   */
  async changeIndices(
    names: readonly string[],
    decide: (current: ReadonlyMap<string, IndexMetadata>) => IndicesChange | null,
  ): Promise<{ changed: IndexView[]; deleted: IndexMetadata[] }> {
    const { stored, deleted } = await this.state.writer.changeIndices(names, decide);
    for (const m of deleted) this.memo.delete(m.name);
    await Promise.all([...stored.map((st) => this.sync.publish(st.metadata)), ...deleted.map((m) => this.sync.dropIndex(m.name))]);
    return { changed: stored.map((st) => this.viewFor(st)), deleted };
  }

  /**
   * Deletes the index from the cluster state (its uuid to the graveyard), then from every node (an unreachable one drops its copies at a later reload).
   * @throws EsError 404 when unknown; 503 cluster_block_exception when the store cannot be reached
   */
  async delete(name: string): Promise<void> {
    const deleted = await this.state.writer.delete(name);
    this.memo.delete(name);
    await this.sync.dropIndex(deleted.name);
  }

  /**
   * Adds fields to the mapping (`PUT _mapping`), merged into the stored one as ES's master merges it, then published to the nodes; returns the new view.
   * @throws EsError 400 for a conflicting mapping; 503 cluster_block_exception when the store cannot be reached
   */
  async putMapping(name: string, update: Mapping): Promise<IndexView> {
    return this.updateMapping(name, () => update);
  }

  /**
   * Adds the fields `updateOf` derives from the stored mapping (dynamic mapping: the new fields of a
   * bulk's documents), merged into it and published to the nodes; returns the new view (unchanged
   * when `updateOf` gives null or nothing new). `updateOf` runs on the stored value, and again on
   * the value now stored after a lost compare-and-swap, so it decides from the freshest mapping: a
   * field a concurrent change has just added is then already there, never a conflict (ES's primary
   * parses a document again against the mapping the master now has). It must decide from its
   * argument alone (idempotent).
   * @throws EsError 400 for a conflicting update; whatever `updateOf` throws; 503 cluster_block_exception when the store cannot be reached
   */
  async updateMapping(name: string, updateOf: (stored: Mapping) => Mapping | null): Promise<IndexView> {
    return this.change(name, (m) => {
      const update = updateOf(m.mappings);
      if (update === null) return null;
      const merged = mergeMappings(m.mappings, update);
      return JSON.stringify(merged) === JSON.stringify(m.mappings) ? null : { ...m, mappings: merged };
    });
  }

  /**
   * Stores a settings change of one index: `next` gives the new metadata from the stored one (null:
   * nothing to change). A `number_of_replicas` change also places or drops replica copies
   * ({@link reallocateReplicas}); new copies start out of sync. An `index.hidden` or `state`
   * change is one of these too: every coordinator and node then sees it.
   * @throws EsError 503 cluster_block_exception when the store cannot be reached; whatever `next` throws
   */
  async updateMetadata(name: string, next: (m: IndexMetadata) => IndexMetadata | null): Promise<IndexView> {
    return this.change(name, (m) => {
      const out = next(m);
      if (out === null) return null;
      if (out.numberOfReplicas !== m.numberOfReplicas) {
        const current = viewOf(m, this.client.nodes.length, () => true);
        out.shardCopies = reallocateReplicas(current.copies, out.numberOfReplicas, this.client.nodes.length).map((l) =>
          l.map(({ node, primary, inSync }) => ({ node, primary, inSync })),
        );
      }
      return out;
    });
  }

  /**
   * Takes the replicas of `shard` on `nodes` out of the in-sync set in the cluster state before the
   * write that failed on them is acknowledged (ES `ReplicationOperation` → shard failed → the
   * master removes the allocation id). Copies that are primaries or out of sync already by the
   * stored state are left as they are. Concurrent calls for the same copies share one.
   *
   * `primaryTerm`: the term of the write whose replicas failed. When the stored term of the shard
   * has moved past it, the write's primary was demoted meanwhile (a replica refused its ops with
   * the newer term, or the promoted copy never got them): its write must not be acknowledged, as
   * ES's master answers the demoted primary's shard-failed request with
   * `NoLongerPrimaryShardException` and the write is retried on the new primary
   * (`ReplicationOperation.onPrimaryDemoted`, `RetryOnPrimaryException`).
   * @throws PrimaryDemotedError when `primaryTerm` is no longer the shard's stored term (nothing stored);
   *   EsError 503 when the change cannot be stored (the write must not be acknowledged)
   */
  async markOutOfSync(name: string, shard: number, nodes: readonly number[], primaryTerm?: number, why?: string): Promise<IndexView> {
    const key = `${name}/${shard}/${[...nodes].sort((a, b) => a - b).join(',')}/${primaryTerm ?? ''}`;
    let running = this.marking.get(key);
    if (!running) {
      let storedTerm: number | undefined;
      let failed: number[] = [];
      running = this.change(name, (m) => {
        const decided = outOfSyncChange(m, shard, nodes, primaryTerm);
        storedTerm = decided.storedTerm;
        failed = decided.failing;
        return decided.next;
      })
        .then((view) => {
          if (primaryTerm !== undefined && storedTerm !== undefined && storedTerm !== primaryTerm)
            throw new PrimaryDemotedError(name, shard, primaryTerm, view);
          // ES logs a failed shard copy at WARN on the master ("failing shard").
          if (failed.length > 0)
            this.log?.warn({ index: name, shard, nodes: failed.map((n) => this.client.nodes[n] ?? n), primaryTerm, why }, 'shard copies taken out of sync');
          return view;
        })
        .finally(() => this.marking.delete(key));
      this.marking.set(key, running);
    }
    return running;
  }

  /**
   * Puts the recovered copy of `shard` on `node` in sync in the cluster state (the primary has it
   * in sync already: recovery finalize), as ES's master marks a started shard's allocation id in
   * sync. `failures` is the copy's {@link ShardCopy.failures} when its recovery started: a copy
   * failed since then (a write forwarded to it after finalize failed) stays out of sync, as ES
   * ignores a started-shard message for an allocation id that has failed. `guard`: the cluster
   * manager's election guard.
   * @throws EsError 409 when the copy failed during its recovery; 503 when the change cannot be stored or the guard no longer holds
   */
  async markInSync(name: string, shard: number, node: number, guard?: Compare, failures?: number): Promise<IndexView> {
    return this.change(name, (m) => inSyncChange(m, shard, node, failures), guard);
  }

  /**
   * Promotes the in-sync replica of `shard` on `node` to primary in the next primary term (ES's
   * master promoting a replica when the primary's node left): every other copy leaves the in-sync
   * set and will recover by a full copy. Decided on the stored state, so a replica another
   * coordinator has just taken out of sync is never promoted (issue 10, scenario 1). `guard`: the
   * cluster manager's election guard.
   * @throws EsError 503 when the change cannot be stored or the guard no longer holds; 400 when `node` holds no in-sync copy
   */
  async promote(name: string, shard: number, node: number, guard?: Compare): Promise<IndexView> {
    const expectedTerm = primaryTermOf((await this.get(name)).metadata, shard);
    return this.change(name, (m) => promotionChange(m, shard, node, expectedTerm), guard);
  }

  /** Stores a change of one index (`mutate` as {@link ClusterStateWriter.update}), publishes it, and returns the new view. */
  private async change(name: string, mutate: (m: IndexMetadata) => IndexMetadata | null, guard?: Compare): Promise<IndexView> {
    const before = this.state.cache.get(name)?.modRevision;
    const stored = await this.state.writer.update(name, mutate, guard ? { guard } : {});
    if (stored.modRevision !== before) await this.sync.publishChange(name, stored.metadata);
    // Nothing to change: a change this coordinator has just stored may still be on its way to the
    // nodes (a dynamic field a concurrent bulk added); wait for it, so a write that follows finds it there.
    else await this.sync.published(name);
    return this.viewFor(stored);
  }

  /** The stored index, read from the store. @throws EsError 503 when the store cannot be reached */
  private async readStored(name: string): Promise<StoredIndex | undefined> {
    try {
      return await this.state.cache.read(name);
    } catch (err) {
      if (isStateStoreError(err)) throw noMasterBlock(err.message);
      throw err;
    }
  }

  /** The view of a stored index with the copies the nodes reported at the last load. */
  private viewFor(stored: StoredIndex): IndexView {
    const name = stored.metadata.name;
    const memo = this.memo.get(name);
    if (memo && memo.modRevision === stored.modRevision && memo.epoch === this.reports.epoch) return memo.view;
    const view = this.reports.view(stored.metadata);
    this.memo.set(name, { modRevision: stored.modRevision, epoch: this.reports.epoch, view });
    return view;
  }

  private async load(): Promise<void> {
    const replies = await this.sync.askNodes();
    this.loadedAt = Date.now();
    // No node answered: keep what is known (searches then report shard failures, not missing indices).
    if (!this.reports.record(replies)) return;
    await this.sync.align();
    this.onLoaded?.(this.reports.missedLoadCounts(), this.departedNodes());
  }
}
