/**
 * The official clients, unmodified, paging through Folio: `@elastic/elasticsearch` 8.x
 * (`search` with `search_after`, `openPointInTime`/`closePointInTime`, `helpers.scrollSearch`,
 * `helpers.scrollDocuments`, `reindex` synchronous and as a task) and
 * `@opensearch-project/opensearch` (search, search_after, PIT, scroll). Uses its own indices
 * (`cursor-clients-*`); the shared samples are not touched.
 */
import { Client } from '@elastic/elasticsearch';
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { http, deleteIndices } from './http.ts';

const url = inject('coordinatorUrl');
const INDEX = 'cursor-clients-src';
const DOCS = 157;
const es = new Client({ node: url });
const os = new OpenSearchClient({ node: url });

/** The ids of the whole index in `n` desc, `_id` asc order (Folio's from/size oracle). */
async function oracle(): Promise<string[]> {
  const res = await es.search({ index: INDEX, size: 1000, sort: [{ n: 'desc' }] });
  return res.hits.hits.map((h) => h._id as string);
}

beforeAll(async () => {
  await deleteIndices(url, 'cursor-clients-*');
  await es.indices.create({
    index: INDEX,
    settings: { number_of_shards: 3, number_of_replicas: 0 },
    mappings: { properties: { n: { type: 'integer' }, name: { type: 'keyword' } } },
  });
  const docs = Array.from({ length: DOCS }, (_, i) => ({ id: `c${i}`, n: i % 10, name: `name-${i}` }));
  const r = await es.helpers.bulk({ datasource: docs, onDocument: (d) => ({ index: { _index: INDEX, _id: d.id } }), refresh: 'true' });
  expect(r.successful).toBe(DOCS);
});

afterAll(async () => {
  await deleteIndices(url, 'cursor-clients-*');
  await es.close();
  await os.close();
});

describe('@elastic/elasticsearch', () => {
  it('search with search_after walks the from/size pages', async () => {
    const want = await oracle();
    const got: string[] = [];
    let after: (string | number)[] | undefined;
    for (;;) {
      const res = await es.search({ index: INDEX, size: 20, sort: [{ n: 'desc' }, { _id: 'asc' }], ...(after ? { search_after: after } : {}) });
      if (res.hits.hits.length === 0) break;
      got.push(...res.hits.hits.map((h) => h._id as string));
      after = res.hits.hits.at(-1)!.sort as (string | number)[];
    }
    expect(got).toEqual(want);
  });

  it('openPointInTime, search the PIT with search_after, closePointInTime', async () => {
    const pit = await es.openPointInTime({ index: INDEX, keep_alive: '1m' });
    const inPit = await es.search({ size: 1000, sort: [{ n: 'asc' }], pit: { id: pit.id, keep_alive: '1m' } });
    const want = inPit.hits.hits.map((h) => h._id);
    expect(want).toHaveLength(DOCS);
    await es.index({ index: INDEX, id: 'pit-extra', document: { n: 0 }, refresh: true });
    const got: string[] = [];
    let after: any[] | undefined;
    for (;;) {
      const res = await es.search({ size: 33, sort: [{ n: 'asc' }], pit: { id: pit.id, keep_alive: '1m' }, ...(after ? { search_after: after } : {}) });
      expect(res.pit_id).toBe(pit.id);
      if (res.hits.hits.length === 0) break;
      got.push(...res.hits.hits.map((h) => h._id as string));
      after = res.hits.hits.at(-1)!.sort;
    }
    expect(got).toEqual(want);
    const closed = await es.closePointInTime({ id: pit.id });
    expect(closed).toMatchObject({ succeeded: true, num_freed: 3 });
    await es.delete({ index: INDEX, id: 'pit-extra', refresh: true });
  });

  it('helpers.scrollSearch and helpers.scrollDocuments read the whole index', async () => {
    const seen: string[] = [];
    for await (const res of es.helpers.scrollSearch({ index: INDEX, size: 25, query: { match_all: {} } })) {
      seen.push(...res.body.hits.hits.map((h: any) => h._id));
    }
    expect(seen.sort()).toEqual((await oracle()).sort());
    const names: string[] = [];
    for await (const doc of es.helpers.scrollDocuments<{ name: string }>({ index: INDEX, size: 40, sort: ['_doc'] })) names.push(doc.name);
    expect(names).toHaveLength(DOCS);
    expect(new Set(names).size).toBe(DOCS);
  });

  it('reindex copies the matching documents, synchronously and as a task', async () => {
    const res = await es.reindex({
      source: { index: INDEX, query: { range: { n: { gte: 5 } } }, size: 10 },
      dest: { index: 'cursor-clients-dst' },
      refresh: true,
    });
    const matching = (await es.count({ index: INDEX, query: { range: { n: { gte: 5 } } } })).count;
    expect(res).toMatchObject({
      timed_out: false,
      total: matching,
      created: matching,
      updated: 0,
      deleted: 0,
      batches: Math.ceil(matching / 10),
      version_conflicts: 0,
      noops: 0,
      retries: { bulk: 0, search: 0 },
      throttled_millis: 0,
      requests_per_second: -1,
      throttled_until_millis: 0,
      failures: [],
    });
    expect((await es.count({ index: 'cursor-clients-dst' })).count).toBe(matching);
    const doc = await es.get<{ name: string }>({ index: 'cursor-clients-dst', id: 'c9' });
    expect(doc._source).toEqual({ id: 'c9', n: 9, name: 'name-9' });

    const again = await es.reindex({ source: { index: INDEX }, dest: { index: 'cursor-clients-dst' }, wait_for_completion: false });
    const taskId = again.task as string;
    expect(taskId).toMatch(/^[^:]+:\d+$/);
    const task = await es.tasks.get({ task_id: taskId, wait_for_completion: true });
    expect(task.completed).toBe(true);
    expect(task.response).toMatchObject({ total: DOCS, created: DOCS - matching, updated: matching, batches: 1 });
    expect(task.task).toMatchObject({ action: 'indices:data/write/reindex', status: { total: DOCS, batches: 1 } });
    const missing = await http(url, 'GET', '/_tasks/nope:1');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'resource_not_found_exception', reason: "task [nope:1] isn't running and hasn't stored its results" });
  });

  it('reindex with op_type create counts version conflicts, and proceeds when asked', async () => {
    const aborted = await http(url, 'POST', '/_reindex', { source: { index: INDEX, size: 50 }, dest: { index: 'cursor-clients-dst', op_type: 'create' } });
    expect(aborted.body.version_conflicts).toBe(50);
    expect(aborted.body.failures).toHaveLength(50);
    expect(aborted.body.failures[0]).toMatchObject({ status: 409, cause: { type: 'version_conflict_engine_exception' } });
    const proceeded = await es.reindex({ conflicts: 'proceed', source: { index: INDEX }, dest: { index: 'cursor-clients-dst', op_type: 'create' } });
    expect(proceeded).toMatchObject({ version_conflicts: DOCS, created: 0, failures: [] });
  });
});

describe('@opensearch-project/opensearch', () => {
  it('search with from/size and search_after', async () => {
    const want = await oracle();
    const page = await os.search({ index: INDEX, body: { from: 20, size: 20, sort: [{ n: 'desc' }] } });
    expect(page.body.hits.hits.map((h: any) => h._id)).toEqual(want.slice(20, 40));
    const got: string[] = [];
    let after: any[] | undefined;
    for (;;) {
      const res = await os.search({ index: INDEX, body: { size: 30, sort: [{ n: 'desc' }, { _id: 'asc' }], ...(after ? { search_after: after } : {}) } });
      const hits = res.body.hits.hits;
      if (hits.length === 0) break;
      got.push(...hits.map((h: any) => h._id));
      after = hits.at(-1)!.sort;
    }
    expect(got).toEqual(want);
  });

  it('point in time (OpenSearch API) and scroll', async () => {
    const pit = await os.createPit({ index: [INDEX], keep_alive: '1m' });
    const pitId = pit.body.pit_id;
    const res = await os.search({ body: { size: 1000, sort: [{ n: 'asc' }], pit: { id: pitId, keep_alive: '1m' } } });
    expect(res.body.hits.hits).toHaveLength(DOCS);
    const deleted = await os.deletePit({ body: { pit_id: [pitId] } });
    expect(deleted.body.pits).toEqual([{ successful: true, pit_id: pitId }]);

    const seen: string[] = [];
    let r = await os.search({ index: INDEX, scroll: '1m', body: { size: 50 } });
    while (r.body.hits.hits.length > 0) {
      seen.push(...r.body.hits.hits.map((h: any) => h._id));
      r = await os.scroll({ body: { scroll_id: r.body._scroll_id, scroll: '1m' } });
    }
    expect(new Set(seen).size).toBe(DOCS);
    const cleared = await os.clearScroll({ body: { scroll_id: r.body._scroll_id } });
    expect(cleared.body).toEqual({ succeeded: true, num_freed: 3 });
  });
});
