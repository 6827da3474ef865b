// The binary hits format through a real shard-node app (in-process, `app.request()`): the same
// query, sample and range calls answered as JSON and as application/x-folio-hits decode equal.
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../shared/logger.ts';
import { INTERNAL_PREFIX } from './echo.ts';
import { type IndexMetadata } from './metadata.ts';
import { type QueryPhaseRequest, type SelectRangeRequest, type SelectSampleRequest } from './search.ts';
import { type ShardBulkRequest, type WriteOp } from './write.ts';
import { parseQuery } from '../coordinator/rest/query-dsl.ts';
import { parseSortParam } from '../coordinator/rest/sort-parse.ts';
import { decodeHits, HITS_CONTENT_TYPE } from './wire.ts';
import { createShardNodeApp } from '../shard-node/app.ts';
import { loadShardNodeConfig } from '../shard-node/config.ts';
import { IndexRegistry } from '../shard-node/index-registry.ts';

const config = loadShardNodeConfig({ FOLIO_NODE_ID: 'wire-test', FOLIO_LOG_LEVEL: 'silent', FOLIO_INSECURE: 'true' });
const registry = new IndexRegistry(config.nodeId);
const app = createShardNodeApp(config, registry, createLogger('shard-node', 'silent', {}));
afterAll(() => registry.close());

const metadata: IndexMetadata = {
  name: 'places',
  uuid: 'wire-test-uuid',
  numberOfShards: 1,
  numberOfReplicas: 0,
  routingNumShards: 1,
  maxResultWindow: 10_000_000,
  refreshIntervalMs: -1,
  mappings: { properties: { name: { type: 'text', fields: { keyword: { type: 'keyword' } } }, population: { type: 'long' }, tag: { type: 'keyword' } } },
  creationDate: 0,
  version: 1,
};

const names = ['Zürich', 'São Paulo', '𝒜stral City', 'Paris', 'paris', 'Köln', 'Åre', '東京', 'new york', 'New York'];
const ops: WriteOp[] = Array.from({ length: 500 }, (_, i) => ({
  op: 'index',
  _id: `d${i}${i % 7 === 0 ? '😀' : ''}`,
  create: false,
  // Every 5th doc lacks population (null sort values), every 3rd lacks tag; heavy ties on population.
  source: JSON.stringify({
    name: `${names[i % names.length]} ${i % 13}`,
    ...(i % 5 ? { population: (i % 17) * 2 ** 40 - 3 } : {}),
    ...(i % 3 ? { tag: names[i % 4] } : {}),
  }),
}));

async function post(path: string, body: unknown, accept?: string): Promise<Response> {
  return app.request(`${INTERNAL_PREFIX}${path}`, {
    method: path.startsWith('/indices') ? 'PUT' : 'POST',
    headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) },
    body: JSON.stringify(body),
  });
}

/** Calls `path` as JSON and as binary and returns both decoded replies (and checks the content types). */
async function both(path: string, body: unknown): Promise<{ json: unknown; binary: unknown; bytes: [number, number] }> {
  const j = await post(path, body);
  expect(j.status, await j.clone().text()).toBe(200);
  expect(j.headers.get('content-type')).toMatch(/^application\/json/);
  const jsonText = await j.text();
  const b = await post(path, body, HITS_CONTENT_TYPE);
  expect(b.status).toBe(200);
  expect(b.headers.get('content-type')).toBe(HITS_CONTENT_TYPE);
  const bin = new Uint8Array(await b.arrayBuffer());
  return { json: JSON.parse(jsonText), binary: decodeHits(bin), bytes: [jsonText.length, bin.byteLength] };
}

describe('shard node: binary hits negotiation', () => {
  it('loads the index', async () => {
    expect((await post(`/indices/places`, { metadata, shards: [0] })).status).toBe(200);
    const bulk: ShardBulkRequest = { index: 'places', shard: 0, ops, refresh: 'true' };
    expect((await post('/bulk', bulk)).status).toBe(200);
  });

  const sorts = ['population:desc', 'tag:asc,population:asc', '_score:desc', 'name.keyword:desc'];
  for (const sort of sorts) {
    it(`query phase sorted by ${sort}: binary decodes equal to JSON`, async () => {
      const req: QueryPhaseRequest = {
        index: 'places',
        shard: 0,
        query: parseQuery({ match: { name: 'paris new york' } }),
        sort: parseSortParam(sort),
        k: 1000,
        trackTotalHits: Number.MAX_SAFE_INTEGER,
        trackScores: true,
      };
      const { json, binary, bytes } = await both('/query', req);
      expect((json as { hits: unknown[] }).hits.length).toBeGreaterThan(10);
      expect(binary).toEqual(json);
      expect(bytes[1]).toBeLessThan(bytes[0]);
    });
  }

  it('sample and range rounds: binary decodes equal to JSON', async () => {
    const sort = parseSortParam('population:desc');
    const query = parseQuery({ match_all: {} });
    const sample: SelectSampleRequest = { index: 'places', shard: 0, query, sort, samples: 16 };
    const s = await both('/select/sample', sample);
    expect(s.binary).toEqual(s.json);
    const { keys, generation } = s.json as { keys: { _id: string; sort: (number | null)[] }[]; generation: number };
    const range: SelectRangeRequest = { index: 'places', shard: 0, query, sort, generation, lower: keys[3], upper: keys[12], limit: 1000 };
    const r = await both('/select/range', range);
    expect((r.json as { before: number }).before).toBeGreaterThan(0);
    expect(r.binary).toEqual(r.json);
  });

  it('errors stay JSON when binary is accepted', async () => {
    const res = await post(
      '/query',
      { index: 'nope', shard: 0, query: { kind: 'match_all', boost: 1 }, sort: [], k: 1, trackTotalHits: -1 },
      HITS_CONTENT_TYPE,
    );
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await res.json()) as object).toHaveProperty('error');
  });
});
