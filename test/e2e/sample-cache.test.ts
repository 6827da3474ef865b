/**
 * Deep pages reuse the selection's sample round while no shard has refreshed (two round trips,
 * like page 1), and sample anew, exactly, once a shard has refreshed.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { http } from './http.ts';

const url = inject('coordinatorUrl');
const INDEX = 'sample-cache';
let docs: { id: string; n: number }[] = [];

function oracle(from: number, size: number): string[] {
  return [...docs]
    .sort((a, b) => a.n - b.n || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(from, from + size)
    .map((d) => d.id);
}

async function bulk(batch: { id: string; n: number }[]): Promise<void> {
  const body = batch.map((d) => `{"index":{"_index":"${INDEX}","_id":"${d.id}"}}\n{"n":${d.n}}\n`).join('');
  const res = await http(url, 'POST', '/_bulk?refresh=true', body, 'application/x-ndjson');
  expect(res.body.errors).toBe(false);
}

async function page(from: number): Promise<{ ids: string[]; calls: number }> {
  const before = (await http(url, 'GET', '/_folio/stats')).body.shard_calls;
  const res = await http(url, 'GET', `/${INDEX}/_search?sort=n:asc&from=${from}&size=5&_source=false`);
  expect(res.status).toBe(200);
  const after = (await http(url, 'GET', '/_folio/stats')).body.shard_calls;
  return { ids: res.body.hits.hits.map((h: { _id: string }) => h._id), calls: after - before };
}

beforeAll(async () => {
  await http(url, 'PUT', `/${INDEX}`, { settings: { number_of_shards: 3, refresh_interval: '-1' }, mappings: { properties: { n: { type: 'long' } } } });
  docs = Array.from({ length: 3000 }, (_, i) => ({ id: `d${i}`, n: (i * 7919) % 500 }));
  await bulk(docs);
});

describe('the selection sample cache', () => {
  it('answers a repeated deep page with fewer shard calls and the same exact page', async () => {
    const first = await page(1200);
    expect(first.ids).toEqual(oracle(1200, 5));
    const second = await page(1200);
    expect(second.ids).toEqual(first.ids);
    expect(second.calls).toBeLessThan(first.calls);
  });

  it('samples anew after a refresh and stays exact', async () => {
    await page(1500);
    const added = Array.from({ length: 200 }, (_, i) => ({ id: `new${i}`, n: i % 3 }));
    await bulk(added);
    docs.push(...added);
    for (const from of [1500, 600, 2900]) expect((await page(from)).ids).toEqual(oracle(from, 5));
  });
});
