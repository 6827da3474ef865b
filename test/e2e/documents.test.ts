/**
 * Indexing APIs against the real cluster: index lifecycle, dynamic mapping, near-real-time
 * visibility with refresh / refresh=true / wait_for, bulk item responses, updates and deletes.
 */
import { describe, expect, inject, it } from 'vitest';
import { http } from './http.ts';

const url = inject('coordinatorUrl');

describe('index lifecycle and documents', () => {
  it('creates an index with settings and mappings, shows it, and deletes it', async () => {
    const created = await http(url, 'PUT', '/lifecycle', { settings: { number_of_shards: 4 }, mappings: { properties: { tag: { type: 'keyword' } } } });
    expect(created.body).toEqual({ acknowledged: true, shards_acknowledged: true, index: 'lifecycle' });
    expect((await http(url, 'HEAD', '/lifecycle')).status).toBe(200);
    const got = await http(url, 'GET', '/lifecycle');
    expect(got.body.lifecycle.settings.index.number_of_shards).toBe('4');
    expect(got.body.lifecycle.mappings.properties.tag).toEqual({ type: 'keyword' });
    expect((await http(url, 'DELETE', '/lifecycle')).body).toEqual({ acknowledged: true });
    expect((await http(url, 'HEAD', '/lifecycle')).status).toBe(404);
  });

  it('maps new fields dynamically, as Elasticsearch does', async () => {
    await http(url, 'PUT', '/dyn/_doc/1?refresh=true', { title: 'Hello World', views: 3, ratio: 0.5, ok: true, when: '2024-05-01', nested: { k: 'v' } });
    const m = (await http(url, 'GET', '/dyn/_mapping')).body.dyn.mappings.properties;
    expect(m.title).toEqual({ type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } });
    expect(m.views).toEqual({ type: 'long' });
    expect(m.ratio).toEqual({ type: 'float' });
    expect(m.ok).toEqual({ type: 'boolean' });
    expect(m.when.type).toBe('date');
    expect(m.nested.properties.k.type).toBe('text');
    const hit = await http(url, 'GET', '/dyn/_search?q=title:hello');
    expect(hit.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['1']);
    const kw = await http(url, 'POST', '/dyn/_search', { query: { term: { 'title.keyword': 'Hello World' } } });
    expect(kw.body.hits.total.value).toBe(1);
  });

  it('two concurrent bulks adding one new field with different dynamic types both succeed (the later value is coerced)', async () => {
    await http(url, 'PUT', '/dynrace', { settings: { number_of_shards: 2 } });
    const bulk = (lines: unknown[]) => http(url, 'POST', '/dynrace/_bulk', lines.map((l) => JSON.stringify(l)).join('\n') + '\n', 'application/x-ndjson');
    for (let round = 0; round < 8; round++) {
      const f = `x${round}`;
      // 1 maps `long`, 1.5 maps `float`: whichever bulk comes second finds the field mapped.
      const [a, b] = await Promise.all([
        bulk([{ index: { _id: `a${round}` } }, { [f]: 1 }, { index: { _id: `a${round}b` } }, { [f]: 2 }]),
        bulk([{ index: { _id: `b${round}` } }, { [f]: 1.5 }, { index: { _id: `b${round}b` } }, { [f]: 2.5 }]),
      ]);
      expect([a.status, b.status], JSON.stringify([a.body, b.body]).slice(0, 600)).toEqual([200, 200]);
      expect([a.body.errors, b.body.errors], JSON.stringify([a.body, b.body]).slice(0, 600)).toEqual([false, false]);
      const m = (await http(url, 'GET', '/dynrace/_mapping')).body.dynrace.mappings.properties;
      expect(['long', 'float']).toContain(m[f].type);
    }
    await http(url, 'POST', '/dynrace/_refresh');
    expect((await http(url, 'POST', '/dynrace/_count', { query: { exists: { field: 'x0' } } })).body.count).toBe(4);
    // a value that cannot fit the field a concurrent bulk mapped fails alone (ES document_parsing_exception)
    const [c, d] = await Promise.all([bulk([{ index: { _id: 'c' } }, { z: 1 }]), bulk([{ index: { _id: 'd' } }, { z: { inner: 1 } }])]);
    expect([c.status, d.status]).toEqual([200, 200]);
    const failures = [c.body, d.body].flatMap((r) =>
      r.items.map((it: { index: { status: number; error?: { type: string } } }) => it.index).filter((it: { error?: unknown }) => it.error),
    );
    expect(failures).toHaveLength(1);
    expect([failures[0].status, failures[0].error.type]).toEqual([400, 'document_parsing_exception']);
    await http(url, 'DELETE', '/dynrace');
  });

  it('makes writes searchable at refresh, and gets them in real time before', async () => {
    await http(url, 'PUT', '/nrt', { settings: { number_of_shards: 2, refresh_interval: '-1' } });
    const put = await http(url, 'PUT', '/nrt/_doc/a', { n: 1 });
    expect(put.status).toBe(201);
    // Acknowledged by both copies of the shard (the primary and its replica).
    expect(put.body).toMatchObject({
      _index: 'nrt',
      _id: 'a',
      _version: 1,
      result: 'created',
      _seq_no: 0,
      _primary_term: 1,
      _shards: { total: 2, successful: 2, failed: 0 },
    });
    expect((await http(url, 'GET', '/nrt/_search')).body.hits.total.value).toBe(0);
    const get = await http(url, 'GET', '/nrt/_doc/a');
    expect(get.body).toMatchObject({ _index: 'nrt', _id: 'a', found: true, _source: { n: 1 } });
    const refreshed = await http(url, 'POST', '/nrt/_refresh');
    // 2 shards with ES's default 1 replica: 4 copies refreshed, as ES counts them.
    expect(refreshed.body._shards).toEqual({ total: 4, successful: 4, failed: 0 });
    expect((await http(url, 'GET', '/nrt/_search')).body.hits.total.value).toBe(1);
    const again = await http(url, 'PUT', '/nrt/_doc/a?refresh=true', { n: 2 });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ result: 'updated', _version: 2, forced_refresh: true });
    expect((await http(url, 'GET', '/nrt/_search')).body.hits.hits[0]._source).toEqual({ n: 2 });
    expect((await http(url, 'GET', '/nrt/_doc/zzz')).body).toEqual({ _index: 'nrt', _id: 'zzz', found: false });
  });

  it('waits for the periodic refresh with refresh=wait_for', async () => {
    await http(url, 'PUT', '/waitfor', { settings: { number_of_shards: 1, refresh_interval: '200ms' } });
    const res = await http(url, 'PUT', '/waitfor/_doc/x?refresh=wait_for', { v: 1 });
    expect(res.status).toBe(201);
    expect((await http(url, 'GET', '/waitfor/_search')).body.hits.total.value).toBe(1);
  });

  it('answers bulk item by item, with errors flagged and the HTTP status 200', async () => {
    const ndjson =
      [
        { index: { _index: 'bulky', _id: '1' } },
        { a: 1 },
        { create: { _index: 'bulky', _id: '1' } },
        { a: 2 },
        { index: { _index: 'bulky' } },
        { a: 3 },
        { update: { _index: 'bulky', _id: '1' } },
        { doc: { b: 1 } },
        { delete: { _index: 'bulky', _id: 'nope' } },
        { index: { _index: 'bulky', _id: '2' } },
        { a: 'not a number' },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n';
    const res = await http(url, 'POST', '/_bulk?refresh=true', ndjson, 'application/x-ndjson');
    expect(res.status).toBe(200);
    expect(res.body.errors).toBe(true);
    const items = res.body.items;
    expect(items).toHaveLength(6);
    expect(items[0].index).toMatchObject({ _index: 'bulky', _id: '1', status: 201, result: 'created' });
    expect(items[1].create).toMatchObject({ status: 409, error: { type: 'version_conflict_engine_exception' } });
    expect(items[2].index.status).toBe(201);
    expect(items[2].index._id).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(items[3].update).toMatchObject({ status: 200, result: 'updated', _version: 2 });
    expect(items[4].delete).toMatchObject({ status: 404, result: 'not_found' });
    expect(items[5].index).toMatchObject({ status: 400, error: { type: 'document_parsing_exception' } });
    const doc = await http(url, 'GET', '/bulky/_doc/1');
    expect(doc.body._source).toEqual({ a: 1, b: 1 });
    const count = await http(url, 'GET', '/bulky/_count');
    expect(count.body.count).toBe(2);
    const del = await http(url, 'DELETE', '/bulky/_doc/1?refresh=true');
    expect(del.body).toMatchObject({ result: 'deleted', _version: 3 });
    expect((await http(url, 'GET', '/bulky/_count')).body.count).toBe(1);
  });

  it('searches several indices at once and by wildcard', async () => {
    const res = await http(url, 'GET', '/mails,mails-1shard/_search?q=money&track_total_hits=true&size=0');
    const one = await http(url, 'GET', '/mails/_search?q=money&track_total_hits=true&size=0');
    expect(res.body.hits.total.value).toBe(2 * one.body.hits.total.value);
    expect(res.body._shards.total).toBe(4);
    const wild = await http(url, 'GET', '/mail*/_search?q=money&track_total_hits=true&size=0');
    expect(wild.body.hits.total.value).toBe(res.body.hits.total.value);
  });
});
