/**
 * The sample loader against a scripted loopback cluster: items rejected with 429 or 503 are sent
 * again until indexed, `_refresh` and `_count` are repeated while a shard fails, and a load that
 * ends with fewer documents than it sent, or with an item that keeps failing, throws.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSample } from './load.ts';
import type { Sample } from './sample.ts';

/** What the fake cluster answers; `ids` are the documents it has indexed. */
interface Script {
  bulk: (ids: string[]) => { status: number; error?: unknown }[];
  refresh?: (attempt: number) => { status: number; failed: number };
  count?: (indexed: number) => number;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function cluster(script: Script) {
  const indexed = new Set<string>();
  const calls: string[] = [];
  let refreshes = 0;
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const path = `${req.method} ${req.url}`;
      calls.push(path);
      const reply = (status: number, json?: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(json === undefined ? '' : JSON.stringify(json));
      if (req.method === 'HEAD') return reply(404);
      if (req.method === 'PUT') return reply(200, { acknowledged: true });
      if (req.url === '/_bulk') {
        const lines = body
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        const ids = lines.filter((_, i) => i % 2 === 0).map((a) => a.index._id as string);
        const statuses = script.bulk(ids);
        ids.forEach((id, i) => statuses[i].status < 300 && indexed.add(id));
        return reply(200, { errors: statuses.some((s) => s.status >= 300), items: ids.map((id, i) => ({ index: { _id: id, ...statuses[i] } })) });
      }
      if (req.url?.endsWith('/_refresh')) {
        const r = script.refresh?.(++refreshes) ?? { status: 200, failed: 0 };
        return reply(r.status, { _shards: { total: 2, successful: 2 - r.failed, failed: r.failed } });
      }
      if (req.url?.endsWith('/_count'))
        return reply(200, { count: script.count?.(indexed.size) ?? indexed.size, _shards: { total: 2, successful: 2, failed: 0 } });
      reply(400, { error: 'unexpected ' + path });
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => srv.close(() => r())));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, calls, indexed };
}

/** A sample of `n` documents `d0`…`d{n-1}`. */
function sample(n: number): Sample {
  return {
    name: 'things',
    index: { settings: { number_of_shards: 2 }, mappings: { properties: {} } },
    count: () => n,
    *docs() {
      for (let i = 0; i < n; i++) yield { _id: `d${i}`, source: { i } };
    },
  };
}

const noSleep = async () => {};
const created = { status: 201 };

describe('loadSample', () => {
  it('sends items rejected with 503 and 429 again until every one is indexed, and repeats a _refresh that failed on a shard', async () => {
    // d0 and d5 are refused with 503 (primary not active) the first time they come, d1 and d6 with 429.
    const seen = new Set<string>();
    const firstTime = (id: string) => !seen.has(id) && seen.add(id) !== undefined;
    const c = await cluster({
      bulk: (ids) =>
        ids.map((id) => {
          if (!firstTime(id)) return created;
          if (id === 'd0' || id === 'd5') return { status: 503, error: { type: 'unavailable_shards_exception' } };
          if (id === 'd1' || id === 'd6') return { status: 429, error: { type: 'es_rejected_execution_exception' } };
          return created;
        }),
      refresh: (attempt) => (attempt === 1 ? { status: 200, failed: 1 } : { status: 200, failed: 0 }),
    });
    const result = await loadSample(c.url, sample(10), { batchDocs: 5, sleep: noSleep });
    expect(result).toEqual({ index: 'things', created: true, docs: 10 });
    expect(c.indexed.size).toBe(10);
    expect(c.calls.filter((p) => p === 'POST /_bulk')).toHaveLength(4); // 2 batches, each once more for its 2 rejected items
    expect(c.calls.filter((p) => p.endsWith('/_refresh'))).toHaveLength(2);
    expect(c.calls.at(-1)).toBe('GET /things/_count');
  });

  it('throws when an item keeps failing, or fails with a status that is not retried', async () => {
    const busy = await cluster({ bulk: (ids) => ids.map((id) => (id === 'd3' ? { status: 503, error: { type: 'unavailable_shards_exception' } } : created)) });
    await expect(loadSample(busy.url, sample(5), { sleep: noSleep })).rejects.toThrow(/bulk index of \[things\/d3\] failed with status 503/);
    const bad = await cluster({ bulk: (ids) => ids.map((_, i) => (i === 1 ? { status: 400, error: { type: 'document_parsing_exception' } } : created)) });
    await expect(loadSample(bad.url, sample(5), { sleep: noSleep })).rejects.toThrow(/bulk index of \[things\/d1\] failed with status 400/);
    expect(bad.calls.filter((p) => p === 'POST /_bulk')).toHaveLength(1);
  });

  it('throws when the index holds fewer documents than were acknowledged, or a shard keeps failing the refresh', async () => {
    const lossy = await cluster({ bulk: (ids) => ids.map(() => created), count: (n) => n - 2 });
    await expect(loadSample(lossy.url, sample(10), { sleep: noSleep })).rejects.toThrow(
      'loading [things]: 10 documents were acknowledged, but after _refresh the index holds 8',
    );
    const failing = await cluster({ bulk: (ids) => ids.map(() => created), refresh: () => ({ status: 503, failed: 2 }) });
    await expect(loadSample(failing.url, sample(3), { sleep: noSleep })).rejects.toThrow(/POST \/things\/_refresh failed on a shard 8 times, last: HTTP 503/);
  });
});
