/**
 * Sliced exports, `_delete_by_query` and `_msearch` over real HTTP against the shared cluster:
 * - a sliced PIT over all 135,233 `cities` by 4 workers, and a sliced scroll by 5: every `_id`
 *   exactly once, each slice the same documents every time;
 * - `_delete_by_query` (a task, `conflicts=proceed`) on a copy of part of `cities` while another
 *   client writes: the counts are exact, the documents written meanwhile are kept, and the matched
 *   documents changed before their delete are version conflicts, kept as changed;
 * - `_msearch` with failing searches beside good ones.
 * Writes go to its own indices (`byquery-*`); the shared samples are only read.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cities } from '../../scripts/samples/cities.ts';
import { deleteIndices, http } from './http.ts';

const url = inject('coordinatorUrl');
const CITIES = 135_233;

/** Checks that the slices' ids hold `total` distinct ids, each in one slice only. */
function expectEachOnce(slices: string[][], total: number): void {
  const all = slices.flat();
  expect(all.length).toBe(total);
  expect(new Set(all).size).toBe(total);
  for (const s of slices) expect(s.length).toBeGreaterThan(total / slices.length / 3); // each slice takes a fair share
}

afterAll(() => deleteIndices(url, 'byquery-*'));

describe('sliced point in time over all cities', () => {
  let pit: string;
  beforeAll(async () => {
    pit = (await http(url, 'POST', '/cities/_pit?keep_alive=5m')).body.id;
  });
  afterAll(() => http(url, 'DELETE', '/_pit', { id: pit }));

  /** One worker: the ids of slice `id` of `max`, page after page with search_after. */
  async function worker(id: number, max: number): Promise<string[]> {
    const ids: string[] = [];
    let after: unknown[] | undefined;
    for (;;) {
      const body = {
        size: 10_000,
        _source: false,
        pit: { id: pit, keep_alive: '5m' },
        slice: { id, max },
        sort: ['_shard_doc'],
        ...(after ? { search_after: after } : {}),
      };
      const res = await http(url, 'POST', '/_search', body);
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
      const hits = res.body.hits.hits as { _id: string; sort: unknown[] }[];
      if (hits.length === 0) return ids;
      for (const h of hits) ids.push(h._id);
      after = hits[hits.length - 1].sort;
    }
  }

  it('4 workers together read every city exactly once', async () => {
    const slices = await Promise.all([0, 1, 2, 3].map((id) => worker(id, 4)));
    expectEachOnce(slices, CITIES);
    const expected = new Set<string>();
    for (const d of cities.docs()) expected.add(d._id);
    expect(expected.size).toBe(CITIES);
    for (const id of slices.flat()) expect(expected.has(id)).toBe(true);
    // deterministic: a slice read again is the same documents in the same order
    expect(await worker(2, 4)).toEqual(slices[2]);
  });
});

describe('sliced scroll over all cities', () => {
  async function worker(id: number, max: number): Promise<string[]> {
    let res = await http(url, 'POST', '/cities/_search?scroll=2m', { size: 10_000, _source: false, slice: { id, max } });
    expect(res.status).toBe(200);
    const scrollId = res.body._scroll_id;
    const ids: string[] = [];
    while (res.body.hits.hits.length > 0) {
      for (const h of res.body.hits.hits) ids.push(h._id);
      res = await http(url, 'POST', '/_search/scroll', { scroll: '2m', scroll_id: scrollId });
      expect(res.status).toBe(200);
    }
    await http(url, 'DELETE', '/_search/scroll', { scroll_id: scrollId });
    return ids;
  }

  it('5 workers together read every city exactly once', async () => {
    const slices = await Promise.all([0, 1, 2, 3, 4].map((id) => worker(id, 5)));
    expectEachOnce(slices, CITIES);
  });
});

describe('_delete_by_query under concurrent writes', () => {
  const INDEX = 'byquery-cities';
  const small = { range: { population: { lt: 1000 } } };

  beforeAll(async () => {
    await deleteIndices(url, INDEX);
    const created = await http(url, 'PUT', `/${INDEX}`, {
      settings: { number_of_shards: 3, number_of_replicas: 0 },
      mappings: { properties: { country: { type: 'keyword' }, population: { type: 'long' }, location: { type: 'geo_point' }, touched: { type: 'integer' } } },
    });
    expect(created.status).toBe(200);
    const copied = await http(url, 'POST', '/_reindex?refresh=true&slices=auto', {
      source: { index: 'cities', query: { terms: { country: ['FR', 'IT', 'ES'] } } },
      dest: { index: INDEX },
    });
    expect(copied.status).toBe(200);
    expect(copied.body.failures).toEqual([]);
  });

  it('deletes exactly the documents its snapshot matched and that did not change; writes made meanwhile stay', async () => {
    const count = async (query: unknown = { match_all: {} }) => (await http(url, 'POST', `/${INDEX}/_count`, { query })).body.count as number;
    const before = await count();
    const matched = await count(small);
    expect(matched).toBeGreaterThan(5000);
    const others = await http(url, 'POST', `/${INDEX}/_search`, { size: 200, _source: false, query: { bool: { must_not: [small] } }, sort: ['_id'] });
    const otherIds = (others.body.hits.hits as { _id: string }[]).map((h) => h._id);
    // Matched documents the writer changes during the walk: each one changed before the walk's
    // delete reached it is a version conflict (the delete is conditional on the _seq_no it read).
    const targets = await http(url, 'POST', `/${INDEX}/_search`, { size: 400, _source: false, query: small, sort: ['_id'] });
    const targetIds = (targets.body.hits.hits as { _id: string }[]).map((h) => h._id);

    // Throttled to about 2 s, so that the writer below has time to write during the walk.
    const started = await http(
      url,
      'POST',
      `/${INDEX}/_delete_by_query?wait_for_completion=false&conflicts=proceed&scroll_size=500&requests_per_second=${Math.ceil(matched / 2)}&refresh=true`,
      {
        query: small,
      },
    );
    expect(started.status).toBe(200);
    const task = started.body.task as string;
    // Writes start once the delete has read its first batch (its snapshot is then fixed).
    for (;;) {
      const rec = await http(url, 'GET', `/_tasks/${task}`);
      if (rec.body.completed || rec.body.task.status.batches >= 1) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    let written = 0;
    let round = 0;
    let done: any;
    const changed = new Set<string>(); // matched documents updated before the walk deleted them
    while (!done) {
      // 20 new documents that match the query, an update of 20 that do not, and of 5 that match
      const lines: unknown[] = [];
      for (let i = 0; i < 20; i++) lines.push({ index: { _index: INDEX, _id: `new-${round}-${i}` } }, { country: 'XX', population: 1, touched: round });
      for (const id of otherIds.slice((round * 20) % 200, ((round * 20) % 200) + 20))
        lines.push({ update: { _index: INDEX, _id: id } }, { doc: { touched: round } });
      const matchedNow = targetIds.slice(round * 5, round * 5 + 5);
      for (const id of matchedNow) lines.push({ update: { _index: INDEX, _id: id } }, { doc: { touched: round } });
      const res = await http(url, 'POST', '/_bulk', lines.map((l) => JSON.stringify(l)).join('\n') + '\n', 'application/x-ndjson');
      expect(res.status).toBe(200);
      const items = res.body.items.map((it: Record<string, { status: number; result?: string; error?: { type: string } }>) => Object.values(it)[0]);
      for (const it of items.slice(0, 40)) expect(it.status, JSON.stringify(it)).toBeLessThan(300);
      // A matched document is either updated (the walk has not deleted it yet) or already deleted.
      items.slice(40).forEach((it: { status: number; result?: string; error?: { type: string } }, i: number) => {
        if (it.status === 404) expect(it.error?.type).toBe('document_missing_exception');
        else {
          expect(it.result).toBe('updated');
          changed.add(matchedNow[i]);
        }
      });
      written += 20;
      round++;
      const rec = await http(url, 'GET', `/_tasks/${task}`);
      if (rec.body.completed) done = rec.body;
    }
    expect(round).toBeGreaterThan(1); // the writes overlapped the walk
    expect(changed.size).toBeGreaterThan(0);
    expect(done.error).toBeUndefined();
    // Each changed document is a conflict, left as it now is; every other matched one is deleted.
    expect(done.response).toMatchObject({ total: matched, deleted: matched - changed.size, version_conflicts: changed.size, noops: 0, failures: [] });
    expect(done.response.throttled_millis).toBeGreaterThan(0);
    await http(url, 'POST', `/${INDEX}/_refresh`);
    expect(await count(small)).toBe(written + changed.size); // the documents written during the walk, and the changed ones kept
    expect(await count()).toBe(before - matched + changed.size + written);
    expect(await count({ terms: { _id: otherIds } })).toBe(otherIds.length);
    expect(await count({ terms: { _id: [...changed] } })).toBe(changed.size);
  });
});

describe('_msearch on the samples', () => {
  it('answers good searches beside failing ones, in order', async () => {
    const lines = [
      { index: 'cities' },
      { size: 0, query: { term: { country: 'AT' } } },
      { index: 'byquery-missing' },
      { query: { match_all: {} } },
      { index: 'mails' },
      { size: 3, query: { match: { subject: 'meeting' } } },
      { index: 'cities' },
      { query: { term: { population: 'many' } } },
      {},
      { size: 1, sort: [{ population: 'desc' }], query: { term: { country: 'AT' } } },
    ];
    const res = await http(url, 'POST', '/cities/_msearch', lines.map((l) => JSON.stringify(l)).join('\n') + '\n', 'application/x-ndjson');
    expect(res.status).toBe(200);
    const [at, missing, meeting, bad, biggest] = res.body.responses;
    const direct = await http(url, 'POST', '/cities/_count', { query: { term: { country: 'AT' } } });
    expect(at.hits.total).toEqual({ value: direct.body.count, relation: 'eq' });
    expect(at.status).toBe(200);
    expect([missing.status, missing.error.type]).toEqual([404, 'index_not_found_exception']);
    expect(meeting.status).toBe(200);
    expect(meeting.hits.hits.length).toBeGreaterThan(0);
    expect(bad.status).toBe(400);
    expect(bad.error.root_cause[0].type).toBe('query_shard_exception');
    expect(biggest.hits.hits[0]._source.country).toBe('AT');
  });
});
