/**
 * The abuse suite (issue 11): each hostile request found by probing Folio as an attacker would,
 * sent to the running e2e cluster. For every case three things are asserted:
 *  1. the answer is a 4xx with an Elasticsearch-shaped error, or the correct answer, within the
 *     case's time budget (1 s unless the case says otherwise);
 *  2. every service's `/livez` answers within {@link LIVEZ_TARGET_MS} while the case runs (a probe
 *     loop runs beside the attack);
 *  3. the resident set of the coordinator and of each shard node grows by less than the case's
 *     bound (`folio_process_resident_memory_bytes` before and after, once the allocator has had
 *     its decay time to return what the case freed).
 * The measured time, worst probe and RSS growth of each case are printed, and docs/reliability.md
 * keeps the table. Functional details of each limit are tested in the abuse-*.test.ts files.
 */
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_SECRET_HEADER } from '../../shared/cluster-secret.ts';
import { sampleValue } from '../support/prom-text.ts';
import { startExtraCoordinator } from './extra-coordinator.ts';
import { http, type Reply } from './http.ts';

const url = inject('coordinatorUrl');
const nodes = inject('nodeUrls');
const clusterSecret = inject('clusterSecret');
const services = [url, ...nodes];
/** Each service's name in the printed table and in failure messages. */
const serviceNames = new Map(services.map((s, i) => [s, i === 0 ? 'coordinator' : `shard-${i - 1}`]));

/** Every `/livez` answer while a case runs must come within this. */
const LIVEZ_TARGET_MS = 100;
/** How often the probe loop asks each service's `/livez`. */
const PROBE_EVERY_MS = 20;
/**
 * How long a case's memory may take to go back to the OS before its RSS is read: the services
 * preload jemalloc, which returns freed pages over `dirty_decay_ms` (1 s, the Dockerfile's
 * `MALLOC_CONF`), so a read at once counts memory the case already freed (the 100,000-delete case
 * read 154 MiB of coordinator growth at once, in one run of 2).
 * @see https://jemalloc.net/jemalloc.3.html#opt.dirty_decay_ms
 */
const ALLOCATOR_DECAY_WAIT_MS = 1_500;
/** Default RSS growth bound per service and case. */
const DEFAULT_RSS_BOUND_BYTES = 64 * 1024 * 1024;
const MiB = 1024 * 1024;
const SCRATCH = 'abuse-scratch';

/** One row of the printed table. */
interface Measured {
  name: string;
  ms: number;
  worstLivezMs: number;
  slowest: string;
  /** Each service's worst `/livez` in ms, as text. */
  byService: string;
  /** The first run's worst `/livez` when the case was run twice (see {@link underAbuse}). */
  firstLivezMs?: number;
  rssGrowthMiB: number;
  /** Each service's RSS growth in MiB, as text. */
  rssByService: string;
}
const table: Measured[] = [];

async function rssOf(service: string): Promise<number> {
  const res = await request(service + '/metrics', { headers: { [CLUSTER_SECRET_HEADER]: clusterSecret } });
  const text = await res.body.text();
  const rss = sampleValue(text, 'folio_process_resident_memory_bytes');
  if (rss === undefined) throw new Error(`no folio_process_resident_memory_bytes at ${service}/metrics (status ${res.statusCode})`);
  return rss;
}

/**
 * The probe loop, run in a worker thread so that the test's own work (building a 5 MB body,
 * parsing a 2 MB reply) cannot delay it and inflate the latencies it measures. It asks each
 * service's `/livez` every {@link PROBE_EVERY_MS} until told to stop, then posts the worst latency.
 */
const PROBE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { services, everyMs } = workerData;
let running = true;
let worst = { ms: 0, service: '' };
const worstBy = {};
let failure;
const agent = new http.Agent({ keepAlive: true });
function probe(service) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(service + '/livez', { agent, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(service + '/livez answered ' + res.statusCode))));
    });
    req.on('timeout', () => req.destroy(new Error(service + '/livez took over 5 s')));
    req.on('error', reject);
  });
}
const loops = services.map(async (service) => {
  while (running) {
    try {
      const ms = await probe(service);
      if (ms > worst.ms) worst = { ms, service };
      if (!(ms <= worstBy[service])) worstBy[service] = ms;
    } catch (err) {
      failure = failure ?? err.message;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
});
parentPort.on('message', async () => {
  running = false;
  await Promise.all(loops);
  agent.destroy();
  parentPort.postMessage({ worst, worstBy, failure });
});
parentPort.postMessage('started');
`;

/** Starts the `/livez` probe worker; `stop()` resolves the worst latency, which service had it, and each service's worst. */
async function startLivezProbe(probed: readonly string[]): Promise<{ stop(): Promise<{ worstMs: number; service: string; byService: string }> }> {
  const worker = new Worker(PROBE_WORKER, { eval: true, workerData: { services: probed, everyMs: PROBE_EVERY_MS } });
  await once(worker, 'message'); // 'started'
  return {
    async stop() {
      worker.postMessage('stop');
      const [{ worst, worstBy, failure }] = (await once(worker, 'message')) as [
        { worst: { ms: number; service: string }; worstBy: Record<string, number>; failure?: string },
      ];
      await worker.terminate();
      if (failure !== undefined) throw new Error(`a /livez failed while the case ran: ${failure}`);
      const byService = Object.entries(worstBy)
        .map(([s, ms]) => `${serviceNames.get(s) ?? s} ${Math.round(ms)}`)
        .join(', ');
      return { worstMs: worst.ms, service: serviceNames.get(worst.service) ?? worst.service, byService };
    },
  };
}

/** Asserts an Elasticsearch-shaped 4xx error body: `{error: {type, reason, root_cause}, status}` or ES's simple `{error: string, status}`. */
function expectEsError(reply: Reply, status: number, type?: string): void {
  expect([reply.status, reply.body?.status]).toEqual([status, status]);
  if (type !== undefined) expect(reply.body?.error?.type).toBe(type);
  else expect(reply.body?.error).toBeDefined();
}

/**
 * What a case allows: `budgetMs` for the answer (1 s by default), `rssBoundBytes` of RSS growth per
 * service, and `extraServices` to probe beside the e2e cluster (a coordinator started for the case).
 */
interface AbuseBounds {
  budgetMs?: number;
  rssBoundBytes?: number;
  extraServices?: readonly string[];
}

/** One run of a case: its time, its worst `/livez` and each service's RSS growth. */
interface Attempt {
  ms: number;
  worstLivezMs: number;
  slowest: string;
  byService: string;
  growth: number[];
}

/** Runs `attack` once with the probe loop beside it and the RSS read before and after. @throws what `attack` throws */
async function attempt(attack: () => Promise<void>, probed: readonly string[]): Promise<Attempt> {
  const before = await Promise.all(probed.map(rssOf));
  const probe = await startLivezProbe(probed);
  const t0 = performance.now();
  let attackError: Error | undefined;
  try {
    await attack();
  } catch (err) {
    attackError = err instanceof Error ? err : new Error(String(err));
  }
  const ms = performance.now() - t0;
  const { worstMs: worstLivezMs, service: slowest, byService } = await probe.stop();
  if (attackError !== undefined) throw attackError;
  await new Promise((r) => setTimeout(r, ALLOCATOR_DECAY_WAIT_MS));
  const after = await Promise.all(probed.map(rssOf));
  return { ms, worstLivezMs, slowest, byService, growth: after.map((a, i) => a - before[i]) };
}

/**
 * Runs one abuse case with the three assertions; `attack` sends the request(s) and asserts the
 * answer. A case whose only miss is a `/livez` past {@link LIVEZ_TARGET_MS} is run once more and
 * the second run is asserted: a stall of Folio's own work (an unbounded parse, a quadratic match)
 * repeats and fails both, while two cores shared by five processes and their collectors put one
 * probe in a few hundred past the target now and then (docs/reliability.md). Cases are
 * idempotent, so the second run measures the same work.
 */
async function underAbuse(name: string, attack: () => Promise<void>, opts: AbuseBounds = {}): Promise<void> {
  const budgetMs = opts.budgetMs ?? 1_000;
  const rssBound = opts.rssBoundBytes ?? DEFAULT_RSS_BOUND_BYTES;
  const probed = [...services, ...(opts.extraServices ?? [])];
  const first = await attempt(attack, probed);
  const rerun = first.worstLivezMs >= LIVEZ_TARGET_MS && first.ms < budgetMs;
  const run = rerun ? await attempt(attack, probed) : first;
  table.push({
    name,
    ms: Math.round(run.ms),
    worstLivezMs: Math.round(run.worstLivezMs),
    slowest: run.slowest,
    byService: run.byService,
    firstLivezMs: rerun ? Math.round(first.worstLivezMs) : undefined,
    rssGrowthMiB: Math.round((Math.max(...run.growth) / MiB) * 10) / 10,
    rssByService: run.growth.map((g, i) => `${serviceNames.get(probed[i]) ?? probed[i]} ${(g / MiB).toFixed(1)}`).join(', '),
  });
  expect(run.ms, `${name}: took ${run.ms.toFixed(0)} ms (budget ${budgetMs} ms)`).toBeLessThan(budgetMs);
  const rerunNote = rerun ? ` (second run; the first's worst was ${first.worstLivezMs.toFixed(0)} ms)` : '';
  expect(run.worstLivezMs, `${name}: a /livez of ${run.slowest} took ${run.worstLivezMs.toFixed(0)} ms${rerunNote}`).toBeLessThan(LIVEZ_TARGET_MS);
  for (const [i, g] of run.growth.entries())
    expect(g, `${name}: RSS of ${serviceNames.get(probed[i]) ?? probed[i]} grew by ${(g / MiB).toFixed(1)} MiB`).toBeLessThan(rssBound);
}

/** A streamed body of `bytes` bytes of JSON-ish filler (generated as it is sent, so the test holds little of it). */
function streamedBody(bytes: number): Readable {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= bytes) return this.push(null);
      const n = Math.min(chunk.length, bytes - sent);
      sent += n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
}

beforeAll(async () => {
  await http(url, 'DELETE', `/${SCRATCH}`);
  const created = await http(url, 'PUT', `/${SCRATCH}`, { settings: { number_of_shards: 2, number_of_replicas: 0 } });
  expect(created.status).toBe(200);
  const a80 = 'a'.repeat(80);
  const bulk =
    [
      JSON.stringify({ index: { _id: '1' } }),
      JSON.stringify({ [a80]: 1, name: a80 }),
      JSON.stringify({ index: { _id: '2' } }),
      JSON.stringify({ constructor: 'c', toString: 5, valueOf: 'v', hasOwnProperty: 'h' }),
    ].join('\n') + '\n';
  const loaded = await http(url, 'POST', `/${SCRATCH}/_bulk?refresh=true`, bulk, 'application/x-ndjson');
  expect(loaded.body.errors).toBe(false);
  // Earlier test files leave writes and refreshes behind; settle them so each case measures itself.
  expect((await http(url, 'POST', '/_refresh')).status).toBe(200);
  for (let i = 0; i < 5; i++) expect((await http(url, 'GET', '/cities/_search')).status).toBe(200);
});

afterAll(async () => {
  await http(url, 'DELETE', `/${SCRATCH}`);
  process.stdout.write(
    'abuse suite (case | ms | worst /livez ms (service) | max RSS growth MiB):\n' +
      table
        .map(
          (r) =>
            `  ${r.name} | ${r.ms} | ${r.worstLivezMs} (${r.slowest}; ${r.byService})${r.firstLivezMs !== undefined ? ` [second run; the first's worst /livez: ${r.firstLivezMs} ms]` : ''} | ${r.rssGrowthMiB} (${r.rssByService})`,
        )
        .join('\n') +
      '\n',
  );
});

describe('hostile requests get a bounded answer and the cluster stays up', () => {
  it('filter_path with 120 `**` segments (the curl that took the coordinator down)', async () => {
    const filterPath = Array(120).fill('**').join('.') + '.x';
    await underAbuse('filter_path 120 ** segments', async () => {
      const res = await http(url, 'GET', `/cities/_search?filter_path=${filterPath}`);
      if (res.status === 200) expect(res.body).toEqual({});
      else expectEsError(res, 400);
    });
  });

  it('filter_path with 2,000 `**` and `*` segments and many paths', async () => {
    const one = Array(2000)
      .fill('*')
      .map((s, i) => (i % 2 ? '**' : s))
      .join('.');
    const many = Array(500).fill('**.a*b*c*d*e*f').join(',');
    await underAbuse('filter_path 2,000 segments / 500 paths', async () => {
      for (const fp of [one, many]) {
        const res = await http(url, 'GET', `/cities/_search?size=100&filter_path=${encodeURIComponent(fp)}`);
        expect([200, 400]).toContain(res.status);
        if (res.status === 400) expectEsError(res, 400);
      }
    });
  });

  it('a malformed percent escape in filter_path', async () => {
    await underAbuse('filter_path=%', async () => {
      const res = await http(url, 'GET', '/cities/_search?filter_path=%');
      expectEsError(res, 400);
    });
  });

  it('an unknown query name of 1 MB (no quadratic "did you mean")', async () => {
    const name = 'q'.repeat(1024 * 1024);
    await underAbuse('unknown query name 1 MB', async () => {
      const res = await http(url, 'POST', '/cities/_search', `{"query":{"${name}":{}}}`);
      expectEsError(res, 400);
      // ES echoes the unknown name in its reason (and root cause): the reply is linear in the request.
      expect(JSON.stringify(res.body).length).toBeLessThan(3 * name.length);
    });
  });

  it('an unknown body key and an unknown parameter of 1 MB', async () => {
    const name = 'k'.repeat(1024 * 1024);
    await underAbuse('unknown body key / URL parameter 1 MB', async () => {
      const body = await http(url, 'POST', '/cities/_search', `{"${name}":1}`);
      expectEsError(body, 400);
      const param = await http(url, 'GET', `/cities/_search?${'p'.repeat(64 * 1024)}=1`);
      expect(param.status).toBeGreaterThanOrEqual(400);
      expect(param.status).toBeLessThan(500);
    });
  });

  it('backtracking patterns: index expression, _source includes, filter_path', async () => {
    const evil = '*a*a*a*a*a*a*a*a*a*b';
    await underAbuse('wildcard backtracking patterns', async () => {
      const idx = await http(url, 'GET', `/${encodeURIComponent(SCRATCH + ',' + evil)}/_search?ignore_unavailable=true`);
      expect(idx.status).toBe(200);
      const src = await http(url, 'POST', `/${SCRATCH}/_search`, { _source: { includes: [evil], excludes: [evil + '*'] } });
      expect(src.status).toBe(200);
      expect(src.body.hits.total.value).toBe(2);
      const fp = await http(url, 'GET', `/${SCRATCH}/_search?filter_path=hits.hits._source.${encodeURIComponent(evil)}`);
      expect(fp.status).toBe(200);
    });
  });

  it('size=9000000 is refused before any fan-out', async () => {
    await underAbuse('size=9000000', async () => {
      const res = await http(url, 'GET', '/cities/_search?size=9000000');
      // ES checks the window per shard: a search_phase_execution_exception whose root cause is the illegal argument.
      expectEsError(res, 400, 'search_phase_execution_exception');
      expect(res.body.error.root_cause[0].type).toBe('illegal_argument_exception');
      expect(res.body.error.root_cause[0].reason).toMatch(
        /^Result window is too large, from \+ size must be less than or equal to: \[10000\] but was \[9000000\]/,
      );
    });
  });

  it('a deep page stays cheap (from=130000, size=10)', async () => {
    await underAbuse('from=130000 (deep page, allowed)', async () => {
      const res = await http(url, 'GET', '/cities/_search?from=130000&size=10&sort=population:desc');
      expect(res.status).toBe(200);
      expect(res.body.hits.hits).toHaveLength(10);
    });
  });

  it('twelve 4 MiB bodies at once against a 24 MiB in-flight budget: 429s, nothing buffered past it', async () => {
    // Its own coordinator with a small `network.breaker.inflight_requests.limit`, so that 12 parallel
    // bodies exceed it (the default, an eighth of the heap, needs hundreds of MiB in flight).
    const limitBytes = 24 * MiB;
    const own = await startExtraCoordinator({ nodes, clusterSecret, etcd: inject('etcdUrl') }, { FOLIO_IN_FLIGHT_REQUESTS_LIMIT_BYTES: String(limitBytes) });
    serviceNames.set(own.url, 'coordinator (24 MiB breaker)');
    try {
      // Warm the new process (first requests compile the search path) so the probe measures the case.
      for (let i = 0; i < 20; i++) expect((await http(own.url, 'POST', '/cities/_search', { size: 1 })).status).toBe(200);
      await underAbuse(
        '12 × 4 MiB bodies, 24 MiB in-flight budget',
        async () => {
          const sends = Array.from({ length: 12 }, () =>
            request(own.url + '/cities/_search', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: streamedBody(4 * MiB),
              headersTimeout: 60_000,
              bodyTimeout: 60_000,
            }).then(
              async (res) => ({ status: res.statusCode, body: (await res.body.text()).slice(0, 2_000) }),
              (err: Error) => ({ status: 0, body: err.message }),
            ),
          );
          const replies = await Promise.all(sends);
          // A body of blanks is an empty body (a match_all search, 200) when the breaker lets it in;
          // with ES's overhead of 2 each body counts 8 MiB, so at most 3 are in at once.
          for (const r of replies) expect([0, 200, 429]).toContain(r.status);
          const refused = replies.filter((r) => r.status === 429);
          expect(refused.length).toBeGreaterThan(0);
          for (const r of refused) expect(JSON.parse(r.body).error.type).toBe('circuit_breaking_exception');
        },
        {
          budgetMs: 10_000,
          rssBoundBytes: 128 * MiB,
          extraServices: [own.url],
        },
      );
    } finally {
      own.stop();
    }
  });

  it('large terms and ids lists do not fill the caches', async () => {
    await underAbuse(
      '40 searches with 60,000-term lists',
      async () => {
        for (let i = 0; i < 40; i++) {
          const values = Array.from({ length: 60_000 }, (_, j) => `v${i}-${j}`);
          const res = await http(url, 'POST', '/cities/_search', {
            query: { bool: { should: [{ terms: { country: values } }, { ids: { values: values.slice(0, 10_000) } }] } },
          });
          expect(res.status).toBe(200);
        }
      },
      {
        budgetMs: 60_000,
        rssBoundBytes: 256 * MiB,
      },
    );
  });

  it('DELETE /_all and DELETE /* are refused and delete nothing', async () => {
    await underAbuse('DELETE /_all, /*', async () => {
      for (const path of ['/_all', '/*', '/_all?ignore_unavailable=true', '/c*']) {
        const res = await http(url, 'DELETE', path);
        expectEsError(res, 400, 'illegal_argument_exception');
      }
      expect((await http(url, 'HEAD', '/cities')).status).toBe(200);
    });
  });

  it('keep-alives above search.max_keep_alive are refused (PIT and scroll)', async () => {
    await underAbuse('keep_alive 25h', async () => {
      expectEsError(await http(url, 'POST', '/cities/_pit?keep_alive=25h'), 400, 'illegal_argument_exception');
      expectEsError(await http(url, 'POST', '/cities/_search?scroll=25h', { size: 1 }), 400, 'illegal_argument_exception');
    });
  });

  it('a 25-day refresh_interval does not refresh every millisecond, a 25-day timeout does not fail at once', async () => {
    const index = 'abuse-timers';
    await http(url, 'DELETE', `/${index}`);
    await underAbuse(
      'refresh_interval 25d, timeout 25d',
      async () => {
        await http(url, 'DELETE', `/${index}`); // a second run of the case starts from no index too
        const created = await http(url, 'PUT', `/${index}`, { settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '25d' } });
        expect(created.status).toBe(200);
        await http(url, 'PUT', `/${index}/_doc/1`, { a: 1 });
        await new Promise((r) => setTimeout(r, 500));
        // The doc was written without refresh: with a 25-day interval it must not be visible yet.
        const seen = await http(url, 'GET', `/${index}/_search`);
        expect(seen.body.hits.total.value).toBe(0);
        const timed = await http(url, 'GET', '/cities/_search?timeout=25d&size=1');
        expect([timed.status, timed.body.timed_out]).toEqual([200, false]);
      },
      { budgetMs: 3_000 },
    );
    await http(url, 'DELETE', `/${index}`);
  });

  it('absurd shard and replica counts are refused; _cat/shards stays small', async () => {
    await underAbuse('number_of_shards 1025, number_of_replicas 1e6', async () => {
      expectEsError(await http(url, 'PUT', '/abuse-shards', { settings: { number_of_shards: 1025 } }), 400);
      expectEsError(await http(url, 'PUT', '/abuse-replicas', { settings: { number_of_shards: 1, number_of_replicas: 1_000_000 } }), 400);
      expectEsError(await http(url, 'PUT', `/${SCRATCH}/_settings`, { index: { number_of_replicas: 1_000_000 } }), 400);
      expect((await http(url, 'HEAD', '/abuse-replicas')).status).toBe(404);
      const cat = await http(url, 'GET', '/_cat/shards?format=json');
      expect(cat.status).toBe(200);
      expect(cat.body.length).toBeLessThan(1_000);
    });
  });

  it('a body without a content type is refused with 406', async () => {
    await underAbuse('body without Content-Type', async () => {
      const res = await request(url + '/cities/_search', { method: 'POST', body: '{"size":1}' });
      const body = (await res.body.json()) as { status: number; error: unknown };
      expect([res.statusCode, body.status]).toEqual([406, 406]);
    });
  });

  it('invalid UTF-8 in a document is refused, not replaced', async () => {
    await underAbuse('invalid UTF-8 in _doc', async () => {
      const bytes = Buffer.concat([Buffer.from('{"s":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
      const res = await request(url + `/${SCRATCH}/_doc/utf8`, { method: 'PUT', body: bytes, headers: { 'content-type': 'application/json' } });
      const body = (await res.body.json()) as { status: number };
      expect([res.statusCode, body.status]).toEqual([400, 400]);
      expect((await http(url, 'GET', `/${SCRATCH}/_doc/utf8`)).status).toBe(404);
    });
  });

  it('field names that are Object.prototype members are mapped and searchable', async () => {
    await underAbuse('prototype field names', async () => {
      const mapping = await http(url, 'GET', `/${SCRATCH}/_mapping`);
      const props = mapping.body[SCRATCH].mappings.properties;
      for (const f of ['constructor', 'toString', 'valueOf', 'hasOwnProperty']) expect(Object.hasOwn(props, f), f).toBe(true);
      const hit = await http(url, 'POST', `/${SCRATCH}/_search`, { query: { term: { 'constructor.keyword': 'c' } } });
      expect(hit.body.hits.total.value).toBe(1);
      const strict = 'abuse-strict';
      await http(url, 'PUT', `/${strict}`, {
        settings: { number_of_shards: 1, number_of_replicas: 0 },
        mappings: { dynamic: 'strict', properties: { a: { type: 'keyword' } } },
      });
      const refused = await http(url, 'PUT', `/${strict}/_doc/1`, { constructor: 'x' });
      expectEsError(refused, 400, 'strict_dynamic_mapping_exception');
      await http(url, 'DELETE', `/${strict}`);
    });
  });

  it('bulk deletes of never-existing ids are answered and cost bounded memory', async () => {
    await underAbuse(
      '100,000 deletes of unknown ids',
      async () => {
        const lines: string[] = [];
        for (let i = 0; i < 100_000; i++) lines.push(JSON.stringify({ delete: { _id: `ghost-${i}-${Math.random().toString(36).slice(2)}` } }));
        const res = await http(url, 'POST', `/${SCRATCH}/_bulk`, lines.join('\n') + '\n', 'application/x-ndjson');
        expect(res.status).toBe(200);
        expect(res.body.items).toHaveLength(100_000);
      },
      {
        budgetMs: 30_000,
        rssBoundBytes: 128 * MiB,
      },
    );
  });

  it('slow headers are cut off', async () => {
    const { connect } = await import('node:net');
    const { hostname, port } = new URL(url);
    await underAbuse(
      'slow headers (1 byte per second)',
      async () => {
        const closedAfterMs = await new Promise<number>((resolve, reject) => {
          const t0 = performance.now();
          const socket = connect(Number(port), hostname, () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n'));
          const drip = setInterval(() => socket.write('X-Slow: 1\r\n'), 1_000);
          const giveUp = setTimeout(() => {
            clearInterval(drip);
            socket.destroy();
            reject(new Error('the server kept a slow-header connection open for 40 s'));
          }, 40_000);
          socket.on('close', () => {
            clearInterval(drip);
            clearTimeout(giveUp);
            resolve(performance.now() - t0);
          });
          socket.on('error', () => undefined);
        });
        expect(closedAfterMs).toBeLessThan(35_000);
      },
      {
        budgetMs: 40_000,
      },
    );
  });
});
