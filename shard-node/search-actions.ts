/**
 * The shard node's search rounds as plain functions of a parsed request: dfs, query (with the
 * fused fetch), the selection's sample and range rounds, aggregations on a read generation, and
 * fetch. Each returns its reply object; the RPC table says which field holds a round's entries for
 * the binary hits format (protocol/rpc.ts `entries`). shard-node/search-routes.ts binds them, both
 * as single calls and inside `POST /_internal/v1/batch`, so a batched call is answered exactly as
 * a single one. Errors are thrown as EsError (missing index or shard 404, expired context 404, …).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/SearchService.java
 */
import { sortValueTexts } from './engine/sort-value-texts.ts';
import { type AggsRequest, type AggsResponse } from '../protocol/aggs.ts';
import {
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
import type { Generation } from './engine/generation.ts';
import { searcherOf } from './engine/searcher.ts';
import { compileHitFetch } from './engine/hit-fetch.ts';
import { resolveCollapseAlias, resolveSortAliases } from './engine/field-aliases.ts';
import { aliasesOf } from '../protocol/mapping.ts';
import type { IndexRegistry } from './index-registry.ts';
import type { SearchContexts } from './search-contexts.ts';
import { generationReader, maxAnalyzedOffset, type GenerationReader } from './search-reader.ts';

/**
 * Every search round's handler, by its name in the RPC table. The rounds that may build a
 * presorted order first build it in event-loop slices (searcher.ts `preparePresorted`), so they
 * answer asynchronously; dfs, aggs and fetch answer at once.
 */
export interface SearchActions {
  dfs: (req: DfsRequest) => DfsResponse;
  query: (req: QueryPhaseRequest) => Promise<QueryPhaseResponse>;
  selectSample: (req: SelectSampleRequest) => Promise<SelectSampleResponse>;
  selectRange: (req: SelectRangeRequest) => Promise<SelectRangeResponse>;
  /** Aggregations on a generation the query phase read: the whole tree, or the exact terms refinement tasks. */
  aggs: (req: AggsRequest) => AggsResponse;
  fetch: (req: FetchRequest) => FetchResponse;
}

/** What the actions read: the shards, the open contexts, this node's name, and how long a read generation is retained. */
export interface SearchActionDeps {
  registry: IndexRegistry;
  contexts: SearchContexts;
  node: string;
  keepAliveMs: number;
}

/** What each round's function gets: the deps and the generation reader. */
interface RoundDeps extends SearchActionDeps {
  read: GenerationReader;
}

/** Builds the search actions over a registry and its contexts. */
export function createSearchActions(deps: SearchActionDeps): SearchActions {
  const d: RoundDeps = { ...deps, read: generationReader(deps) };
  return {
    dfs: (req) => dfs(d, req),
    query: (req) => query(d, req),
    selectSample: (req) => selectSample(d, req),
    selectRange: (req) => selectRange(d, req),
    aggs: (req) => aggs(d, req),
    fetch: (req) => fetch(d, req),
  };
}

/** Term statistics of the query on the generation read (which the next round then reads). */
function dfs({ node, read }: RoundDeps, req: DfsRequest): DfsResponse {
  const gen = read(req.index, req.shard, req.generation, req.context);
  return { node, index: req.index, shard: req.shard, generation: gen.id, stats: searcherOf(gen).dfs(req.query) };
}

/**
 * True when the request's cached statistics describe a generation the shard moved past (and the
 * request reads the current one): it answers `statsStale` and the coordinator runs the dfs round.
 */
function statsAreStale(req: { statsGeneration?: number; generation?: number; context?: unknown }, current: number): boolean {
  return req.statsGeneration !== undefined && req.generation === undefined && !req.context && req.statsGeneration !== current;
}

/** The query round: the top `k` keys, the total, and with `fetchSource` the hits' `_source` (the fused fetch). */
async function query({ registry, contexts, node, read }: RoundDeps, req: QueryPhaseRequest): Promise<QueryPhaseResponse> {
  const shard = registry.shard(req.index, req.shard);
  if (statsAreStale(req, shard.generation)) {
    return {
      node,
      index: req.index,
      shard: req.shard,
      generation: shard.generation,
      total: { value: 0, relation: 'eq' },
      max_score: null,
      hits: [],
      statsStale: true,
    };
  }
  const gen = read(req.index, req.shard, req.generation, req.context);
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
  const searcher = searcherOf(gen);
  if (input.k > 0 && !req.collapse) await searcher.preparePresorted(input);
  await searcher.prepareQuery(input); // value sets and segment matches in slices (docs/reliability.md)
  const result = searcher.query(input);
  const res: QueryPhaseResponse = { node, index: req.index, shard: req.shard, generation: gen.id, ...result, ...(position ? { scrollSeq: position.seq } : {}) };
  if (req.aggs) res.aggs = searcher.aggs(req.aggs.nodes, req.aggs.query ?? req.query, req.aggs.candidates, req.index);
  if (req.fetchSource !== undefined) fuseFetch(registry, gen, req, res, shard.primaryTerm);
  if (gen.hasHitMetadata) res.routed = true;
  const sortTexts = sortValueTexts(result.hits, input.sort, gen.fields(), (id) => gen.storedSourceText(id));
  if (sortTexts) res.sortTexts = sortTexts;
  return res;
}

/** The fused fetch of a query or range round: its hits' `_source` texts, and their extras when asked or routed. */
function fuseFetch(
  registry: IndexRegistry,
  gen: Generation,
  req: Pick<QueryPhaseRequest, 'index' | 'fetchSource' | 'fetchOptions'>,
  res: Pick<QueryPhaseResponse, 'hits' | 'sources' | 'extras'>,
  primaryTerm: number,
): void {
  const ids = res.hits.map((h) => h._id);
  res.sources = gen.sourceTexts(ids, req.fetchSource!);
  if (req.fetchOptions !== undefined || gen.hasHitMetadata) {
    const extras = gen.extrasOf(
      ids,
      compileHitFetch(req.fetchOptions, gen.mapping(), req.index, primaryTerm, () => maxAnalyzedOffset(registry, req.index)),
    );
    if (extras) res.extras = extras;
  }
}

// Exact distributed selection for deep `from`: the sample round pins a generation, the range
// round reads that same generation (404 search_context_missing_exception once it expired).

/** The sample round: the match count and S evenly spaced keys, on the generation it pins. */
async function selectSample({ registry, node, read }: RoundDeps, req: SelectSampleRequest): Promise<SelectSampleResponse> {
  const shard = registry.shard(req.index, req.shard);
  const base = { node, index: req.index, shard: req.shard };
  if (statsAreStale(req, shard.generation)) {
    return { ...base, generation: shard.generation, total: { value: 0, relation: 'eq' }, max_score: null, keys: [], statsStale: true };
  }
  const gen = read(req.index, req.shard, req.generation, req.context);
  const input = { query: req.query, sort: resolveSortAliases(req.sort, aliasesOf(gen.fields())), stats: req.stats, trackScores: req.trackScores };
  const s = await searcherOf(gen).sample(input, req.samples);
  return {
    ...base,
    generation: gen.id,
    total: { value: s.total, relation: 'eq' },
    max_score: s.maxScore,
    keys: s.keys,
    ...(gen.hasHitMetadata ? { routed: true } : {}),
  };
}

/** The range round: the matches before the lower key (counted) and up to the upper key, on the sample's generation. */
async function selectRange({ registry, node, read }: RoundDeps, req: SelectRangeRequest): Promise<SelectRangeResponse> {
  if (req.requireCurrent && registry.shard(req.index, req.shard).generation !== req.generation) {
    return { node, index: req.index, shard: req.shard, generation: req.generation, before: 0, hits: [], stale: true };
  }
  const gen = read(req.index, req.shard, req.generation, undefined);
  const input = { query: req.query, sort: resolveSortAliases(req.sort, aliasesOf(gen.fields())), stats: req.stats, trackScores: req.trackScores };
  const r = await searcherOf(gen).range(input, req.lower, req.upper, req.limit);
  const res: SelectRangeResponse = { node, index: req.index, shard: req.shard, generation: gen.id, before: r.before, hits: r.hits };
  if (req.fetchSource !== undefined) {
    const shard = registry.shard(req.index, req.shard);
    shard.counters.fetchTotal++;
    fuseFetch(registry, gen, req, res, shard.primaryTerm);
  }
  return res;
}

/** Aggregations on the generation the query round read: the whole tree's partials, or the refinement tasks' results. */
function aggs({ node, read }: RoundDeps, req: AggsRequest): AggsResponse {
  const gen = read(req.index, req.shard, req.generation, req.context);
  const res: AggsResponse = { node, index: req.index, shard: req.shard, generation: gen.id };
  if (req.tasks) res.results = searcherOf(gen).refineAggs(req.nodes, req.query, req.tasks, req.index);
  else res.partials = searcherOf(gen).aggs(req.nodes, req.query, req.candidates, req.index);
  return res;
}

/** The fetch round: the page's documents by `_id`, from the generation the query read. */
function fetch({ registry, node, read }: RoundDeps, req: FetchRequest): FetchResponse {
  const gen = read(req.index, req.shard, req.generation, undefined);
  registry.shard(req.index, req.shard).counters.fetchTotal++;
  const hit =
    req.options !== undefined || gen.hasHitMetadata
      ? compileHitFetch(req.options, gen.mapping(), req.index, registry.shard(req.index, req.shard).primaryTerm, () => maxAnalyzedOffset(registry, req.index))
      : undefined;
  return { node, index: req.index, shard: req.shard, docs: gen.fetch(req.ids, req._source, hit) };
}
