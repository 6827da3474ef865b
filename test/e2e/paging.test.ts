/**
 * Paging over the real `cities` sample in 3 shards, checked against an oracle: one sorted list of
 * the same documents (sort values, then `_id`) must equal every page walk.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { compareCodePoints } from '../../protocol/sort.ts';
import { cities } from '../../scripts/samples/cities.ts';
import { http } from './http.ts';

const url = inject('coordinatorUrl');
interface City {
  _id: string;
  name: string;
  altName: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
}
let all: City[] = [];
const byPopulationDesc = (a: City, b: City): number => b.population - a.population || compareCodePoints(a._id, b._id);
const byId = (a: City, b: City): number => compareCodePoints(a._id, b._id);

async function ids(path: string, body?: unknown): Promise<string[]> {
  const res = await http(url, body === undefined ? 'GET' : 'POST', path, body);
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  return res.body.hits.hits.map((h: { _id: string }) => h._id);
}

beforeAll(() => {
  all = [...cities.docs()].map((d) => ({ _id: d._id, ...(d.source as Omit<City, '_id'>) }));
  expect(all.length).toBe(135_233);
});

describe('paging rules', () => {
  it('returns 10 hits by default, match_all scores 1.0, totals capped at 10,000 with gte', async () => {
    const res = await http(url, 'GET', '/cities/_search');
    expect(res.status).toBe(200);
    expect(res.headers['x-elastic-product']).toBe('Elasticsearch');
    expect(res.body.hits.hits).toHaveLength(10);
    expect(res.body.hits.total).toEqual({ value: 10_000, relation: 'gte' });
    expect(res.body.hits.max_score).toBe(1);
    expect(res.body._shards).toEqual({ total: 3, successful: 3, skipped: 0, failed: 0 });
    const oracle = [...all].sort(byId).slice(0, 10);
    expect(res.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(oracle.map((c) => c._id));
    for (const h of res.body.hits.hits) {
      expect(h._index).toBe('cities');
      expect(h._score).toBe(1);
      expect(h.sort).toBeUndefined();
      const { _id, ...source } = all.find((c) => c._id === h._id)!;
      expect(h._source).toEqual({ ...source, location: expect.any(Object) });
    }
  });

  it('size alone sets the page length, and track_total_hits=true counts exactly', async () => {
    const res = await http(url, 'GET', '/cities/_search?size=3&track_total_hits=true');
    expect(res.body.hits.hits).toHaveLength(3);
    expect(res.body.hits.total).toEqual({ value: 135_233, relation: 'eq' });
  });

  it('page n of length s is from=(n-1)*s, with sort values on each hit and null scores', async () => {
    const sorted = [...all].sort(byPopulationDesc);
    for (const [n, s] of [
      [1, 5],
      [3, 5],
      [7, 13],
      [40, 25],
    ]) {
      const res = await http(url, 'GET', `/cities/_search?size=${s}&from=${(n - 1) * s}&sort=population:desc`);
      expect(res.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(sorted.slice((n - 1) * s, n * s).map((c) => c._id));
      expect(res.body.hits.max_score).toBeNull();
      for (const h of res.body.hits.hits) {
        expect(h._score).toBeNull();
        expect(h.sort).toEqual([h._source.population]);
      }
    }
  });

  it('takes from/size from the body, and the query string wins over the body', async () => {
    const sorted = [...all].sort(byPopulationDesc);
    expect(await ids('/cities/_search', { from: 20, size: 4, sort: [{ population: 'desc' }] })).toEqual(sorted.slice(20, 24).map((c) => c._id));
    expect(await ids('/cities/_search?from=2&size=3', { from: 20, size: 4, sort: [{ population: { order: 'desc' } }] })).toEqual(
      sorted.slice(2, 5).map((c) => c._id),
    );
    expect(await ids('/cities/_search', { from: '6', size: '2', sort: ['_score', { population: 'desc' }] })).toEqual(sorted.slice(6, 8).map((c) => c._id));
  });

  it('returns three successive pages with no overlap and no gap, for ties on name.keyword too', async () => {
    for (const sort of ['population:desc', 'name.keyword:asc', 'country:asc,population:asc']) {
      const pages = [];
      for (let n = 0; n < 3; n++) pages.push(await ids(`/cities/_search?size=50&from=${n * 50}&sort=${sort}`));
      const joined = pages.flat();
      expect(new Set(joined).size).toBe(150);
      expect(joined).toEqual(await ids(`/cities/_search?size=150&sort=${sort}`));
    }
  });

  it('a filtered, sorted query equals the oracle filter', async () => {
    const want = all.filter((c) => c.country === 'AT' && c.population >= 10_000).sort((a, b) => a.population - b.population || byId(a, b));
    const res = await http(url, 'POST', '/cities/_search', {
      query: { bool: { filter: [{ term: { country: 'AT' } }, { range: { population: { gte: 10_000 } } }] } },
      sort: [{ population: 'asc' }],
      size: 1000,
    });
    expect(res.body.hits.total).toEqual({ value: want.length, relation: 'eq' });
    expect(res.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(want.map((c) => c._id));
  });

  it('q= with field:value and AND counts what the oracle counts', async () => {
    const want = all.filter((c) => c.country === 'FR' && c.population > 100_000).length;
    const res2 = await http(url, 'GET', `/cities/_count?q=${encodeURIComponent('country:FR AND population:{100000 TO *]')}`);
    expect(res2.status).toBe(200);
    expect(res2.body.count).toBe(want);
  });

  it('deep pages (selection path, from ≥ 500) equal the slice of a shallow query: scored with dfs, multi-field', async () => {
    const scored = { query: { match: { name: 'san santa saint sankt' } }, _source: false };
    const shallow = await ids('/cities/_search', { ...scored, from: 0, size: 700 });
    expect(shallow.length).toBe(700);
    expect(await ids('/cities/_search', { ...scored, from: 600, size: 100 })).toEqual(shallow.slice(600));
    const multi = { sort: [{ country: 'asc' }, { population: 'desc' }], _source: false };
    const deep = await http(url, 'POST', '/cities/_search', { ...multi, from: 600, size: 5, track_total_hits: true });
    expect(deep.body.hits.total).toEqual({ value: 135_233, relation: 'eq' });
    expect(deep.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual((await ids('/cities/_search', { ...multi, from: 0, size: 605 })).slice(600));
  });

  it('a repeated deep page is exact when sampled, resampled with a larger S, and served from the cached sample', async () => {
    const sorted = [...all].sort(byPopulationDesc);
    for (const from of [60_000, 60_000, 60_000, 90_005, 90_005]) {
      expect(await ids(`/cities/_search?size=7&from=${from}&sort=population:desc&_source=false`)).toEqual(sorted.slice(from, from + 7).map((c) => c._id));
    }
  });

  it("a deep page that repeats is one round: its range round carries the hits' _source (fused fetch), equal to the oracle", async () => {
    const sorted = [...all].sort(byPopulationDesc);
    const from = 70_001;
    const fusedRounds: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await http(url, 'POST', `/cities/_search?size=10&from=${from}&sort=population:desc`, { profile: true });
      expect(res.status).toBe(200);
      expect(res.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(sorted.slice(from, from + 10).map((c) => c._id));
      for (const h of res.body.hits.hits as { _id: string; _source: unknown }[]) {
        const { _id, ...source } = all.find((c) => c._id === h._id)!;
        expect(h._source).toEqual({ ...source, location: expect.any(Object) });
      }
      const shards = res.body.profile.shards as { fetch?: { description: string } }[];
      fusedRounds.push(shards.length > 0 && shards.every((s) => s.fetch?.description === 'fused into the query call'));
    }
    // Sampled, resampled with a larger S (the query repeats), then its anchors fix the window.
    expect(fusedRounds[0]).toBe(false);
    expect(fusedRounds.at(-1)).toBe(true);
  });

  it('walks every page of population:desc at size 500 once, in oracle order (window raised)', async () => {
    const raised = await http(url, 'PUT', '/cities/_settings', { index: { max_result_window: 200_000 } });
    expect(raised.status).toBe(200);
    try {
      const oracle = [...all].sort(byPopulationDesc).map((c) => c._id);
      const walked: string[] = [];
      for (let from = 0; from < oracle.length; from += 500) {
        const page = await ids(`/cities/_search?size=500&from=${from}&sort=population:desc&_source=false`);
        expect(page.length).toBe(Math.min(500, oracle.length - from));
        walked.push(...page);
      }
      expect(walked.length).toBe(oracle.length);
      expect(new Set(walked).size).toBe(oracle.length);
      expect(walked).toEqual(oracle);
      const past = await http(url, 'GET', `/cities/_search?size=10&from=${oracle.length}`);
      expect(past.body.hits.hits).toEqual([]);
    } finally {
      // Other files read `cities` with the window at Folio's default (its per-response size bound).
      await http(url, 'PUT', '/cities/_settings', { index: { max_result_window: null } });
    }
  });
});
