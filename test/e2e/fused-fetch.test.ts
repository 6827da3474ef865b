/**
 * The fused fetch (coordinator/search/fetch-phase.ts `fusesFetch`): a small page takes its
 * `_source` from the query round. The page must be exactly what the separate fetch round gives:
 * same hits, same order, same `_source` (filtered the same way), checked against a larger window
 * of the same search (too many documents to fuse) and against the sample's own documents.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { cities } from '../../scripts/samples/cities.ts';
import { FUSED_FETCH_MAX_SOURCES } from '../../coordinator/search/fetch-phase.ts';
import { http } from './http.ts';

const url = inject('coordinatorUrl');
const SHARDS = 3;
/** A `size` whose window (× 3 shards) is past the fusing limit: the fetch is its own round. */
const UNFUSED_SIZE = Math.floor(FUSED_FETCH_MAX_SOURCES / SHARDS) + 1;
const sourceById = new Map<string, Record<string, unknown>>();

async function search(body: Record<string, unknown>, index = 'cities'): Promise<any[]> {
  const res = await http(url, 'POST', `/${index}/_search`, body);
  expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(200);
  expect(res.body._shards.failed).toBe(0);
  return res.body.hits.hits;
}

beforeAll(() => {
  for (const d of cities.docs()) sourceById.set(d._id, d.source);
});

describe('fused fetch', () => {
  it('page 1 equals the first hits of an unfused window, _source included', async () => {
    const sort = [{ population: 'desc' }];
    const calls = async (): Promise<number> => (await http(url, 'GET', '/_folio/stats')).body.shard_calls;
    let before = await calls();
    const fused = await search({ size: 10, sort });
    expect(await calls(), 'one round: a query call per shard, no fetch call').toBe(before + SHARDS);
    before = await calls();
    const unfused = await search({ size: UNFUSED_SIZE, sort });
    expect(await calls()).toBeGreaterThan(before + SHARDS);
    expect(fused).toHaveLength(10);
    expect(fused).toEqual(unfused.slice(0, 10));
    for (const h of fused) expect(h._source).toEqual(sourceById.get(h._id));
  });

  it('filters _source the same way (includes, excludes, false)', async () => {
    const cases = [['name', 'country'], { excludes: ['altName', 'adminCode'] }, false, { includes: ['pop*'] }];
    for (const _source of cases) {
      const body = { query: { term: { country: 'AT' } }, sort: [{ population: 'asc' }], _source };
      const fused = await search({ ...body, size: 5 });
      const unfused = await search({ ...body, size: UNFUSED_SIZE });
      expect(fused, JSON.stringify(_source)).toEqual(unfused.slice(0, 5));
      if (_source === false) for (const h of fused) expect('_source' in h).toBe(false);
    }
  });

  it('scored pages (dfs statistics) fuse on one shard and equal the three-shard copy', async () => {
    const body = { query: { match: { subject: 'money' } }, size: 20 };
    const one = await search(body, 'mails-1shard');
    const three = await search({ ...body, size: UNFUSED_SIZE }, 'mails');
    expect(one.length).toBeGreaterThan(0);
    expect(one.map((h) => [h._id, h._score, h._source])).toEqual(three.slice(0, one.length).map((h) => [h._id, h._score, h._source]));
  });
});
