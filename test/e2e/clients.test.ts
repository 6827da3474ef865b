/**
 * The surface that clients and tools touch, over real HTTP against the shared cluster:
 * `_cluster/health`, `_cat/indices`, `_cat/shards`, `_mget`, `filter_path`, the unrecognized
 * parameter errors of every endpoint family, and the official `@elastic/elasticsearch` 8.x client,
 * unmodified. Uses its own indices (`clients-*`); the shared samples are only read.
 */
import { Client, errors } from '@elastic/elasticsearch';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cities } from '../../scripts/samples/cities.ts';
import { http } from './http.ts';

const url = inject('coordinatorUrl');

/** The ES error envelope for an unrecognized parameter (`root_cause[0]` equals the top level). */
function unrecognized(reason: string) {
  const cause = { type: 'illegal_argument_exception', reason };
  return { error: { root_cause: [cause], ...cause }, status: 400 };
}

beforeAll(async () => {
  await http(url, 'PUT', '/clients-http', {
    settings: { number_of_shards: 3, number_of_replicas: 0 },
    mappings: { properties: { name: { type: 'keyword' } } },
  });
  // 3 replicas on 3 shard nodes: 2 placed (each on another node than the primary), 1 unassigned.
  await http(url, 'PUT', '/clients-yellow', { settings: { number_of_shards: 1, number_of_replicas: 3 } });
  const lines = ['a', 'b', 'c', 'd', 'e'].flatMap((id, i) => [{ index: { _index: 'clients-http', _id: id } }, { name: `n-${id}`, n: i, tag: 't' }]);
  const res = await http(url, 'POST', '/_bulk?refresh=true', lines.map((l) => JSON.stringify(l)).join('\n') + '\n', 'application/x-ndjson');
  expect(res.body.errors).toBe(false);
});

afterAll(async () => {
  await http(url, 'DELETE', '/clients-http');
  await http(url, 'DELETE', '/clients-yellow');
});

describe('_cluster/health', () => {
  it('answers ES’s body; green for an index without replicas, yellow with unassigned replicas', async () => {
    const green = await http(url, 'GET', '/_cluster/health/clients-http');
    expect(green.status).toBe(200);
    expect(green.body).toEqual({
      cluster_name: 'folio',
      status: 'green',
      timed_out: false,
      number_of_nodes: 4,
      number_of_data_nodes: 3,
      active_primary_shards: 3,
      active_shards: 3,
      relocating_shards: 0,
      initializing_shards: 0,
      unassigned_shards: 0,
      delayed_unassigned_shards: 0,
      number_of_pending_tasks: 0,
      number_of_in_flight_fetch: 0,
      task_max_waiting_in_queue_millis: 0,
      active_shards_percent_as_number: 100,
    });
    const yellow = await http(url, 'GET', '/_cluster/health/clients-yellow?level=indices');
    expect(yellow.body).toMatchObject({ status: 'yellow', active_primary_shards: 1, active_shards: 3, unassigned_shards: 1 });
    expect(yellow.body.indices['clients-yellow']).toMatchObject({
      status: 'yellow',
      number_of_shards: 1,
      number_of_replicas: 3,
      active_shards: 3,
      unassigned_shards: 1,
    });
    const all = await http(url, 'GET', '/_cluster/health');
    expect(all.body.status).toBe('yellow');
    expect(all.body.active_shards_percent_as_number).toBeLessThan(100);
  });

  it('waits for a status: reached → 200, not reached in time → 408 with timed_out', async () => {
    const ok = await http(url, 'GET', '/_cluster/health/clients-http?wait_for_status=green&timeout=5s');
    expect([ok.status, ok.body.timed_out, ok.body.status]).toEqual([200, false, 'green']);
    const started = Date.now();
    const late = await http(url, 'GET', '/_cluster/health/clients-yellow?wait_for_status=green&timeout=300ms');
    expect([late.status, late.body.timed_out, late.body.status]).toEqual([408, true, 'yellow']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const missing = await http(url, 'GET', '/_cluster/health/clients-nope?timeout=200ms');
    expect([missing.status, missing.body.timed_out, missing.body.status]).toEqual([408, true, 'red']);
  });

  it('rejects a bad wait_for_status and unknown parameters as ES', async () => {
    const bad = await http(url, 'GET', '/_cluster/health?wait_for_status=purple');
    expect(bad.status).toBe(400);
    expect(bad.body.error.reason).toBe('No enum constant org.elasticsearch.cluster.health.ClusterHealthStatus.PURPLE');
    const unknown = await http(url, 'GET', '/_cluster/health?wait_for_statuss=green');
    expect(unknown.body).toEqual(
      unrecognized(
        'request [/_cluster/health] contains unrecognized parameter: [wait_for_statuss] -> did you mean any of [wait_for_status, wait_for_events, wait_for_nodes, wait_for_active_shards]?',
      ),
    );
  });
});

describe('_cat', () => {
  it('lists indices as text with ES 8’s default columns, and as JSON with string values', async () => {
    const text = await http(url, 'GET', '/_cat/indices/clients-*?v&s=index');
    expect(text.headers['content-type']).toMatch(/^text\/plain/);
    const lines = (text.body as string).trimEnd().split('\n');
    expect(lines[0].split(/\s+/)).toEqual([
      'health',
      'status',
      'index',
      'uuid',
      'pri',
      'rep',
      'docs.count',
      'docs.deleted',
      'store.size',
      'pri.store.size',
      'dataset.size',
    ]);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 3))).toEqual([
      ['green', 'open', 'clients-http'],
      ['yellow', 'open', 'clients-yellow'],
    ]);
    const json = await http(url, 'GET', '/_cat/indices/clients-http?format=json');
    expect(json.body).toHaveLength(1);
    expect(json.body[0]).toMatchObject({ health: 'green', status: 'open', index: 'clients-http', pri: '3', rep: '0', 'docs.count': '5', 'docs.deleted': '0' });
    expect(Object.keys(json.body[0])).toEqual([
      'health',
      'status',
      'index',
      'uuid',
      'pri',
      'rep',
      'docs.count',
      'docs.deleted',
      'store.size',
      'pri.store.size',
      'dataset.size',
    ]);
    const withDataset = await http(url, 'GET', '/_cat/indices/clients-http?format=json&h=index,dataset.size');
    expect(withDataset.body[0]['dataset.size']).toBe(json.body[0]['store.size']);
    expect(json.body[0]['store.size']).toMatch(/^\d+(\.\d)?[kmgtp]?b$/);
    const cities = await http(url, 'GET', '/_cat/indices/cities?format=json&h=index,dc');
    expect(cities.body).toEqual([{ index: 'cities', dc: String(cities.body[0].dc) }]);
    expect(Number(cities.body[0].dc)).toBeGreaterThan(100_000);
  });

  it('selects columns with h, sorts with s, filters with health', async () => {
    const res = await http(url, 'GET', '/_cat/indices/clients-*?h=index,health&s=health:desc');
    expect(res.body).toBe('clients-yellow yellow\nclients-http   green\n');
    const green = await http(url, 'GET', '/_cat/indices/clients-*?h=i&health=green');
    expect(green.body).toBe('clients-http\n');
  });

  it('lists shards: every copy STARTED on its node, each on another node, the replica no node can hold UNASSIGNED', async () => {
    const res = await http(url, 'GET', '/_cat/shards/clients-*?format=json');
    const rows = res.body as Record<string, string | null>[];
    expect(rows.map((r) => [r.index, r.shard, r.prirep, r.state])).toEqual([
      ['clients-http', '0', 'p', 'STARTED'],
      ['clients-http', '1', 'p', 'STARTED'],
      ['clients-http', '2', 'p', 'STARTED'],
      ['clients-yellow', '0', 'p', 'STARTED'],
      ['clients-yellow', '0', 'r', 'STARTED'],
      ['clients-yellow', '0', 'r', 'STARTED'],
      ['clients-yellow', '0', 'r', 'UNASSIGNED'],
    ]);
    expect(Object.keys(rows[0])).toEqual(['index', 'shard', 'prirep', 'state', 'docs', 'store', 'dataset', 'ip', 'node']);
    expect(rows.filter((r) => r.index === 'clients-http').reduce((n, r) => n + Number(r.docs), 0)).toBe(5);
    expect(rows[0].node).toMatch(/^shard-\d$/);
    expect(new Set(rows.slice(3, 6).map((r) => r.node)).size).toBe(3);
    expect(rows[6]).toMatchObject({ docs: null, node: null, ip: null });
    const text = await http(url, 'GET', '/_cat/shards/clients-http?v&h=index,shard,prirep,state,docs');
    expect((text.body as string).split('\n')[0]).toBe('index        shard prirep state   docs');
  });
});

describe('_mget', () => {
  it('gets docs by docs and by ids, in request order, with found:false and per-item errors', async () => {
    const res = await http(url, 'POST', '/_mget', {
      docs: [
        { _index: 'clients-http', _id: 'b' },
        { _index: 'clients-http', _id: 'zz' },
        { _index: 'clients-nope', _id: '1' },
        { _index: 'clients-http', _id: 'a', _source: ['n'] },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.docs[0]).toEqual({
      _index: 'clients-http',
      _id: 'b',
      _version: 1,
      _seq_no: expect.any(Number),
      _primary_term: 1,
      found: true,
      _source: { name: 'n-b', n: 1, tag: 't' },
    });
    expect(res.body.docs[1]).toEqual({ _index: 'clients-http', _id: 'zz', found: false });
    expect(res.body.docs[2]).toMatchObject({
      _index: 'clients-nope',
      _id: '1',
      error: { root_cause: [{ type: 'index_not_found_exception' }], type: 'index_not_found_exception', reason: 'no such index [clients-nope]' },
    });
    expect(res.body.docs[3]._source).toEqual({ n: 0 });
    const ids = await http(url, 'GET', '/clients-http/_mget?_source=false', { ids: ['e', 'c'] });
    expect(ids.body.docs.map((d: { _id: string; found: boolean; _source?: unknown }) => [d._id, d.found, d._source])).toEqual([
      ['e', true, undefined],
      ['c', true, undefined],
    ]);
  });

  it('reads a GET body, as ES does (curl -XGET -d, Kibana console)', async () => {
    const res = await http(url, 'GET', '/clients-http/_mget', { ids: ['d'] });
    expect(res.body.docs.map((d: { _id: string }) => d._id)).toEqual(['d']);
    const search = await http(url, 'GET', '/clients-http/_search', { query: { term: { name: 'n-c' } } });
    expect(search.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['c']);
  });

  it('answers each document as GET _doc does, whichever shard it routes to', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const m = await http(url, 'POST', '/clients-http/_mget', { ids });
    for (const [i, id] of ids.entries()) expect(m.body.docs[i]).toEqual((await http(url, 'GET', `/clients-http/_doc/${id}`)).body);
  });

  it('rejects an empty request and unknown body keys as ES', async () => {
    const empty = await http(url, 'POST', '/clients-http/_mget', {});
    expect([empty.status, empty.body.error.type, empty.body.error.reason]).toEqual([
      400,
      'action_request_validation_exception',
      'Validation Failed: 1: no documents to get;',
    ]);
    const noIndex = await http(url, 'POST', '/_mget', { ids: ['a'] });
    expect(noIndex.body.error.reason).toBe('Validation Failed: 1: index is missing for doc 0;');
  });
});

describe('filter_path and pretty', () => {
  it('trims search, get and error responses', async () => {
    const s = await http(url, 'GET', '/clients-http/_search?sort=n&size=2&filter_path=hits.hits._id,hits.total');
    expect(s.body).toEqual({ hits: { total: { value: 5, relation: 'eq' }, hits: [{ _id: 'a' }, { _id: 'b' }] } });
    const src = await http(url, 'GET', '/clients-http/_search?sort=n&size=1&filter_path=hits.hits._source.name,took');
    expect(Object.keys(src.body)).toEqual(['took', 'hits']);
    expect(src.body.hits).toEqual({ hits: [{ _source: { name: 'n-a' } }] });
    const wild = await http(url, 'GET', '/clients-http/_doc/a?filter_path=_*,-_source.tag,-_seq_no,-_primary_term');
    expect(wild.body).toEqual({ _index: 'clients-http', _id: 'a', _version: 1, _source: { name: 'n-a', n: 0 } });
    const deep = await http(url, 'GET', '/clients-http/_search?size=1&filter_path=**.relation');
    expect(deep.body).toEqual({ hits: { total: { relation: 'eq' } } });
    const err = await http(url, 'GET', '/clients-nope/_search?filter_path=error.type,status');
    expect(err.body).toEqual({ error: { type: 'index_not_found_exception' }, status: 404 });
    const cat = await http(url, 'GET', '/_cat/indices/clients-http?format=json&filter_path=index');
    expect(cat.body).toEqual([{ index: 'clients-http' }]);
  });

  it('accepts pretty and human everywhere', async () => {
    const res = await http(url, 'GET', '/_cluster/health/clients-http?pretty&human');
    expect(res.status).toBe(200);
    const raw = await fetch(`${url}/clients-http/_doc/a?pretty`);
    expect(await raw.text()).toContain('\n  "_index": "clients-http",\n');
  });
});

describe('unrecognized URL parameters', () => {
  const cases: [method: string, path: string, body: unknown, reason: string][] = [
    ['GET', '/?foo=1', undefined, 'request [/] contains unrecognized parameter: [foo]'],
    ['PUT', '/clients-never?timeoutt=1s', {}, 'request [/clients-never] contains unrecognized parameter: [timeoutt] -> did you mean [timeout]?'],
    ['GET', '/clients-http?zzz=1&aaa=2', undefined, 'request [/clients-http] contains unrecognized parameters: [aaa], [zzz]'],
    ['DELETE', '/clients-http?fooo=1', undefined, 'request [/clients-http] contains unrecognized parameter: [fooo]'],
    [
      'PUT',
      '/clients-http/_doc/x?refrsh=true',
      { a: 1 },
      'request [/clients-http/_doc/x] contains unrecognized parameter: [refrsh] -> did you mean [refresh]?',
    ],
    ['POST', '/clients-http/_doc?routng=1', { a: 1 }, 'request [/clients-http/_doc] contains unrecognized parameter: [routng] -> did you mean [routing]?'],
    [
      'GET',
      '/clients-http/_doc/a?_sourc=false',
      undefined,
      'request [/clients-http/_doc/a] contains unrecognized parameter: [_sourc] -> did you mean [_source]?',
    ],
    ['DELETE', '/clients-http/_doc/a?x=1', undefined, 'request [/clients-http/_doc/a] contains unrecognized parameter: [x]'],
    [
      'POST',
      '/clients-http/_update/a?retry_on_conflicts=1',
      { doc: {} },
      'request [/clients-http/_update/a] contains unrecognized parameter: [retry_on_conflicts] -> did you mean [retry_on_conflict]?',
    ],
    [
      'POST',
      '/_bulk?pipelin=x',
      '{"index":{"_index":"clients-never"}}\n{}\n',
      'request [/_bulk] contains unrecognized parameter: [pipelin] -> did you mean [pipeline]?',
    ],
    ['POST', '/clients-http/_refresh?force=true', undefined, 'request [/clients-http/_refresh] contains unrecognized parameter: [force]'],
    ['GET', '/clients-http/_count?size=0', undefined, 'request [/clients-http/_count] contains unrecognized parameter: [size]'],
    [
      'GET',
      '/clients-http/_mapping?include_type_name=true',
      undefined,
      'request [/clients-http/_mapping] contains unrecognized parameter: [include_type_name]',
    ],
    ['GET', '/clients-http/_settings?flat=true', undefined, 'request [/clients-http/_settings] contains unrecognized parameter: [flat]'],
    ['GET', '/_cat/indices?format=json&hh=index', undefined, 'request [/_cat/indices] contains unrecognized parameter: [hh]'],
    ['GET', '/_cat/shards?verbose', undefined, 'request [/_cat/shards] contains unrecognized parameter: [verbose]'],
    [
      'POST',
      '/clients-http/_mget?source=false',
      { ids: ['a'] },
      'request [/clients-http/_mget] contains unrecognized parameter: [source] -> did you mean [_source]?',
    ],
  ];
  it.each(cases)('%s %s → 400 illegal_argument_exception', async (method, path, body, reason) => {
    const res = await http(url, method, path, body, typeof body === 'string' ? 'application/x-ndjson' : 'application/json');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(unrecognized(reason));
  });

  it('accepts the parameters ES accepts without effect in Folio', async () => {
    for (const [method, path, body] of [
      ['PUT', '/clients-http/_doc/z?timeout=1m&wait_for_active_shards=1&require_alias=false&refresh=true', { a: 1 }],
      ['GET', '/clients-http/_doc/z?realtime=true&preference=_local', undefined],
      ['POST', '/clients-http/_refresh?ignore_unavailable=true', undefined],
      ['GET', '/clients-http/_mapping?master_timeout=30s&local=false', undefined],
      ['GET', '/_cat/indices/clients-http?v&bytes=b&local=true&expand_wildcards=open', undefined],
      ['DELETE', '/clients-http/_doc/z?timeout=1m&refresh=true', undefined],
    ] as const) {
      expect((await http(url, method, path, body)).status, `${method} ${path}`).toBeLessThan(300);
    }
  });
});

describe('the official @elastic/elasticsearch 8.x client, unmodified', () => {
  const client = new Client({ node: url, requestTimeout: 120_000 });
  const index = 'clients-cities';
  const CITY_COUNT = 3000;

  afterAll(async () => {
    await client.indices.delete({ index, ignore_unavailable: true }).catch(() => undefined);
    await client.close();
  });

  it('runs info, create, index, helpers.bulk, refresh, search, count, get, mget, cat, health, delete', async () => {
    const info = await client.info();
    expect(info.version.number).toMatch(/^8\./);
    expect(info.tagline).toBe('You Know, for Search');

    const created = await client.indices.create({
      index,
      settings: { number_of_shards: 3, number_of_replicas: 0 },
      mappings: {
        properties: { name: { type: 'text', fields: { keyword: { type: 'keyword' } } }, population: { type: 'long' }, geonameid: { type: 'keyword' } },
      },
    });
    expect(created).toEqual({ acknowledged: true, shards_acknowledged: true, index });

    const one = await client.index({ index, id: 'custom-1', document: { name: 'Folio Town', population: 1 } });
    expect(one.result).toBe('created');

    const docs: Record<string, unknown>[] = [];
    for (const d of cities.docs()) {
      if (docs.length === CITY_COUNT) break;
      docs.push({ ...d.source, geonameid: d._id });
    }
    const stats = await client.helpers.bulk({
      datasource: docs,
      onDocument: (doc) => ({ index: { _index: index, _id: String(doc.geonameid) } }),
      flushBytes: 200_000,
    });
    expect([stats.total, stats.successful, stats.failed]).toEqual([CITY_COUNT, CITY_COUNT, 0]);

    const refreshed = await client.indices.refresh({ index });
    expect(refreshed._shards).toEqual({ total: 3, successful: 3, failed: 0 });

    const body = { from: 40, size: 25, sort: [{ population: 'desc' as const }], query: { match_all: {} } };
    const page = await client.search({ index, ...body });
    const direct = await http(url, 'POST', `/${index}/_search`, body);
    expect(page.hits.hits.map((h) => h._id)).toEqual(direct.body.hits.hits.map((h: { _id: string }) => h._id));
    expect(page.hits.hits).toHaveLength(25);
    expect(page.hits.total).toEqual({ value: CITY_COUNT + 1, relation: 'eq' });

    expect((await client.count({ index })).count).toBe(CITY_COUNT + 1);
    expect((await client.count({ index, query: { term: { geonameid: String(docs[0].geonameid) } } })).count).toBe(1);

    const got = await client.get<Record<string, unknown>>({ index, id: String(docs[7].geonameid) });
    expect(got.found).toBe(true);
    expect(got._source).toEqual(docs[7]);

    const many = await client.mget<Record<string, unknown>>({ index, ids: ['custom-1', 'missing', String(docs[1].geonameid)] });
    expect(many.docs.map((d) => ('found' in d ? d.found : 'error'))).toEqual([true, false, true]);

    const cat = await client.cat.indices({ index, format: 'json' });
    expect(cat).toEqual([expect.objectContaining({ index, health: 'green', 'docs.count': String(CITY_COUNT + 1) })]);
    const catText = await client.cat.indices({ index, v: true });
    expect(catText).toMatch(/^health status index/); // text: the client's type assumes format=json

    const health = await client.cluster.health({ index, wait_for_status: 'green', timeout: '10s' });
    expect(health).toMatchObject({ status: 'green', timed_out: false, active_primary_shards: 3 });

    expect(await client.indices.delete({ index })).toEqual({ acknowledged: true });
    expect(await client.indices.exists({ index })).toBe(false);
  });

  it('manages aliases: updateAliases, putAlias, getAlias, existsAlias, deleteAlias, and searches through them', async () => {
    await client.indices.create({ index: 'clients-al-1', settings: { number_of_shards: 1, number_of_replicas: 0 } });
    await client.indices.create({ index: 'clients-al-2', settings: { number_of_shards: 1, number_of_replicas: 0 } });
    try {
      expect(await client.indices.updateAliases({ actions: [{ add: { index: 'clients-al-1', alias: 'clients-al' } }] })).toEqual({
        acknowledged: true,
        errors: false,
      });
      await client.index({ index: 'clients-al', id: 'a', document: { n: 1 }, refresh: true });
      expect(await client.indices.existsAlias({ name: 'clients-al' })).toBe(true);
      await client.indices.updateAliases({
        actions: [{ remove: { index: 'clients-al-1', alias: 'clients-al' } }, { add: { index: 'clients-al-2', alias: 'clients-al', is_write_index: true } }],
      });
      expect(await client.indices.getAlias({ name: 'clients-al' })).toEqual({ 'clients-al-2': { aliases: { 'clients-al': { is_write_index: true } } } });
      expect((await client.count({ index: 'clients-al' })).count).toBe(0);
      await client.indices.putAlias({ index: 'clients-al-1', name: 'clients-al-old' });
      expect((await client.search({ index: 'clients-al-old' })).hits.hits.map((h) => h._id)).toEqual(['a']);
      await client.indices.deleteAlias({ index: 'clients-al-1', name: 'clients-al-old' });
      const gone = await client.indices.getAlias({ name: 'clients-al-old' }).catch((e: unknown) => e);
      expect((gone as InstanceType<typeof errors.ResponseError>).statusCode).toBe(404);
    } finally {
      await client.indices.delete({ index: 'clients-al-1,clients-al-2' });
    }
  });

  it('surfaces ES error bodies as ResponseError', async () => {
    const err = await client.get({ index: 'clients-nope', id: '1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(errors.ResponseError);
    const re = err as InstanceType<typeof errors.ResponseError>;
    expect(re.statusCode).toBe(404);
    expect(re.body).toMatchObject({ error: { type: 'index_not_found_exception' }, status: 404 });
    const bad = await client.count({ index: 'cities' }, { querystring: { sise: 1 } }).catch((e: unknown) => e);
    expect((bad as InstanceType<typeof errors.ResponseError>).body).toEqual(unrecognized('request [/cities/_count] contains unrecognized parameter: [sise]'));
  });
});

describe('the official client: msearch, helpers.msearch, deleteByQuery, a sliced point-in-time walk', () => {
  const client = new Client({ node: url, requestTimeout: 120_000 });
  const index = 'clients-byquery';
  const DOCS = 600;

  beforeAll(async () => {
    await client.indices.create({
      index,
      settings: { number_of_shards: 3, number_of_replicas: 0 },
      mappings: { properties: { n: { type: 'long' }, tag: { type: 'keyword' } } },
    });
    const operations = Array.from({ length: DOCS }, (_, i) => [{ index: { _index: index, _id: `d${i}` } }, { n: i, tag: i % 2 ? 'odd' : 'even' }]).flat();
    const bulk = await client.bulk({ operations, refresh: true });
    expect(bulk.errors).toBe(false);
  });

  afterAll(async () => {
    await client.indices.delete({ index, ignore_unavailable: true }).catch(() => undefined);
    await client.close();
  });

  it('msearch answers each search, a failing one as its item error', async () => {
    const res = await client.msearch({
      searches: [
        { index },
        { size: 0, query: { term: { tag: 'odd' } } },
        { index: 'clients-none' },
        { query: { match_all: {} } },
        {},
        { size: 2, sort: [{ n: 'desc' }] },
      ],
      index,
    });
    expect(res.responses).toHaveLength(3);
    const [odd, missing, top] = res.responses as any[];
    expect(odd).toMatchObject({ status: 200, hits: { total: { value: DOCS / 2, relation: 'eq' } } });
    expect(missing).toMatchObject({ status: 404, error: { type: 'index_not_found_exception' } });
    expect(top.hits.hits.map((h: { _id: string }) => h._id)).toEqual([`d${DOCS - 1}`, `d${DOCS - 2}`]);
  });

  it('helpers.msearch batches searches and resolves each with its response', async () => {
    const m = client.helpers.msearch({ operations: 4, flushInterval: 20 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => m.search<{ n: number }>({ index }, { query: { term: { n: i * 7 } } })));
    expect(results.map((r) => r.documents.map((d) => d.n))).toEqual(Array.from({ length: 10 }, (_, i) => [i * 7]));
    const failed = await m.search({ index: 'clients-none' }, { query: { match_all: {} } }).catch((e: unknown) => e);
    expect((failed as InstanceType<typeof errors.ResponseError>).statusCode).toBe(404);
    m.stop();
  });

  it('openPointInTime walked by 3 sliced workers reads every document once', async () => {
    const pit = await client.openPointInTime({ index, keep_alive: '1m' });
    const worker = async (id: number): Promise<string[]> => {
      const ids: string[] = [];
      let after: any[] | undefined;
      for (;;) {
        const page = await client.search({
          pit: { id: pit.id, keep_alive: '1m' },
          slice: { id: String(id), max: 3 },
          size: 70,
          sort: ['_shard_doc'],
          ...(after ? { search_after: after } : {}),
        });
        if (page.hits.hits.length === 0) return ids;
        ids.push(...page.hits.hits.map((h) => h._id!));
        after = page.hits.hits.at(-1)!.sort;
      }
    };
    const slices = await Promise.all([0, 1, 2].map(worker));
    expect(slices.every((s) => s.length > 0)).toBe(true);
    expect(slices.flat().sort()).toEqual(Array.from({ length: DOCS }, (_, i) => `d${i}`).sort());
    expect((await client.closePointInTime({ id: pit.id })).succeeded).toBe(true);
  });

  it('deleteByQuery deletes the matching documents, and runs as a task', async () => {
    const res = await client.deleteByQuery({ index, query: { range: { n: { gte: 500 } } }, refresh: true, slices: 2 });
    expect(res).toMatchObject({ total: 100, deleted: 100, version_conflicts: 0, failures: [] });
    expect((res as { slices?: unknown[] }).slices).toHaveLength(2);
    const started = await client.deleteByQuery({ index, query: { term: { tag: 'odd' } }, refresh: true, wait_for_completion: false, conflicts: 'proceed' });
    let task = await client.tasks.get({ task_id: String(started.task) });
    while (!task.completed) task = await client.tasks.get({ task_id: String(started.task), wait_for_completion: true });
    expect(task.response).toMatchObject({ total: 250, deleted: 250 });
    expect((await client.count({ index })).count).toBe(250);
  });
});
