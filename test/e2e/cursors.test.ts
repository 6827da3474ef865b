/**
 * Cursors over real HTTP against the shared cluster: `search_after`, point in time, scroll and the
 * `Folio-Snapshot` header, with writes going on during the walks. Uses its own indices
 * (`cursors-*`); the shared samples are not touched.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openContextsByNode } from '../support/open-contexts.ts';
import { http, deleteIndices } from './http.ts';

const url = inject('coordinatorUrl');
const INDEX = 'cursors-a';
const DOCS = 230;

const ndjson = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

async function bulk(lines: unknown[], refresh = 'true'): Promise<void> {
  const res = await http(url, 'POST', `/_bulk?refresh=${refresh}`, ndjson(lines), 'application/x-ndjson');
  expect(res.body.errors).toBe(false);
}

const ids = (res: { body: any }): string[] => res.body.hits.hits.map((h: any) => h._id);

/** ES's error envelope essentials: status, type, and the first root cause's type and reason. */
function errorOf(res: { status: number; body: any }) {
  const e = res.body.error;
  return { status: res.status, type: e.type, root: e.root_cause[0].type, reason: e.root_cause[0].reason };
}

/** Walks `path` with search_after until a page is empty; returns ids in order. */
async function walkSearchAfter(path: string, body: Record<string, unknown>): Promise<{ ids: string[]; pages: number }> {
  const out: string[] = [];
  let after: unknown[] | undefined;
  let pages = 0;
  for (;;) {
    const res = await http(url, 'POST', path, after ? { ...body, search_after: after } : body);
    expect(res.status).toBe(200);
    const hits = res.body.hits.hits;
    if (hits.length === 0) return { ids: out, pages };
    pages++;
    out.push(...hits.map((h: any) => h._id));
    after = hits[hits.length - 1].sort;
  }
}

beforeAll(async () => {
  await deleteIndices(url, 'cursors-*');
  const res = await http(url, 'PUT', `/${INDEX}`, {
    settings: { number_of_shards: 3, number_of_replicas: 0, refresh_interval: -1 },
    mappings: { properties: { n: { type: 'integer' }, tag: { type: 'keyword' }, title: { type: 'text' } } },
  });
  expect(res.status).toBe(200);
  await bulk(
    Array.from({ length: DOCS }, (_, i) => [
      { index: { _index: INDEX, _id: `d${String(i).padStart(3, '0')}` } },
      { n: i % 7, tag: `t${i % 3}`, title: `doc ${i % 5} words` },
    ]).flat(),
  );
});

afterAll(async () => {
  await http(url, 'DELETE', '/_search/scroll/_all');
  await http(url, 'PUT', '/_cluster/settings', { persistent: { 'search.max_open_scroll_context': null, 'search.max_open_pit_context': null } });
  await deleteIndices(url, 'cursors-*');
});

describe('search_after', () => {
  it('walks exactly the from/size pages when the sort ends with the _id tiebreaker', async () => {
    const all = await http(url, 'POST', `/${INDEX}/_search`, { size: DOCS, sort: [{ n: 'desc' }] });
    const oracle = ids(all);
    expect(oracle).toHaveLength(DOCS);
    const walk = await walkSearchAfter(`/${INDEX}/_search`, { size: 17, sort: [{ n: 'desc' }, { _id: 'asc' }] });
    expect(walk.ids).toEqual(oracle);
    expect(walk.pages).toBe(Math.ceil(DOCS / 17));
    const page = await http(url, 'POST', `/${INDEX}/_search`, { size: 1, sort: [{ n: 'desc' }, { _id: 'asc' }] });
    expect(page.body.hits.hits[0].sort).toEqual([6, oracle[0]]);
  });

  it('walks by _score then _id, and on unique keyword values alone', async () => {
    const query = { match: { title: 'doc 3' } };
    const all = await http(url, 'POST', `/${INDEX}/_search`, { size: DOCS, query });
    const walk = await walkSearchAfter(`/${INDEX}/_search`, { size: 9, query, sort: ['_score', { _id: 'asc' }] });
    expect(walk.ids).toEqual(ids(all));
    const byId = await walkSearchAfter(`/${INDEX}/_search`, { size: 50, sort: [{ _id: 'desc' }] });
    expect(byId.ids).toEqual(ids(await http(url, 'POST', `/${INDEX}/_search`, { size: DOCS, sort: [{ _id: 'desc' }] })));
  });

  it('skips every hit tying with the search_after values when the sort is not unique (ES)', async () => {
    const res = await http(url, 'POST', `/${INDEX}/_search`, { size: DOCS, sort: [{ n: 'asc' }], search_after: [5] });
    expect(res.body.hits.hits.every((h: any) => h.sort[0] === 6)).toBe(true);
    expect(res.body.hits.total.value).toBe(DOCS);
  });

  it('rejects from > 0, a length mismatch, and _shard_doc without a PIT with ES’s errors', async () => {
    const withFrom = await http(url, 'POST', `/${INDEX}/_search`, { from: 3, sort: [{ n: 'asc' }], search_after: [1] });
    expect(withFrom.status).toBe(400);
    expect(withFrom.body.error).toMatchObject({
      type: 'action_request_validation_exception',
      reason: 'Validation Failed: 1: [from] parameter must be set to 0 when [search_after] is used;',
    });
    const mismatch = await http(url, 'POST', `/${INDEX}/_search`, { sort: [{ n: 'asc' }, { _id: 'asc' }], search_after: [1] });
    expect(errorOf(mismatch)).toEqual({
      status: 400,
      type: 'search_phase_execution_exception',
      root: 'illegal_argument_exception',
      reason: 'search_after has 1 value(s) but sort has 2.',
    });
    const shardDoc = await http(url, 'POST', `/${INDEX}/_search`, { sort: ['_shard_doc'] });
    expect(shardDoc.body.error).toMatchObject({
      type: 'action_request_validation_exception',
      reason: 'Validation Failed: 1: [_shard_doc] sort field cannot be used without [point in time];',
    });
  });
});

describe('point in time', () => {
  it('searches the snapshot of its opening while documents are indexed, updated and deleted', async () => {
    const opened = await http(url, 'POST', `/${INDEX}/_pit?keep_alive=1m`);
    expect(opened.status).toBe(200);
    expect(opened.body._shards).toEqual({ total: 3, successful: 3, skipped: 0, failed: 0 });
    const pit = { id: opened.body.id, keep_alive: '1m' };
    const sort = [{ n: 'asc' }];
    // The oracle: the PIT's from/size pages before any write.
    const oracle = ids(await http(url, 'POST', '/_search', { size: 500, sort, pit }));
    expect(oracle).toHaveLength(DOCS);
    const first = await http(url, 'POST', '/_search', { size: 1, sort, pit });
    expect(first.body.pit_id).toBe(pit.id);
    expect(Object.keys(first.body)[0]).toBe('pit_id');
    expect(first.body.hits.hits[0].sort).toHaveLength(2); // the implicit _shard_doc tiebreaker
    expect(Number.isInteger(first.body.hits.hits[0].sort[1])).toBe(true);

    const seen: string[] = [];
    let after: unknown[] | undefined;
    for (let page = 0; ; page++) {
      if (page === 2) {
        await bulk([
          { index: { _index: INDEX, _id: 'pit-new-1' } },
          { n: 0, tag: 'x' },
          { delete: { _index: INDEX, _id: oracle[oracle.length - 1] } },
          { index: { _index: INDEX, _id: oracle[oracle.length - 2] } },
          { n: -5, tag: 'moved' },
        ]);
      }
      const res = await http(url, 'POST', '/_search', { size: 19, sort, pit, ...(after ? { search_after: after } : {}) });
      expect(res.status).toBe(200);
      const hits = res.body.hits.hits;
      if (hits.length === 0) break;
      seen.push(...hits.map((h: any) => h._id));
      after = hits[hits.length - 1].sort;
    }
    expect(seen).toEqual(oracle);
    // The live index moved on.
    const live = await http(url, 'POST', `/${INDEX}/_search`, { size: 0, track_total_hits: true });
    expect(live.body.hits.total.value).toBe(DOCS);
    const moved = await http(url, 'POST', `/${INDEX}/_search`, { size: 1, sort });
    expect(moved.body.hits.hits[0]._id).toBe(oracle[oracle.length - 2]);
    // Deep from inside the PIT (the selection path) agrees with the oracle too.
    const deep = await http(url, 'POST', '/_search', { from: 200, size: 20, sort, pit });
    expect(ids(deep)).toEqual(oracle.slice(200, 220));

    const closed = await http(url, 'DELETE', '/_pit', { id: pit.id });
    expect([closed.status, closed.body]).toEqual([200, { succeeded: true, num_freed: 3 }]);
    const again = await http(url, 'DELETE', '/_pit', { id: pit.id });
    expect(again.body).toEqual({ succeeded: true, num_freed: 0 });
    const gone = await http(url, 'POST', '/_search', { pit });
    expect(gone.status).toBe(404);
    expect(gone.body.error.type).toBe('search_phase_execution_exception');
    expect(gone.body.error.root_cause[0].type).toBe('search_context_missing_exception');
    expect(gone.body.error.root_cause[0].reason).toMatch(/^No search context found for id \[\d+\]$/);
    // restore the two docs the test changed
    await bulk([
      { delete: { _index: INDEX, _id: 'pit-new-1' } },
      ...[oracle[oracle.length - 1], oracle[oracle.length - 2]].flatMap((id) => {
        const i = Number(id.slice(1));
        return [{ index: { _index: INDEX, _id: id } }, { n: i % 7, tag: `t${i % 3}`, title: `doc ${i % 5} words` }];
      }),
    ]);
  });

  it('rejects an index in the path, a missing keep_alive and a bad id as ES', async () => {
    const opened = await http(url, 'POST', `/${INDEX}/_pit?keep_alive=30s`);
    const withIndex = await http(url, 'POST', `/${INDEX}/_search`, { pit: { id: opened.body.id } });
    expect(withIndex.status).toBe(400);
    expect(withIndex.body.error).toMatchObject({
      type: 'action_request_validation_exception',
      reason: 'Validation Failed: 1: [indices] cannot be used with point in time. Do not specify any index with point in time.;',
    });
    const scroll = await http(url, 'POST', '/_search?scroll=1m', { pit: { id: opened.body.id } });
    expect(scroll.body.error.reason).toBe('Validation Failed: 1: using [point in time] is not allowed in a scroll context;');
    const noKeepAlive = await http(url, 'POST', `/${INDEX}/_pit`);
    expect(noKeepAlive.body.error).toMatchObject({
      type: 'action_request_validation_exception',
      reason: 'Validation Failed: 1: [keep_alive] is not specified;',
    });
    const bad = await http(url, 'POST', '/_search', { pit: { id: 'nonsense' } });
    expect(bad.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'invalid id: [nonsense]' });
    const missing = await http(url, 'POST', '/cursors-nope/_pit?keep_alive=1m');
    expect(missing.status).toBe(404);
    await http(url, 'DELETE', '/_pit', { id: opened.body.id });
  });

  it('bounds open PITs with search.max_open_pit_context (OpenSearch’s error)', async () => {
    // The limit counts every PIT context of a node, and other files leave PITs to expire (elasticdump
    // cannot close its own, client-matrix.test.ts): the limit is one above the busiest node's count,
    // so one PIT over the index's 3 shards (one per node) fits and a second one does not.
    const busiest = Math.max(...(await openContextsByNode(inject('nodeUrls'), 'pit')));
    const limit = busiest + 1;
    const set = await http(url, 'PUT', '/_cluster/settings', { persistent: { search: { max_open_pit_context: limit } } });
    expect(set.body).toEqual({ acknowledged: true, persistent: { search: { max_open_pit_context: String(limit) } }, transient: {} });
    const one = await http(url, 'POST', `/${INDEX}/_pit?keep_alive=1m`);
    expect(one.status).toBe(200);
    const two = await http(url, 'POST', `/${INDEX}/_pit?keep_alive=1m`);
    expect(two.status).toBe(429);
    expect(two.body.error).toMatchObject({
      type: 'rejected_execution_exception',
      reason: `Trying to create too many Point In Time contexts. Must be less than or equal to: [${limit}]. This limit can be set by changing the [search.max_open_pit_context] setting.`,
    });
    await http(url, 'DELETE', '/_pit', { id: one.body.id });
    await http(url, 'PUT', '/_cluster/settings', { persistent: { 'search.max_open_pit_context': null } });
    const three = await http(url, 'POST', `/${INDEX}/_pit?keep_alive=1m`);
    expect(three.status).toBe(200);
    await http(url, 'DELETE', '/_pit', { id: three.body.id });
  });
});

describe('scroll', () => {
  it('returns every document once, in batches, while writes go on; clear frees the contexts', async () => {
    const first = await http(url, 'POST', `/${INDEX}/_search?scroll=1m`, { size: 40, sort: ['_doc'] });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body)[0]).toBe('_scroll_id');
    expect(first.body.hits.hits[0].sort).toHaveLength(1); // no implicit tiebreaker shown
    const seen: string[] = ids(first);
    let scrollId = first.body._scroll_id;
    await bulk([{ index: { _index: INDEX, _id: 'scroll-new' } }, { n: 1 }, { delete: { _index: INDEX, _id: 'd007' } }]);
    for (let i = 0; ; i++) {
      const next =
        i % 2 === 0
          ? await http(url, 'POST', '/_search/scroll', { scroll: '1m', scroll_id: scrollId })
          : await http(url, 'GET', `/_search/scroll/${scrollId}?scroll=1m`);
      expect(next.status).toBe(200);
      expect(next.body.hits.total).toEqual({ value: DOCS, relation: 'eq' });
      if (next.body.hits.hits.length === 0) break;
      seen.push(...ids(next));
      scrollId = next.body._scroll_id;
    }
    expect(seen).toHaveLength(DOCS);
    expect(new Set(seen).size).toBe(DOCS);
    expect(seen).toContain('d007');
    expect(seen).not.toContain('scroll-new');
    const cleared = await http(url, 'DELETE', '/_search/scroll', { scroll_id: [scrollId] });
    expect([cleared.status, cleared.body]).toEqual([200, { succeeded: true, num_freed: 3 }]);
    const after = await http(url, 'POST', '/_search/scroll', { scroll_id: scrollId });
    expect(errorOf(after)).toMatchObject({ status: 404, type: 'search_phase_execution_exception', root: 'search_context_missing_exception' });
    const twice = await http(url, 'DELETE', `/_search/scroll/${scrollId}`);
    expect([twice.status, twice.body]).toEqual([404, { succeeded: true, num_freed: 0 }]);
    await bulk([{ delete: { _index: INDEX, _id: 'scroll-new' } }, { index: { _index: INDEX, _id: 'd007' } }, { n: 0, tag: 't1', title: 'doc 2 words' }]);
  });

  it('rejects from, size 0, search_after and a missing or bad id with ES’s texts', async () => {
    const v = async (q: string, body: unknown) => (await http(url, 'POST', `/${INDEX}/_search?scroll=1m${q}`, body)).body.error.reason;
    expect(await v('&from=5', undefined)).toBe('Validation Failed: 1: using [from] is not allowed in a scroll context;');
    expect(await v('', { size: 0 })).toBe('Validation Failed: 1: [size] cannot be [0] in a scroll context;');
    expect(await v('', { sort: [{ n: 'asc' }], search_after: [1] })).toBe('Validation Failed: 1: [search_after] cannot be used in a scroll context;');
    const missing = await http(url, 'POST', '/_search/scroll', { scroll: '1m' });
    expect(missing.body.error).toMatchObject({ type: 'action_request_validation_exception', reason: 'Validation Failed: 1: scroll id is missing;' });
    const bad = await http(url, 'POST', '/_search/scroll', { scroll_id: 'garbage' });
    expect(bad.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'Cannot parse scroll id' });
  });

  it('enforces search.max_open_scroll_context with ES’s 429 error; _all clears every scroll', async () => {
    await http(url, 'DELETE', '/_search/scroll/_all');
    await http(url, 'PUT', '/_cluster/settings', { transient: { 'search.max_open_scroll_context': 2 } });
    const a = await http(url, 'POST', `/${INDEX}/_search?scroll=1m`, { size: 5 });
    const b = await http(url, 'POST', `/${INDEX}/_search?scroll=1m`, { size: 5 });
    expect([a.status, b.status]).toEqual([200, 200]);
    const c = await http(url, 'POST', `/${INDEX}/_search?scroll=1m`, { size: 5 });
    expect(errorOf(c)).toEqual({
      status: 429,
      type: 'search_phase_execution_exception',
      root: 'too_many_scroll_contexts_exception',
      reason:
        'Trying to create too many scroll contexts. Must be less than or equal to: [2]. This limit can be set by changing the [search.max_open_scroll_context] setting.',
    });
    const all = await http(url, 'DELETE', '/_search/scroll/_all');
    expect(all.body).toEqual({ succeeded: true, num_freed: 6 });
    await http(url, 'PUT', '/_cluster/settings', { transient: { 'search.max_open_scroll_context': null } });
    const d = await http(url, 'POST', `/${INDEX}/_search?scroll=1m`, { size: 5 });
    expect(d.status).toBe(200);
    await http(url, 'DELETE', '/_search/scroll', { scroll_id: d.body._scroll_id });
  });
});

describe('Folio-Snapshot', () => {
  it('keeps a from/size walk on the snapshot of its first page while writes go on', async () => {
    const sort = [{ n: 'desc' }];
    const first = await http(url, 'POST', `/${INDEX}/_search`, { size: 23, sort });
    const token = first.headers['folio-snapshot'] as string;
    expect(typeof token).toBe('string');
    const oracle = ids(await http(url, 'POST', `/${INDEX}/_search`, { size: DOCS, sort }));
    const seen = ids(first);
    for (let from = 23; from < DOCS + 23; from += 23) {
      await bulk([{ index: { _index: INDEX, _id: `snap-${from}` } }, { n: 6 }, { delete: { _index: INDEX, _id: oracle[from % DOCS] } }]);
      const res = await fetch(`${url}/${INDEX}/_search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Folio-Snapshot': token },
        body: JSON.stringify({ from, size: 23, sort }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('folio-snapshot')).toBe(token);
      seen.push(...((await res.json()) as any).hits.hits.map((h: any) => h._id));
    }
    expect(seen).toEqual(oracle);
    const live = await http(url, 'POST', `/${INDEX}/_search`, { query: { ids: { values: ['snap-23'] } } });
    expect(ids(live)).toEqual(['snap-23']);
    expect(live.headers['folio-snapshot']).not.toBe(token);
    const bad = await fetch(`${url}/${INDEX}/_search`, { headers: { 'Folio-Snapshot': 'nope' } });
    expect(bad.status).toBe(400);
  });
});
