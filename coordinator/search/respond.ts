/**
 * Respond phase: the ES `_search` response body, field for field and in ES's key order.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/SearchResponse.java
 */
import type { FetchedDoc, QueryPhaseResponse, ShardHit } from '../../protocol/search.ts';
import { RawJson } from '../../shared/raw-json.ts';
import type { SortField, SortValue } from '../../protocol/sort.ts';
import type { MergedHit, ShardTotal } from './merge.ts';
import type { ProfileBody } from './profile.ts';
import { failuresForResponse, type ShardFailure } from './shard-failures.ts';

/** One hit of `hits.hits`, keys in ES's order (`SearchHit.toInnerXContent`). */
export interface SearchHitBody {
  _index: string;
  /** Absent with `stored_fields: _none_`. */
  _id?: string;
  _version?: number;
  _seq_no?: number;
  _primary_term?: number;
  _score: number | null;
  /** The custom routing the document was indexed with. */
  _routing?: string;
  /** ES's `_ignored` metadata field: the fields whose values were not indexed. */
  _ignored?: string[];
  /** The stored text, written verbatim (coordinator/http/json-writer.ts); `sourceValue` parses it. */
  _source?: RawJson;
  fields?: Record<string, unknown[]>;
  /** ES `highlight`: fragments by field. */
  highlight?: Record<string, string[]>;
  /**
   * Sort values; a double's integral value is written `2.0` and the texts of
   * {@link ShardHit.sortTexts} (integers above 2^53, addresses) as they are (RawJson), as ES writes them.
   */
  sort?: (SortValue | RawJson)[];
  /** A collapsed search's inner hits, by definition name (inner-hits.ts). */
  inner_hits?: Record<string, unknown>;
}

/** The `_search` response body. */
export interface SearchResponseBody {
  _scroll_id?: string;
  pit_id?: string;
  took: number;
  timed_out: boolean;
  _shards: { total: number; successful: number; skipped: number; failed: number; failures?: ReturnType<typeof failuresForResponse> };
  /** `total_groups`: a collapsed search's number of groups (a Folio extension, docs/collapse.md). */
  hits: { total?: ShardTotal | number; total_groups?: ShardTotal | number; max_score: number | null; hits: SearchHitBody[] };
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
  /** Per index, the sort clauses whose values are doubles (plan.ts `doubleSortClauses`); null: none. */
  doubleSortValues?: ReadonlyMap<string, readonly boolean[]> | null;
  /** ES `_scroll_id` (first key) and `pit_id` (next), when the search is a scroll or uses a PIT. */
  scrollId?: string;
  pitId?: string;
  /** False with `stored_fields: _none_`: hits carry no `_id` (default true). */
  withIds?: boolean;
  /**
   * A collapsed search: each hit shows its group key (its sort value at `keyAt`) as `fields.<field>`,
   * and its `inner_hits` (parallel to `page`); `hits.total_groups` as `hits.total` is shown.
   */
  collapse?: { field: string; keyAt: number; totalGroups: ShardTotal | null; innerHits?: readonly Record<string, unknown>[] };
}

/** A double sort value as ES writes it: an integral value keeps a `.0` (`2.0`, `-0.0`). */
function asDouble(v: SortValue): SortValue | RawJson {
  if (typeof v !== 'number' || !Number.isInteger(v) || Math.abs(v) >= 1e21) return v;
  return new RawJson(Object.is(v, -0) ? '-0.0' : `${v}.0`);
}

/**
 * The hits of a shard's query-phase reply with their sort value texts attached
 * ({@link QueryPhaseResponse.sortTexts}), for {@link buildSearchResponse} to print.
 */
export function withSortTexts(res: QueryPhaseResponse): ShardHit[] {
  if (res.sortTexts) for (const [i, texts] of Object.entries(res.sortTexts)) if (res.hits[Number(i)]) res.hits[Number(i)].sortTexts = texts;
  return res.hits;
}

/**
 * Assembles the body: `_score` and `max_score` are null when scores were not computed, `sort` only
 * when sorting by something other than relevance, `failures` only when non-empty, `hits.total`
 * omitted when tracking is disabled (or an int with `rest_total_hits_as_int`).
 */
export function buildSearchResponse(p: ResponseParts): SearchResponseBody {
  const withIds = p.withIds !== false;
  const hits: SearchHitBody[] = p.page.map((m, i) => {
    const doc = p.docs[i];
    // Keys are added in ES's order; `_score` comes after the metadata that precedes it.
    const hit = (withIds ? { _index: m.index, _id: m.hit._id } : { _index: m.index }) as SearchHitBody;
    if (doc?._version !== undefined) hit._version = doc._version;
    if (doc?._seq_no !== undefined) {
      hit._seq_no = doc._seq_no;
      hit._primary_term = doc._primary_term;
    }
    hit._score = p.withScores ? m.hit._score : null;
    if (doc?._routing !== undefined) hit._routing = doc._routing;
    if (doc?._ignored !== undefined) hit._ignored = doc._ignored;
    if (doc?._source !== undefined) hit._source = new RawJson(doc._source);
    if (doc?.fields !== undefined) hit.fields = doc.fields;
    if (p.collapse) hit.fields = { ...hit.fields, [p.collapse.field]: [m.hit.sort[p.collapse.keyAt]] };
    if (doc?.highlight !== undefined) hit.highlight = doc.highlight;
    if (p.withSortValues) {
      const values = p.shownSortValues === undefined ? m.hit.sort : m.hit.sort.slice(0, p.shownSortValues);
      const doubles = p.doubleSortValues?.get(m.index);
      const texts = m.hit.sortTexts;
      hit.sort = doubles || texts ? values.map((v, c) => (texts?.[c] != null ? new RawJson(texts[c]) : doubles?.[c] ? asDouble(v) : v)) : values;
    }
    if (p.collapse?.innerHits) hit.inner_hits = p.collapse.innerHits[i];
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
  if (p.collapse?.totalGroups) body.hits = { total_groups: p.restTotalHitsAsInt ? p.collapse.totalGroups.value : p.collapse.totalGroups, ...body.hits };
  if (p.restTotalHitsAsInt) body.hits = { total: p.total?.value ?? -1, ...body.hits };
  else if (p.total) body.hits = { total: p.total, ...body.hits };
  return body;
}
