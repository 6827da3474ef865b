/**
 * `_search`, as a numbered recipe of its phases:
 *   1. parse   — the request (URL on top of body) into a normalized SearchRequest, then rewrite its
 *      terms lookups into plain terms queries (terms-lookup.ts);
 *   2. plan    — resolve indices and shards (pinned by a PIT, a scroll or a Folio-Snapshot token:
 *      cursor.ts), check windows and sorts before any fan-out; a new scroll opens its contexts. The
 *      plan is read-only: the rounds move through each shard's copies with the search's copy
 *      iterators (shard-copy-iterator.ts), and later rounds read the copy that answered;
 *   3. query   — every shard returns its top `from + size` keys (dfs statistics when scoring);
 *   4. merge   — k-way merge of the shard lists, skipping `from`; beside it, the reduce of the
 *      aggregations the query round collected, with the refinement rounds of exact `terms`
 *      (aggs-phase.ts; `post_filter` narrows the hits only, and a scroll aggregates on its first batch);
 *   3–4 for a deep `from` (≥ {@link DEEP_PAGE_FROM}): exact distributed selection instead, a sample
 *      round and a range round whose traffic does not grow with `from` (select-phase.ts);
 *   5. fetch   — `_source` for the page only, from the generation each shard's hits were read from
 *      (fused into the query round for a small page: fetch-phase.ts `fusesFetch`);
 *   2–5 with `collapse`: the plan adds the group key to the sort, each shard returns its best groups,
 *      the merge keeps one hit per key (collapse-plan.ts, collapse-merge.ts), then the expand phase
 *      searches each group for its `inner_hits` (inner-hits.ts);
 *   6. respond — the ES-shaped body (with `pit_id` / `_scroll_id`), and the snapshot token naming
 *      the generation each shard read (the `Folio-Snapshot` response header); a scroll batch first
 *      records its position on the scroll's contexts (contexts.ts `advanceScroll`).
 * A scroll's id is the same for every batch (ES: `SearchScrollAsyncAction.sendResponse`, "the
 * scroll ID never changes"): its position lives in the shard nodes' contexts, not in the id.
 * Partial shard failures are data (`_shards.failures`); all shards failing is an error. Each phase
 * is lapped by a {@link PhaseClock} (metrics, and `profile: true`: profile.ts).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-search.html
 */
import { withSortTexts } from './respond.ts';
import { parseTimeValue } from '../rest/params.ts';
import { parseSearchRequest, type SearchRequest } from '../rest/search-request.ts';
import { TRACK_TOTAL_HITS_ACCURATE } from '../rest/track-total-hits.ts';
import type { ClusterView } from '../cluster/cluster-view.ts';
import type { ShardClient } from '../transport/shard-client.ts';
import { flatFields, withAliasTargets, type FieldMapping } from '../../protocol/mapping.ts';
import type { Query } from '../../protocol/query-ast.ts';
import type { SortValue } from '../../protocol/sort.ts';
import { candidatesPerShard } from '../../shared/aggs/terms-plan.ts';
import { runAggsPhase } from './aggs-phase.ts';
import { advanceScroll } from './contexts.ts';
import { resolveCursor, type CursorInput } from './cursor.ts';
import { encodeSnapshot } from './cursor-ids.ts';
import type { DfsCache } from './dfs-cache.ts';
import { hitFetchOptions } from './fetch-options.ts';
import { fusedDocs, fusesFetch, runFetchPhase, type FetchOutcome } from './fetch-phase.ts';
import { checkKeepAlive, DEFAULT_MAX_KEEP_ALIVE_MS } from './keep-alive.ts';
import { phaseContext, type PhaseContext } from './phase-context.ts';
import { mergeTopHits, reduceTotalHits } from './merge.ts';
import { aggsQueryForTarget, planSearch, type SearchPlan } from './plan.ts';
import { openScroll, scrollReads } from './scroll-open.ts';
import { buildProfile, PhaseClock, type PhaseObserver } from './profile.ts';
import { runQueryPhase } from './query-phase.ts';
import { cachedIndices, requestCacheUse } from './request-cache-policy.ts';
import { copyIterators, type ShardCopyIterator } from './shard-copy-iterator.ts';
import { buildSearchResponse, type SearchResponseBody } from './respond.ts';
import { DEEP_PAGE_FROM, runSelectionPhase, SELECTION_SAMPLES, selectsDeepPage, type RankedPage, type SampleCache } from './select-phase.ts';
import { mergeTopGroups, reduceGroupTotal } from './collapse-merge.ts';
import { planCollapse } from './collapse-plan.ts';
import { expandInnerHits, type InnerHitsBody } from './inner-hits.ts';
import { defaultMaxConcurrentSearches } from './max-concurrent-searches.ts';
import { allFailedError, type ShardFailure } from './shard-failures.ts';
import { resolveTermsLookups, type TermsLookupQuery } from './terms-lookup.ts';
import { getDocument } from '../write/get-document.ts';

/** Services a search uses. */
export interface SearchDeps {
  view: ClusterView;
  client: ShardClient;
  dfsCache: DfsCache;
  /** Cached selection sample rounds (absent: deep pages always sample). */
  sampleCache?: SampleCache;
  defaultTimeoutMs: number;
  /** `from` at which paging switches to distributed selection (default {@link DEEP_PAGE_FROM}). */
  deepPageFrom?: number;
  /** Keys per shard in the selection's sample round (default {@link SELECTION_SAMPLES}). */
  selectionSamples?: number;
  /** Receives each phase's duration (the `folio_search_phase_duration_seconds` histogram). */
  observePhase?: PhaseObserver;
  /** The cluster's `search.max_keep_alive` in ms (absent: ES's default, 24 h). */
  maxKeepAliveMs?: () => number;
  /** The cluster's `search.max_buckets` (absent: ES's default, 65,536). */
  maxBuckets?: () => number;
}

/**
 * Refuses a PIT `keep_alive`, a new scroll's `scroll` or a continuation's `scroll` above
 * `search.max_keep_alive` (keep-alive.ts), before anything is opened or renewed.
 */
export function checkCursorKeepAlives(req: SearchRequest, input: Pick<SearchInput, 'scroll'>, deps: Pick<SearchDeps, 'maxKeepAliveMs'>): void {
  const asked = [
    input.scroll?.keepAliveMs,
    req.pit?.keepAliveMs ?? undefined,
    req.scroll !== null && !input.scroll ? parseTimeValue(req.scroll, 'scroll') : undefined,
  ];
  if (asked.every((ms) => ms === undefined)) return; // a plain search reads no setting
  const max = deps.maxKeepAliveMs?.() ?? DEFAULT_MAX_KEEP_ALIVE_MS;
  for (const ms of asked) if (ms !== undefined) checkKeepAlive(ms, max);
}

/** The inputs of one `_search` call, straight from HTTP (plus the cursor parts: snapshot header, scroll continuation). */
export interface SearchInput extends CursorInput {
  indexExpression: string | undefined;
  params: URLSearchParams;
  body: unknown;
  path: string;
  /** Aborted when the client disconnects. */
  signal: AbortSignal;
  /** A request parsed already (a collapsed search's group searches); `params` then only shape the index resolution. */
  request?: SearchRequest;
}

/** A search's body and its snapshot token (`Folio-Snapshot`: the generation each shard read). */
export interface SearchOutcome {
  body: SearchResponseBody;
  snapshot: string;
}

/**
 * Runs a search end to end; see {@link searchWithSnapshot}.
 * @throws EsError for invalid requests (400), a missing index (404), or every shard failing.
 */
export async function search(input: SearchInput, deps: SearchDeps): Promise<SearchResponseBody> {
  return (await searchWithSnapshot(input, deps)).body;
}

/**
 * Runs a search end to end, returning the body and the snapshot token.
 * @throws EsError for invalid requests (400), a missing index (404), an expired PIT, scroll or
 *   snapshot (404 `search_context_missing_exception` under `search_phase_execution_exception`),
 *   too many scroll contexts (429), or every shard failing.
 */
export async function searchWithSnapshot(input: SearchInput, deps: SearchDeps): Promise<SearchOutcome> {
  const startedAt = Date.now();
  const clock = new PhaseClock(deps.observePhase);
  // 1. parse, and rewrite on the coordinator
  const { req, aggsQuery } = await parseAndRewrite(input, deps, startedAt);
  const ctx = phaseContext(deps.client, { startedAt, timeoutMs: req.timeoutMs ?? deps.defaultTimeoutMs, signal: input.signal, profile: req.profile });
  checkCursorKeepAlives(req, input, deps);
  clock.lap('parse');
  // 2. plan (a new scroll then opens one context per shard)
  const { plan, copies, scrollId, withAggs } = await planAndOpen(req, aggsQuery, input, deps, ctx);
  clock.lap('plan');
  // 3–4. query and merge (or, for a deep page, select)
  const deep = plan.collapse === undefined && selectsDeepPage(plan, deps.deepPageFrom ?? DEEP_PAGE_FROM);
  const fused = !deep && fusesFetch(plan);
  const ranked = deep
    ? await runSelectionPhase(plan, copies, ctx, deps, deps.selectionSamples ?? SELECTION_SAMPLES)
    : await queryThenMerge(plan, copies, ctx, deps.dfsCache, clock, fused);
  if (deep) clock.lap('select');
  const failures = queryFailures(req, plan, ranked);
  // 4, beside the merge: the aggregations' reduce
  const aggs = withAggs ? await reduceAggs(req, plan, ranked, ctx, deps) : null;
  if (aggs) {
    failures.push(...aggs.failures);
    clock.lap('aggregate');
  }
  // 5. fetch (already done by the query round when it fused the fetch)
  const fetched = await fetchPage(req, ranked, copies, ctx);
  failures.push(...fetched.failures);
  clock.lap('fetch');
  const last = ranked.page.at(-1);
  if (scrollId !== undefined && last) failures.push(...(await advanceScroll(scrollReads(plan, ranked), last.hit.sort, ctx.client, ctx.deadline - Date.now())));
  const shown = ranked.page.filter((_, i) => fetched.docs[i] !== null || req.source === false);
  const snapshot = encodeSnapshot(
    ranked.generations.map((r) => ({ index: r.target.index, shard: r.target.shard, generation: r.response.generation, node: r.node })),
  );
  // 5b. expand: a collapsed search's inner hits, read from the generations this search read
  const keyAt = plan.sort.length - 1;
  const innerHits = await expandGroups(
    req,
    shown.map((m) => m.hit.sort[keyAt]),
    { ...input, snapshot },
    deps,
  );
  // 6. respond
  const docs = fetched.docs.filter((d) => d !== null || req.source === false);
  const body = respond(req, input, plan, ranked, { startedAt, failures, shown, docs, scrollId, keyAt, innerHits });
  if (aggs) body.aggregations = aggs.aggregations;
  clock.lap('respond');
  if (ctx.profile) body.profile = buildProfile(ctx.profile, clock);
  return { body, snapshot };
}

/**
 * Step 2: the plan (cursor.ts resolves the indices and any pinning, plan.ts and collapse-plan.ts
 * check and plan), the copy iterators the rounds move through, and a new scroll's contexts opened
 * (a continuation keeps its `_scroll_id`). Aggregations (first batch of a scroll only) read each
 * target's query; with `post_filter`, `aggsQuery`, the query without it.
 */
async function planAndOpen(
  req: SearchRequest,
  aggsQuery: Query | undefined,
  input: SearchInput,
  deps: SearchDeps,
  ctx: PhaseContext,
): Promise<{ plan: SearchPlan; copies: ShardCopyIterator[]; scrollId: string | undefined; withAggs: boolean }> {
  const cursor = await resolveCursor(input, req, deps.view);
  const withAggs = req.aggs !== null && !input.scroll; // ES aggregates on a scroll's first batch only
  // Aggregations read each target's query (alias filters, slice); with `post_filter`, that query without it.
  const plan = await planCollapse(await planSearch(req, cursor.indices, deps.view, cursor.pinning, cursor.scope, withAggs ? aggsQuery : undefined), deps.view);
  const copies = copyIterators(plan.targets); // the copy each shard is read on, moved by the rounds (the plan stays as planned)
  const scrollId = input.scroll?.id ?? (req.scroll !== null ? await openScroll(plan, copies, input, ctx, cursor.scope?.filters) : undefined);
  if (withAggs) plan.aggs = { nodes: req.aggs!, candidates: candidatesPerShard(plan.targets.length) };
  const pinned = plan.pins.some((p) => p !== undefined);
  const cacheUse = requestCacheUse(req, input.body, input.params.get('q'), pinned);
  if (cacheUse !== 'never') plan.requestCache = await cachedIndices(plan.targets, cacheUse, deps.view);
  return { plan, copies, scrollId, withAggs };
}

/**
 * The failures of planning and of the query round (or selection), checked before anything else runs.
 * @throws EsError `search_phase_execution_exception` when every shard failed, or when any failed and
 *   `allow_partial_search_results` is false ("Partial shards failure (N shards unavailable)").
 */
function queryFailures(req: SearchRequest, plan: SearchPlan, ranked: RankedPage): ShardFailure[] {
  const failures = [...plan.failures, ...ranked.failures];
  if (plan.totalShards > 0 && failures.length === plan.totalShards) throw allFailedError('query', failures);
  if (failures.length > 0 && !req.allowPartialSearchResults)
    throw allFailedError('query', failures, `Partial shards failure (${failures.length} shards unavailable)`);
  return failures;
}

/**
 * Step 4's aggregation reduce over the query round's replies, with the refinement rounds of exact
 * `terms` (aggs-phase.ts); keys render through the searched indices' mappings.
 */
async function reduceAggs(req: SearchRequest, plan: SearchPlan, ranked: RankedPage, ctx: PhaseContext, deps: SearchDeps): ReturnType<typeof runAggsPhase> {
  return runAggsPhase(
    {
      nodes: req.aggs!,
      queryFor: (i) => aggsQueryForTarget(plan, i),
      candidates: plan.aggs!.candidates,
      replies: ranked.generations,
      fieldMapping: await fieldMappings(plan, deps),
      typedKeys: req.typedKeys,
      maxBuckets: deps.maxBuckets?.(),
    },
    ctx,
  );
}

/**
 * Step 5: the page's documents, those the query round fused, or else fetched from the generation
 * each shard's hits were read from (fetch-phase.ts).
 * @throws EsError when the fetch phase refuses the request (a highlight over
 *   `index.highlight.max_analyzed_offset`): that fails the search, as in ES.
 */
async function fetchPage(req: SearchRequest, ranked: RankedPage, copies: readonly ShardCopyIterator[], ctx: PhaseContext): Promise<FetchOutcome> {
  const fetched = ranked.fusedDocs
    ? { docs: ranked.fusedDocs, failures: [] }
    : await runFetchPhase(ranked.page, ranked.generations, req.source, copies, ctx, hitFetchOptions(req));
  // A request the fetch phase refuses (a highlight over `index.highlight.max_analyzed_offset`) fails the search, as in ES.
  const refused = fetched.failures.filter((f) => f.status === 400);
  if (refused.length > 0) throw allFailedError('fetch', refused);
  return fetched;
}

/** What step 6 renders besides the plan and the ranked page: the shown hits, their documents, and the cursor and collapse parts. */
interface ShownPage {
  startedAt: number;
  failures: ShardFailure[];
  shown: RankedPage['page'];
  docs: FetchOutcome['docs'];
  scrollId: string | undefined;
  /** Position of the collapse key in each hit's sort values. */
  keyAt: number;
  innerHits: InnerHitsBody[] | undefined;
}

/** Step 6: the ES-shaped body (respond.ts), with `_scroll_id` / `pit_id` and a collapsed search's groups. */
function respond(req: SearchRequest, input: SearchInput, plan: SearchPlan, ranked: RankedPage, p: ShownPage): SearchResponseBody {
  const { keyAt, innerHits, scrollId } = p;
  const onlyScore = req.sort.length === 1 && req.sort[0].kind === 'score' && req.sort[0].order === 'desc';
  return buildSearchResponse({
    startedAt: p.startedAt,
    timedOut: ranked.timedOut,
    totalShards: plan.totalShards,
    failures: p.failures,
    total: reduceTotalHits(ranked.totals, req.trackTotalHits),
    maxScore: req.size === 0 ? null : ranked.maxScore,
    page: p.shown,
    docs: p.docs,
    sort: plan.sort,
    withSortValues: req.pit !== null || (req.sort.length > 0 && !onlyScore),
    withScores: plan.needScores,
    restTotalHitsAsInt: req.restTotalHitsAsInt,
    shownSortValues: plan.shownSortValues,
    doubleSortValues: plan.doubleSortValues,
    // ES answers a continuation without `scroll` with no `_scroll_id` (SearchScrollAsyncAction.sendResponse).
    scrollId: input.scroll && input.scroll.keepAliveMs === undefined ? undefined : scrollId,
    pitId: req.pit?.id,
    withIds: req.storedFields?.none !== true,
    ...(req.collapse
      ? {
          collapse: {
            field: req.collapse.field,
            keyAt,
            totalGroups: reduceGroupTotal(ranked.groups ?? [], req.trackTotalHits),
            ...(innerHits ? { innerHits } : {}),
          },
        }
      : {}),
  });
}

/**
 * Step 1: the request parsed (URL on top of body) and rewritten: terms lookups fetch their
 * documents once (terms-lookup.ts), and `post_filter` joins the query as a filter, since it
 * narrows the hits (the query phase reads query AND post_filter), not the aggregations. A scroll
 * continuation tracks the exact total as its first batch did: ES resolves track_total_hits to
 * accurate for any scroll (SearchRequest.resolveTrackTotalHitsUpTo).
 * @returns the request the phases run, and with a `post_filter` the query the aggregations read.
 */
async function parseAndRewrite(input: SearchInput, deps: SearchDeps, startedAt: number): Promise<{ req: SearchRequest; aggsQuery?: Query }> {
  const parsed = input.request ?? parseSearchRequest(input.params, input.body, input.path);
  const resolved = await resolveTermsLookups(parsed, (l) => fetchLookupSource(l, deps, startedAt + (parsed.timeoutMs ?? deps.defaultTimeoutMs)));
  const { postFilter } = resolved;
  const query: Query = postFilter ? { kind: 'bool', must: [resolved.query], should: [], filter: [postFilter], mustNot: [], boost: 1 } : resolved.query;
  const req: SearchRequest = { ...resolved, query, ...(input.scroll ? { trackTotalHits: TRACK_TOTAL_HITS_ACCURATE } : {}) };
  return postFilter ? { req, aggsQuery: resolved.query } : { req };
}

/**
 * Step 5b: the inner hits of a collapsed search's shown groups (their collapse keys), each group
 * searched on the generations the search read (`input.snapshot`); undefined when none are asked.
 */
async function expandGroups(req: SearchRequest, keys: readonly SortValue[], input: SearchInput, deps: SearchDeps): Promise<InnerHitsBody[] | undefined> {
  if (!req.collapse || req.collapse.innerHits.length === 0 || keys.length === 0) return undefined;
  const concurrency = req.collapse.maxConcurrentGroupSearches ?? defaultMaxConcurrentSearches(deps.client.nodes.length);
  return expandInnerHits(req, req.collapse, keys, (inner) => search({ ...input, scroll: undefined, request: inner }, deps), concurrency);
}

/** A field's mapping in the searched indices (the first index that maps it), for rendering aggregation keys. */
async function fieldMappings(plan: SearchPlan, deps: SearchDeps): Promise<(field: string) => FieldMapping | undefined> {
  const names = [...new Set(plan.targets.map((t) => t.index))];
  const maps = await Promise.all(names.map(async (n) => withAliasTargets(flatFields((await deps.view.get(n)).metadata.mappings))));
  return (field) => {
    for (const m of maps) {
      const fm = m.get(field);
      if (fm) return fm;
    }
    return undefined;
  };
}

/**
 * The `_source` of a terms lookup's document through the real-time GET path (ES's lookup is a
 * `GetRequest` with the lookup's routing), or undefined when it does not exist.
 * @throws EsError 404 `index_not_found_exception` for a missing index.
 */
async function fetchLookupSource(l: TermsLookupQuery, deps: SearchDeps, deadline: number): Promise<unknown> {
  const view = await deps.view.get(l.index);
  const doc = await getDocument(deps.client, view, l.id, { routing: l.routing, source: true, timeoutMs: Math.max(1, deadline - Date.now()) });
  return doc.found ? doc._source?.parse() : undefined;
}

/**
 * Steps 3 and 4 of query-then-fetch: every shard's top `from + size`, k-way merged, `from` skipped.
 * With `fused`, the shards return their hits' `_source` too and the page's documents come back
 * with it (`fusedDocs`), unless some shard replied without them.
 */
async function queryThenMerge(
  plan: SearchPlan,
  copies: readonly ShardCopyIterator[],
  ctx: PhaseContext,
  dfsCache: DfsCache,
  clock: PhaseClock,
  fused: boolean,
): Promise<RankedPage> {
  const queried = await runQueryPhase(plan, copies, ctx, dfsCache, fused ? plan.req.source : undefined, fused ? hitFetchOptions(plan.req) : undefined);
  clock.lap('query');
  const merge = plan.collapse ? mergeTopGroups : mergeTopHits;
  const page = merge(
    queried.results.map((r) => ({ shardIndex: r.shardIndex, index: r.target.index, hits: withSortTexts(r.response) })),
    plan.sort,
    plan.req.from,
    plan.req.size,
  );
  let maxScore: number | null = null;
  for (const r of queried.results) {
    const s = r.response.max_score;
    if (s !== null && (maxScore === null || s > maxScore)) maxScore = s;
  }
  clock.lap('merge');
  const withSources = fused && queried.results.every((r) => r.response.sources !== undefined);
  if (withSources && ctx.profile) for (const r of queried.results) ctx.profile.recordFusedFetch(r.shardIndex);
  return {
    ...(withSources ? { fusedDocs: fusedDocs(page, queried.results) } : {}),
    page,
    totals: queried.results.map((r) => r.response.total),
    maxScore,
    generations: queried.results,
    failures: queried.failures,
    timedOut: queried.timedOut,
    ...(plan.collapse ? { groups: queried.results.map((r) => r.response.groups ?? { count: 0, keys: [] }) } : {}),
  };
}
