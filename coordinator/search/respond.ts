/**
 * Respond phase: the ES `_search` response body, field for field and in ES's key order.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/SearchResponse.java
 */
import type { FetchedDoc } from '../../shared/protocol.ts';
import { RawJson } from '../../shared/raw-json.ts';
import type { SortField, SortValue } from '../../shared/sort.ts';
import type { MergedHit, ShardTotal } from './merge.ts';
import type { ProfileBody } from './profile.ts';
import { failuresForResponse, type ShardFailure } from './shard-failures.ts';

/** One hit of `hits.hits`. */
export interface SearchHitBody {
  _index: string;
  _id: string;
  _score: number | null;
  /** The stored text, written verbatim (coordinator/json-writer.ts); `sourceValue` parses it. */
  _source?: RawJson;
  sort?: SortValue[];
}

/** The `_search` response body. */
export interface SearchResponseBody {
  _scroll_id?: string;
  pit_id?: string;
  took: number;
  timed_out: boolean;
  _shards: { total: number; successful: number; skipped: number; failed: number; failures?: ReturnType<typeof failuresForResponse> };
  hits: { total?: ShardTotal | number; max_score: number | null; hits: SearchHitBody[] };
  /** The reduced `aggs` (coordinator/search/aggs-phase.ts), absent when none were asked (or on a scroll's later batches). */
  aggregations?: Record<string, unknown>;
  /** With `profile: true`: per-shard call times and the merge (coordinator/search/profile.ts). */
  profile?: ProfileBody;
}

/** Inputs of {@link buildSearchResponse}. */
export interface ResponseParts {
  startedAt: number;
  timedOut: boolean;
  totalShards: number;
  failures: readonly ShardFailure[];
  total: ShardTotal | null;
  maxScore: number | null;
  page: readonly MergedHit[];
  docs: readonly (FetchedDoc | null)[];
  sort: readonly SortField[];
  /** Whether hits carry `sort` (a sort other than the default `_score` desc was requested). */
  withSortValues: boolean;
  /** Whether hits carry their score (sort includes `_score`, or `track_scores`). */
  withScores: boolean;
  restTotalHitsAsInt: boolean;
  /** How many leading sort values hits show (a scroll's implicit tiebreaker is hidden). */
  shownSortValues?: number;
  /** ES `_scroll_id` (first key) and `pit_id` (next), when the search is a scroll or uses a PIT. */
  scrollId?: string;
  pitId?: string;
}

/**
 * Assembles the body: `_score` and `max_score` are null when scores were not computed, `sort` only
 * when sorting by something other than relevance, `failures` only when non-empty, `hits.total`
 * omitted when tracking is disabled (or an int with `rest_total_hits_as_int`).
 */
export function buildSearchResponse(p: ResponseParts): SearchResponseBody {
  const hits: SearchHitBody[] = p.page.map((m, i) => {
    const hit: SearchHitBody = { _index: m.index, _id: m.hit._id, _score: p.withScores ? m.hit._score : null };
    const doc = p.docs[i];
    if (doc?._source !== undefined) hit._source = new RawJson(doc._source);
    if (p.withSortValues) hit.sort = p.shownSortValues === undefined ? m.hit.sort : m.hit.sort.slice(0, p.shownSortValues);
    return hit;
  });
  const failed = p.failures.length;
  const shards: SearchResponseBody['_shards'] = { total: p.totalShards, successful: p.totalShards - failed, skipped: 0, failed };
  if (failed > 0) shards.failures = failuresForResponse(p.failures);
  const body: SearchResponseBody = {
    ...(p.scrollId !== undefined ? { _scroll_id: p.scrollId } : {}),
    ...(p.pitId !== undefined ? { pit_id: p.pitId } : {}),
    took: Date.now() - p.startedAt,
    timed_out: p.timedOut,
    _shards: shards,
    hits: { max_score: p.withScores ? p.maxScore : null, hits },
  };
  if (p.restTotalHitsAsInt) body.hits = { total: p.total?.value ?? -1, ...body.hits };
  else if (p.total) body.hits = { total: p.total, ...body.hits };
  return body;
}
