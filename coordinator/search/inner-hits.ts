/**
 * The expand phase of a collapsed search (ES `ExpandSearchPhase`): for each hit of the page and
 * each `inner_hits` definition, one search of the group's documents (the search's query, and a
 * filter on the hit's collapse key, or `must_not exists` for the null group), with the
 * definition's `from`, `size`, `sort`, `_source`, fields and highlight, at most
 * `max_concurrent_group_searches` at once. The group searches read the generations the collapsed
 * search read (its `Folio-Snapshot` pins, or its PIT), so every inner hit belongs to the same view.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/ExpandSearchPhase.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/collapse-search-results.html#expand-collapse-results
 */
import type { CollapseSpec, InnerHitsSpec } from '../rest/collapse.ts';
import { EsError, toEsError } from '../../protocol/errors.ts';
import { setOwn } from '../../shared/own-keys.ts';
import type { Query } from '../../protocol/query-ast.ts';
import type { SearchRequest } from '../rest/search-request.ts';
import { DEFAULT_TRACK_TOTAL_HITS, TRACK_TOTAL_HITS_ACCURATE } from '../rest/track-total-hits.ts';
import type { SortValue } from '../../protocol/sort.ts';
import type { SearchResponseBody } from './respond.ts';

/** What one inner hit definition adds to a hit: `inner_hits.<name>`. */
export type InnerHitsBody = Record<string, { hits: SearchResponseBody['hits'] }>;

/** The query of a group search: the search's query, filtered to the group of `key`. */
export function groupQuery(query: Query, field: string, key: SortValue): Query {
  const base = { should: [], boost: 1 };
  if (key === null) return { kind: 'bool', ...base, must: [query], filter: [], mustNot: [{ kind: 'exists', field, boost: 1 }] };
  return { kind: 'bool', ...base, must: [query], filter: [{ kind: 'term', field, value: key, caseInsensitive: false, boost: 1 }], mustNot: [] };
}

/** The search request of one inner hit definition for the group of `key` (ES `buildExpandSearchSourceBuilder`). */
export function groupRequest(outer: SearchRequest, spec: InnerHitsSpec, field: string, key: SortValue): SearchRequest {
  const stored = spec.storedFields;
  const source = stored?.none ? false : (spec.source ?? (stored ? stored.names.includes('_source') : true));
  return {
    ...outer,
    from: spec.from,
    size: spec.size,
    query: groupQuery(outer.query, field, key),
    sort: spec.sort ?? [],
    sortExplicit: spec.sort !== null,
    source,
    fields: spec.fields,
    docvalueFields: spec.docvalueFields,
    storedFields: stored,
    trackTotalHits: outer.restTotalHitsAsInt ? TRACK_TOTAL_HITS_ACCURATE : DEFAULT_TRACK_TOTAL_HITS,
    trackScores: spec.trackScores,
    searchAfter: null,
    scroll: null,
    version: spec.version,
    seqNoPrimaryTerm: spec.seqNoPrimaryTerm,
    explain: spec.explain,
    minScore: null,
    profile: false,
    rescore: [],
    scriptFields: 0,
    slice: null,
    collapse: spec.collapse,
    highlight: spec.highlight,
  };
}

/**
 * Runs the group searches of the page's hits and returns, per hit, its `inner_hits` object.
 * @param keys the collapse key of each hit of the page, in page order
 * @param run runs one search (search.ts, pinned to the collapsed search's generations)
 * @param maxConcurrent `max_concurrent_group_searches`, else the `_msearch` default
 * @throws EsError `search_phase_execution_exception` `failed to expand hits` (phase `expand`)
 *   caused by the first group search that failed, as ES fails the whole search.
 */
export async function expandInnerHits(
  outer: SearchRequest,
  collapse: CollapseSpec,
  keys: readonly SortValue[],
  run: (req: SearchRequest) => Promise<SearchResponseBody>,
  maxConcurrent: number,
): Promise<InnerHitsBody[]> {
  const jobs = keys.flatMap((key, hit) => collapse.innerHits.map((spec) => ({ hit, spec, req: groupRequest(outer, spec, collapse.field, key) })));
  const out: InnerHitsBody[] = keys.map(() => ({}));
  let next = 0;
  let failure: EsError | null = null;
  const worker = async (): Promise<void> => {
    while (failure === null && next < jobs.length) {
      const job = jobs[next++];
      try {
        const body = await run(job.req);
        setOwn(out[job.hit], job.spec.name, { hits: body.hits }); // a name may be `__proto__`
      } catch (err) {
        failure ??= toEsError(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(maxConcurrent, jobs.length)) }, worker));
  if (failure !== null) {
    const cause = (failure as EsError).toCause();
    const { caused_by: _c, ...root } = cause;
    throw new EsError((failure as EsError).status, 'search_phase_execution_exception', 'failed to expand hits', {
      metadata: { phase: 'expand', grouped: true, failed_shards: [] },
      causedBy: cause,
      rootCauses: (failure as EsError).rootCauses ?? [root],
    });
  }
  return out;
}
