/**
 * Every request has a bounded cost, end to end (issue 11): the in-flight requests breaker answers
 * ES's 429 `circuit_breaking_exception` past its budget and holds no byte after the requests end or
 * are aborted; `size` is bounded while `index.max_result_window` keeps Folio's default; a body
 * without a Content-Type gets ES's 406; `refresh_interval: 25d` and a search `timeout` of 25 days do
 * not overflow Node's timers; a coordinator caps its connections and drops slow-header clients.
 * Small limits run on a coordinator of this test's own (same shard nodes). Measured figures are
 * printed (`abuse-limits:` lines).
 */
import { connect, type Socket } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sampleValue } from '../support/prom-text.ts';
import { startExtraCoordinator, type ExtraCoordinator } from './extra-coordinator.ts';
import { http } from './http.ts';

const url = inject('coordinatorUrl');
const nodes = inject('nodeUrls');
const clusterSecret = inject('clusterSecret');

/** The own coordinator's in-flight budget: with ES's overhead of 2, 1 MiB of bodies at once. */
const IN_FLIGHT_LIMIT_BYTES = 2 * 1024 * 1024;
const HEADERS_TIMEOUT_MS = 1000;
/** FOLIO_MAX_CONNECTIONS of a second own coordinator (the first keeps the default cap). */
const MAX_CONNECTIONS = 6;
const REFRESH_INDEX = 'abuse-refresh-25d';

let own = '';
let capped = '';
let extra: ExtraCoordinator | undefined;
let extraCapped: ExtraCoordinator | undefined;

beforeAll(async () => {
  [extra, extraCapped] = await Promise.all([
    startExtraCoordinator(
      { nodes, clusterSecret, etcd: inject('etcdUrl') },
      { FOLIO_IN_FLIGHT_REQUESTS_LIMIT_BYTES: String(IN_FLIGHT_LIMIT_BYTES), FOLIO_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS) },
    ),
    startExtraCoordinator({ nodes, clusterSecret, etcd: inject('etcdUrl') }, { FOLIO_MAX_CONNECTIONS: String(MAX_CONNECTIONS) }),
  ]);
  own = extra.url;
  capped = extraCapped.url;
});

afterAll(async () => {
  extra?.stop();
  extraCapped?.stop();
  await http(url, 'DELETE', `/${REFRESH_INDEX}`);
});

/** Prints a measured figure for the report. */
function figure(what: string, value: unknown): void {
  process.stdout.write(`abuse-limits: ${what}: ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
}

/** The breaker gauges of the own coordinator. */
async function breaker(): Promise<{ used: number; limit: number; tripped: number }> {
  const text = (await http<string>(own, 'GET', '/metrics')).body;
  const labels = 'breaker="in_flight_requests"';
  return {
    used: sampleValue(text, 'folio_breaker_estimated_size_bytes', labels) ?? NaN,
    limit: sampleValue(text, 'folio_breaker_limit_size_bytes', labels) ?? NaN,
    tripped: sampleValue(text, 'folio_breaker_tripped_total', labels) ?? NaN,
  };
}

/** Polls until the breaker holds nothing (at most 2 s); the bytes it holds then. */
async function drained(): Promise<number> {
  let used = NaN;
  for (let i = 0; i < 40; i++) {
    used = (await breaker()).used;
    if (used === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return used;
}

/** A `_search` body of exactly `bytes` bytes (the padding sits in a `_source` pattern; size 0). */
function searchBody(bytes: number): string {
  const head = '{"size":0,"query":{"match_all":{}},"_source":"';
  return head + 'x'.repeat(bytes - head.length - 2) + '"}';
}

/** Opens a connection to `base` and sends a POST's headers and `sent` bytes of a `declared`-byte body. */
async function stalledUpload(base: string, declared: number, sent: number): Promise<{ socket: Socket; reply: Promise<string> }> {
  const { port } = new URL(base);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  let received = '';
  const reply = new Promise<string>((resolve) => {
    socket.on('data', (d) => {
      received += d.toString('utf8');
      if (/\r\n\r\n[\s\S]*\}$/.test(received)) resolve(received);
    });
    socket.on('close', () => resolve(received));
  });
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.write(`POST /cities/_search HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`);
  socket.write(searchBody(declared).slice(0, sent));
  return { socket, reply };
}

describe('in-flight requests breaker (network.breaker.inflight_requests.limit)', () => {
  it('exports its limit and holds nothing at rest', async () => {
    expect(await breaker()).toMatchObject({ used: 0, limit: IN_FLIGHT_LIMIT_BYTES });
  });

  it("refuses the bodies that do not fit while others are held, with ES's 429 body, and gets back to 0", async () => {
    const declared = 300 * 1024; // three fit (3 × 300 KiB × 2 ≤ 2 MiB), the fourth does not
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await stalledUpload(own, declared, 1000));
    await new Promise((r) => setTimeout(r, 100));
    expect((await breaker()).used).toBe(3 * declared);
    const started = performance.now();
    const refused = await http(own, 'POST', '/cities/_search', searchBody(declared));
    figure('429 answered while 900 KiB of stalled uploads are held, ms', Math.round(performance.now() - started));
    expect(refused.status).toBe(429);
    const wanted = (3 * declared + declared) * 2;
    expect(refused.body).toEqual({
      error: {
        root_cause: [
          {
            type: 'circuit_breaking_exception',
            reason: `[in_flight_requests] Data too large, data for [<http_request>] would be [${wanted}/2.3mb], which is larger than the limit of [${IN_FLIGHT_LIMIT_BYTES}/2mb]`,
            bytes_wanted: wanted,
            bytes_limit: IN_FLIGHT_LIMIT_BYTES,
            durability: 'TRANSIENT',
          },
        ],
        type: 'circuit_breaking_exception',
        reason: `[in_flight_requests] Data too large, data for [<http_request>] would be [${wanted}/2.3mb], which is larger than the limit of [${IN_FLIGHT_LIMIT_BYTES}/2mb]`,
        bytes_wanted: wanted,
        bytes_limit: IN_FLIGHT_LIMIT_BYTES,
        durability: 'TRANSIENT',
      },
      status: 429,
    });
    // The held uploads complete and answer 200; then nothing is held.
    for (const h of held) h.socket.write(searchBody(declared).slice(1000));
    const replies = await Promise.all(held.map((h) => h.reply));
    expect(replies.map((r) => r.split(' ')[1])).toEqual(['200', '200', '200']);
    for (const h of held) h.socket.destroy();
    expect(await drained()).toBe(0);
  });

  it('12 parallel bodies of 400 KiB against a 1 MiB budget: some 429, the rest 200, no 5xx, back to 0', async () => {
    const before = (await breaker()).tripped;
    const started = performance.now();
    const replies = await Promise.all(Array.from({ length: 12 }, () => http(own, 'POST', '/cities/_search', searchBody(400 * 1024))));
    const statuses = replies.map((r) => r.status);
    figure('12 × 400 KiB in parallel: statuses', statuses.join(','));
    figure('12 × 400 KiB in parallel: wall ms', Math.round(performance.now() - started));
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    for (const r of replies.filter((x) => x.status === 429)) expect(r.body.error.type).toBe('circuit_breaking_exception');
    expect(await drained()).toBe(0);
    expect((await breaker()).tripped - before).toBe(statuses.filter((s) => s === 429).length);
  });

  it('gives back the bytes of uploads aborted mid-body (declared and chunked)', async () => {
    const aborted = [];
    for (let i = 0; i < 3; i++) aborted.push(await stalledUpload(own, 200 * 1024, 50 * 1024));
    const { port } = new URL(own);
    const chunked = connect(Number(port), '127.0.0.1');
    chunked.on('error', () => {});
    await new Promise<void>((r) => chunked.once('connect', () => r()));
    chunked.write('POST /_bulk HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/x-ndjson\r\ntransfer-encoding: chunked\r\n\r\n');
    chunked.write(`${(64 * 1024).toString(16)}\r\n${'{"index":{"_index":"abuse-none"}}\n'.padEnd(64 * 1024, ' ')}\r\n`);
    await new Promise((r) => setTimeout(r, 150));
    const during = (await breaker()).used;
    figure('bytes held by 3 stalled 200 KiB uploads + 64 KiB of a chunked one', during);
    expect(during).toBe(3 * 200 * 1024 + 64 * 1024);
    for (const a of aborted) a.socket.destroy();
    chunked.destroy();
    const started = performance.now();
    expect(await drained()).toBe(0);
    figure('breaker back to 0 after the aborts, ms', Math.round(performance.now() - started));
    expect((await http(own, 'GET', '/')).status).toBe(200);
  });
});

describe('size per response (index.max_result_window at its default)', () => {
  it("answers size=9000000 with 400 and ES's result-window text, limit 10000, within 1 s", async () => {
    const started = performance.now();
    const res = await http(url, 'GET', '/cities/_search?size=9000000');
    const ms = performance.now() - started;
    figure('size=9000000 answered in ms', Math.round(ms));
    expect(ms).toBeLessThan(1000);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('search_phase_execution_exception');
    expect(res.body.error.root_cause[0]).toMatchObject({
      type: 'illegal_argument_exception',
      reason:
        'Result window is too large, from + size must be less than or equal to: [10000] but was [9000000]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.',
    });
  });

  it('keeps deep from cheap and size 10000 allowed; bounds a scroll batch', async () => {
    const deep = await http(url, 'GET', '/cities/_search?from=100000&size=3&sort=population:desc&_source=false');
    expect([deep.status, deep.body.hits.hits.length]).toEqual([200, 3]);
    expect((await http(url, 'GET', '/cities/_search?size=10000&_source=false&filter_path=took')).status).toBe(200);
    const scroll = await http(url, 'POST', '/cities/_search?scroll=1m', { size: 10_001 });
    expect(scroll.status).toBe(400);
    expect(scroll.body.error.root_cause[0].reason).toMatch(/^Batch size is too large, size must be less than or equal to: \[10000\] but was \[10001\]\./);
  });
});

describe('Content-Type', () => {
  it("answers ES's 406 to a body without a Content-Type on every endpoint that takes one", async () => {
    const cases: [string, string, string][] = [
      ['POST', '/cities/_search', '{"size":0}'],
      ['POST', '/cities/_count', '{}'],
      ['POST', '/_mget', '{"docs":[{"_index":"cities","_id":"1"}]}'],
      ['POST', '/_bulk', '{"index":{"_index":"abuse-none"}}\n{"a":1}\n'],
      ['PUT', '/abuse-none/_doc/1', '{"a":1}'],
      ['PUT', '/abuse-none', '{}'],
      ['POST', '/_search/scroll', '{"scroll_id":"x"}'],
      ['DELETE', '/_pit', '{"id":"x"}'],
      ['POST', '/_reindex', '{"source":{"index":"cities"},"dest":{"index":"abuse-none"}}'],
    ];
    for (const [method, path, body] of cases) {
      const res = await request(url + path, { method: method as 'POST', body: Buffer.from(body) });
      const text = await res.body.text();
      expect([method, path, res.statusCode, JSON.parse(text)]).toEqual([method, path, 406, { error: 'Content-Type header is missing', status: 406 }]);
    }
    expect((await http(url, 'HEAD', '/abuse-none')).status).toBe(404);
  });
});

describe('timers longer than 2^31 - 1 ms', () => {
  it('refresh_interval: 25d does not refresh every millisecond (a pending write stays unsearchable for 2 s)', async () => {
    const created = await http(url, 'PUT', `/${REFRESH_INDEX}`, { settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '25d' } });
    expect(created.status).toBe(200);
    expect((await http(url, 'PUT', `/${REFRESH_INDEX}/_doc/1`, { n: 1 })).status).toBe(201);
    const refreshes = async (): Promise<number> => {
      let n = 0;
      for (const node of nodes)
        n += sampleValue((await http<string>(node, 'GET', '/metrics')).body, 'folio_refresh_duration_seconds_count', `index="${REFRESH_INDEX}"`) ?? 0;
      return n;
    };
    const before = await refreshes();
    await new Promise((r) => setTimeout(r, 2000));
    const after = await refreshes();
    figure('refreshes of a 25d index over 2 s with a pending write', after - before);
    expect(after - before).toBe(0);
    expect((await http(url, 'GET', `/${REFRESH_INDEX}/_count`)).body.count).toBe(0);
    expect((await http(url, 'POST', `/${REFRESH_INDEX}/_refresh`)).status).toBe(200);
    expect((await http(url, 'GET', `/${REFRESH_INDEX}/_count`)).body.count).toBe(1);
  }, 15_000);

  it('a search timeout of 25 days does not time out at once', async () => {
    const res = await http(url, 'GET', '/cities/_search?timeout=25d&size=1&_source=false');
    expect([res.status, res.body.timed_out, res.body._shards.failed]).toEqual([200, false, 0]);
    expect(res.body.hits.hits).toHaveLength(1);
  });
});

describe('connections and slow clients', () => {
  it(`caps open connections at FOLIO_MAX_CONNECTIONS (${MAX_CONNECTIONS}) and serves again once they close`, async () => {
    const { port } = new URL(capped);
    const sockets: { socket: Socket; closedAfterMs: number | null }[] = [];
    for (let i = 0; i < MAX_CONNECTIONS + 3; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      const entry = { socket, closedAfterMs: null as number | null };
      const started = performance.now();
      socket.on('error', () => {});
      socket.on('close', () => (entry.closedAfterMs = performance.now() - started));
      await new Promise<void>((r) => socket.once('connect', () => r()));
      sockets.push(entry);
    }
    await new Promise((r) => setTimeout(r, 300));
    const alive = sockets.filter((s) => s.closedAfterMs === null).length;
    const dropped = sockets.filter((s) => s.closedAfterMs !== null);
    figure(`connections accepted of ${MAX_CONNECTIONS + 3} (cap ${MAX_CONNECTIONS}, the test client may hold one)`, alive);
    figure(
      'over-cap connections closed after ms',
      dropped.map((s) => Math.round(s.closedAfterMs!)),
    );
    expect(alive).toBeLessThanOrEqual(MAX_CONNECTIONS);
    expect(alive).toBeGreaterThanOrEqual(MAX_CONNECTIONS - 1);
    expect(dropped.length).toBeGreaterThanOrEqual(3);
    for (const s of sockets) s.socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect((await http(capped, 'GET', '/')).status).toBe(200);
  });

  it('drops a client that sends its headers too slowly within the headers timeout, with 408', async () => {
    const { port } = new URL(own);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    let received = '';
    socket.on('data', (d) => (received += d.toString('latin1')));
    const started = Date.now();
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write('GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    let open = true;
    void closed.then(() => (open = false));
    for (let i = 0; i < 30 && open; i++) {
      await new Promise((r) => setTimeout(r, 200));
      if (open && !socket.destroyed) socket.write(`x-slow-${i}: ${i}\r\n`);
    }
    const elapsedMs = await Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(Infinity), 1000))]);
    socket.destroy();
    figure('slow-header client dropped after ms (headers timeout 1000)', elapsedMs);
    expect(elapsedMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
    expect(elapsedMs).toBeLessThan(HEADERS_TIMEOUT_MS * 3);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
  }, 15_000);
});
