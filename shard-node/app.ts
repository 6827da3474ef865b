/**
 * The shard node's internal HTTP API (`/_internal/v1/…`, JSON; query-phase entries optionally in
 * the binary `application/x-folio-hits` format, see protocol/wire.ts; the search endpoints and their
 * batch are in shard-node/search-routes.ts). Every reply echoes this node's
 * identity and, for shard calls, the index and shard, so that a mis-wired coordinator is detected.
 * Handlers only translate HTTP to {@link IndexRegistry} and engine calls.
 */
import { yieldToEventLoop } from '../shared/event-loop-slices.ts';
import { Hono, type Context } from 'hono';
import { EsError, toEsError } from '../protocol/errors.ts';
import type { Logger } from '../shared/logger.ts';
import { type ClusterSettingsResponse, type ClusterSettingsUpdateRequest } from '../protocol/cluster-settings.ts';
import { INTERNAL_PREFIX } from '../protocol/echo.ts';
import { type NodeIndicesResponse, type NodeStats, type PutIndexRequest, type RefreshRequest } from '../protocol/metadata.ts';
import {
  type AdvanceScrollRequest,
  type AdvanceScrollResponse,
  type CloseContextsRequest,
  type LabelPitRequest,
  type ListPitsResponse,
  type CloseContextsResponse,
  type OpenContextRequest,
  type OpenContextResponse,
} from '../protocol/search.ts';
import { type GetRequest, type GetResponse } from '../protocol/write.ts';
import type { ShardNodeConfig } from './config.ts';
import { IndexRegistry } from './index-registry.ts';
import { registerShardProbes } from './probes.ts';
import { instrumentShardNode } from './metrics.ts';
import { clusterSecretAuth } from './cluster-auth.ts';
import { readRequestBody } from '../shared/request-body.ts';
import { installInFlightBudget, reservationOf } from '../shared/body-budget.ts';
import { createSearchActions } from './search-actions.ts';
import { registerSearchRoutes } from './search-routes.ts';
import { DEFAULT_MAX_OPEN_PIT_CONTEXT, DEFAULT_MAX_OPEN_SCROLL_CONTEXT, DEFAULT_MAX_OPEN_SNAPSHOT_CONTEXT, SearchContexts } from './search-contexts.ts';
import { PeerClient } from './peer-client.ts';
import { parseJsonSliced } from '../shared/json-parse-sliced.ts';
import { registerReplicaRoutes } from './replica-routes.ts';
import { registerPrimaryBulkRoute } from './primary-bulk-route.ts';
import { registerRecoveryRoutes } from './recovery-routes.ts';
import { NodeClusterSettings } from './cluster-settings.ts';

/**
 * Parses an internal JSON body, read from the Node request stream (shared/request-body.ts).
 * The bytes are reserved on the node's in-flight requests breaker first (shared/body-budget.ts).
 * @throws EsError 413 over `maxBytes`, 429 past the in-flight budget, 400 on malformed JSON (never a 500)
 */
async function readInternalJson<T>(c: Context, maxBytes: number): Promise<T> {
  const bytes = await readRequestBody(c, maxBytes, () => bodyTooLarge(maxBytes), reservationOf(c));
  const large = bytes.byteLength >= YIELD_AROUND_PARSE_BYTES;
  if (large) await yieldToEventLoop();
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  let parsed: T;
  try {
    // A large body (a query with a 60,000-value `terms` list: 45-145 ms in one JSON.parse on a
    // loaded node) is parsed in pieces that yield to the event loop (shared/json-parse-sliced.ts).
    parsed = (large ? await parseJsonSliced(text) : JSON.parse(text)) as T;
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new EsError(400, 'x_content_parse_exception', `malformed internal request: ${err.message}`);
  }
  // The work on a large body starts in an event-loop task of its own (docs/reliability.md).
  if (large) await yieldToEventLoop();
  return parsed;
}

/** Internal bodies from this size on are parsed in slices, in event-loop tasks of their own. */
const YIELD_AROUND_PARSE_BYTES = 256 * 1024;


/** The shard node's 413 for an internal body over FOLIO_MAX_BODY_BYTES. */
function bodyTooLarge(maxBytes: number): EsError {
  return new EsError(413, 'content_too_long_exception', `internal request body exceeds [${maxBytes}] bytes`);
}

/** A non-negative integer setting value, else `fallback`. */
function countSetting(value: string | undefined, fallback: number): number {
  const n = value === undefined ? NaN : Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}

/**
 * Builds the shard node's hono app over a registry. Testable in-process with `app.request()`.
 * Errors become ES error bodies with their status; unexpected ones are logged and answer 500.
 * `clusterSettings` holds the cluster settings for the coordinators (default: in memory only).
 */
export function createShardNodeApp(config: ShardNodeConfig, registry: IndexRegistry, log: Logger, clusterSettings = new NodeClusterSettings()): Hono {
  const app = new Hono();
  const node = config.nodeId;
  const keepAliveMs = config.searchContextKeepAliveMs;
  const defaultLimits = {
    maxOpenScrollContext: config.maxOpenScrollContext ?? DEFAULT_MAX_OPEN_SCROLL_CONTEXT,
    maxOpenPitContext: config.maxOpenPitContext ?? DEFAULT_MAX_OPEN_PIT_CONTEXT,
    maxOpenSnapshotContext: config.maxOpenSnapshotContext ?? DEFAULT_MAX_OPEN_SNAPSHOT_CONTEXT,
  };
  const contexts = new SearchContexts(defaultLimits);
  // Calls to other shard nodes: a primary forwarding writes to its replicas (replication-operation.ts).
  const peers = new PeerClient(config.clusterSecret);
  // The cluster settings that act here: transient over persistent over FOLIO_MAX_OPEN_* over the default.
  clusterSettings.onChange((effective) => {
    contexts.limits.maxOpenScrollContext = countSetting(effective('search.max_open_scroll_context'), defaultLimits.maxOpenScrollContext);
    contexts.limits.maxOpenPitContext = countSetting(effective('search.max_open_pit_context'), defaultLimits.maxOpenPitContext);
  });
  const metrics = instrumentShardNode(app, registry, contexts); // HTTP metrics middleware and `GET /metrics` (outside the internal prefix)
  installInFlightBudget(app, config.inFlightRequestsLimitBytes, metrics.registry); // internal bodies reserve here


  // Authenticate first: a request without the cluster secret gets 401 before its body is read.
  app.use(`${INTERNAL_PREFIX}/*`, clusterSecretAuth(config.clusterSecret));
  // Every handler reads its body through readInternalJson, which stops at this limit (413). No
  // body-limit middleware: touching the Fetch body builds a web stream per call (~7 % of a query).
  const maxBody = config.maxBodyBytes;

  app.onError((err, c) => {
    const es = toEsError(err);
    if (es.status >= 500) log.error({ err, path: c.req.path }, 'internal request failed');
    return c.json(es.toBody(), es.status as 500);
  });

  const p = INTERNAL_PREFIX;

  app.get(`${p}/health`, (c) => c.json({ status: 'ok', node }));
  registerShardProbes(app, node); // GET /livez, /readyz (Kubernetes probes, shard-node/probes.ts)

  app.get(`${p}/indices`, (c) => c.json({ node, indices: registry.list() } satisfies NodeIndicesResponse));

  app.put(`${p}/indices/:index`, async (c) => {
    const req = await readInternalJson<PutIndexRequest>(c, maxBody);
    registry.putIndex(req.metadata, req.shards, req.node);
    log.info({ index: req.metadata.name, shards: req.shards }, 'index metadata stored');
    return c.json({ node, acknowledged: true });
  });

  app.delete(`${p}/indices/:index`, (c) => {
    registry.deleteIndex(c.req.param('index'));
    return c.json({ node, acknowledged: true });
  });

  // A shard bulk on its primary copy, replicated to its replication group (shard-node/primary-bulk-route.ts).
  registerPrimaryBulkRoute(app, { registry, node, peers, readJson: (c) => readInternalJson(c, maxBody), ...(config.peerUrls ? { peerUrls: config.peerUrls } : {}) });

  // Replica writes and in-sync marks (shard-node/replica-routes.ts).
  registerReplicaRoutes(app, { registry, node, readJson: (c) => readInternalJson(c, maxBody) });
  // Peer recovery of out-of-sync copies, both ends (shard-node/recovery-routes.ts).
  registerRecoveryRoutes(app, { registry, node, readJson: (c) => readInternalJson(c, maxBody), readBytes: (c) => readRequestBody(c, maxBody, () => bodyTooLarge(maxBody), reservationOf(c)) });

  app.post(`${p}/refresh`, async (c) => {
    const req = await readInternalJson<RefreshRequest>(c, maxBody);
    const shards = await registry.refresh(req.index, req.shards);
    return c.json({ node, index: req.index, shards });
  });

  // ES flush: fold each shard's translog into its durable snapshot (same body as refresh).
  app.post(`${p}/flush`, async (c) => {
    const req = await readInternalJson<RefreshRequest>(c, maxBody);
    const shards = await registry.flush(req.index, req.shards);
    return c.json({ node, index: req.index, shards });
  });

  // Search phases: dfs, query (+ fused fetch), select/sample, select/range, fetch, and their batch.
  registerSearchRoutes(app, createSearchActions({ registry, contexts, node, keepAliveMs }), (c) => readInternalJson(c, maxBody), log);

  // Explicit search contexts (PIT, scroll): open pins the shard's current generation.
  app.post(`${p}/contexts/open`, async (c) => {
    const req = await readInternalJson<OpenContextRequest>(c, maxBody);
    registry.checkOpen(req.index);
    const gen = registry.shard(req.index, req.shard).acquire();
    const id = contexts.open(req.kind, req.index, req.shard, gen, req.keepAliveMs);
    return c.json({ node, index: req.index, shard: req.shard, context: id, generation: gen.id } satisfies OpenContextResponse);
  });

  // A scroll batch's coordinator records the scroll's new position on each context it read.
  app.post(`${p}/contexts/advance`, async (c) => {
    const req = await readInternalJson<AdvanceScrollRequest>(c, maxBody);
    let advanced = 0;
    for (const t of req.contexts) if (contexts.advance(t.index, t.shard, t.id, t.seq, req.after)) advanced++;
    return c.json({ node, advanced } satisfies AdvanceScrollResponse);
  });

  // OpenSearch's PIT listing: the coordinator names the PIT of contexts it opened; any coordinator lists them.
  app.post(`${p}/contexts/pit`, async (c) => {
    const req = await readInternalJson<LabelPitRequest>(c, maxBody);
    const labelled = contexts.labelPit(req.ids, { pitId: req.pitId, creationTime: req.creationTime, keepAliveMs: req.keepAliveMs });
    return c.json({ node, labelled });
  });
  app.get(`${p}/contexts/pits`, (c) => c.json({ node, pits: contexts.listPits() } satisfies ListPitsResponse));

  app.post(`${p}/contexts/close`, async (c) => {
    const req = await readInternalJson<CloseContextsRequest>(c, maxBody);
    const freed = (req.ids ? contexts.close(req.ids) : 0) + (req.allOfKind ? contexts.closeAll(req.allOfKind) : 0);
    return c.json({ node, freed } satisfies CloseContextsResponse);
  });

  // Cluster settings (protocol/cluster-settings.ts): every coordinator reads and writes them here.
  app.get(`${p}/cluster_settings`, (c) => c.json({ node, state: clusterSettings.current() } satisfies ClusterSettingsResponse));
  app.put(`${p}/cluster_settings`, async (c) => {
    const state = clusterSettings.apply(await readInternalJson<ClusterSettingsUpdateRequest>(c, maxBody));
    return c.json({ node, state } satisfies ClusterSettingsResponse);
  });

  app.post(`${p}/get`, async (c) => {
    const req = await readInternalJson<GetRequest>(c, maxBody);
    registry.checkOpen(req.index);
    const shard = registry.shard(req.index, req.shard);
    if (req.refresh === true) await registry.refresh(req.index, [req.shard]);
    const doc = req.realtime === false ? shard.getRefreshed(req._id) : shard.get(req._id);
    const res: GetResponse = { node, index: req.index, shard: req.shard, ...doc };
    return c.json(res);
  });

  app.get(`${p}/stats`, (c) => {
    const shards: NodeStats['shards'] = [];
    for (const entry of registry.list()) {
      for (const s of entry.shards) {
        const index = entry.metadata.name;
        const shard = registry.shard(index, s);
        const copy = entry.copies?.find((x) => x.shard === s);
        shards.push({
          index, shard: s, ...shard.stats(), ...(copy ? { primary: copy.primary } : {}),
          ops: { ...shard.counters, ...contexts.shardStats(index, s) },
          seqNo: { maxSeqNo: shard.maxSeqNo, localCheckpoint: shard.localCheckpoint, globalCheckpoint: shard.globalCheckpoint },
        });
      }
    }
    return c.json({ node, shards } satisfies NodeStats);
  });

  return app;
}
