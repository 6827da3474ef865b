/**
 * The cluster secret and the request limits, end to end: shard nodes answer 401 to internal calls
 * without FOLIO_CLUSTER_SECRET; a coordinator of this test's own (small `http.max_content_length`
 * and headers timeout, same shard nodes) answers ES's 413 just over the limit and drops a client
 * that sends its headers too slowly; the query limits answer ES's exact errors.
 */
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_SECRET_HEADER } from '../../shared/cluster-secret.ts';
import { startExtraCoordinator, type ExtraCoordinator } from './extra-coordinator.ts';
import { http } from './http.ts';
import { request } from 'undici';

const url = inject('coordinatorUrl');
const nodes = inject('nodeUrls');
const clusterSecret = inject('clusterSecret');
/** The own coordinator's `http.max_content_length` and headers timeout. */
const MAX_BYTES = 2048;
const HEADERS_TIMEOUT_MS = 1500;
let own = '';
let extra: ExtraCoordinator | undefined;

beforeAll(async () => {
  extra = await startExtraCoordinator(
    { nodes, clusterSecret, etcd: inject('etcdUrl') },
    {
      FOLIO_MAX_CONTENT_LENGTH_BYTES: String(MAX_BYTES),
      FOLIO_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    },
  );
  own = extra.url;
});

afterAll(() => extra?.stop());

/** A raw internal call with an optional secret header. */
async function internal(base: string, method: 'GET' | 'POST', path: string, secret?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret !== undefined) headers[CLUSTER_SECRET_HEADER] = secret;
  const res = await request(base + path, { method, headers, body: method === 'POST' ? JSON.stringify({ index: 'cities', shards: [0] }) : undefined });
  const text = await res.body.text();
  return { status: res.statusCode, body: text === '' ? undefined : JSON.parse(text) };
}

describe('the cluster secret on the shard nodes', () => {
  it('answers 401 security_exception to internal calls without it or with a wrong one', async () => {
    for (const node of nodes) {
      for (const [method, path] of [
        ['GET', '/_internal/v1/stats'],
        ['GET', '/_internal/v1/indices'],
        ['POST', '/_internal/v1/refresh'],
      ] as const) {
        for (const secret of [undefined, 'wrong', clusterSecret + 'x']) {
          const res = await internal(node, method, path, secret);
          expect([node, path, res.status, res.body?.error?.type, res.body?.status]).toEqual([node, path, 401, 'security_exception', 401]);
          expect(res.body.node).toBeUndefined();
        }
      }
    }
  });

  it('serves internal calls with it, and the probes without it', async () => {
    for (const node of nodes) {
      expect((await internal(node, 'GET', '/_internal/v1/stats', clusterSecret)).status).toBe(200);
      for (const path of ['/_internal/v1/health', '/livez', '/readyz']) expect([path, (await internal(node, 'GET', path)).status]).toEqual([path, 200]);
    }
  });
});

describe('http.max_content_length', () => {
  const bodyOf = (bytes: number): string => {
    const head = '{"query":{"match_all":{}},"_source":"';
    return head + 'x'.repeat(bytes - head.length - 2) + '"}';
  };

  it('accepts a body at the limit and answers 413 content_too_long_exception one byte over', async () => {
    expect(Buffer.byteLength(bodyOf(MAX_BYTES))).toBe(MAX_BYTES);
    const at = await http(own, 'POST', '/cities/_search?size=0', bodyOf(MAX_BYTES));
    expect(at.status).toBe(200);
    const over = await http(own, 'POST', '/cities/_search?size=0', bodyOf(MAX_BYTES + 1));
    expect(over.status).toBe(413);
    expect(over.body.error.type).toBe('content_too_long_exception');
    expect(over.body.error.reason).toBe(`entity content is too long [${MAX_BYTES + 1}] for the configured buffer limit [${MAX_BYTES}]`);
    expect(over.body.status).toBe(413);
  });

  it('answers 413 to an over-long _bulk, sent chunked (no content-length) too', async () => {
    const ndjson = Array.from({ length: 40 }, (_, i) => `{"index":{"_index":"limit-scratch","_id":"${i}"}}\n{"v":${i},"pad":"${'p'.repeat(40)}"}\n`).join('');
    expect(ndjson.length).toBeGreaterThan(MAX_BYTES);
    const plain = await http(own, 'POST', '/_bulk', ndjson, 'application/x-ndjson');
    expect([plain.status, plain.body.error?.type]).toEqual([413, 'content_too_long_exception']);
    const chunked = await request(`${own}/_bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: Readable.from(Array.from({ length: 4 }, (_, i) => ndjson.slice((i * ndjson.length) / 4, ((i + 1) * ndjson.length) / 4))),
    });
    const body = JSON.parse(await chunked.body.text());
    expect([chunked.statusCode, body.error?.type]).toEqual([413, 'content_too_long_exception']);
    expect((await http(url, 'HEAD', '/limit-scratch')).status).toBe(404);
  });

  it('stops reading a chunked body at the limit: 8 MiB sent to a 2 KiB limit answer 413', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const res = await request(`${own}/cities/_search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Readable.from(Array.from({ length: 128 }, () => chunk)),
    });
    const body = JSON.parse(await res.body.text());
    expect([res.statusCode, body.error?.type]).toEqual([413, 'content_too_long_exception']);
    expect((await http(own, 'GET', '/')).status).toBe(200);
  });
});

describe('query limits', () => {
  it('indices.query.bool.max_clause_count: 4097 clauses in one bool answer too_many_clauses', async () => {
    const should = Array.from({ length: 4097 }, (_, i) => ({ term: { country: `c${i}` } }));
    const res = await http(url, 'POST', '/cities/_search', { query: { bool: { should } } });
    expect(res.status).toBe(400);
    expect(res.body.error.root_cause[0]).toMatchObject({ type: 'too_many_clauses', reason: 'maxClauseCount is set to 4096' });
    const ok = await http(url, 'POST', '/cities/_search?size=0', { query: { bool: { should: should.slice(0, 4096) } } });
    expect(ok.status).toBe(200);
  });

  it('indices.query.bool.max_clause_count: 4097 leaves across nested bools answer too_many_nested_clauses', async () => {
    const part = (n: number, o: number) => ({ bool: { should: Array.from({ length: n }, (_, i) => ({ term: { country: `c${o + i}` } })) } });
    const res = await http(url, 'POST', '/cities/_search', { query: { bool: { should: [part(2000, 0), part(2000, 2000), part(97, 4000)] } } });
    expect(res.status).toBe(400);
    expect(res.body.error.root_cause[0]).toMatchObject({
      type: 'too_many_nested_clauses',
      reason: 'Query contains too many nested clauses; maxClauseCount is set to 4096',
    });
  });

  it('indices.query.bool.max_nested_depth: 30 nested queries pass, 31 answer the ES error', async () => {
    const nest = (depth: number): unknown => (depth === 1 ? { match_all: {} } : { bool: { must: [nest(depth - 1)] } });
    expect((await http(url, 'POST', '/cities/_search?size=0', { query: nest(30) })).status).toBe(200);
    const res = await http(url, 'POST', '/cities/_search', { query: nest(31) });
    expect(res.status).toBe(400);
    // As ES's ObjectParser: each enclosing bool wraps the inner error in `failed to parse field [must]`.
    expect(res.body.error.root_cause[0]).toMatchObject({ type: 'x_content_parse_exception', reason: '[1:1] [bool] failed to parse field [must]' });
    let cause = res.body.error;
    for (let i = 0; i < 40 && cause.caused_by; i++) cause = cause.caused_by;
    expect(cause).toMatchObject({
      type: 'illegal_argument_exception',
      reason: 'The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.bool.max_nested_depth]',
    });
  });
});

describe('slow clients (slowloris)', () => {
  it('drops a client that sends its headers too slowly, within the headers timeout', async () => {
    const { port } = new URL(own);
    const socket = connect(Number(port), '127.0.0.1');
    const started = Date.now();
    let received = '';
    socket.on('data', (d) => (received += d.toString('latin1')));
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // One header line every 300 ms, never the blank line that ends the headers; at most 15 s.
    let open = true;
    void closed.then(() => (open = false));
    for (let i = 0; i < 50 && open; i++) {
      await new Promise((r) => setTimeout(r, 300));
      if (open && !socket.destroyed) socket.write(`X-Slow-${i}: ${i}\r\n`);
    }
    const elapsedMs = await Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(Infinity), 1_000))]);
    socket.destroy();
    expect(elapsedMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
    expect(elapsedMs).toBeLessThan(HEADERS_TIMEOUT_MS * 3);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
  }, 20_000);
});
