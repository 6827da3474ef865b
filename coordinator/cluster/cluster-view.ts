/**
 * The coordinator's view of the cluster: index metadata and every copy of every shard (primary and
 * replicas, with their in-sync state). The metadata is the cluster state in the state store (etcd,
 * or the embedded store `npm start` serves), followed through an {@link ClusterStateCache} watch;
 * every change is one compare-and-swap on it ({@link ClusterStateWriter}), so coordinators stay
 * stateless, several can run side by side, and two of them can no longer decide differently (ES:
 * one elected master publishes versioned cluster states).
 *
 * Shard nodes keep a copy of each index's metadata (they need mappings, primary terms and in-sync
 * sets on every op); this view pushes each new value to them after it is stored, and the node
 * reload (once a second) pushes it again to a node that reports an older version, a different
 * incarnation, or nothing (a node that was down meanwhile), and deletes a copy whose index the
 * graveyard names. A node adopts a value only if its version is at least its own, so a stale push
 * never goes back. The reload also tells {@link ClusterView.onLoaded} which nodes missed it, the
 * hook of promotions and recoveries (copy-maintenance.ts), and which copies each node hosts.
 * Each index is handed out as an immutable {@link IndexView} value, with the pure routing over it
 * (index-view.ts); what each node reported is node-reports.ts.
 * @see docs/cluster-state.md
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-state-publishing.html
 */
import { randomBytes } from 'node:crypto';
import { ClusterStateWriter, type IndicesChange } from '../../shared/cluster-state/cluster-state-writer.ts';
import { noMasterBlock } from '../../shared/cluster-state/no-master-block.ts';
import { aliasKey } from '../../shared/cluster-state/keys.ts';
import type { ClusterStateCache, StoredIndex } from '../../shared/cluster-state/cluster-state-cache.ts';
import { EsError, indexNotFound } from '../../protocol/errors.ts';
import { mergeMappings } from '../../shared/dynamic-mapping.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Mapping } from '../../protocol/mapping.ts';
import { INTERNAL_PREFIX } from '../../protocol/echo.ts';
import {
  type AliasMetadata,
  type IndexMetadata,
  type NodeIndexEntry,
  type NodeIndicesResponse,
  type PutIndexRequest,
  primaryTermOf,
} from '../../protocol/metadata.ts';
import { isStateStoreError } from '../../shared/state-store/errors.ts';
import type { Compare } from '../../shared/state-store/types.ts';
import { promoted, withInSync, withoutInSync } from '../../shared/cluster-state/shard-copies.ts';
import { defaultRoutingNumShards } from './routing.ts';
import { checkAlias } from './aliases/alias-actions.ts';
import { AliasLookup, type AliasTarget } from './aliases/alias-lookup.ts';
import { checkOpen } from './index-state.ts';
import { shardTargets, viewOf, type IndexView, type ShardTarget } from './index-view.ts';
import { NodeReports } from './node-reports.ts';
import type { ShardClient } from '../transport/shard-client.ts';
import { allocateCopies, reallocateReplicas } from './shard-allocation.ts';

/** A reload older than this (ms) is refreshed in the background by the next {@link ClusterView.get}. */
export const VIEW_MAX_AGE_MS = 1_000;
/** Deadline of one node's `GET /_internal/v1/indices` in a reload (a black-holed node must not stall it). */
export const VIEW_LOAD_TIMEOUT_MS = 3_000;

/**
 * The primary of a write was demoted while its failed replicas were being taken out of sync: the
 * stored primary term of the shard is newer than the write's (ES `RetryOnPrimaryException`, whose
 * text this keeps). The write must not be acknowledged; `view` is the stored state that shows the
 * new primary, on which the write may be retried. An EsError 503, so a caller that does not retry
 * answers it as is.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/support/replication/ReplicationOperation.java
 */
export class PrimaryDemotedError extends EsError {
  /** The stored state that demoted the write's primary. */
  readonly view: IndexView;

  constructor(index: string, shard: number, primaryTerm: number, view: IndexView) {
    super(503, 'retry_on_primary_exception', `primary shard [${index}][${shard}] of term [${primaryTerm}] was demoted while failing replica shard (current term [${primaryTermOf(view.metadata, shard)}])`, {
      metadata: { index, shard: String(shard) },
    });
    this.view = view;
  }
}

/** Metadata of a new index, before it is written to the nodes (coordinator/cluster/index-settings.ts builds it). */
export interface NewIndexSpec {
  numberOfShards: number;
  numberOfReplicas: number;
  /** ES `index.number_of_routing_shards`; absent = ES's default for the shard count. */
  routingNumShards?: number;
  maxResultWindow: number;
  refreshIntervalMs: number;
  /** ES `index.translog.durability`; absent = the shard nodes' default. */
  translogDurability?: 'request' | 'async';
  /** ES `index.gc_deletes` in ms; absent = the shard nodes' default (60 s). */
  gcDeletesMs?: number;
  /** The explicit settings as ES stores them (`IndexMetadata.settings`). */
  settings?: IndexMetadata['settings'];
  mappings: Mapping;
  /** The `aliases` of the create body (`IndexMetadata.aliases`). */
  aliases?: Record<string, AliasMetadata>;
}

/** The cluster state a view reads and writes: the cache that follows the store, and its writer. */
export interface ClusterStateAccess {
  cache: ClusterStateCache;
  writer: ClusterStateWriter;
}

/** A cache's {@link ClusterStateAccess}: the cache and a writer over it. */
export function clusterStateAccess(cache: ClusterStateCache, log?: Logger): ClusterStateAccess {
  return { cache, writer: new ClusterStateWriter(cache, log) };
}

/** ES's checks of each alias of a new index with the indices it already names ({@link checkAlias}). */
function checkAliasesOfNewIndex(metadata: IndexMetadata, others: readonly IndexMetadata[]): void {
  for (const alias of Object.keys(metadata.aliases ?? {})) checkAlias(alias, [...others, metadata]);
}

/** Cluster view over the stored cluster state, with the shard nodes' reports of what they host. */
export class ClusterView {
  private readonly client: ShardClient;
  private readonly timeoutMs: number;
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
  /** Per index, the push of the last change this coordinator stored, while it is on its way to the nodes. */
  private readonly publishing = new Map<string, Promise<void>>();
  /** The alias lookup and the cache's indices generation it was built at. */
  private aliasMemo: { generation: number; lookup: AliasLookup } | null = null;
  /** Dangling copies already logged (`node/uuid`), so each is reported once. */
  private readonly danglingLogged = new Set<string>();
  /**
   * Called after each completed load with each node's consecutive missed loads and whether it has
   * departed ({@link ClusterView.departedNodes}): the hook that starts promotions and recoveries
   * (coordinator/cluster/copy-maintenance.ts). Never awaited; must not throw.
   */
  onLoaded: ((missedLoads: readonly number[], departed: readonly boolean[]) => void) | null = null;

  /** `timeoutMs` bounds each call to a node (FOLIO_INTERNAL_TIMEOUT_MS); `state` is the stored cluster state. */
  constructor(client: ShardClient, timeoutMs: number, state: ClusterStateAccess, log?: Logger) {
    this.client = client;
    this.timeoutMs = timeoutMs;
    this.state = state;
    this.log = log;
    this.reports = new NodeReports(client.nodes.length);
  }

  /**
   * Asks every reachable node what it hosts (which copies, which metadata version), pushes the
   * stored metadata to nodes that lag, and deletes copies of indices the graveyard names. On a
   * store that has never held the cluster's indices, imports the nodes' metadata first (once).
   * Concurrent calls share one load. Never slower than {@link VIEW_LOAD_TIMEOUT_MS} per node. Its
   * calls are left out of the shard call counters (`GET /_folio/stats`).
   */
  reload(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
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
   * `departed[node]`: the node has left the cluster by the store, its membership key (its lease:
   * shard-node/node-membership.ts) gone after this process saw it. A node whose id no load has
   * told yet, or that keeps no lease, is not departed (missed loads decide about it).
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
   * The index view. A name the cache does not know is read from the store (another coordinator may
   * have just created it); starts a background node reload when the last is older than {@link VIEW_MAX_AGE_MS}.
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
   * Every shard of the index with the in-sync copy to read first (adaptive replica selection:
   * coordinator/transport/replica-selection.ts) and the others as alternates ({@link shardTargets}). `picks` carries one
   * search's choices across indices (a pick counts as an outstanding request, as ES's per-search node counts).
   */
  targets(view: IndexView, picks: Map<number, number> = new Map()): ShardTarget[] {
    return shardTargets(view, (ready) => this.client.selection.order(ready, picks));
  }

  /**
   * Creates an index: one compare-and-swap that takes the name in the cluster state (so two
   * coordinators cannot create it twice with two uuids), then the metadata pushed to every node,
   * each of which opens the copies placed on it ({@link allocateCopies}). A node that cannot be
   * reached gets it from the next reload (its shards are unassigned until then, as in ES).
   * @throws EsError 400 resource_already_exists_exception; 503 cluster_block_exception when the store cannot be reached
   */
  async create(name: string, spec: NewIndexSpec): Promise<IndexView> {
    const metadata: IndexMetadata = {
      name,
      uuid: randomBytes(16).toString('base64url').slice(0, 22),
      numberOfShards: spec.numberOfShards,
      numberOfReplicas: spec.numberOfReplicas,
      routingNumShards: spec.routingNumShards ?? defaultRoutingNumShards(spec.numberOfShards),
      maxResultWindow: spec.maxResultWindow,
      refreshIntervalMs: spec.refreshIntervalMs,
      ...(spec.translogDurability ? { translogDurability: spec.translogDurability } : {}),
      ...(spec.gcDeletesMs !== undefined ? { gcDeletesMs: spec.gcDeletesMs } : {}),
      ...(spec.settings ? { settings: spec.settings } : {}),
      mappings: spec.mappings,
      ...(spec.aliases && Object.keys(spec.aliases).length > 0 ? { aliases: spec.aliases } : {}),
      creationDate: Date.now(),
      version: 1,
      shardCopies: allocateCopies(name, spec.numberOfShards, spec.numberOfReplicas, this.client.nodes.length),
    };
    // An alias of the new index must still pass ES's checks with the indices it names when stored.
    const check = metadata.aliases ? (others: readonly IndexMetadata[]) => checkAliasesOfNewIndex(metadata, others) : undefined;
    const stored = await this.state.writer.create(metadata, check);
    await this.publish(stored.metadata);
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
  async changeIndices(names: readonly string[], decide: (current: ReadonlyMap<string, IndexMetadata>) => IndicesChange | null): Promise<{ changed: IndexView[]; deleted: IndexMetadata[] }> {
    const { stored, deleted } = await this.state.writer.changeIndices(names, decide);
    for (const m of deleted) this.memo.delete(m.name);
    await Promise.all([
      ...stored.map((st) => this.publish(st.metadata)),
      ...deleted.map((m) =>
        Promise.allSettled(this.client.nodes.map((_, node) => this.client.call(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(m.name)}`, undefined, { method: 'DELETE', timeoutMs: this.timeoutMs }))),
      ),
    ]);
    return { changed: stored.map((st) => this.viewFor(st)), deleted };
  }

  /**
   * Deletes the index from the cluster state (its uuid goes to the graveyard), then from every
   * node; a node that cannot be reached drops its copies at a later reload.
   * @throws EsError 404 when unknown; 503 cluster_block_exception when the store cannot be reached
   */
  async delete(name: string): Promise<void> {
    const deleted = await this.state.writer.delete(name);
    this.memo.delete(name);
    await Promise.allSettled(
      this.client.nodes.map((_, node) => this.client.call(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(deleted.name)}`, undefined, { method: 'DELETE', timeoutMs: this.timeoutMs })),
    );
  }

  /**
   * Adds fields to the mapping (`PUT _mapping`), merged into the stored one (ES's master merging a
   * mapping update), then published to the nodes; returns the new view.
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
        out.shardCopies = reallocateReplicas(current.copies, out.numberOfReplicas, this.client.nodes.length).map((l) => l.map(({ node, primary, inSync }) => ({ node, primary, inSync })));
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
        failed = [];
        storedTerm = primaryTermOf(m, shard);
        if (primaryTerm !== undefined && storedTerm !== primaryTerm) return null;
        const copies = m.shardCopies;
        if (!copies) return null;
        const failing = nodes.filter((n) => copies[shard]?.some((c) => c.node === n && !c.primary));
        if (failing.length === 0) return null;
        const next = withoutInSync(copies, shard, failing);
        if (next === copies) return null;
        failed = failing;
        return { ...m, shardCopies: next };
      })
        .then((view) => {
          if (primaryTerm !== undefined && storedTerm !== undefined && storedTerm !== primaryTerm) throw new PrimaryDemotedError(name, shard, primaryTerm, view);
          // ES logs a failed shard copy at WARN on the master ("failing shard").
          if (failed.length > 0) this.log?.warn({ index: name, shard, nodes: failed.map((n) => this.client.nodes[n] ?? n), primaryTerm, why }, 'shard copies taken out of sync');
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
    return this.change(name, (m) => {
      if (!m.shardCopies) return null;
      const copy = m.shardCopies[shard]?.find((c) => c.node === node);
      if (failures !== undefined && copy && (copy.failures ?? 0) !== failures) {
        throw new EsError(409, 'illegal_state_exception', `[${name}][${shard}] the copy on node [${node}] failed during its recovery (failures ${copy.failures ?? 0}, ${failures} when it started)`);
      }
      const next = withInSync(m.shardCopies, shard, [node]);
      return next === m.shardCopies ? null : { ...m, shardCopies: next };
    }, guard);
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
    return this.change(name, (m) => {
      if (!m.shardCopies) return null;
      const term = primaryTermOf(m, shard);
      if (term !== expectedTerm) return null; // promoted (or demoted) by someone else meanwhile
      const terms = Array.from({ length: m.numberOfShards }, (_, s) => (s === shard ? term + 1 : primaryTermOf(m, s)));
      return { ...m, shardCopies: promoted(m.shardCopies, shard, node), primaryTerms: terms };
    }, guard);
  }

  /** Stores a change of one index (`mutate` as {@link ClusterStateWriter.update}), publishes it, and returns the new view. */
  private async change(name: string, mutate: (m: IndexMetadata) => IndexMetadata | null, guard?: Compare): Promise<IndexView> {
    const before = this.state.cache.get(name)?.modRevision;
    const stored = await this.state.writer.update(name, mutate, guard ? { guard } : {});
    if (stored.modRevision !== before) await this.publishChange(name, stored.metadata);
    // Nothing to change: a change this coordinator has just stored may still be on its way to the
    // nodes (a dynamic field a concurrent bulk added); wait for it, so a write that follows finds it there.
    else await this.publishing.get(name);
    return this.viewFor(stored);
  }

  /** {@link publish}, recorded in {@link publishing} until it is done. */
  private async publishChange(name: string, metadata: IndexMetadata): Promise<void> {
    const done = this.publish(metadata);
    this.publishing.set(name, done);
    try {
      await done;
    } finally {
      if (this.publishing.get(name) === done) this.publishing.delete(name);
    }
  }

  /**
   * Pushes `metadata` to every node (each keeps the metadata of every index and opens or drops the
   * copies it names for it), waiting for the nodes that answered the last reload; a node that did not
   * gets the push in the background, so a change (and the write waiting for it) does not wait for an
   * unreachable node's deadline. Failures are left to the reload's repair.
   */
  private async publish(metadata: IndexMetadata): Promise<void> {
    const pushes = this.client.nodes.map((_, node) => ({ node, done: this.push(node, metadata) }));
    await Promise.allSettled(pushes.filter((p) => this.nodeReplied(p.node)).map((p) => p.done));
  }

  private push(node: number, metadata: IndexMetadata, uncounted = false): Promise<unknown> {
    const body: PutIndexRequest = { metadata, shards: [], node };
    return this.client.call(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(metadata.name)}`, body, { method: 'PUT', timeoutMs: this.timeoutMs, uncounted }).catch((err: Error) => {
      this.log?.debug({ node: this.client.nodes[node], index: metadata.name, version: metadata.version, err: err.message }, 'metadata push failed; the next reload repeats it');
    });
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
    const uuid = stored.metadata.uuid;
    const entryOf = (node: number): NodeIndexEntry | null | undefined => this.reports.entry(node, name, uuid);
    const hosted = (s: number, node: number) => {
      const entry = entryOf(node);
      return entry === undefined ? true : entry !== null && entry.shards.includes(s);
    };
    const reportedHost = (s: number) => this.client.nodes.findIndex((_, node) => entryOf(node)?.shards.includes(s));
    const failed = (s: number, node: number) => entryOf(node)?.failed?.includes(s) === true;
    // A primary reports the replicas its forwarded writes failed on until the cluster state has them
    // out of sync; a report from before the copy's last stored failure (a node reload that started
    // before the copy failed and was recovered) is about an in-sync period that has ended.
    // Only the shard's primary by the stored state reports them (a restarted node that was demoted
    // meanwhile may report from its older metadata until it adopts the stored value).
    const storedFailures = (s: number, node: number) => stored.metadata.shardCopies?.[s]?.find((c) => c.node === node)?.failures ?? 0;
    const storedPrimary = (s: number) => stored.metadata.shardCopies?.[s]?.find((c) => c.primary)?.node;
    const pendingFailure = (s: number, node: number) => {
      const primary = storedPrimary(s);
      if (primary === undefined) return false;
      return entryOf(primary)?.pendingFailures?.some((p) => p.shard === s && p.node === node && (p.failures === undefined || p.failures >= storedFailures(s, node))) === true;
    };
    const view = viewOf(
      stored.metadata,
      this.client.nodes.length,
      hosted,
      (s) => {
        const host = reportedHost(s);
        return host >= 0 ? host : undefined;
      },
      failed,
      pendingFailure,
    );
    this.memo.set(name, { modRevision: stored.modRevision, epoch: this.reports.epoch, view });
    return view;
  }

  private async load(): Promise<void> {
    const timeoutMs = Math.min(this.timeoutMs, VIEW_LOAD_TIMEOUT_MS);
    const replies = await Promise.allSettled(
      this.client.nodes.map((_, node) => this.client.call<NodeIndicesResponse>(node, `${INTERNAL_PREFIX}/indices`, undefined, { method: 'GET', timeoutMs, uncounted: true })),
    );
    this.loadedAt = Date.now();
    // No node answered: keep what is known (searches then report shard failures, not missing indices).
    if (!this.reports.record(replies)) return;
    const cache = this.state.cache;
    if (cache.loaded) {
      if (!cache.bootstrapped && this.reports.answered() >= Math.floor(this.client.nodes.length / 2) + 1) await this.bootstrap().catch((err: Error) => this.log?.warn({ err: err.message }, 'cluster state bootstrap failed; retried at the next reload'));
      if (cache.bootstrapped) this.repair();
    }
    this.onLoaded?.(this.reports.missedLoadCounts(), this.departedNodes());
  }

  /** Imports the highest version of each index the nodes report into a store that has never held them. */
  private async bootstrap(): Promise<void> {
    const best = new Map<string, IndexMetadata>();
    for (const [, report] of this.reports.answeredReports()) {
      for (const entry of report.values()) {
        const cur = best.get(entry.metadata.name);
        if (!cur || entry.metadata.version > cur.version) best.set(entry.metadata.name, entry.metadata);
      }
    }
    await this.state.writer.bootstrap([...best.values()]);
  }

  /**
   * Brings each answering node in line with the stored state, in the background: pushes an index
   * the node lacks or holds in an older version or another incarnation, and deletes an index the
   * node holds whose uuid the graveyard names (deleted while the node was away). An index neither
   * stored nor in the graveyard is dangling: logged once and left on the node's disk, as ES 8 leaves
   * dangling indices to an operator (`GET /_dangling`).
   * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/modules-gateway.html#dangling-indices
   */
  private repair(): void {
    const cache = this.state.cache;
    for (const [node, report] of this.reports.answeredReports()) {
      for (const name of cache.names()) {
        const stored = cache.get(name)!.metadata;
        const entry = report.get(name);
        if (!entry || entry.metadata.uuid !== stored.uuid || entry.metadata.version < stored.version) void this.push(node, stored, true);
      }
      for (const [name, entry] of report) {
        if (cache.get(name)) continue;
        const uuid = entry.metadata.uuid;
        if (cache.tombstone(uuid)) {
          void this.client.call(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(name)}`, undefined, { method: 'DELETE', timeoutMs: this.timeoutMs, uncounted: true }).catch(() => undefined);
        } else if (!this.danglingLogged.has(`${node}/${uuid}`)) {
          this.danglingLogged.add(`${node}/${uuid}`);
          this.log?.warn({ node: this.client.nodes[node], index: name, uuid }, 'dangling index: on a shard node but not in the cluster state; left on disk');
        }
      }
    }
  }
}
