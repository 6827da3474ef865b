/**
 * An action module: one family of the shard node's internal actions (search, write, metadata,
 * recovery) bound to the RPC table's descriptors (protocol/rpc.ts) over the node's services. The
 * node's app (shard-node/app.ts) is a loop over its modules; a new action goes into the module of
 * its family.
 */
import type { Logger } from '../shared/logger.ts';
import type { NodeClusterSettings } from './cluster-settings.ts';
import type { IndexRegistry } from './index-registry.ts';
import type { PeerClient } from './peer-client.ts';
import type { RecoveryStates } from './recovery-states.ts';
import type { ShardRequestCache } from './request-cache.ts';
import type { RpcApp } from './rpc-serve.ts';
import type { SearchContexts } from './search-contexts.ts';

/** What the action modules serve from: the node's shards, contexts, settings and peers. */
export interface ShardNodeServices {
  registry: IndexRegistry;
  /** This node's id (FOLIO_NODE_ID), echoed in every reply. */
  node: string;
  log: Logger;
  /** Open PIT and scroll contexts, and the pinned generations they hold. */
  contexts: SearchContexts;
  /** How long a generation a search read stays retained for its later rounds, in ms. */
  keepAliveMs: number;
  /** The cluster settings the coordinators read and write here (protocol/cluster-settings.ts). */
  clusterSettings: NodeClusterSettings;
  /** Calls to other shard nodes: a primary forwarding writes to its replicas. */
  peers: PeerClient;
  /** The node's own addresses of its peers by ordinal (ShardNodeConfig.peerUrls); unset: the coordinator's. */
  peerUrls?: readonly string[];
  /** FOLIO_PATH_REPO: the roots snapshot repositories may live under (ShardNodeConfig.pathRepo). */
  pathRepo?: readonly string[];
  /** The latest recovery of each copy here (`GET /_recovery`; shard-node/recovery-states.ts). */
  recoveryStates: RecoveryStates;
  /** The node's shard request cache (FOLIO_REQUEST_CACHE_BYTES; shard-node/request-cache.ts). */
  requestCache: ShardRequestCache;
}

/** A family of actions and how it binds them. */
export interface ActionModule {
  /** The family's name (search, write, metadata, recovery). */
  readonly name: string;
  /** Binds the family's actions to `app` with `serve` (shard-node/rpc-serve.ts). */
  bind(app: RpcApp, services: ShardNodeServices): void;
}
