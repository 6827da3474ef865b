import { describe, expect, it } from 'vitest';
import { parseCollapse } from '../rest/collapse.ts';
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import { parseSearchRequest, type SearchRequest } from '../rest/search-request.ts';
import { TRACK_TOTAL_HITS_ACCURATE } from '../rest/track-total-hits.ts';
import { expandInnerHits, groupQuery, groupRequest } from './inner-hits.ts';
import type { SearchResponseBody } from './respond.ts';

const outer = parseSearchRequest(
  new URLSearchParams(),
  {
    query: { match: { t: 'fox' } },
    collapse: { field: 'k', inner_hits: [{ name: 'a', size: 2, from: 1, sort: ['n'], _source: ['x'], version: true }, { name: 'b' }] },
  },
  '/i/_search',
);
const collapse = outer.collapse!;

describe('the expand phase', () => {
  it('searches each group: the query, filtered to the key, or to documents without a value', () => {
    expect(groupQuery(outer.query, 'k', 'red')).toEqual({
      kind: 'bool',
      must: [outer.query],
      should: [],
      filter: [{ kind: 'term', field: 'k', value: 'red', caseInsensitive: false, boost: 1 }],
      mustNot: [],
      boost: 1,
    });
    expect(groupQuery(outer.query, 'k', null)).toEqual({
      kind: 'bool',
      must: [outer.query],
      should: [],
      filter: [],
      mustNot: [{ kind: 'exists', field: 'k', boost: 1 }],
      boost: 1,
    });
    const r = groupRequest(outer, collapse.innerHits[0], 'k', 3);
    expect(r).toMatchObject({
      from: 1,
      size: 2,
      sortExplicit: true,
      source: { includes: ['x'], excludes: [] },
      version: true,
      collapse: null,
      highlight: null,
    });
    expect(r.sort.map((s) => s.field)).toEqual(['n']);
    expect(groupRequest(outer, collapse.innerHits[1], 'k', 3)).toMatchObject({ from: 0, size: 3, sort: [], source: true });
    expect(groupRequest({ ...outer, restTotalHitsAsInt: true }, collapse.innerHits[1], 'k', 3).trackTotalHits).toBe(TRACK_TOTAL_HITS_ACCURATE);
  });

  it('puts each definition under its name, at most max_concurrent_group_searches at once', async () => {
    let running = 0;
    let peak = 0;
    const run = async (req: SearchRequest): Promise<SearchResponseBody> => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 2));
      running--;
      const key = (req.query as { filter: { value: unknown }[] }).filter[0].value;
      return {
        took: 0,
        timed_out: false,
        _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
        hits: { max_score: null, hits: [{ _index: 'i', _id: `${String(key)}-${req.size}`, _score: null }] },
      };
    };
    const out = await expandInnerHits(outer, collapse, ['p', 'q', 'r'], run, 2);
    expect(peak).toBe(2);
    expect(out.map((o) => Object.keys(o))).toEqual([
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b'],
    ]);
    expect(out[1].a.hits.hits[0]._id).toBe('q-2');
    expect(out[2].b.hits.hits[0]._id).toBe('r-3');
  });

  it('fails the search with failed to expand hits, caused by the group search error', async () => {
    const caught: unknown = await expandInnerHits(outer, collapse, ['p'], () => Promise.reject(illegalArgument('bad sort')), 4).catch((x: unknown) => x);
    expect(caught).toBeInstanceOf(EsError);
    const e = caught as EsError;
    expect([e.status, e.type, e.message, e.metadata.phase]).toEqual([400, 'search_phase_execution_exception', 'failed to expand hits', 'expand']);
    expect(e.toBody().error.root_cause).toEqual([{ type: 'illegal_argument_exception', reason: 'bad sort' }]);
    expect(parseCollapse({ field: 'k' }).innerHits).toEqual([]);
  });
});
