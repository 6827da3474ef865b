/**
 * The shard node's internal HTTP API (`/_internal/v1/…`, JSON; query-phase entries optionally in
 * the binary `application/x-folio-hits` format, see shared/wire.ts). Every reply echoes this node's
 * identity and, for shard calls, the index and shard, so that a mis-wired coordinator is detected.
 * Handlers only translate HTTP to {@link IndexRegistry} and engine calls.
 */
import { Hono, type Context } from 'hono';
import { EsError, toEsError } from '../shared/errors.ts';
import type { Logger } from '../shared/logger.ts';
import type { Mapping } from '../shared/mapping.ts';
import {
  INTERNAL_PREFIX,
  type DfsRequest,
  type DfsResponse,
  type FetchRequest,
  type FetchResponse,
  type GetRequest,
  type GetResponse,
  type IndexMetadata,
  type NodeIndicesResponse,
  type NodeStats,
  type PutIndexRequest,
  type QueryPhaseRequest,
  type QueryPhaseResponse,
  type RefreshRequest,
  type SelectRangeRequest,
  type SelectRangeResponse,
  type SelectSampleRequest,
  type SelectSampleResponse,
  type ShardBulkRequest,
  type ShardBulkResponse,
  type CloseContextsRequest,
  type CloseContextsResponse,
  type ContextRef,
  type NodeSettingsRequest,
  type OpenContextRequest,
  type OpenContextResponse,
} from '../shared/protocol.ts';
import type { ShardNodeConfig } from './config.ts';
import { rangeOfMatches, sampleMatches, sortedMatches } from './engine/selection.ts';
import type { Generation } from './engine/generation.ts';
import { IndexRegistry } from './index-registry.ts';
import { registerShardProbes } from './probes.ts';
import { instrumentShardNode } from './metrics.ts';
import { clusterSecretAuth } from './cluster-auth.ts';
import { readRequestBody } from '../shared/request-body.ts';
import { acceptsHits, encodeHits, HITS_CONTENT_TYPE, WireEncodeError, type EntriesField } from '../shared/wire.ts';
import { DEFAULT_MAX_OPEN_PIT_CONTEXT, DEFAULT_MAX_OPEN_SCROLL_CONTEXT, SearchContexts } from './search-contexts.ts';

/**
 * Parses an internal JSON body, read from the Node request stream (shared/request-body.ts).
 * @throws EsError 413 over `maxBytes`, 400 on malformed JSON (never a 500)
 */
async function readInternalJson<T>(c: Context, maxBytes: number): Promise<T> {
  const bytes = await readRequestBody(c, maxBytes, () => bodyTooLarge(maxBytes));
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new EsError(400, 'x_content_parse_exception', `malformed internal request: ${(err as Error).message}`);
  }
}

/** The shard node's 413 for an internal body over FOLIO_MAX_BODY_BYTES. */
function bodyTooLarge(maxBytes: number): EsError {
  return new EsError(413, 'content_too_long_exception', `internal request body exceeds [${maxBytes}] bytes`);
}

/**
 * Answers a query/sample/range reply in the binary hits format (shared/wire.ts) when the caller's
 * `accept` lists `application/x-folio-hits`, else as JSON (curl, older coordinators). A reply the
 * binary format cannot carry exactly (NaN, a lone surrogate) falls back to JSON.
 */
function hitsReply(c: Context, res: object, field: EntriesField): Response {
  if (acceptsHits(c.req.header('accept'))) {
    try {
      return c.body(encodeHits(res, field), 200, { 'content-type': HITS_CONTENT_TYPE });
    } catch (err) {
      if (!(err instanceof WireEncodeError)) throw err;
    }
  }
  return c.json(res);
}

/**
 * Builds the shard node's hono app over a registry. Testable in-process with `app.request()`.
 * Errors become ES error bodies with their status; unexpected ones are logged and answer 500.
 */
export function createShardNodeApp(config: ShardNodeConfig, registry: IndexRegistry, log: Logger): Hono {
  const app = new Hono();
  const node = config.nodeId;
  const keepAliveMs = config.searchContextKeepAliveMs;
  const contexts = new SearchContexts({
    maxOpenScrollContext: config.maxOpenScrollContext ?? DEFAULT_MAX_OPEN_SCROLL_CONTEXT,
    maxOpenPitContext: config.maxOpenPitContext ?? DEFAULT_MAX_OPEN_PIT_CONTEXT,
  });
  instrumentShardNode(app, registry, contexts); // HTTP metrics middleware and `GET /metrics` (outside the internal prefix)

  /**
   * The generation a search phase reads: an open context's (renewed), else a generation pinned by
   * some context, else the shard's current or retained one (retained for the search keep-alive).
   */
  const reader = (index: string, shardNo: number, generation: number | undefined, context: ContextRef | undefined): Generation => {
    if (context) return contexts.use(index, shardNo, context.id, context.keepAliveMs);
    const shard = registry.shard(index, shardNo);
    if (generation !== undefined) {
      const pinned = contexts.pinned(index, shardNo, generation);
      if (pinned) return pinned;
    }
    return shard.acquire(generation, keepAliveMs);
  };

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
    registry.putIndex(req.metadata, req.shards);
    log.info({ index: req.metadata.name, shards: req.shards }, 'index metadata stored');
    return c.json({ node, acknowledged: true });
  });

  app.put(`${p}/indices/:index/_mapping`, async (c) => {
    const update = await readInternalJson<Mapping>(c, maxBody);
    const metadata = registry.mergeMapping(c.req.param('index'), update);
    return c.json({ node, metadata });
  });

  app.put(`${p}/indices/:index/_metadata`, async (c) => {
    registry.updateMetadata(await readInternalJson<IndexMetadata>(c, maxBody));
    return c.json({ node, acknowledged: true });
  });

  app.delete(`${p}/indices/:index`, (c) => {
    registry.deleteIndex(c.req.param('index'));
    return c.json({ node, acknowledged: true });
  });

  app.post(`${p}/bulk`, async (c) => {
    const req = await readInternalJson<ShardBulkRequest>(c, maxBody);
    const shard = registry.shard(req.index, req.shard);
    const items = shard.apply(req.ops);
    // Acknowledge only once the translog entries are fsynced (ES index.translog.durability: request);
    // concurrent bulks share one fsync (group commit). A failed commit answers 500: nothing is acked.
    await shard.sync();
    let forcedRefresh = false;
    if (req.refresh === 'true') {
      registry.refresh(req.index, [req.shard]);
      forcedRefresh = true;
    } else if (req.refresh === 'wait_for' && shard.hasPendingWrites) {
      await registry.waitForRefresh(req.index, req.shard);
      forcedRefresh = true;
    }
    return c.json({ node, index: req.index, shard: req.shard, items, forcedRefresh } satisfies ShardBulkResponse);
  });

  app.post(`${p}/refresh`, async (c) => {
    const req = await readInternalJson<RefreshRequest>(c, maxBody);
    const shards = registry.refresh(req.index, req.shards);
    return c.json({ node, index: req.index, shards });
  });

  // ES flush: fold each shard's translog into its durable snapshot (same body as refresh).
  app.post(`${p}/flush`, async (c) => {
    const req = await readInternalJson<RefreshRequest>(c, maxBody);
    const shards = await registry.flush(req.index, req.shards);
    return c.json({ node, index: req.index, shards });
  });

  app.post(`${p}/dfs`, async (c) => {
    const req = await readInternalJson<DfsRequest>(c, maxBody);
    const gen = reader(req.index, req.shard, req.generation, req.context);
    const res: DfsResponse = { node, index: req.index, shard: req.shard, generation: gen.id, stats: gen.dfs(req.query) };
    return c.json(res);
  });

  app.post(`${p}/query`, async (c) => {
    const req = await readInternalJson<QueryPhaseRequest>(c, maxBody);
    const shard = registry.shard(req.index, req.shard);
    if (req.statsGeneration !== undefined && req.generation === undefined && !req.context && req.statsGeneration !== shard.generation) {
      const stale: QueryPhaseResponse = {
        node, index: req.index, shard: req.shard, generation: shard.generation,
        total: { value: 0, relation: 'eq' }, max_score: null, hits: [], statsStale: true,
      };
      return hitsReply(c, stale, 'hits');
    }
    const gen = reader(req.index, req.shard, req.generation, req.context);
    const result = gen.query({
      query: req.query,
      sort: req.sort,
      k: req.k,
      searchAfter: req.searchAfter,
      trackTotalHits: req.trackTotalHits,
      trackScores: req.trackScores,
      stats: req.stats,
    });
    const res: QueryPhaseResponse = { node, index: req.index, shard: req.shard, generation: gen.id, ...result };
    if (req.fetchSource !== undefined) res.sources = gen.sourceTexts(result.hits.map((h) => h._id), req.fetchSource);
    return hitsReply(c, res, 'hits');
  });

  // Exact distributed selection for deep `from`: the sample round pins a generation, the range
  // round reads that same generation (404 search_context_missing_exception once it expired).
  app.post(`${p}/select/sample`, async (c) => {
    const req = await readInternalJson<SelectSampleRequest>(c, maxBody);
    const shard = registry.shard(req.index, req.shard);
    const base = { node, index: req.index, shard: req.shard };
    if (req.statsGeneration !== undefined && req.generation === undefined && !req.context && req.statsGeneration !== shard.generation) {
      const stale: SelectSampleResponse = { ...base, generation: shard.generation, total: { value: 0, relation: 'eq' }, max_score: null, keys: [], statsStale: true };
      return hitsReply(c, stale, 'keys');
    }
    const gen = reader(req.index, req.shard, req.generation, req.context);
    const sm = sortedMatches(gen, { query: req.query, sort: req.sort, stats: req.stats, trackScores: req.trackScores });
    const s = sampleMatches(sm, req.samples);
    const res: SelectSampleResponse = { ...base, generation: gen.id, total: { value: s.total, relation: 'eq' }, max_score: s.maxScore, keys: s.keys };
    return hitsReply(c, res, 'keys');
  });

  app.post(`${p}/select/range`, async (c) => {
    const req = await readInternalJson<SelectRangeRequest>(c, maxBody);
    if (req.requireCurrent && registry.shard(req.index, req.shard).generation !== req.generation) {
      const stale: SelectRangeResponse = { node, index: req.index, shard: req.shard, generation: req.generation, before: 0, hits: [], stale: true };
      return hitsReply(c, stale, 'hits');
    }
    const gen = reader(req.index, req.shard, req.generation, undefined);
    const sm = sortedMatches(gen, { query: req.query, sort: req.sort, stats: req.stats, trackScores: req.trackScores });
    const r = rangeOfMatches(sm, req.lower, req.upper, req.limit);
    const res: SelectRangeResponse = { node, index: req.index, shard: req.shard, generation: gen.id, before: r.before, hits: r.hits };
    return hitsReply(c, res, 'hits');
  });

  app.post(`${p}/fetch`, async (c) => {
    const req = await readInternalJson<FetchRequest>(c, maxBody);
    const gen = reader(req.index, req.shard, req.generation, undefined);
    const res: FetchResponse = { node, index: req.index, shard: req.shard, docs: gen.fetch(req.ids, req._source) };
    return c.json(res);
  });

  // Explicit search contexts (PIT, scroll): open pins the shard's current generation.
  app.post(`${p}/contexts/open`, async (c) => {
    const req = await readInternalJson<OpenContextRequest>(c, maxBody);
    const gen = registry.shard(req.index, req.shard).acquire();
    const id = contexts.open(req.kind, req.index, req.shard, gen, req.keepAliveMs);
    return c.json({ node, index: req.index, shard: req.shard, context: id, generation: gen.id } satisfies OpenContextResponse);
  });

  app.post(`${p}/contexts/close`, async (c) => {
    const req = await readInternalJson<CloseContextsRequest>(c, maxBody);
    const freed = (req.ids ? contexts.close(req.ids) : 0) + (req.allOfKind ? contexts.closeAll(req.allOfKind) : 0);
    return c.json({ node, freed } satisfies CloseContextsResponse);
  });

  app.post(`${p}/settings`, async (c) => {
    const req = await readInternalJson<NodeSettingsRequest>(c, maxBody);
    if (req.maxOpenScrollContext !== undefined) contexts.limits.maxOpenScrollContext = req.maxOpenScrollContext ?? config.maxOpenScrollContext ?? DEFAULT_MAX_OPEN_SCROLL_CONTEXT;
    if (req.maxOpenPitContext !== undefined) contexts.limits.maxOpenPitContext = req.maxOpenPitContext ?? config.maxOpenPitContext ?? DEFAULT_MAX_OPEN_PIT_CONTEXT;
    return c.json({ node, acknowledged: true, limits: contexts.limits });
  });

  app.post(`${p}/get`, async (c) => {
    const req = await readInternalJson<GetRequest>(c, maxBody);
    const doc = registry.shard(req.index, req.shard).get(req._id);
    const res: GetResponse = { node, index: req.index, shard: req.shard, ...doc };
    return c.json(res);
  });

  app.get(`${p}/stats`, (c) => {
    const shards: NodeStats['shards'] = [];
    for (const entry of registry.list()) {
      for (const s of entry.shards) {
        shards.push({ index: entry.metadata.name, shard: s, ...registry.shard(entry.metadata.name, s).stats() });
      }
    }
    return c.json({ node, shards } satisfies NodeStats);
  });

  return app;
}
