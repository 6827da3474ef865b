// The search rounds answered on node:http (rpc-fast-path.ts) must answer exactly as the hono routes
// they bypass: same status, content type and bytes, the same cluster-secret, body-limit and
// malformed-body errors, and the same HTTP metrics. Each case is sent to a real server and, for
// comparison, to the hono app of the same node in process.
import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc } from '../protocol/rpc.ts';
import { CLUSTER_SECRET_HEADER } from '../shared/cluster-secret.ts';
import { createLogger } from '../shared/logger.ts';
import { createShardNode } from './app.ts';
import { loadShardNodeConfig } from './config.ts';
import { IndexRegistry } from './index-registry.ts';

const SECRET = 'fast-path-secret';
const config = loadShardNodeConfig({ FOLIO_NODE_ID: 'n0', FOLIO_LOG_LEVEL: 'silent', FOLIO_CLUSTER_SECRET: SECRET, FOLIO_MAX_BODY_BYTES: '4096' });
const node = createShardNode(config, new IndexRegistry('n0'), createLogger('shard-node', 'silent', {}));
let server: Server;
let base = '';
/** URLs of the requests that reached hono's listener on the server. */
const reachedHono: string[] = [];

beforeAll(async () => {
  const hono = getRequestListener(node.app.fetch);
  server = createServer(
    node.listener((req, res) => {
      reachedHono.push(req.url ?? '');
      void hono(req, res);
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** One call's answer: status, content type, body bytes. */
interface Answer {
  status: number;
  type: string | null;
  body: string;
}

async function read(res: Response): Promise<Answer> {
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()).toString('latin1') };
}

/** `init` sent over the server (the fast path) and to the hono app in process. */
async function both(path: string, init: RequestInit): Promise<{ fast: Answer; hono: Answer }> {
  const fast = await read(await fetch(base + path, init));
  const hono = await read(await node.app.request(path, init));
  return { fast, hono };
}

const withSecret = { 'content-type': 'application/json', [CLUSTER_SECRET_HEADER]: SECRET };

describe('the search rounds on node:http', () => {
  it('answer a batch of every batchable action, and a single query call, with the bytes hono answers', async () => {
    const calls = [rpc.query, rpc.fetch, rpc.dfs, rpc.aggs, rpc.selectSample, rpc.selectRange].map((d) => ({
      path: d.endpoint,
      body: { index: 'missing', shard: 0 },
    }));
    const batch = await both(rpc.batch.path, { method: 'POST', headers: withSecret, body: JSON.stringify({ calls }) });
    expect(batch.fast.status).toBe(200);
    expect(batch.fast).toEqual(batch.hono);
    const single = await both(rpc.query.path, { method: 'POST', headers: withSecret, body: JSON.stringify({ index: 'missing', shard: 0 }) });
    expect(single.fast.status).toBe(404);
    expect(JSON.parse(single.fast.body)).toMatchObject({ error: { type: 'index_not_found_exception' }, status: 404 });
    expect(single.fast.body).toBe(single.hono.body);
  });

  it('refuse a call without the cluster secret, a body over the limit and malformed JSON as hono does', async () => {
    const cases: [number, RequestInit][] = [
      [401, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }],
      [401, { method: 'POST', headers: { 'content-type': 'application/json', [CLUSTER_SECRET_HEADER]: 'wrong' }, body: '{}' }],
      [413, { method: 'POST', headers: withSecret, body: JSON.stringify({ calls: [], pad: 'x'.repeat(5000) }) }],
      [400, { method: 'POST', headers: withSecret, body: '{"calls": [' }],
    ];
    for (const [status, init] of cases) {
      const { fast, hono } = await both(rpc.batch.path, init);
      expect(fast.status).toBe(status);
      expect({ status: fast.status, body: JSON.parse(fast.body) as unknown }).toEqual({ status: hono.status, body: JSON.parse(hono.body) as unknown });
    }
  });

  it('leave every other route to hono, and count their calls in the HTTP metrics', async () => {
    const health = await fetch(`${base}/_internal/v1/health`);
    expect(health.status).toBe(200);
    const before = await (await fetch(`${base}/metrics`)).text();
    const sent = await fetch(base + rpc.batch.path, { method: 'POST', headers: withSecret, body: JSON.stringify({ calls: [] }) });
    expect(sent.status).toBe(200);
    const after = await (await fetch(`${base}/metrics`)).text();
    const count = (text: string): number => {
      const line = text
        .split('\n')
        .find((l) => l.startsWith('folio_shard_http_requests_total{') && l.includes('route="/_internal/v1/batch"') && l.includes('status_class="2xx"'));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    expect(count(after) - count(before)).toBe(1);
    expect(reachedHono.filter((url) => url.startsWith('/_internal/v1/health') || url === '/metrics').length).toBe(3);
    expect(reachedHono.filter((url) => url === rpc.batch.path || url === rpc.query.path)).toEqual([]);
  });
});
