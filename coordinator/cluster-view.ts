/**
 * The coordinator's view of the cluster: index metadata and shard placement, rebuilt from the shard
 * nodes (which hold it) at start and whenever an index is not found locally, so coordinators stay
 * stateless and several can run side by side. Writes of metadata go to every node.
 */
import { randomBytes } from 'node:crypto';
import { EsError, indexAlreadyExists, indexNotFound, type ErrorCause } from '../shared/errors.ts';
import { mergeMappings } from '../shared/dynamic-mapping.ts';
import type { Mapping } from '../shared/mapping.ts';
import { INTERNAL_PREFIX, type IndexMetadata, type NodeIndicesResponse, type PutIndexRequest } from '../shared/protocol.ts';
import { defaultRoutingNumShards, nodeForShard } from '../shared/routing.ts';
import type { ShardClient } from './shard-client.ts';

/** An index as the coordinator sees it: metadata plus the node (index into FOLIO_NODES) of each shard. */
export interface IndexView {
  metadata: IndexMetadata;
  /** `placement[s]` = node index hosting shard s. */
  placement: number[];
}

/** A shard to search: which index, which shard, on which node. */
export interface ShardTarget {
  index: string;
  shard: number;
  node: number;
}

/** Metadata of a new index, before it is written to the nodes. */
export interface NewIndexSpec {
  numberOfShards: number;
  numberOfReplicas: number;
  maxResultWindow: number;
  refreshIntervalMs: number;
  /** ES `index.translog.durability`; absent = the shard nodes' default. */
  translogDurability?: 'request' | 'async';
  mappings: Mapping;
}

/** Shared cluster view with refresh-from-nodes on miss. */
export class ClusterView {
  private readonly client: ShardClient;
  private readonly timeoutMs: number;
  private indices = new Map<string, IndexView>();
  private loading: Promise<void> | null = null;

  constructor(client: ShardClient, timeoutMs: number) {
    this.client = client;
    this.timeoutMs = timeoutMs;
  }

  /**
   * Re-reads index metadata from every reachable node: the highest `version` of each index wins,
   * and placement is what the nodes report hosting (falling back to the deterministic placement).
   * Concurrent calls share one load.
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

  /** The index if known locally (no reload). */
  peek(name: string): IndexView | undefined {
    return this.indices.get(name);
  }

  /**
   * The index view; reloads from the nodes once on a miss (another coordinator may have created it).
   * @throws EsError 404 index_not_found_exception
   */
  async get(name: string): Promise<IndexView> {
    let view = this.indices.get(name);
    if (!view) {
      await this.reload();
      view = this.indices.get(name);
    }
    if (!view) throw indexNotFound(name);
    return view;
  }

  /** Every shard of the index with its node. */
  targets(view: IndexView): ShardTarget[] {
    return view.placement.map((node, shard) => ({ index: view.metadata.name, shard, node }));
  }

  /**
   * Creates an index on every node (each keeps the metadata; the placed nodes open their shards).
   * @throws EsError 400 resource_already_exists_exception
   */
  async create(name: string, spec: NewIndexSpec): Promise<IndexView> {
    const existing = this.indices.get(name) ?? (await this.reload(), this.indices.get(name));
    if (existing) throw indexAlreadyExists(name, existing.metadata.uuid);
    const metadata: IndexMetadata = {
      name,
      uuid: randomBytes(16).toString('base64url').slice(0, 22),
      numberOfShards: spec.numberOfShards,
      numberOfReplicas: spec.numberOfReplicas,
      routingNumShards: defaultRoutingNumShards(spec.numberOfShards),
      maxResultWindow: spec.maxResultWindow,
      refreshIntervalMs: spec.refreshIntervalMs,
      ...(spec.translogDurability ? { translogDurability: spec.translogDurability } : {}),
      mappings: spec.mappings,
      creationDate: Date.now(),
      version: 1,
    };
    const nodeCount = this.client.nodes.length;
    const placement = Array.from({ length: spec.numberOfShards }, (_, s) => nodeForShard(name, s, nodeCount));
    await this.broadcast((node) => {
      const body: PutIndexRequest = { metadata, shards: placement.flatMap((n, s) => (n === node ? [s] : [])) };
      return this.client.call(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(name)}`, body, {
        method: 'PUT',
        timeoutMs: this.timeoutMs,
      });
    });
    const view = { metadata, placement };
    this.indices.set(name, view);
    return view;
  }

  /** Deletes the index from every node. @throws EsError 404 when unknown */
  async delete(name: string): Promise<void> {
    await this.get(name);
    await this.broadcast((node) =>
      this.client.call(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(name)}`, undefined, { method: 'DELETE', timeoutMs: this.timeoutMs }),
    );
    this.indices.delete(name);
  }

  /** Adds fields to the mapping on every node (dynamic mapping or `PUT _mapping`); returns the new view. */
  async putMapping(name: string, update: Mapping): Promise<IndexView> {
    const view = await this.get(name);
    const merged = mergeMappings(view.metadata.mappings, update);
    await this.broadcast((node) =>
      this.client.call(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(name)}/_mapping`, update, { method: 'PUT', timeoutMs: this.timeoutMs }),
    );
    const next = { ...view, metadata: { ...view.metadata, mappings: merged, version: view.metadata.version + 1 } };
    this.indices.set(name, next);
    return next;
  }

  /** Writes changed dynamic settings to every node. */
  async putMetadata(name: string, change: Partial<Pick<IndexMetadata, 'maxResultWindow' | 'refreshIntervalMs' | 'numberOfReplicas' | 'translogDurability'>>): Promise<IndexView> {
    const view = await this.get(name);
    const metadata = { ...view.metadata, ...change, version: view.metadata.version + 1 };
    await this.broadcast((node) =>
      this.client.call(node, `${INTERNAL_PREFIX}/indices/${encodeURIComponent(name)}/_metadata`, metadata, { method: 'PUT', timeoutMs: this.timeoutMs }),
    );
    const next = { ...view, metadata };
    this.indices.set(name, next);
    return next;
  }

  private async broadcast(send: (node: number) => Promise<unknown>): Promise<void> {
    const results = await Promise.allSettled(this.client.nodes.map((_, node) => send(node)));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) {
      const err = (failed as PromiseRejectedResult).reason as { cause_?: ErrorCause; status?: number; message?: string };
      if (err.cause_ && err.status && err.status < 500) throw new EsError(err.status, err.cause_.type, err.cause_.reason ?? '');
      throw new EsError(503, 'cluster_block_exception', `metadata change could not reach every shard node: ${err.message ?? err}`);
    }
  }

  private async load(): Promise<void> {
    const replies = await Promise.allSettled(
      this.client.nodes.map((_, node) =>
        this.client.call<NodeIndicesResponse>(node, `${INTERNAL_PREFIX}/indices`, undefined, { method: 'GET', timeoutMs: this.timeoutMs }),
      ),
    );
    const next = new Map<string, IndexView>();
    const hosts = new Map<string, Map<number, number>>();
    replies.forEach((r, node) => {
      if (r.status !== 'fulfilled') return;
      for (const entry of r.value.indices) {
        const m = entry.metadata;
        const cur = next.get(m.name);
        if (!cur || m.version > cur.metadata.version) next.set(m.name, { metadata: m, placement: [] });
        const h = hosts.get(m.name) ?? new Map<number, number>();
        for (const s of entry.shards) h.set(s, node);
        hosts.set(m.name, h);
      }
    });
    const nodeCount = this.client.nodes.length;
    for (const [name, view] of next) {
      const h = hosts.get(name)!;
      view.placement = Array.from({ length: view.metadata.numberOfShards }, (_, s) => h.get(s) ?? nodeForShard(name, s, nodeCount));
    }
    this.indices = next;
  }
}
