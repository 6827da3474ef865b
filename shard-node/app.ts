/**
 * The shard node's internal HTTP API (`/_internal/v1/…`): the actions of the RPC table
 * (protocol/rpc.ts), bound by one action module per family (search, write, metadata, recovery:
 * shard-node/action-module.ts), behind the cluster-secret check, the in-flight requests budget and
 * the HTTP metrics. Every reply echoes this node's identity and, for shard calls, the index and
 * shard, so that a mis-wired coordinator is detected. Handlers only translate a request to
 * {@link IndexRegistry} and engine calls.
 */
import { Hono } from 'hono';
import { toEsError } from '../protocol/errors.ts';
import type { Logger } from '../shared/logger.ts';
import { INTERNAL_PREFIX } from '../protocol/echo.ts';
import type { ShardNodeConfig } from './config.ts';
import { IndexRegistry } from './index-registry.ts';
import { RecoveryStates } from './recovery-states.ts';
import { ShardRequestCache } from './request-cache.ts';
import { CorruptSegmentFileError } from './engine/segment-file/corrupt-segment-file.ts';
import { registerShardProbes } from './probes.ts';
import { instrumentShardNode } from './metrics.ts';
import { clusterSecretAuth } from './cluster-auth.ts';
import { installInFlightBudget } from '../shared/body-budget.ts';
import { DEFAULT_MAX_OPEN_PIT_CONTEXT, DEFAULT_MAX_OPEN_SCROLL_CONTEXT, DEFAULT_MAX_OPEN_SNAPSHOT_CONTEXT, SearchContexts } from './search-contexts.ts';
import { PeerClient } from './peer-client.ts';
import { NodeClusterSettings } from './cluster-settings.ts';
import type { ActionModule } from './action-module.ts';
import { rpcApp } from './rpc-serve.ts';
import { withRpcFastPath, type NodeListener } from './rpc-fast-path.ts';
import { metadataActions } from './metadata-routes.ts';
import { writeActions } from './write-routes.ts';
import { searchActions } from './search-routes.ts';
import { recoveryActions } from './recovery-routes.ts';
import { snapshotActions } from './snapshot-routes.ts';

/** The node's action modules: every action of the RPC table is bound by one of them. */
export const ACTION_MODULES: readonly ActionModule[] = [metadataActions, writeActions, searchActions, recoveryActions, snapshotActions];

/** A non-negative integer setting value, else `fallback`. */
function countSetting(value: string | undefined, fallback: number): number {
  const n = value === undefined ? NaN : Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}

/**
 * The node's search contexts, with their limits: the cluster settings that act here, transient over
 * persistent over FOLIO_MAX_OPEN_* over the default.
 */
function searchContextsOf(config: ShardNodeConfig, clusterSettings: NodeClusterSettings): SearchContexts {
  const defaultLimits = {
    maxOpenScrollContext: config.maxOpenScrollContext ?? DEFAULT_MAX_OPEN_SCROLL_CONTEXT,
    maxOpenPitContext: config.maxOpenPitContext ?? DEFAULT_MAX_OPEN_PIT_CONTEXT,
    maxOpenSnapshotContext: config.maxOpenSnapshotContext ?? DEFAULT_MAX_OPEN_SNAPSHOT_CONTEXT,
  };
  const contexts = new SearchContexts(defaultLimits);
  clusterSettings.onChange((effective) => {
    contexts.limits.maxOpenScrollContext = countSetting(effective('search.max_open_scroll_context'), defaultLimits.maxOpenScrollContext);
    contexts.limits.maxOpenPitContext = countSetting(effective('search.max_open_pit_context'), defaultLimits.maxOpenPitContext);
  });
  return contexts;
}

/**
 * Builds the shard node's hono app over a registry. Testable in-process with `app.request()`.
 * Errors become ES error bodies with their status; unexpected ones are logged and answer 500.
 * `clusterSettings` holds the cluster settings for the coordinators (default: in memory only).
 */
export function createShardNodeApp(config: ShardNodeConfig, registry: IndexRegistry, log: Logger, clusterSettings = new NodeClusterSettings()): Hono {
  return createShardNode(config, registry, log, clusterSettings).app;
}

/** The shard node's HTTP handling: the hono app, and the listener that serves it with the search rounds' fast path. */
export interface ShardNodeHttp {
  app: Hono;
  /** `honoListener` (hono's node:http listener for `app`) with the search rounds answered first on node:http (shard-node/rpc-fast-path.ts). */
  listener(honoListener: NodeListener): NodeListener;
}

/** {@link createShardNodeApp}, with the node:http listener the service listens with (shard-node/main.ts). */
export function createShardNode(config: ShardNodeConfig, registry: IndexRegistry, log: Logger, clusterSettings = new NodeClusterSettings()): ShardNodeHttp {
  const app = new Hono();
  const contexts = searchContextsOf(config, clusterSettings);
  const metrics = instrumentShardNode(app, registry, contexts); // HTTP metrics middleware and `GET /metrics` (outside the internal prefix)
  const breaker = installInFlightBudget(app, config.inFlightRequestsLimitBytes, metrics.registry); // internal bodies reserve here
  // Authenticate first: a request without the cluster secret gets 401 before its body is read.
  app.use(`${INTERNAL_PREFIX}/*`, clusterSecretAuth(config.clusterSecret));
  app.onError((err, c) => {
    const es = toEsError(err);
    if (es.status >= 500) log.error({ err, path: c.req.path }, 'internal request failed');
    return c.json(es.toBody(), es.status as 500);
  });
  registerShardProbes(app, config.nodeId); // GET /livez, /readyz (Kubernetes probes, shard-node/probes.ts)

  const services = {
    registry,
    node: config.nodeId,
    log,
    contexts,
    keepAliveMs: config.searchContextKeepAliveMs,
    clusterSettings,
    // Calls to other shard nodes: a primary forwarding writes to its replicas (replication-operation.ts).
    peers: new PeerClient(config.clusterSecret),
    ...(config.peerUrls ? { peerUrls: config.peerUrls } : {}),
    ...(config.pathRepo ? { pathRepo: config.pathRepo } : {}),
    recoveryStates: new RecoveryStates(),
    requestCache: new ShardRequestCache(config.requestCacheBytes),
  };
  // Every handler reads its body within FOLIO_MAX_BODY_BYTES (413; rpc-serve.ts).
  // A read that finds a segment file corrupt fails that copy when another in-sync copy exists (shard-node/corrupt-copies.ts).
  const server = rpcApp(app, config.maxBodyBytes, (err) => {
    if (err instanceof CorruptSegmentFileError) registry.failCorruptCopy(err.resource, err.message);
  });
  for (const m of ACTION_MODULES) m.bind(server, services);
  const fast = { rpc: server, clusterSecret: config.clusterSecret, breaker, metrics: metrics.http, log };
  return { app, listener: (honoListener) => withRpcFastPath(fast, honoListener) };
}
