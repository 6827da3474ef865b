/**
 * Request-controlled names through the whole coordinator + shard-node stack, in process: field names
 * that are `Object.prototype` members, an undecodable query string, and `filter_path` bounds.
 */
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logger.ts';
import { openTestClusterState, type TestClusterState } from '../../test/support/cluster-state.ts';
import { MAX_FILTER_PATH_CHARS } from '../rest/filter-path.ts';
import { createCoordinatorApp } from '../app.ts';
import { ClusterView } from '../cluster/cluster-view.ts';
import { loadCoordinatorConfig } from '../config.ts';
import { InProcessShardNodes } from '../../test/support/in-process-shard-nodes.ts';
import { ShardClient } from '../transport/shard-client.ts';

const silent = createLogger('test', 'silent', {});
const shardNodes = new InProcessShardNodes();
let app: Hono;
let client: ShardClient;
let state: TestClusterState;

async function call(method: string, path: string, body?: string): Promise<{ status: number; text: string; json: any }> {
  const res = await app.request(path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body });
  const text = await res.text();
  return { status: res.status, text, json: text === '' ? undefined : JSON.parse(text) };
}

/** The document from issue 11: every key is an `Object.prototype` member. */
const HOSTILE_DOC = '{"constructor": "x", "__proto__": {"a": 1}, "toString": 5, "hasOwnProperty": "h", "valueOf": true}';

beforeAll(async () => {
  const urls = [await shardNodes.start(0), await shardNodes.start(1)];
  const config = loadCoordinatorConfig({ FOLIO_NODES: urls.join(','), FOLIO_LOG_LEVEL: 'silent', FOLIO_INSECURE: 'true' });
  client = new ShardClient(urls, { connectionsPerNode: 4, maxResponseBytes: 1 << 20 });
  app = createCoordinatorApp({
    config,
    view: new ClusterView(client, 5_000, (state = await openTestClusterState()).access),
    client,
    log: silent,
    clusterUuid: 'hostile-names-test',
  });
  expect((await call('PUT', '/protos', '{"settings": {"number_of_shards": 2}}')).status).toBe(200);
  expect((await call('PUT', '/protos/_doc/1?refresh=true', HOSTILE_DOC)).status).toBe(201);
  expect((await call('PUT', '/protos/_doc/2?refresh=true', '{"constructor": "y", "toString": 6}')).status).toBe(201);
});

afterAll(async () => {
  await client.close();
  await state.close();
  await shardNodes.close();
});

describe('field names that are Object.prototype members', () => {
  it('are mapped dynamically like any other field', async () => {
    const props = (await call('GET', '/protos/_mapping')).json.protos.mappings.properties;
    expect(Object.keys(props).sort()).toEqual(['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf']);
    expect(Object.hasOwn(props, '__proto__')).toBe(true);
    expect(props.constructor).toEqual({ type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } });
    expect(props.__proto__).toEqual({ properties: { a: { type: 'long' } } }); // an object, printed as ES prints one with properties
    expect(props.toString).toEqual({ type: 'long' });
    expect(props.valueOf).toEqual({ type: 'boolean' });
  });

  it('are indexed and searchable by term, match and sort', async () => {
    const ids = async (query: unknown, extra = '') =>
      (await call('POST', `/protos/_search${extra}`, JSON.stringify({ query }))).json.hits.hits.map((h: { _id: string }) => h._id).sort();
    expect(await ids({ term: { 'constructor.keyword': 'x' } })).toEqual(['1']);
    expect(await ids({ term: { '__proto__.a': 1 } })).toEqual(['1']);
    expect(await ids({ term: { toString: 6 } })).toEqual(['2']);
    expect(await ids({ term: { hasOwnProperty: 'h' } })).toEqual(['1']);
    expect(await ids({ term: { valueOf: true } })).toEqual(['1']);
    expect(await ids({ match: { constructor: 'y' } })).toEqual(['2']); // scored: field statistics keyed by `constructor`
    expect(await ids({ match: { constructor: 'y' } }, '?search_type=dfs_query_then_fetch')).toEqual(['2']);
    expect(await ids({ exists: { field: '__proto__.a' } })).toEqual(['1']);
    const sorted = await call('POST', '/protos/_search', '{"sort": [{"toString": "desc"}]}');
    expect(sorted.json.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['2', '1']);
  });

  it('come back in _source and GET as sent, also through _source filtering and _update', async () => {
    const got = await call('GET', '/protos/_doc/1');
    expect(Object.keys(got.json._source)).toEqual(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']);
    expect(got.json._source.__proto__).toEqual({ a: 1 });
    const filtered = await call('GET', '/protos/_doc/1?_source_includes=__proto__.a,constructor');
    expect(filtered.text).toContain('"_source":{"constructor":"x","__proto__":{"a":1}}');
    expect((await call('POST', '/protos/_update/1?refresh=true', '{"doc": {"__proto__": {"b": 2}}}')).status).toBe(200);
    expect((await call('GET', '/protos/_doc/1')).json._source.__proto__).toEqual({ a: 1, b: 2 });
    expect(await call('POST', '/protos/_search', '{"query": {"term": {"__proto__.b": 2}}}').then((r) => r.json.hits.total.value)).toBe(1);
  });

  it('are refused under dynamic: strict like any other new field', async () => {
    expect((await call('PUT', '/strict', '{"mappings": {"dynamic": "strict", "properties": {"a": {"type": "keyword"}}}}')).status).toBe(200);
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const r = await call('PUT', '/strict/_doc/1', `{"${name}": "x"}`);
      expect(r.status).toBe(400);
      expect(r.json.error.type).toBe('strict_dynamic_mapping_exception');
      expect(r.json.error.reason).toBe(`[1:2] mapping set to strict, dynamic introduction of [${name}] within [_doc] is not allowed`);
    }
    expect((await call('PUT', '/strict/_doc/1', '{"a": "constructor"}')).status).toBe(201);
  });
});

describe('URL parameters the coordinator refuses before any handler', () => {
  it('answers ?filter_path=% with ES bad_parameter_exception, unfiltered', async () => {
    const r = await call('GET', '/protos/_search?filter_path=%');
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      error: {
        root_cause: [{ type: 'bad_parameter_exception', reason: 'java.lang.IllegalArgumentException: unterminated escape sequence at end of string: %' }],
        type: 'bad_parameter_exception',
        reason: 'java.lang.IllegalArgumentException: unterminated escape sequence at end of string: %',
        caused_by: { type: 'illegal_argument_exception', reason: 'unterminated escape sequence at end of string: %' },
      },
      status: 400,
    });
    expect((await call('GET', '/?pretty&x=%zz')).text).not.toContain('\n'); // no ?pretty either: ES drops every parameter
  });

  it('answers a filter_path over the limit with a 400, and the 120 ** of issue 11 at once', async () => {
    const long = await call('GET', `/protos/_search?filter_path=${'a.'.repeat(MAX_FILTER_PATH_CHARS)}`);
    expect(long.status).toBe(400);
    expect(long.json.error.type).toBe('illegal_argument_exception');
    const t0 = performance.now();
    const deep = await call('GET', `/protos/_search?filter_path=${Array(120).fill('**').join('.')}.x`);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(deep.status).toBe(200);
    expect(deep.json).toEqual({});
    expect((await call('GET', '/protos/_search?filter_path=**.a')).text).toBe('{"hits":{"hits":[{"_source":{"__proto__":{"a":1}}}]}}');
  });
});
