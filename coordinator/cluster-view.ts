/**
 * The coordinator's view of the cluster: index metadata and every copy of every shard (primary and
 * replicas, with their in-sync state), rebuilt from the shard nodes (which hold it) at start, once
 * a second in the background while it is used, and whenever an index is not found locally, so
 * coordinators stay stateless and several can run side by side.
 *
 * Metadata changes go to every node, which applies them to its own durable copy and bumps the
 * version; the highest version wins when nodes disagree, and a reload pushes it to a node that
 * reports an older one (a node that was down while something changed). Creating and deleting an
 * index needs every node; mapping, settings, in-sync and promotion changes need a majority of the
 * nodes (and, for taking a copy out of sync, every node holding a remaining in-sync copy of the
 * shard; for putting one in sync, the primary's node; for a promotion, the new primary's node), as
 * ES's master needs a quorum to publish a cluster state. Each completed load also tells
 * {@link ClusterView.onLoaded} which nodes missed it, the hook of promotions and recoveries
 * (copy-maintenance.ts). This is not a consensus protocol: see docs/reliability.md.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/modules-discovery-quorums.html
 */
import { randomBytes } from 'node:crypto';
import { EsError, indexAlreadyExists, indexNotFound, type ErrorCause } from '../shared/errors.ts';
import type { Mapping } from '../shared/mapping.ts';
import {
  INTERNAL_PREFIX,
  type IndexMetadata,
  type InSyncUpdateRequest,
  type MetadataResponse,
  type MetadataUpdateRequest,
  type NodeIndexEntry,
  type NodeIndicesResponse,
  type PromoteRequest,
  type PutIndexRequest,
  type ShardCopy,
  primaryTermOf,
} from '../shared/protocol.ts';
import { defaultRoutingNumShards, nodeForShard } from '../shared/routing.ts';
import { ShardCallError, type ShardClient } from './shard-client.ts';
import { allocateCopies, reallocateReplicas } from './shard-allocation.ts';

/** A reload older than this (ms) is refreshed in the background by the next {@link ClusterView.get}. */
export const VIEW_MAX_AGE_MS = 1_000;
/** Deadline of one node's `GET /_internal/v1/indices` in a reload (a black-holed node must not stall it). */
export const VIEW_LOAD_TIMEOUT_MS = 3_000;

/** One copy of a shard as the coordinator sees it: the metadata's copy, and whether its node reports hosting it. */
export interface CopyView extends ShardCopy {
  /** The node reported this copy at the last reload (true for copies this coordinator just placed). */
  hosted: boolean;
}

/** An index as the coordinator sees it: metadata plus where each shard's copies are. */
export interface IndexView {
  metadata: IndexMetadata;
  /** `placement[s]` = node (index into FOLIO_NODES) of shard s's primary. */
  placement: number[];
  /** `copies[s]`: every allocated copy of shard s, primary first. */
  copies: CopyView[][];
}

/** A shard to search: which index, which shard, which copy, and the copies to fail over to. */
export interface ShardTarget {
  index: string;
  shard: number;
  /** The copy this search reads (node ordinal). The fan-out re-points it when it fails over. */
  node: number;
  /** Other in-sync copies, best first, that a failed call retries on (absent or empty: none). */
  alternates?: number[];
}

/** Metadata of a new index, before it is written to the nodes. */
export interface NewIndexSpec {
  numberOfShards: number;
  numberOfReplicas: number;
  maxResultWindow: number;
  refreshIntervalMs: number;
  /** ES `index.translog.durability`; absent = the shard nodes' default. */
  translogDurability?: 'request' | 'async';
  /** ES `index.gc_deletes` in ms; absent = the shard nodes' default (60 s). */
  gcDeletesMs?: number;
  mappings: Mapping;
}

/** The dynamic settings `PUT /{index}/_settings` changes. */
export type MetadataChange = Partial<Pick<IndexMetadata, 'maxResultWindow' | 'refreshIntervalMs' | 'numberOfReplicas' | 'translogDurability' | 'gcDeletesMs'>>;

/** The shards among `copies` that have a copy on `node`. */
function shardsOn(copies: readonly (readonly ShardCopy[])[], node: number): number[] {
  return copies.flatMap((list, s) => (list.some((c) => c.node === node) ? [s] : []));
}

/**
 * The view of `metadata`; `hosted(shard, node)` says whether a node reports the copy. An index
 * from before replicas (no `shardCopies`) has one in-sync primary per shard, on the node that
 * reports it (else where the placement formula put it).
 */
export function viewOf(metadata: IndexMetadata, nodeCount: number, hosted: (shard: number, node: number) => boolean, reportedHost?: (shard: number) => number | undefined): IndexView {
  const copies: CopyView[][] = Array.from({ length: metadata.numberOfShards }, (_, s) => {
    const listed = metadata.shardCopies?.[s];
    if (listed) return listed.map((c) => ({ ...c, hosted: hosted(s, c.node) }));
    const node = reportedHost?.(s) ?? nodeForShard(metadata.name, s, nodeCount);
    return [{ node, primary: true, inSync: true, hosted: hosted(s, node) }];
  });
  const placement = copies.map((list) => (list.find((c) => c.primary) ?? list[0]).node);
  return { metadata, placement, copies };
}

/** Shared cluster view with refresh-from-nodes on miss and in the background. */
export class ClusterView {
  private readonly client: ShardClient;
  private readonly timeoutMs: number;
  private indices = new Map<string, IndexView>();
  private loading: Promise<void> | null = null;
  private loadedAt = 0;
  /** Counts local changes (create, delete, adopted replies); `touched` has each index's last one. */
  private epoch = 0;
  /** Indices changed here (name → epoch): a load that read the nodes before the change must not undo it. */
  private readonly touched = new Map<string, number>();
  /** In-sync removals in flight, keyed `index/shard/nodes`: concurrent failed writes share one. */
  private readonly marking = new Map<string, Promise<IndexView>>();
  /** `replied[node]`: the node answered the last load (a node never loaded counts as answering). */
  private replied: boolean[] = [];
  /** `missedLoads[node]`: consecutive loads the node did not answer. */
  private missedLoads: number[] = [];
  /**
   * Called after each completed load with the nodes that answered it: the hook that starts
   * promotions and recoveries (coordinator/copy-maintenance.ts). Never awaited; must not throw.
   */
  onLoaded: ((missedLoads: readonly number[]) => void) | null = null;

  /** `timeoutMs` bounds each metadata call to a node (FOLIO_INTERNAL_TIMEOUT_MS). */
  constructor(client: ShardClient, timeoutMs: number) {
    this.client = client;
    this.timeoutMs = timeoutMs;
  }

  /**
   * Re-reads index metadata from every reachable node: the highest `version` of each index wins
   * (never older than what this coordinator holds), copies are the metadata's with whether their
   * node reports them, and nodes that report an older version get the newest pushed. Concurrent
   * calls share one load. Never slower than {@link VIEW_LOAD_TIMEOUT_MS} per node. Its calls are left
   * out of the shard call counters (`GET /_folio/stats`).
   */
  reload(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  /** Names of all known indices, sorted. */
  names(): string[] {
    return [...this.indices.keys()].sort();
  }

  /** Whether node `node` answered the last load (true before the first one). */
  nodeReplied(node: number): boolean {
    return this.replied[node] ?? true;
  }

  /** The index if known locally (no reload). */
  peek(name: string): IndexView | undefined {
    return this.indices.get(name);
  }

  /**
   * The index view; reloads from the nodes once on a miss (another coordinator may have created it),
   * and starts a background reload when the view is older than {@link VIEW_MAX_AGE_MS}.
   * @throws EsError 404 index_not_found_exception
   */
  async get(name: string): Promise<IndexView> {
    if (this.loading === null && Date.now() - this.loadedAt >= VIEW_MAX_AGE_MS) void this.reload().catch(() => undefined);
    let view = this.indices.get(name);
    if (!view) {
      await this.reload();
      view = this.indices.get(name);
    }
    if (!view) throw indexNotFound(name);
    return view;
  }

  /**
   * Every shard of the index with the in-sync copy to read first (adaptive replica selection:
   * replica-selection.ts) and the others as alternates. `picks` carries one search's choices
   * across indices (a pick counts as an outstanding request, as ES's per-search node counts).
   */
  targets(view: IndexView, picks: Map<number, number> = new Map()): ShardTarget[] {
    return view.copies.map((copies, shard) => {
      const ready = copies.filter((c) => c.inSync).map((c) => c.node);
      const ranked = this.client.selection.order(ready.length > 0 ? ready : [view.placement[shard]], picks);
      return { index: view.metadata.name, shard, node: ranked[0], alternates: ranked.slice(1) };
    });
  }

  /** The in-sync copies of every shard grouped by node: what `_refresh` and `_flush` address. */
  copiesByNode(view: IndexView): Map<number, number[]> {
    const byNode = new Map<number, number[]>();
    view.copies.forEach((copies, shard) => {
      for (const c of copies) if (c.inSync) byNode.set(c.node, [...(byNode.get(c.node) ?? []), shard]);
    });
    return byNode;
  }

  /**
   * Creates an index on every node (each keeps the metadata; each node opens the copies placed on
   * it: {@link allocateCopies}).
   * @throws EsError 400 resource_already_exists_exception; 503 when a node cannot be reached
   */
  async create(name: string, spec: NewIndexSpec): Promise<IndexView> {
    const existing = this.indices.get(name) ?? (await this.reload(), this.indices.get(name));
    if (existing) throw indexAlreadyExists(name, existing.metadata.uuid);
    const nodeCount = this.client.nodes.length;
    const metadata: IndexMetadata = {
      name,
      uuid: randomBytes(16).toString('base64url').slice(0, 22),
      numberOfShards: spec.numberOfShards,
      numberOfReplicas: spec.numberOfReplicas,
      routingNumShards: defaultRoutingNumShards(spec.numberOfShards),
      maxResultWindow: spec.maxResultWindow,
      refreshIntervalMs: spec.refreshIntervalMs,
      ...(spec.translogDurability ? { translogDurability: spec.translogDurability } : {}),
      ...(spec.gcDeletesMs !== undefined ? { gcDeletesMs: spec.gcDeletesMs } : {}),
      mappings: spec.mappings,
      creationDate: Date.now(),
      version: 1,
      shardCopies: allocateCopies(name, spec.numberOfShards, spec.numberOfReplicas, nodeCount),
    };
    await this.broadcastAll((node) => {
      const body: PutIndexRequest = { metadata, shards: shardsOn(metadata.shardCopies!, node), node };
      return this.client.call(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(name)}`, body, { method: 'PUT', timeoutMs: this.timeoutMs });
    });
    const view = viewOf(metadata, nodeCount, () => true);
    this.set(name, view);
    return view;
  }

  /** Deletes the index from every node. @throws EsError 404 when unknown; 503 when a node cannot be reached */
  async delete(name: string): Promise<void> {
    await this.get(name);
    await this.broadcastAll((node) =>
      this.client.call(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(name)}`, undefined, { method: 'DELETE', timeoutMs: this.timeoutMs }),
    );
    this.set(name, undefined);
  }

  /** Records a local change of an index's view (undefined: deleted), so that a load running meanwhile keeps it. */
  private set(name: string, view: IndexView | undefined): void {
    if (view) this.indices.set(name, view);
    else this.indices.delete(name);
    this.touched.set(name, ++this.epoch);
  }

  /**
   * Adds fields to the mapping on the nodes (dynamic mapping or `PUT _mapping`), each merging into
   * its own; returns the new view.
   * @throws EsError 400 for a conflicting mapping; 503 without a majority of the nodes
   */
  async putMapping(name: string, update: Mapping): Promise<IndexView> {
    await this.get(name);
    const replies = await this.broadcastQuorum(
      (node) => this.client.call<MetadataResponse>(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(name)}/_mapping`, update, { method: 'PUT', timeoutMs: this.timeoutMs }),
      new Set(),
    );
    return this.adopt(name, replies);
  }

  /**
   * Writes changed dynamic settings to the nodes. A `number_of_replicas` change also places or
   * drops replica copies ({@link reallocateReplicas}); new copies start out of sync.
   * @throws EsError 503 without a majority of the nodes
   */
  async putMetadata(name: string, change: MetadataChange): Promise<IndexView> {
    const view = await this.get(name);
    const update: MetadataUpdateRequest = { ...change };
    if (change.numberOfReplicas !== undefined && change.numberOfReplicas !== view.metadata.numberOfReplicas) {
      update.shardCopies = reallocateReplicas(view.copies, change.numberOfReplicas, this.client.nodes.length).map((l) => l.map(({ node, primary, inSync }) => ({ node, primary, inSync })));
    }
    const replies = await this.broadcastQuorum(
      (node) =>
        this.client.call<MetadataResponse>(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(name)}/_metadata`, { ...update, node } satisfies MetadataUpdateRequest, {
          method: 'PUT',
          timeoutMs: this.timeoutMs,
        }),
      new Set(),
    );
    return this.adopt(name, replies);
  }

  /**
   * Takes the replicas of `shard` on `nodes` out of the in-sync set, durably on the nodes, before
   * the write that failed on them is acknowledged (ES `ReplicationOperation` → shard failed → the
   * master removes the allocation id). Needs every node holding a remaining in-sync copy of the
   * shard and a majority of all nodes. Concurrent calls for the same copies share one.
   * @throws EsError 503 when the change cannot be made durable (the write must not be acknowledged)
   */
  markOutOfSync(name: string, shard: number, nodes: readonly number[]): Promise<IndexView> {
    const key = `${name}/${shard}/${[...nodes].sort((a, b) => a - b).join(',')}`;
    let running = this.marking.get(key);
    if (!running) {
      running = this.runMarkOutOfSync(name, shard, nodes).finally(() => this.marking.delete(key));
      this.marking.set(key, running);
    }
    return running;
  }

  private async runMarkOutOfSync(name: string, shard: number, nodes: readonly number[]): Promise<IndexView> {
    const view = await this.get(name);
    const copies = view.copies[shard];
    // A copy out of sync in this view may be in sync on the nodes (a recovery another coordinator
    // just finished, named in sync by the primary's reply): the nodes decide, a no-op where it is out already.
    const failing = nodes.filter((n) => copies.some((c) => c.node === n && !c.primary));
    if (failing.length === 0) return view;
    const required = new Set(copies.filter((c) => c.inSync && !failing.includes(c.node)).map((c) => c.node));
    const body: InSyncUpdateRequest = { shard, nodes: failing };
    const replies = await this.broadcastQuorum(
      (node) => this.client.call<MetadataResponse>(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(name)}/_in_sync`, body, { method: 'PUT', timeoutMs: this.timeoutMs }),
      required,
    );
    const next = this.adopt(name, replies);
    if (!next.copies[shard].some((c) => failing.includes(c.node) && c.inSync)) return next;
    // A concurrent change made the local view as new as the replies: the mark is durable on the
    // nodes, so apply it here too (the next reload brings the version that has both).
    const marked = { ...next, copies: next.copies.map((list, s) => (s !== shard ? list : list.map((c) => (failing.includes(c.node) ? { ...c, inSync: false } : c)))) };
    this.set(name, marked);
    return marked;
  }

  /**
   * Puts the recovered copy of `shard` on `node` in sync on the nodes (the primary has it in sync
   * already: recovery finalize), as ES's master marks a started shard's allocation id in sync.
   * Needs the primary's node and a majority of all nodes.
   * @throws EsError 503 when the change cannot be made durable
   */
  async markInSync(name: string, shard: number, node: number): Promise<IndexView> {
    const view = await this.get(name);
    const body: InSyncUpdateRequest = { shard, nodes: [node], inSync: true };
    const replies = await this.broadcastQuorum(
      (n) => this.client.call<MetadataResponse>(n, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(name)}/_in_sync`, body, { method: 'PUT', timeoutMs: this.timeoutMs, uncounted: true }),
      new Set([view.placement[shard]]),
    );
    return this.adopt(name, replies);
  }

  /**
   * Promotes the in-sync replica of `shard` on `node` to primary in the next primary term (ES's
   * master promoting a replica when the primary's node left): every other copy leaves the in-sync
   * set and will recover by a full copy. Needs the new primary's node and a majority of all nodes.
   * @throws EsError 503 when the change cannot be made durable; 400 when `node` holds no in-sync copy
   */
  async promote(name: string, shard: number, node: number): Promise<IndexView> {
    const view = await this.get(name);
    const body: PromoteRequest = { shard, node, term: primaryTermOf(view.metadata, shard) + 1 };
    const replies = await this.broadcastQuorum(
      (n) => this.client.call<MetadataResponse>(n, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(name)}/_promote`, body, { method: 'PUT', timeoutMs: this.timeoutMs, uncounted: true }),
      new Set([node]),
    );
    return this.adopt(name, replies);
  }

  /** Takes the highest-version metadata among the nodes' replies (if newer than the local one) as the index's view. */
  private adopt(name: string, replies: readonly unknown[]): IndexView {
    const current = this.indices.get(name);
    let best: IndexMetadata | undefined;
    for (const r of replies) {
      const m = (r as Partial<MetadataResponse> | undefined)?.metadata;
      if (m && m.name === name && (!best || m.version > best.version)) best = m;
    }
    if (!best || (current && (current.metadata.uuid !== best.uuid || current.metadata.version >= best.version))) {
      if (current) return current;
      throw indexNotFound(name);
    }
    const hostedBefore = (s: number, node: number) => current?.copies[s]?.find((c) => c.node === node)?.hosted ?? true;
    const next = viewOf(best, this.client.nodes.length, hostedBefore, (s) => current?.placement[s]);
    this.set(name, next);
    return next;
  }

  /** Sends to every node; every one must succeed. @throws EsError (the node's 4xx, else 503 cluster_block_exception) */
  private async broadcastAll(send: (node: number) => Promise<unknown>): Promise<unknown[]> {
    const results = await Promise.allSettled(this.client.nodes.map((_, node) => send(node)));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) {
      const err = (failed as PromiseRejectedResult).reason as { cause_?: ErrorCause; status?: number; message?: string };
      if (err.cause_ && err.status && err.status < 500) throw new EsError(err.status, err.cause_.type, err.cause_.reason ?? '');
      throw new EsError(503, 'cluster_block_exception', `metadata change could not reach every shard node: ${err.message ?? err}`);
    }
    return results.map((r) => (r as PromiseFulfilledResult<unknown>).value);
  }

  /**
   * Sends to every node; succeeds once a majority (⌊N/2⌋ + 1) answered, `required` among them.
   * Nodes that cannot be reached, answer 5xx, or do not know the index yet are left to the next
   * reload's repair; any other error reply is thrown as the node's ES error.
   * @returns the successful replies.
   * @throws EsError 503 `cluster_block_exception` without the quorum or a required node
   */
  private async broadcastQuorum(send: (node: number) => Promise<unknown>, required: ReadonlySet<number>): Promise<unknown[]> {
    const results = await Promise.allSettled(this.client.nodes.map((_, node) => send(node)));
    const ok: unknown[] = [];
    const missing: string[] = [];
    results.forEach((r, node) => {
      if (r.status === 'fulfilled') return void ok.push(r.value);
      const err = r.reason as unknown;
      const call = err instanceof ShardCallError ? err : null;
      const stale = call?.kind === 'response' && call.status === 404 && call.cause_.type === 'index_not_found_exception';
      if (call?.kind === 'response' && call.status < 500 && !stale) throw new EsError(call.status, call.cause_.type, String(call.cause_.reason ?? ''));
      if (!call) throw err;
      missing.push(`[${this.client.nodes[node]}] ${call.message}`);
      if (required.has(node)) throw new EsError(503, 'cluster_block_exception', `metadata change could not reach the node of an in-sync copy: ${call.message}`);
    });
    const quorum = Math.floor(this.client.nodes.length / 2) + 1;
    if (ok.length < quorum) {
      throw new EsError(503, 'cluster_block_exception', `metadata change reached ${ok.length} of ${this.client.nodes.length} shard nodes, ${quorum} needed: ${missing.join('; ')}`);
    }
    return ok;
  }

  private async load(): Promise<void> {
    const since = this.epoch;
    const timeoutMs = Math.min(this.timeoutMs, VIEW_LOAD_TIMEOUT_MS);
    const replies = await Promise.allSettled(
      this.client.nodes.map((_, node) => this.client.call<NodeIndicesResponse>(node, `${INTERNAL_PREFIX}/indices`, undefined, { method: 'GET', timeoutMs, uncounted: true })),
    );
    this.loadedAt = Date.now();
    this.replied = replies.map((r) => r.status === 'fulfilled');
    this.missedLoads = this.replied.map((ok, node) => (ok ? 0 : (this.missedLoads[node] ?? 0) + 1));
    // No node answered: keep what is known (searches then report shard failures, not missing indices).
    if (replies.every((r) => r.status === 'rejected')) return;
    const best = new Map<string, IndexMetadata>();
    const reports = new Map<string, Map<number, NodeIndexEntry>>();
    replies.forEach((r, node) => {
      if (r.status !== 'fulfilled') return;
      for (const entry of r.value.indices) {
        const m = entry.metadata;
        const cur = best.get(m.name);
        if (!cur || m.version > cur.version) best.set(m.name, m);
        const byNode = reports.get(m.name) ?? new Map<number, NodeIndexEntry>();
        byNode.set(node, entry);
        reports.set(m.name, byNode);
      }
    });
    const nodeCount = this.client.nodes.length;
    const next = new Map<string, IndexView>();
    for (const [name, reported] of best) {
      const current = this.indices.get(name);
      // Never step back: a change this coordinator made may be newer than what a slow reply saw.
      const metadata = current && current.metadata.uuid === reported.uuid && current.metadata.version > reported.version ? current.metadata : reported;
      const byNode = reports.get(name)!;
      const hosted = (s: number, node: number) => byNode.get(node)?.shards.includes(s) ?? false;
      const reportedHost = (s: number) => [...byNode].find(([, e]) => e.shards.includes(s))?.[0];
      next.set(name, viewOf(metadata, nodeCount, hosted, reportedHost));
      this.repair(metadata, byNode);
    }
    // Changes made here while the nodes were read win over what the replies said (created, deleted, marked).
    for (const [name, at] of this.touched) {
      if (at <= since) {
        this.touched.delete(name);
        continue;
      }
      const local = this.indices.get(name);
      const remote = next.get(name);
      if (!local) next.delete(name);
      else if (!remote || remote.metadata.uuid !== local.metadata.uuid || remote.metadata.version < local.metadata.version) next.set(name, local);
    }
    this.indices = next;
    this.onLoaded?.(this.missedLoads);
  }

  /**
   * Pushes `metadata` to the nodes that reported an older version of the same index (they missed
   * changes while unreachable), in the background; failures wait for the next reload.
   */
  private repair(metadata: IndexMetadata, byNode: Map<number, NodeIndexEntry>): void {
    for (const [node, entry] of byNode) {
      if (entry.metadata.uuid !== metadata.uuid || entry.metadata.version >= metadata.version) continue;
      const body: PutIndexRequest = { metadata, shards: metadata.shardCopies ? [] : entry.shards, node };
      void this.client
        .call(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(metadata.name)}`, body, { method: 'PUT', timeoutMs: this.timeoutMs, uncounted: true })
        .catch(() => undefined);
    }
  }
}
