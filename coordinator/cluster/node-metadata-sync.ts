/**
 * Keeping the shard nodes' copies of the index metadata in line with the stored cluster state.
 * Shard nodes keep a copy of each index's metadata (they need mappings, primary terms and in-sync
 * sets on every op): each new value is pushed to every node after it is stored, and the node reload
 * pushes it again to a node that reports an older version, a different incarnation, or nothing (a
 * node that was down meanwhile), and deletes a copy whose index the graveyard names. A node adopts
 * a value only if its version is at least its own, so a stale push never goes back. On a store that
 * has never held the cluster's indices, the reload first imports the nodes' metadata (once). ES's
 * master publishes each cluster state to every node and the follower applies it.
 * @see docs/cluster-state.md
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-state-publishing.html
 */
import type { IndexMetadata, NodeIndicesResponse, PutIndexRequest } from '../../protocol/metadata.ts';
import { rpc } from '../../protocol/rpc.ts';
import type { ClusterStateCache } from '../../shared/cluster-state/cluster-state-cache.ts';
import type { ClusterStateWriter } from '../../shared/cluster-state/cluster-state-writer.ts';
import type { Logger } from '../../shared/logger.ts';
import type { ShardClient } from '../transport/shard-client.ts';
import type { NodeReports } from './node-reports.ts';

/** Deadline of one node's `GET /_internal/v1/indices` in a reload (a black-holed node must not stall it). */
export const VIEW_LOAD_TIMEOUT_MS = 3_000;

/** What {@link NodeMetadataSync} works with. */
export interface NodeMetadataSyncDeps {
  client: ShardClient;
  /** Bounds each call to a node (FOLIO_INTERNAL_TIMEOUT_MS). */
  timeoutMs: number;
  cache: ClusterStateCache;
  writer: ClusterStateWriter;
  /** What the nodes answered the last load; {@link NodeMetadataSync.align} reads it. */
  reports: NodeReports;
  log?: Logger;
}

/** See the module comment. */
export class NodeMetadataSync {
  private readonly deps: NodeMetadataSyncDeps;
  /** Per index, the push of the last change this coordinator stored, while it is on its way to the nodes. */
  private readonly publishing = new Map<string, Promise<void>>();
  /** Dangling copies already logged (`node/uuid`), so each is reported once. */
  private readonly danglingLogged = new Set<string>();

  constructor(deps: NodeMetadataSyncDeps) {
    this.deps = deps;
  }

  /**
   * Asks every node what it hosts (`GET /_internal/v1/indices`), within {@link VIEW_LOAD_TIMEOUT_MS}
   * per node; the calls are left out of the shard call counters.
   */
  askNodes(): Promise<PromiseSettledResult<NodeIndicesResponse>[]> {
    const { client } = this.deps;
    const timeoutMs = Math.min(this.deps.timeoutMs, VIEW_LOAD_TIMEOUT_MS);
    return Promise.allSettled(client.nodes.map((_, node) => client.rpc(node, rpc.listIndices, undefined, { timeoutMs, uncounted: true })));
  }

  /**
   * After a load the nodes answered: imports their metadata into a store never bootstrapped (once a
   * majority answered), then repairs each answering node ({@link repair}).
   */
  async align(): Promise<void> {
    const { cache, reports, client, log } = this.deps;
    if (!cache.loaded) return;
    if (!cache.bootstrapped && reports.answered() >= Math.floor(client.nodes.length / 2) + 1)
      await this.bootstrap().catch((err: Error) => log?.warn({ err: err.message }, 'cluster state bootstrap failed; retried at the next reload'));
    if (cache.bootstrapped) this.repair();
  }

  /** {@link publish}, recorded until it is done, so that {@link published} can wait for it. */
  async publishChange(name: string, metadata: IndexMetadata): Promise<void> {
    const done = this.publish(metadata);
    this.publishing.set(name, done);
    try {
      await done;
    } finally {
      if (this.publishing.get(name) === done) this.publishing.delete(name);
    }
  }

  /** The push of the last change of `name` this coordinator stored, while it is on its way (else undefined). */
  published(name: string): Promise<void> | undefined {
    return this.publishing.get(name);
  }

  /**
   * Pushes `metadata` to every node (each keeps the metadata of every index and opens or drops the
   * copies it names for it), waiting for the nodes that answered the last reload; a node that did not
   * gets the push in the background, so a change (and the write waiting for it) does not wait for an
   * unreachable node's deadline. Failures are left to the reload's repair.
   */
  async publish(metadata: IndexMetadata): Promise<void> {
    const pushes = this.deps.client.nodes.map((_, node) => ({ node, done: this.push(node, metadata) }));
    await Promise.allSettled(pushes.filter((p) => this.deps.reports.replied(p.node)).map((p) => p.done));
  }

  /** Deletes index `name` from every node; a node that cannot be reached drops its copies at a later reload. */
  dropIndex(name: string): Promise<PromiseSettledResult<unknown>[]> {
    const { client, timeoutMs } = this.deps;
    return Promise.allSettled(client.nodes.map((_, node) => client.rpc(node, rpc.deleteIndex, { index: name }, { timeoutMs })));
  }

  private push(node: number, metadata: IndexMetadata, uncounted = false): Promise<unknown> {
    const { client, timeoutMs, log } = this.deps;
    const body: PutIndexRequest = { metadata, shards: [], node };
    return client.rpc(node, rpc.putIndex, body, { timeoutMs, uncounted }).catch((err: Error) => {
      log?.debug(
        { node: client.nodes[node], index: metadata.name, version: metadata.version, err: err.message },
        'metadata push failed; the next reload repeats it',
      );
    });
  }

  /** Imports the highest version of each index the nodes report into a store that has never held them. */
  private async bootstrap(): Promise<void> {
    const best = new Map<string, IndexMetadata>();
    for (const [, report] of this.deps.reports.answeredReports()) {
      for (const entry of report.values()) {
        const cur = best.get(entry.metadata.name);
        if (!cur || entry.metadata.version > cur.version) best.set(entry.metadata.name, entry.metadata);
      }
    }
    await this.deps.writer.bootstrap([...best.values()]);
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
    const { cache, client, timeoutMs, log } = this.deps;
    for (const [node, report] of this.deps.reports.answeredReports()) {
      for (const name of cache.names()) {
        const stored = cache.get(name)!.metadata;
        const entry = report.get(name);
        if (!entry || entry.metadata.uuid !== stored.uuid || entry.metadata.version < stored.version) void this.push(node, stored, true);
      }
      for (const [name, entry] of report) {
        if (cache.get(name)) continue;
        const uuid = entry.metadata.uuid;
        if (cache.tombstone(uuid)) {
          void client.rpc(node, rpc.deleteIndex, { index: name }, { timeoutMs, uncounted: true }).catch(() => undefined);
        } else if (!this.danglingLogged.has(`${node}/${uuid}`)) {
          this.danglingLogged.add(`${node}/${uuid}`);
          log?.warn({ node: client.nodes[node], index: name, uuid }, 'dangling index: on a shard node but not in the cluster state; left on disk');
        }
      }
    }
  }
}
