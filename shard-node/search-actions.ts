/**
 * The shard node's search phases as plain functions of a parsed request: dfs, query (with the
 * fused fetch), the selection's sample and range rounds, and fetch. Each returns the reply object
 * and, for the rounds that carry entries, which field holds them (for the binary hits format).
 * The single-action routes and the batch route (`POST /_internal/v1/batch`), both in
 * shard-node/search-routes.ts, call them, so a batched call is answered exactly as a single one.
 * Errors are thrown as EsError (missing index or shard 404, expired context 404, …).
 */
import { sortValueTexts } from './engine/sort-value-texts.ts';
import { type AggsRequest, type AggsResponse } from '../protocol/aggs.ts';
import {
  type ContextRef,
  type DfsRequest,
  type DfsResponse,
  type FetchRequest,
  type FetchResponse,
  type QueryPhaseRequest,
  type QueryPhaseResponse,
  type SelectRangeRequest,
  type SelectRangeResponse,
  type SelectSampleRequest,
  type SelectSampleResponse,
} from '../protocol/search.ts';
import type { EntriesField } from '../protocol/wire.ts';
import { collectShardAggs, refineShardAggs } from './engine/aggs/shard-aggs.ts';
import type { Generation } from './engine/generation.ts';
import { preparePresorted, rangeOfMatches, sampleMatches, sortedMatches } from './engine/selection.ts';
import { compileHitFetch } from './engine/hit-fetch.ts';
import { resolveCollapseAlias, resolveSortAliases } from './engine/field-aliases.ts';
import { aliasesOf } from '../protocol/mapping.ts';
import { DEFAULT_MAX_ANALYZED_OFFSET } from './engine/highlight/highlight-fetch.ts';
import type { IndexRegistry } from './index-registry.ts';
import { DEFAULT_MAX_OPEN_SNAPSHOT_CONTEXT, tooManySnapshotContexts, type SearchContexts } from './search-contexts.ts';

/** A search action's reply: the object, and the field of its entries when it has some (`hits`/`keys`). */
export interface ActionReply {
  res: object;
  /** Entries field for the binary hits format; absent: the reply is JSON only. */
  field?: EntriesField;
}

/** The internal endpoints (tail after `/_internal/v1/`) served by {@link createSearchActions}. */
export type SearchActionName = 'dfs' | 'query' | 'select/sample' | 'select/range' | 'fetch' | 'aggs';

/**
 * Every search endpoint's handler, keyed by its path tail. The phases that may build a presorted
 * order first build it in event-loop slices (selection.ts `preparePresorted`), so they answer
 * asynchronously; dfs and fetch answer at once.
 */
export interface SearchActions {
  dfs: (req: DfsRequest) => ActionReply;
  query: (req: QueryPhaseRequest) => Promise<ActionReply>;
  'select/sample': (req: SelectSampleRequest) => Promise<ActionReply>;
  'select/range': (req: SelectRangeRequest) => Promise<ActionReply>;
  fetch: (req: FetchRequest) => ActionReply;
  /** Aggregations on a generation the query phase read: the whole tree, or the exact terms refinement tasks. */
  aggs: (req: AggsRequest) => ActionReply;
}

/** What the actions read: the shards, the open contexts, this node's name, and how long a read generation is retained. */
export interface SearchActionDeps {
  registry: IndexRegistry;
  contexts: SearchContexts;
  node: string;
  keepAliveMs: number;
}

/** True when `name` is one of the search endpoints. */
export function isSearchAction(name: string): name is SearchActionName {
  return name === 'dfs' || name === 'query' || name === 'select/sample' || name === 'select/range' || name === 'fetch' || name === 'aggs';
}

/** Builds the search actions over a registry and its contexts. */
export function createSearchActions(deps: SearchActionDeps): SearchActions {
  const { registry, contexts, node, keepAliveMs } = deps;

  /**
   * The generation a search phase reads: an open context's (renewed), else a generation pinned by
   * some context, else the shard's current or retained one (retained for the search keep-alive).
   */
  const reader = (index: string, shardNo: number, generation: number | undefined, context: ContextRef | undefined): Generation => {
    registry.checkOpen(index);
    if (context) return contexts.use(index, shardNo, context.id, context.keepAliveMs);
    const shard = registry.shard(index, shardNo);
    if (generation !== undefined) {
      const pinned = contexts.pinned(index, shardNo, generation);
      if (pinned) return pinned;
      if (generation !== shard.generation) checkSnapshotLimit();
    }
    return shard.acquire(generation, keepAliveMs);
  };

  /**
   * Renewing a past generation (a `Folio-Snapshot` token, a later phase after a refresh) keeps its
   * segments alive for another keep-alive: refused with 429 while the node retains more past
   * generations than `search.max_open_snapshot_context`, so tokens cannot pin generations without bound.
   * @throws EsError 429 {@link tooManySnapshotContexts}
   */
  const checkSnapshotLimit = (): void => {
    const limit = contexts.limits.maxOpenSnapshotContext ?? DEFAULT_MAX_OPEN_SNAPSHOT_CONTEXT;
    let open = 0;
    for (const entry of registry.list()) for (const s of entry.shards) open += registry.shard(entry.metadata.name, s).retainedPastGenerations();
    if (open > limit) throw tooManySnapshotContexts(limit);
  };

  /** The index's `index.highlight.max_analyzed_offset` (read only when a fetch highlights). */
  const maxAnalyzedOffset = (index: string): number => {
    const v = registry.metadataList().find((m) => m.name === index)?.settings?.['index.highlight.max_analyzed_offset'];
    const n = typeof v === 'number' ? v : typeof v === 'string' ? Number.parseInt(v, 10) : NaN;
    return Number.isFinite(n) ? n : DEFAULT_MAX_ANALYZED_OFFSET;
  };

  return {
    dfs: (req: DfsRequest): ActionReply => {
      const gen = reader(req.index, req.shard, req.generation, req.context);
      const res: DfsResponse = { node, index: req.index, shard: req.shard, generation: gen.id, stats: gen.dfs(req.query) };
      return { res };
    },

    query: async (req: QueryPhaseRequest): Promise<ActionReply> => {
      const shard = registry.shard(req.index, req.shard);
      if (req.statsGeneration !== undefined && req.generation === undefined && !req.context && req.statsGeneration !== shard.generation) {
        const stale: QueryPhaseResponse = {
          node, index: req.index, shard: req.shard, generation: shard.generation,
          total: { value: 0, relation: 'eq' }, max_score: null, hits: [], statsStale: true,
        };
        return { res: stale, field: 'hits' };
      }
      const gen = reader(req.index, req.shard, req.generation, req.context);
      shard.counters.queryTotal++;
      if (req.fetchSource !== undefined) shard.counters.fetchTotal++;
      // A scroll batch starts after the position its context recorded (search-contexts.ts).
      const position = req.context?.scroll ? contexts.position(req.index, req.shard, req.context.id) : undefined;
      const aliases = aliasesOf(gen.fields());
      const input = {
        query: req.query,
        sort: resolveSortAliases(req.sort, aliases),
        k: req.k,
        searchAfter: position ? (position.after ? { sort: position.after } : undefined) : req.searchAfter,
        trackTotalHits: req.trackTotalHits,
        trackScores: req.trackScores,
        stats: req.stats,
        ...(req.rescore ? { rescore: req.rescore } : {}),
        ...(req.collapse ? { collapse: resolveCollapseAlias(req.collapse, aliases) } : {}),
      };
      if (input.k > 0 && !req.collapse) await preparePresorted(gen, input);
      await gen.prepareQuery(input); // value sets and segment matches in slices (docs/reliability.md)
      const result = gen.query(input);
      const res: QueryPhaseResponse = { node, index: req.index, shard: req.shard, generation: gen.id, ...result, ...(position ? { scrollSeq: position.seq } : {}) };
      if (req.aggs) res.aggs = collectShardAggs(gen, req.aggs.nodes, req.aggs.query ?? req.query, req.aggs.candidates, req.index);
      if (req.fetchSource !== undefined) {
        const ids = result.hits.map((h) => h._id);
        res.sources = gen.sourceTexts(ids, req.fetchSource);
        if (req.fetchOptions !== undefined || gen.hasHitMetadata) {
          const extras = gen.extrasOf(ids, compileHitFetch(req.fetchOptions, gen.mapping(), req.index, shard.primaryTerm, () => maxAnalyzedOffset(req.index)));
          if (extras) res.extras = extras;
        }
      }
      if (gen.hasHitMetadata) res.routed = true;
      const sortTexts = sortValueTexts(result.hits, input.sort, gen.fields(), (id) => gen.storedSourceText(id));
      if (sortTexts) res.sortTexts = sortTexts;
      return { res, field: 'hits' };
    },

    // Exact distributed selection for deep `from`: the sample round pins a generation, the range
    // round reads that same generation (404 search_context_missing_exception once it expired).
    'select/sample': async (req: SelectSampleRequest): Promise<ActionReply> => {
      const shard = registry.shard(req.index, req.shard);
      const base = { node, index: req.index, shard: req.shard };
      if (req.statsGeneration !== undefined && req.generation === undefined && !req.context && req.statsGeneration !== shard.generation) {
        const stale: SelectSampleResponse = { ...base, generation: shard.generation, total: { value: 0, relation: 'eq' }, max_score: null, keys: [], statsStale: true };
        return { res: stale, field: 'keys' };
      }
      const gen = reader(req.index, req.shard, req.generation, req.context);
      const input = { query: req.query, sort: resolveSortAliases(req.sort, aliasesOf(gen.fields())), stats: req.stats, trackScores: req.trackScores };
      await preparePresorted(gen, input);
      const sm = sortedMatches(gen, input);
      const s = sampleMatches(sm, req.samples);
      const res: SelectSampleResponse = { ...base, generation: gen.id, total: { value: s.total, relation: 'eq' }, max_score: s.maxScore, keys: s.keys, ...(gen.hasHitMetadata ? { routed: true } : {}) };
      return { res, field: 'keys' };
    },

    'select/range': async (req: SelectRangeRequest): Promise<ActionReply> => {
      if (req.requireCurrent && registry.shard(req.index, req.shard).generation !== req.generation) {
        const stale: SelectRangeResponse = { node, index: req.index, shard: req.shard, generation: req.generation, before: 0, hits: [], stale: true };
        return { res: stale, field: 'hits' };
      }
      const gen = reader(req.index, req.shard, req.generation, undefined);
      const input = { query: req.query, sort: resolveSortAliases(req.sort, aliasesOf(gen.fields())), stats: req.stats, trackScores: req.trackScores };
      await preparePresorted(gen, input);
      const sm = sortedMatches(gen, input);
      const r = rangeOfMatches(sm, req.lower, req.upper, req.limit);
      const res: SelectRangeResponse = { node, index: req.index, shard: req.shard, generation: gen.id, before: r.before, hits: r.hits };
      return { res, field: 'hits' };
    },

    aggs: (req: AggsRequest): ActionReply => {
      const gen = reader(req.index, req.shard, req.generation, req.context);
      const res: AggsResponse = { node, index: req.index, shard: req.shard, generation: gen.id };
      if (req.tasks) res.results = refineShardAggs(gen, req.nodes, req.query, req.tasks, req.index);
      else res.partials = collectShardAggs(gen, req.nodes, req.query, req.candidates, req.index);
      return { res };
    },

    fetch: (req: FetchRequest): ActionReply => {
      const gen = reader(req.index, req.shard, req.generation, undefined);
      registry.shard(req.index, req.shard).counters.fetchTotal++;
      const hit =
        req.options !== undefined || gen.hasHitMetadata
          ? compileHitFetch(req.options, gen.mapping(), req.index, registry.shard(req.index, req.shard).primaryTerm, () => maxAnalyzedOffset(req.index))
          : undefined;
      const res: FetchResponse = { node, index: req.index, shard: req.shard, docs: gen.fetch(req.ids, req._source, hit) };
      return { res };
    },
  };
}
