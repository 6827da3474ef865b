/**
 * `_source` comes back byte for byte as it was indexed (ES stores the source bytes:
 * https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-source-field.html), on a
 * cluster of its own (3 shards, 1 replica; shard nodes are restarted). Documents with integers above
 * 2^53, `1.10`, `-0`, escapes, integer-like keys and odd whitespace are indexed through `_doc`,
 * `_create` and `_bulk`, then read through GET `_doc`, GET `_source`, `_mget`, `_search` (a fused
 * page, a fetch-phase page, a deep page), scroll and PIT, comparing the raw reply bytes: before a
 * refresh (real-time get), after it, on every copy (each shard node's internal get, so replicas
 * too), after a SIGKILL restart (translog replay), after `_flush` and a SIGTERM restart (flush
 * snapshot), and in the destination of a `_reindex`. Invalid UTF-8 is refused with ES's errors,
 * never replaced.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_SECRET_HEADER } from '../../shared/cluster-secret.ts';
import { startComposeCluster, type ComposeCluster } from '../support/compose-cluster.ts';

const CLUSTER_SECRET = randomBytes(32).toString('hex');
const INDEX = 'exact';
const COPY = 'exact-copy';
const SHARDS = 3;
/** Filler documents, sorted by `_id` before the exact ones, so that a deep page (from ≥ 500) holds them. */
const FILLERS = 600;

/** `_id` → the exact source text sent (and expected back). */
const DOCS: Record<string, string> = {
  'x-doc': '{"big": 72057594037927937, "d": 1.10, "s": "é"}',
  // More digits than a double holds. (An integer beyond the long range, as this once held, is refused
  // as ES refuses it: a dynamic `long` takes -2^63..2^63-1.)
  'x-create': '{"z":-0,"neg":-1.50E+3,"n":[1.0,2.50],"huge":1234567890.12345678901234567890}',
  'x-bulk-esc': '{"s":"\\u00e9\\ud83d\\ude00","q":"a\\"b\\\\","u":"\u2028 ü 😀"}',
  'x-bulk-keys': '{"b":1,"1":2}',
  'x-bulk-space': '{ "spaced" :\t[ 1 , 2 ] , "nested": {"k": 0.1000} }',
};
const IDS = Object.keys(DOCS);

let cluster: ComposeCluster;

/** Sends a request to `base` (default: the coordinator) and returns the status and the raw reply text. */
async function raw(
  method: string,
  path: string,
  body?: string | Buffer,
  base?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const res = await request((base ?? cluster.coordinatorUrl) + path, {
    method: method as 'GET',
    body,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  });
  return { status: res.statusCode, text: await res.body.text() };
}

/** Retries `fn` until `ok` (bounded: 40 × 250 ms), for reads while a restarted node settles. */
async function settled<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let v = await fn();
  for (let i = 0; i < 40 && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 250));
    v = await fn();
  }
  return v;
}

/** Asserts that the reply text carries each named document's `_source` exactly as sent. */
function expectExact(what: string, text: string, ids: readonly string[] = IDS): void {
  for (const id of ids) expect(text.includes(`"_source":${DOCS[id]}`), `${what}: ${id} in ${text.slice(0, 600)}`).toBe(true);
}

/** A 200 reply of the coordinator (retried while a node restarts). */
async function ok(method: string, path: string, body?: string): Promise<string> {
  const r = await settled(
    () => raw(method, path, body),
    (x) => x.status === 200 && !x.text.includes('"failed":1') && !x.text.includes('"failed":2'),
  );
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBe(200);
  return r.text;
}

/** GET `_doc`, GET `_source` and `_mget` of every exact document (real-time: no refresh needed). */
async function checkGets(index = INDEX): Promise<void> {
  for (const id of IDS) {
    expectExact(`GET ${index}/_doc/${id}`, await ok('GET', `/${index}/_doc/${id}`), [id]);
    expect(await ok('GET', `/${index}/_source/${id}`)).toBe(DOCS[id]);
  }
  expectExact('_mget', await ok('POST', `/${index}/_mget`, JSON.stringify({ ids: IDS })));
}

/** Every copy of every shard, read through each shard node's internal get: primaries and replicas. */
async function checkEveryCopy(index = INDEX): Promise<void> {
  for (const id of IDS) {
    const copies: string[] = [];
    for (const node of ['shard-0', 'shard-1', 'shard-2']) {
      for (let shard = 0; shard < SHARDS; shard++) {
        const r = await raw('POST', '/_internal/v1/get', JSON.stringify({ index, shard, _id: id }), cluster.urls[node], {
          [CLUSTER_SECRET_HEADER]: CLUSTER_SECRET,
        });
        if (r.status !== 200) continue; // this node holds no copy of that shard
        const body = JSON.parse(r.text) as { found: boolean; _source?: string };
        if (body.found) copies.push(body._source!);
      }
    }
    expect(copies, id).toEqual([DOCS[id], DOCS[id]]);
  }
}

/** `_search` pages (fused, fetch phase, deep), scroll and PIT. */
async function checkSearches(index = INDEX): Promise<void> {
  const ids = JSON.stringify({ ids: { values: IDS } });
  expectExact('search page of 10 (fused fetch)', await ok('POST', `/${index}/_search`, `{"query": ${ids}, "size": 10}`));
  expectExact('search page of 1000 (fetch phase)', await ok('POST', `/${index}/_search`, `{"query": ${ids}, "size": 1000}`));
  if (index === INDEX) {
    const deep = await ok('POST', `/${index}/_search`, `{"from": ${FILLERS}, "size": 10, "sort": [{"_id": "asc"}]}`);
    expectExact('deep page', deep);
  }
  // Scroll: pages of 2 until empty.
  let page = await ok('POST', `/${index}/_search?scroll=1m`, `{"query": ${ids}, "size": 2, "sort": ["_doc"]}`);
  let all = page;
  let scrollId = (JSON.parse(page) as { _scroll_id: string })._scroll_id;
  for (let i = 0; i < 10; i++) {
    page = await ok('POST', '/_search/scroll', JSON.stringify({ scroll: '1m', scroll_id: scrollId }));
    const parsed = JSON.parse(page) as { _scroll_id: string; hits: { hits: unknown[] } };
    if (parsed.hits.hits.length === 0) break;
    scrollId = parsed._scroll_id; // the id carries the walk's position
    all += page;
  }
  expectExact('scroll', all);
  await raw('DELETE', '/_search/scroll', JSON.stringify({ scroll_id: scrollId }));
  // PIT.
  const pit = (JSON.parse(await ok('POST', `/${index}/_pit?keep_alive=1m`)) as { id: string }).id;
  expectExact('pit', await ok('POST', '/_search', `{"query": ${ids}, "size": 10, "pit": {"id": "${pit}", "keep_alive": "1m"}}`));
  await raw('DELETE', '/_pit', JSON.stringify({ id: pit }));
}

beforeAll(async () => {
  cluster = await startComposeCluster({ env: { FOLIO_LOG_LEVEL: 'warn', FOLIO_CLUSTER_SECRET: CLUSTER_SECRET } });
  const created = await raw('PUT', `/${INDEX}`, JSON.stringify({ settings: { number_of_shards: SHARDS, number_of_replicas: 1 } }));
  expect(created.status).toBe(200);
  const fillers = Array.from({ length: FILLERS }, (_, i) => `{"index":{"_id":"f${String(i).padStart(4, '0')}"}}\n{"n":${i}}\n`).join('');
  expect((await raw('POST', `/${INDEX}/_bulk`, fillers)).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('_source byte for byte', () => {
  it('indexes through _doc, _create and _bulk; real-time GET, _source and _mget return the exact text on every copy', async () => {
    const put = await raw('PUT', `/${INDEX}/_doc/x-doc`, `  \n${DOCS['x-doc']}\n `);
    expect(put.status, put.text).toBe(201);
    const create = await raw('PUT', `/${INDEX}/_create/x-create`, DOCS['x-create']);
    expect(create.status, create.text).toBe(201);
    const bulk = [
      `{"index":{"_id":"x-bulk-esc"}}\n${DOCS['x-bulk-esc']}\n`,
      `{"create":{"_id":"x-bulk-keys"}}\n \t${DOCS['x-bulk-keys']}\t \r\n`,
      `{"index":{"_id":"x-bulk-space"}}\n${DOCS['x-bulk-space']}\n`,
    ].join('');
    const b = await raw('POST', `/${INDEX}/_bulk`, bulk);
    expect(b.status).toBe(200);
    expect(JSON.parse(b.text).errors, b.text).toBe(false);
    await checkGets();
    await checkEveryCopy();
  });

  it('after _refresh: searches (fused, fetch phase, deep page), scroll and PIT return the exact text', async () => {
    expect((await raw('POST', `/${INDEX}/_refresh`)).status).toBe(200);
    await checkSearches();
    await checkGets();
    // pretty re-indents but keeps every token; a filter_path that keeps the whole _source keeps it exact.
    expect(await ok('GET', `/${INDEX}/_doc/x-doc?pretty`)).toContain('"big": 72057594037927937,\n    "d": 1.10,');
    expect(await ok('GET', `/${INDEX}/_doc/x-doc?filter_path=_source`)).toBe(`{"_source":${DOCS['x-doc']}}`);
  });

  it('after a SIGKILL restart of a shard node (translog replay) every copy still holds the exact text', async () => {
    cluster.kill('shard-1', 'SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    await cluster.restart('shard-1');
    await settled(
      () => raw('GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=20s`),
      (r) => r.status === 200 && r.text.includes('"green"'),
    );
    await checkEveryCopy();
    await checkGets();
    await checkSearches();
  });

  it('after _flush and a SIGTERM restart (flush snapshot) every copy still holds the exact text', async () => {
    expect((await raw('POST', `/${INDEX}/_flush`)).status).toBe(200);
    cluster.kill('shard-0', 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (!cluster.logs('shard-0').includes('flushed and closed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await cluster.restart('shard-0');
    await settled(
      () => raw('GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=20s`),
      (r) => r.status === 200 && r.text.includes('"green"'),
    );
    await checkEveryCopy();
    await checkGets();
    await checkSearches();
  });

  it('_reindex copies the exact text to the destination', async () => {
    await ok('PUT', `/${COPY}`, JSON.stringify({ settings: { number_of_shards: SHARDS, number_of_replicas: 1 } }));
    const r = await ok('POST', '/_reindex?refresh=true', JSON.stringify({ source: { index: INDEX, query: { ids: { values: IDS } } }, dest: { index: COPY } }));
    expect(JSON.parse(r)).toMatchObject({ created: IDS.length, failures: [] });
    await checkGets(COPY);
    await checkSearches(COPY);
    await checkEveryCopy(COPY);
  });
});

describe('invalid UTF-8 is refused, never replaced', () => {
  const bad = (prefix: string, suffix: string) => Buffer.concat([Buffer.from(prefix), Buffer.from([0xff]), Buffer.from(suffix)]);

  it('_doc and _search bodies: 400 x_content_parse_exception with Jackson’s message', async () => {
    for (const [method, path] of [
      ['PUT', `/${INDEX}/_doc/bad-utf8`],
      ['POST', `/${INDEX}/_search`],
    ] as const) {
      const r = await raw(method, path, bad('{"s": "', '"}'));
      expect(r.status, r.text).toBe(400);
      expect(JSON.parse(r.text).error).toMatchObject({ type: 'x_content_parse_exception', reason: '[1:8] Invalid UTF-8 start byte 0xff' });
    }
    expect((await raw('GET', `/${INDEX}/_doc/bad-utf8`)).status).toBe(404);
  });

  it('_bulk: the item with the bad document fails, the others are indexed', async () => {
    const body = Buffer.concat([Buffer.from('{"index":{"_id":"bad-1"}}\n'), bad('{"s":"', '"}\n'), Buffer.from('{"index":{"_id":"good-1"}}\n{"s":"ok"}\n')]);
    const r = await raw('POST', `/${INDEX}/_bulk`, body);
    expect(r.status, r.text).toBe(200);
    const items = JSON.parse(r.text).items;
    expect(items[0].index).toMatchObject({
      _id: 'bad-1',
      status: 400,
      error: { type: 'document_parsing_exception', reason: '[1:7] failed to parse: Invalid UTF-8 start byte 0xff' },
    });
    expect(items[1].index).toMatchObject({ _id: 'good-1', status: 201 });
    expect((await raw('GET', `/${INDEX}/_source/good-1`)).text).toBe('{"s":"ok"}');
    expect((await raw('GET', `/${INDEX}/_doc/bad-1`)).status).toBe(404);
  });
});
