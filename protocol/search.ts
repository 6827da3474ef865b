/**
 * The search phases between coordinator and shard nodes: dfs, query (with the fused fetch), fetch and the rounds of exact distributed selection
 * (the search contexts of a PIT or scroll are in protocol/search-contexts.ts).
 * Part of the internal shard-node protocol (docs/architecture.md lists its modules).
 */
import type { HighlightSpec } from './highlight.ts';
import type { Query } from './query-ast.ts';
import type { Rescore } from './rescore.ts';
import type { SortField, SortKey, SortValue } from './sort.ts';
import type { AggPartial, QueryAggs } from './aggs.ts';
import type { ShardEcho } from './echo.ts';

/** Per-term statistics for distributed scoring (ES `dfs_query_then_fetch`). */
export interface TermStatistics {
  docFreq: number;
  totalTermFreq: number;
}

/** Per-field statistics for BM25's idf N and avgdl (Lucene `CollectionStatistics`). */
export interface FieldStatistics {
  /** Documents that have the field. */
  docCount: number;
  /** Sum over documents of the field length in tokens. */
  sumTotalTermFreq: number;
}

/** Term statistics keyed `field\u0000term`, with field statistics keyed by field. */
export interface ScoringStatistics {
  terms: Record<string, TermStatistics>;
  fields: Record<string, FieldStatistics>;
}

/**
 * A reference to an explicitly opened search context (PIT or scroll, see {@link OpenContextRequest}):
 * the shard reads the context's pinned generation and renews its keep-alive (to `keepAliveMs` when
 * given). An unknown or expired id answers 404 `search_context_missing_exception`.
 */
export interface ContextRef {
  id: number;
  keepAliveMs?: number;
  /**
   * A scroll batch: the query phase starts after the context's recorded position (ignoring the
   * request's `searchAfter`) and answers that position's number as `scrollSeq`.
   */
  scroll?: boolean;
}

/** POST /_internal/v1/dfs: the shard's statistics for the scored terms of a query. */
export interface DfsRequest {
  index: string;
  shard: number;
  query: Query;
  /** Read this retained generation (a Folio-Snapshot pin); absent = the current one. */
  generation?: number;
  /** Read this context's generation (PIT, scroll). */
  context?: ContextRef;
}

/** Reply to {@link DfsRequest}; `generation` is the refresh generation the statistics describe, kept open for the search. */
export interface DfsResponse extends ShardEcho {
  generation: number;
  stats: ScoringStatistics;
}

/** `track_total_hits` normalized: -1 = disabled, `Number.MAX_SAFE_INTEGER` = accurate, else count up to N. */
export type TrackTotalHits = number;

/** POST /_internal/v1/query: the query phase on one shard. */
export interface QueryPhaseRequest {
  index: string;
  shard: number;
  query: Query;
  sort: SortField[];
  /** How many top entries to return (ES: from + size). */
  k: number;
  /** Return only entries strictly after this key in the global order (values, then `_id` if given). */
  searchAfter?: { sort: SortValue[]; _id?: string };
  trackTotalHits: TrackTotalHits;
  /** ES `track_scores`: compute scores even when sorting by fields. */
  trackScores?: boolean;
  /** Global statistics (dfs). Without them the shard scores with its local statistics. */
  stats?: ScoringStatistics;
  /**
   * ES `rescore`: rescore the shard's top hits with these `query` rescorers in order (the shard
   * collects max(k, window_size) hits first, then returns its top k by the new scores).
   */
  rescore?: Rescore[];
  /** Search this retained refresh generation (the one a dfs reply named); absent = the current one. */
  generation?: number;
  /** Search this context's generation (PIT, scroll); takes precedence over `generation`. */
  context?: ContextRef;
  /**
   * The generation `stats` were gathered at, for cached statistics: when the shard has refreshed
   * since, it answers `statsStale: true` without searching, and the coordinator re-runs dfs.
   */
  statsGeneration?: number;
  /**
   * Fused fetch: also return each hit's `_source` (filtered like the fetch phase) as `sources`, so
   * a small page needs no fetch round (ES fuses query and fetch for a single shard:
   * `SearchService.executeQueryPhase` → `QueryFetchSearchResult`). Absent: keys only.
   */
  fetchSource?: SourceFilter;
  /** Aggregations to collect over the matches (of `aggs.query` when given: `post_filter`), from the same generation. */
  aggs?: QueryAggs;
  /** With the fused fetch: what else each hit carries ({@link HitFetchOptions}); the reply's `extras` hold it. */
  fetchOptions?: HitFetchOptions;
  /** ES `collapse`: return the top `k` groups instead of hits (see {@link ShardCollapse}). */
  collapse?: ShardCollapse;
  /**
   * The coordinator found the request cacheable (coordinator/search/request-cache-policy.ts, ES
   * `IndicesService.canCache`): the shard answers it from its request cache when it can
   * (shard-node/query-reply-cache.ts). Never set with `context`.
   */
  requestCache?: true;
}

/**
 * The query phase of a collapsed search (coordinator/search/collapse-merge.ts): the shard keeps
 * its best hit per value of `field` (per `compareHits` on the request's sort), and returns the `k`
 * best of those hits, each with the group key appended as its last sort value (the request's sort
 * ends with the key clause). A document without a value is the group of key null.
 */
export interface ShardCollapse {
  field: string;
  /** Return the shard's distinct keys (`groups.keys`) when there are at most this many (0: never). */
  groupKeysUpTo: number;
}

/** A shard's groups of a collapsed query phase: how many distinct keys matched, and the keys when asked and few enough. */
export interface ShardGroups {
  count: number;
  keys?: SortValue[];
}

/** One query-phase entry: no `_source`, just what the merge needs. */
export interface ShardHit {
  _id: string;
  /** The score, or null when it was not computed (field sort). */
  _score: number | null;
  /** One value per SortField. */
  sort: SortValue[];
  /**
   * Coordinator only (from {@link QueryPhaseResponse.sortTexts}, never sent per hit): the JSON text
   * of sort values ES prints differently from `JSON.stringify` (integers above 2^53, ip addresses),
   * null where `sort` prints as is.
   */
  sortTexts?: (string | null)[];
}

/** Reply to {@link QueryPhaseRequest}: exactly this shard's top k in the requested order. */
export interface QueryPhaseResponse extends ShardEcho {
  generation: number;
  total: { value: number; relation: 'eq' | 'gte' };
  /** Highest score among matches, null when scores were not computed or nothing matched. */
  max_score: number | null;
  hits: ShardHit[];
  /**
   * With {@link QueryPhaseRequest.fetchSource}: per hit, its filtered `_source` as JSON text (null
   * when the filter leaves none), read from the same generation as the hits.
   */
  sources?: (string | null)[];
  /**
   * With the fused fetch, parallel to `sources`: each hit's {@link HitExtras} (null: none); absent
   * when no hit has any (no options asked, no document with a custom routing).
   */
  extras?: (HitExtras | null)[];
  /** True when some document of the generation read has a custom `_routing` (the page then needs its hits' routings). */
  routed?: boolean;
  /** Set (with no hits) when `statsGeneration` is no longer this shard's current generation. */
  statsStale?: boolean;
  /** For a scroll batch ({@link ContextRef.scroll}): the number of the position it started after. */
  scrollSeq?: number;
  /** With {@link QueryPhaseRequest.aggs}: the partial result of each aggregation, in request order. */
  aggs?: AggPartial[];
  /**
   * JSON texts of sort values ES prints differently from `JSON.stringify`, by hit position
   * (shard-node/engine/sort-value-texts.ts); absent when there are none.
   */
  sortTexts?: Record<number, (string | null)[]>;
  /** With {@link QueryPhaseRequest.collapse}: the shard's group count (and keys). */
  groups?: ShardGroups;
}

/** ES `_source` filtering: false, true, or include/exclude patterns (with `*` wildcards). */
export type SourceFilter = boolean | { includes: string[]; excludes: string[] };

/**
 * One requested `fields` / `docvalue_fields` entry (ES `FieldAndFormat`): a name or `*` pattern, with
 * an optional `format` (dates, numbers in `docvalue_fields`).
 */
export interface FieldAndFormat {
  field: string;
  /** Absent: the mapping's format (ES `use_field_mapping` means the same and is dropped). */
  format?: string;
  /** `fields` only: also return `_source` values of unmapped fields the pattern matches. */
  includeUnmapped?: boolean;
}

/**
 * What the fetch phase adds to each hit beyond `_source`, each part only when asked (ES fetch
 * sub-phases `FetchVersionPhase`, `FetchSeqNoPhase`, `FetchFieldsPhase`, `FetchDocValuesPhase`,
 * `StoredFieldsPhase`). `_routing` needs no option: a document indexed with a custom routing
 * always shows it, unless `noMetadata` (`stored_fields: _none_`).
 */
export interface HitFetchOptions {
  version?: boolean;
  seqNoPrimaryTerm?: boolean;
  fields?: FieldAndFormat[];
  docvalueFields?: FieldAndFormat[];
  /** `stored_fields` names and patterns (fields mapped with `store: true`). */
  storedFields?: string[];
  /** `stored_fields: _none_`: no metadata field (`_routing`) either. */
  noMetadata?: boolean;
  /** ES `highlight`, with the query whose terms it marks (the search's, unless it names a `highlight_query`). */
  highlight?: ShardHighlight;
}

/** What the shard's highlighter needs (shard-node/engine/highlight/). */
export interface ShardHighlight {
  spec: HighlightSpec;
  query: Query;
}

/** What a hit carries beside `_id` and `_source` (see {@link HitFetchOptions}). */
export interface HitExtras {
  _version?: number;
  _seq_no?: number;
  _primary_term?: number;
  /** The custom routing the document was indexed with. */
  _routing?: string;
  /** The fields whose values were not indexed (ES's `_ignored` metadata field). */
  _ignored?: string[];
  /** `fields`, `docvalue_fields` and `stored_fields` values by field name; absent when none has a value. */
  fields?: Record<string, unknown[]>;
  /** ES `highlight`: fragments by field name; absent when no field has any. */
  highlight?: Record<string, string[]>;
}

/** POST /_internal/v1/fetch: load documents of the final page from the generation the query phase read. */
export interface FetchRequest {
  index: string;
  shard: number;
  generation: number;
  ids: string[];
  _source: SourceFilter;
  /** Absent: `_source` (and `_routing`) only. */
  options?: HitFetchOptions;
}

/** A fetched document; `_source` is omitted when filtered out by `_source: false`. */
export interface FetchedDoc extends HitExtras {
  _id: string;
  /** The stored `_source` JSON text, byte for byte when unfiltered (shared/raw-json.ts). */
  _source?: string;
}

/** Reply to {@link FetchRequest}: one entry per requested id in order, null for an id not present. */
export interface FetchResponse extends ShardEcho {
  docs: (FetchedDoc | null)[];
}

/**
 * A key bounding a selection range: sort values and `_id` (unique within an index). When several
 * indices are searched, equal (sort, `_id`) keys are ordered by index name (as the merge does);
 * `equalBefore` tells a shard that its own doc equal to this key sorts before it.
 */
export interface SelectionBound {
  sort: SortValue[];
  _id: string;
  equalBefore?: boolean;
}

/**
 * POST /_internal/v1/select/sample: the sample round of exact distributed selection for a deep
 * `from`. The shard pins the generation it reads (current, or `generation`) with the search keep-alive.
 */
export interface SelectSampleRequest {
  index: string;
  shard: number;
  query: Query;
  sort: SortField[];
  /** S: how many evenly spaced keys to return. */
  samples: number;
  generation?: number;
  /** As in {@link QueryPhaseRequest}. */
  context?: ContextRef;
  trackScores?: boolean;
  /** Global statistics (dfs), as in {@link QueryPhaseRequest}. */
  stats?: ScoringStatistics;
  /** As in {@link QueryPhaseRequest}: answer `statsStale` when the shard refreshed since. */
  statsGeneration?: number;
}

/** Reply to {@link SelectSampleRequest}: keys at local ranks {@link sampleRanks}(total.value, samples). */
export interface SelectSampleResponse extends ShardEcho {
  generation: number;
  /** Exact count of live matches (relation always `eq`). */
  total: { value: number; relation: 'eq' | 'gte' };
  max_score: number | null;
  keys: SortKey[];
  statsStale?: boolean;
  /** As {@link QueryPhaseResponse.routed} (the fetch phase of a deep page reads this round's generations). */
  routed?: boolean;
}

/**
 * POST /_internal/v1/select/range: the range round, on the generation the sample round pinned
 * (a missing one answers 404 `search_context_missing_exception`).
 */
export interface SelectRangeRequest {
  index: string;
  shard: number;
  query: Query;
  sort: SortField[];
  generation: number;
  /** Inclusive lower key; absent = from the first match. */
  lower?: SelectionBound;
  /** Exclusive upper key; absent = to the last match. */
  upper?: SelectionBound;
  /** At most this many hits. */
  limit: number;
  trackScores?: boolean;
  stats?: ScoringStatistics;
  /**
   * Set when the window came from a cached sample round: `generation` must still be the shard's
   * current one, else the shard answers `stale: true` (no hits) and the coordinator samples anew.
   */
  requireCurrent?: boolean;
  /**
   * Fused fetch, as {@link QueryPhaseRequest.fetchSource}: also return each hit's `_source` as
   * `sources` (asked when the window is small enough that every hit may be shown: a repeated deep page).
   */
  fetchSource?: SourceFilter;
  /** With the fused fetch: what else each hit carries; the reply's `extras` hold it. */
  fetchOptions?: HitFetchOptions;
}

/** Reply to {@link SelectRangeRequest}. */
export interface SelectRangeResponse extends ShardEcho {
  generation: number;
  /** Matches strictly before `lower` (0 without it). */
  before: number;
  /** Matches in [lower, upper) in the global order, at most `limit`. */
  hits: ShardHit[];
  /** With `requireCurrent`: the shard has refreshed since the cached sample; nothing was read. */
  stale?: boolean;
  /** With {@link SelectRangeRequest.fetchSource}: per hit, its filtered `_source` JSON text (as {@link QueryPhaseResponse.sources}). */
  sources?: (string | null)[];
  /** With the fused fetch, parallel to `sources`: each hit's {@link HitExtras} (null: none). */
  extras?: (HitExtras | null)[];
}

/**
 * The local ranks the sample round returns keys at, for `n` matches and S = `samples`: every rank
 * when n ≤ S, else ⌊j·n/S⌋ for j = 0…S−1 (strictly increasing, starting at 0). Shared by the shard
 * (which picks the keys) and the coordinator (which bounds global ranks with them).
 * @example sampleRanks(10, 4) // [0, 2, 5, 7]
 */
export function sampleRanks(n: number, samples: number): number[] {
  const s = Math.max(0, Math.floor(samples));
  if (n <= s) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: s }, (_, j) => Math.floor((j * n) / s));
}
