/**
 * Exact distributed selection for a deep `from` (replaces query + merge for deep pages): instead of
 * every shard sending its top `from + size`, two rounds whose traffic does not grow with `from`:
 *   1. sample round — each shard returns its match count nᵢ and S evenly spaced keys, and pins the
 *      generation it read (with dfs statistics first when scoring, as the query phase);
 *   2. range round  — on that generation, each shard returns its count of matches before a lower
 *      key (global rank surely ≤ from) and its matches up to an upper key (rank surely ≥ from+size);
 * then the merge skips `from − Σ before` and takes `size`. Keys are unique (sort values, `_id`,
 * index), so pages are exact with any ties. A shard that lost the pinned generation answers
 * `search_context_missing_exception` and the selection restarts from the sample round (twice at most).
 * Sample rounds are cached per (shards, query, sort) with the generation each shard read: while no
 * shard has refreshed, a deep page costs the range round and the fetch, as many round trips as page 1
 * (the range round then requires each generation to still be current, else it samples anew). A query
 * that repeats is sampled once more with a larger S ({@link reusedSamples}), so its range rounds shrink.
 * Keys and hits travel in the binary hits format (protocol/wire.ts) unless `FOLIO_WIRE=json`.
 * @see Frederickson, "Distributed algorithms for selection in sets", JCSS 37 (1988)
 * @see Kuhn, Locher, Wattenhofer, "Distributed Selection", CACM 51(9) (2008)
 * @see docs/selection.md
 */
import { EsError } from '../../protocol/errors.ts';
import { rpc } from '../../protocol/rpc.ts';
import {
  type FetchedDoc,
  type SelectRangeRequest,
  type SelectSampleRequest,
  type SelectSampleResponse,
  type ScoringStatistics,
  type ShardGroups,
} from '../../protocol/search.ts';
import { withGlobalStatistics } from './dfs-phase.ts';
import { fetchesHits, hitFetchOptions } from './fetch-options.ts';
import { FUSED_FETCH_MAX_SOURCES, fusedDocs } from './fetch-phase.ts';
import { recordAnchors } from './range-anchors.ts';
import { LRUCache } from 'lru-cache';
import { byteBoundedOptions, type CacheBounds } from '../../shared/bounded-cache.ts';
import { estimateBytes } from '../../shared/size-estimate.ts';
import { preferCopies } from './copy-affinity.ts';
import type { DfsCache } from './dfs-cache.ts';
import { fanOut, type ShardReply } from './fan-out.ts';
import type { PhaseContext } from './phase-context.ts';
import { mergeTopHits, type MergedHit, type ShardTopHits, type ShardTotal } from './merge.ts';
import { pinFields, queryForTarget, sortForTarget, type SearchPlan } from './plan.ts';
import { boundForShard, rankSampleKeys, windowFromRanked, type RankedKey, type SelectionWindow, type ShardSample } from './rank-bounds.ts';
import type { ShardFailure } from './shard-failures.ts';
import type { ShardCopyIterator } from './shard-copy-iterator.ts';
import type { SortField } from '../../protocol/sort.ts';

/**
 * Default `from` at which a search switches to selection. Measured with bench/deep-page.ts (cities,
 * 135 k docs in 3 shards, match_all sorted by population desc, size 10, p50): query-then-fetch
 * 1.28 ms / 45 KB vs selection 2.08 ms / 50 KB at from = 300, and 2.38 ms / 146 KB vs 1.85 ms /
 * 50 KB at from = 1,000; the crossover lies between, so 500.
 */
export const DEEP_PAGE_FROM = 500;

/**
 * Default S (keys per shard in the sample round). Wire entries are ≈ K·S + 2·Σnⱼ/S + size,
 * smallest near S ≈ √(2n). Measured on 45 k matches per shard (bench/deep-page.ts, from = 100,000):
 * S = 64 → 106 KB, 128 → 60 KB, 256 → 49 KB, 512 → 61 KB, 1024 → 103 KB, p50 within 2.4–3.8 ms.
 */
export const SELECTION_SAMPLES = 256;

/** A cached sample round: each shard's reply (with the generation it read and the copy that read it), its S, and the dfs statistics used. */
export interface CachedSample {
  results: readonly ShardReply<SelectSampleResponse>[];
  samples: number;
  stats?: ScoringStatistics;
  /** The sample keys in global order with their rank bounds, computed once per cached sample; with the anchors pages added (range-anchors.ts). */
  ranked: readonly RankedKey[];
  /** How many anchors `ranked` holds (range-anchors.ts `MAX_ANCHORS` bounds it). */
  anchors?: number;
}

/** Most keys per shard a reused sample round asks for (its one-time cost: K × this many keys). */
const MAX_REUSED_SAMPLES = 4096;

/**
 * S for a sample round that will be reused: a reused sample costs nothing per search, and the range
 * round then carries about 2·n/S entries per shard, so once a query repeats, its sample is taken
 * again with S = n/64 (≈ 128 range entries per shard), never below `dflt` nor above 4,096.
 * @param totals each shard's match count from the previous sample of the same query
 */
export function reusedSamples(totals: readonly number[], dflt: number): number {
  const n = Math.max(0, ...totals);
  return Math.min(MAX_REUSED_SAMPLES, Math.max(dflt, Math.ceil(n / 64)));
}

/**
 * Bounds of the sample cache: 64 MiB in all, 8 MiB per entry (a sample of a huge query key is not
 * cached; a reused sample is taken no larger than fits, {@link SampleCache.fittingSamples}).
 */
export const SAMPLE_CACHE_BOUNDS: CacheBounds = { maxBytes: 64 * 1024 * 1024, maxEntryBytes: 8 * 1024 * 1024 };

/** Bytes a ranked key adds beside the reply key it points at (an object header and five slots). */
const RANKED_KEY_BYTES = 72;

/**
 * The byte estimate of a cached sample: its replies walked once, and each ranked key's own object
 * (the keys it points at are the replies', counted there). Walking `ranked` too counted every key
 * twice: 4 shards × 3,906 keys (the reused sample of 1 M documents) came to 9.5 MB, past the entry
 * cap, so that sample was never cached and every deep page sampled anew (238 KB, 12–14 ms).
 */
export function sampleBytes(v: CachedSample, limitBytes: number): number {
  return estimateBytes(v.results, limitBytes) + v.ranked.length * RANKED_KEY_BYTES + (v.stats ? estimateBytes(v.stats, limitBytes) : 0);
}

/** LRU of sample rounds keyed by {@link sampleCacheKey}, bounded in bytes (shared/bounded-cache.ts). */
export class SampleCache extends LRUCache<string, CachedSample> {
  private readonly maxEntryBytes: number;

  constructor(bounds: CacheBounds = SAMPLE_CACHE_BOUNDS) {
    super(byteBoundedOptions<CachedSample>(bounds, sampleBytes));
    this.maxEntryBytes = bounds.maxEntryBytes;
  }

  /** {@link fittingSamples} of each cached sample, computed on its first reuse. */
  private readonly fitting = new WeakMap<CachedSample, number>();

  /**
   * The largest S whose sample of the same query still fits an entry, from the bytes per key of
   * `sample` (a sample of it already taken): a larger one would not be cached, and every search
   * would then sample anew. Computed once per sample: the estimate walks every key, and a repeated
   * deep page asks on each search (it was a quarter of the coordinator's CPU on such pages).
   */
  fittingSamples(sample: CachedSample): number {
    let fits = this.fitting.get(sample);
    if (fits === undefined) {
      const keys = sample.results.reduce((n, r) => n + r.response.keys.length, 0);
      // Three quarters of the cap: the cache key and the anchors are charged beside the keys.
      fits =
        keys === 0
          ? Number.MAX_SAFE_INTEGER
          : Math.floor((0.75 * this.maxEntryBytes) / ((sampleBytes(sample, this.maxEntryBytes) / keys) * sample.results.length));
      this.fitting.set(sample, fits);
    }
    return fits;
  }
}

/** Cache key of a sample round: targets, query, per-target sort and scoring. */
function sampleCacheKey(plan: SearchPlan): string {
  const sorts = plan.targets.map((_, i) => sortForTarget(plan, i));
  return JSON.stringify([plan.targets.map((t) => `${t.index}/${t.shard}`), plan.queries ?? plan.req.query, sorts, plan.needScores]);
}

/** The caches a selection reads and fills: dfs statistics, and sample rounds (absent: never cached). */
export interface SelectionCaches {
  dfsCache: DfsCache;
  sampleCache?: SampleCache;
}

/** Restarts of the whole selection after a shard lost its pinned generation. */
const MAX_RESTARTS = 2;

/** A merged page with what the response and the fetch phase need, from either path. */
export interface RankedPage {
  page: MergedHit[];
  /** Per successful shard, its exact match count. */
  totals: ShardTotal[];
  maxScore: number | null;
  /**
   * Per shard position, the generation its hits were read from (for the fetch phase), and for a
   * scroll batch the number of the position the shard started after (query-phase replies).
   */
  generations: readonly ShardReply<{ generation: number; scrollSeq?: number; routed?: boolean }>[];
  failures: ShardFailure[];
  timedOut: boolean;
  /** The page's documents when the query round fused the fetch (parallel to `page`). */
  fusedDocs?: (FetchedDoc | null)[];
  /** A collapsed search: each shard's group count and keys (collapse-merge.ts `reduceGroupTotal`). */
  groups?: ShardGroups[];
}

/** True when the request should page by selection: a deep `from`, a page to return, no cursor. */
export function selectsDeepPage(plan: SearchPlan, fromThreshold: number): boolean {
  const { req } = plan;
  return req.from >= fromThreshold && req.size > 0 && req.searchAfter === null && req.scroll === null && req.rescore.length === 0;
}

/**
 * Runs the sample and range rounds on the copies `copies` (the search's copy iterators) stand on,
 * and merges the page; restarts when a pinned generation expired.
 */
export async function runSelectionPhase(
  plan: SearchPlan,
  copies: readonly ShardCopyIterator[],
  ctx: PhaseContext,
  caches: SelectionCaches,
  samples: number,
): Promise<RankedPage> {
  for (let attempt = 0; ; attempt++) {
    const ranked = await selectOnce(plan, copies, ctx, caches, samples);
    const lost = ranked.failures.some((f) => f.reason.type === 'search_context_missing_exception');
    if (!lost || attempt >= MAX_RESTARTS) return ranked;
  }
}

/** A sample round's outcome, fresh or from the cache. */
interface SampleOutcome {
  results: readonly ShardReply<SelectSampleResponse>[];
  failures: ShardFailure[];
  timedOut: boolean;
  stats?: ScoringStatistics;
  ranked: readonly RankedKey[];
  /** S for a restarted selection: the one asked, or the larger one a repeated query earned. */
  samples: number;
  /** The cache key when the round came from the sample cache (absent: a fresh round). */
  cachedKey?: string;
  /** The cache entry this round is (cached) or filled (fresh), under `entryKey`: where the page's anchors go. */
  entry?: CachedSample;
  entryKey?: string;
}

/**
 * Step 1 of the selection: the sample round, or its cached result when the search can read the
 * copies it was sampled on (pinned searches read their own generations, never cached); a fresh
 * round that every shard answered is cached.
 */
async function sampleRound(
  plan: SearchPlan,
  copies: readonly ShardCopyIterator[],
  ctx: PhaseContext,
  caches: SelectionCaches,
  samples: number,
  useCache: boolean,
): Promise<SampleOutcome> {
  const { sampleCache } = caches;
  const pinned = plan.pins.some((p) => p !== undefined);
  const cacheKey = sampleCache && !pinned && useCache ? sampleCacheKey(plan) : null;
  let cached = cacheKey ? sampleCache!.get(cacheKey) : undefined;
  // Its generations are per copy: reuse it only when the search can read the copies it was sampled on.
  if (cached) {
    const byShard = new Map(cached.results.map((r) => [r.shardIndex, r.node]));
    if (!preferCopies(copies, (_, i) => byShard.get(i))) cached = undefined;
  }
  if (cached) {
    // The query repeats: take its sample once more with the S that makes range rounds small.
    const better = Math.min(
      reusedSamples(
        cached.results.map((r) => r.response.total.value),
        samples,
      ),
      sampleCache!.fittingSamples(cached),
    );
    if (better > cached.samples) {
      samples = better;
      cached = undefined;
    }
  }
  if (cached) return { ...cached, samples, failures: [], timedOut: false, cachedKey: cacheKey!, entry: cached, entryKey: cacheKey! };
  const scoring = plan.needScores ? { trackScores: true } : {};
  const sampled = await withGlobalStatistics<SelectSampleResponse>(plan, copies, ctx, caches.dfsCache, (extras, skip) =>
    fanOut(copies, ctx, rpc.selectSample, (t, i): SelectSampleRequest | null =>
      skip.has(i)
        ? null
        : {
            index: t.index,
            shard: t.shard,
            query: queryForTarget(plan, i),
            sort: sortForTarget(plan, i),
            samples,
            ...scoring,
            ...extras[i],
            ...pinFields(plan, i),
          },
    ),
  );
  const ranked = rankSampleKeys(
    sampled.results.map((r): ShardSample => ({ shardIndex: r.shardIndex, index: r.target.index, total: r.response.total.value, keys: r.response.keys })),
    plan.sort,
  );
  const stats = sampled.stats ? { stats: sampled.stats } : {};
  // The replies name the copies that answered; nothing writes to them.
  const out: SampleOutcome = { results: sampled.results, failures: sampled.failures, timedOut: sampled.timedOut, ranked, samples, ...stats };
  if (cacheKey && sampled.failures.length === 0 && !sampled.timedOut) {
    out.entry = { results: sampled.results, samples, ranked, ...stats };
    out.entryKey = cacheKey;
    sampleCache!.set(cacheKey, out.entry);
  }
  return out;
}

async function selectOnce(
  plan: SearchPlan,
  copies: readonly ShardCopyIterator[],
  ctx: PhaseContext,
  caches: SelectionCaches,
  samples: number,
  useCache = true,
): Promise<RankedPage> {
  const { req } = plan;
  // 1. sample round (or its cached result)
  const sampled = await sampleRound(plan, copies, ctx, caches, samples, useCache);
  const cached = sampled.cachedKey !== undefined;
  const replies = sampled.results;
  const totals = replies.map((r) => r.response.total);
  let maxScore: number | null = null;
  for (const r of replies) if (r.response.max_score !== null && (maxScore === null || r.response.max_score > maxScore)) maxScore = r.response.max_score;
  const window = windowFromRanked(
    sampled.ranked,
    totals.reduce((s, t) => s + t.value, 0),
    req.from,
    req.size,
  );
  if (window.empty) return { page: [], totals, maxScore, generations: replies, failures: sampled.failures, timedOut: sampled.timedOut };

  // 2. range round, on the generation each shard's sample read; with the fetch fused when every
  // hit it may return fits the fused-fetch budget (a repeated page, whose window its anchors fix).
  const fused = fetchesHits(req) && copies.length * (window.limit + 1) <= FUSED_FETCH_MAX_SOURCES;
  const byPosition = new Map(replies.map((r) => [r.shardIndex, r.response]));
  const ranged = await fanOut(copies, ctx, rpc.selectRange, (t, i) => rangeRequest(plan, t, i, byPosition.get(i), window, sampled, fused));
  if (cached && ranged.results.some((r) => r.response.stale)) {
    caches.sampleCache!.delete(sampled.cachedKey!);
    return selectOnce(plan, copies, ctx, caches, sampled.samples, false);
  }
  // A copy failed in the range round (which cannot move to another copy mid-selection): the fan-out
  // moved its iterator to the next copy, so sample again there (bounded by the copies left).
  if (ranged.movedOn) return selectOnce(plan, copies, ctx, caches, sampled.samples, false);

  // 3. merge, and the exact ranks it found anchor the cached sample (range-anchors.ts)
  const merged = mergeRanges(
    ranged.results.map((r) => ({ shardIndex: r.shardIndex, index: r.target.index, before: r.response.before, hits: r.response.hits })),
    plan.sort,
    req.from,
    req.size + 1,
  );
  const page = merged.slice(0, req.size);
  if (sampled.entry && ranged.failures.length === 0 && !ranged.timedOut) {
    recordAnchors(caches.sampleCache!, sampled.entryKey!, sampled.entry, plan.sort, req.from, merged);
  }
  const withSources = fused && ranged.results.every((r) => r.response.sources !== undefined);
  if (withSources && ctx.profile) for (const r of ranged.results) ctx.profile.recordFusedFetch(r.shardIndex);
  return {
    ...(withSources ? { fusedDocs: fusedDocs(page, ranged.results) } : {}),
    page,
    totals,
    maxScore,
    generations: replies, // the sample round read (and pinned) each shard's generation; the range round read the same
    failures: [...sampled.failures, ...ranged.failures],
    timedOut: sampled.timedOut || ranged.timedOut,
  };
}

/**
 * The range-round request of the shard at position `i` (null: not asked), on the generation its
 * sample read, for one hit more than the window: the hit after the page, whose rank the merge
 * fixes (range-anchors.ts). With `fused`, the shard returns its hits' `_source` too.
 */
function rangeRequest(
  plan: SearchPlan,
  t: { index: string; shard: number },
  i: number,
  s: SelectSampleResponse | undefined,
  window: SelectionWindow,
  sampled: SampleOutcome,
  fused: boolean,
): SelectRangeRequest | null {
  const cached = sampled.cachedKey !== undefined;
  // With a cached sample every shard is asked, so one that was empty then proves it still is.
  if (!s || (s.total.value === 0 && !cached)) return null;
  const lower = boundForShard(window.lower, { index: t.index, shardIndex: i });
  const upper = boundForShard(window.upper, { index: t.index, shardIndex: i });
  const fetchOptions = fused ? hitFetchOptions(plan.req) : undefined;
  return {
    index: t.index,
    shard: t.shard,
    query: queryForTarget(plan, i),
    sort: sortForTarget(plan, i),
    generation: s.generation,
    ...(lower ? { lower } : {}),
    ...(upper ? { upper } : {}),
    limit: window.limit + 1,
    ...(fused ? { fetchSource: plan.req.source } : {}),
    ...(fetchOptions !== undefined ? { fetchOptions } : {}),
    ...(plan.needScores ? { trackScores: true } : {}),
    ...(sampled.stats ? { stats: sampled.stats } : {}),
    ...(cached ? { requireCurrent: true } : {}),
  };
}

/** One shard's range-round result, as {@link mergeRanges} takes it. */
export interface ShardRange extends ShardTopHits {
  /** Matches of this shard before the lower key. */
  before: number;
}

/**
 * The page from the range round (pure): the shards' ranges are contiguous in the global order
 * from rank Σ before, so the merge skips `from − Σ before` and takes `size`.
 * @throws EsError 500 when Σ before exceeds `from` (the lower key was not surely ≤ from: a bug).
 */
export function mergeRanges(ranges: readonly ShardRange[], sort: readonly SortField[], from: number, size: number): MergedHit[] {
  const before = ranges.reduce((s, r) => s + r.before, 0);
  if (before > from) {
    throw new EsError(500, 'illegal_state_exception', `selection lower key has global rank [${before}] past from [${from}]`);
  }
  return mergeTopHits(ranges, sort, from - before, size);
}
