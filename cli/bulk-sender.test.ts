/**
 * The bulk sender against a scripted loopback server: 2 requests in flight at most, whole-request
 * retries on 429/503, item-level retries on 429 items (and 503 items when asked), and item failures
 * returned, not thrown.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { backoffMs, bulkBody, BulkSender } from './bulk-sender.ts';
import type { BatchResult } from './bulk-sender.ts';

type Handler = (lines: any[]) => { status: number; body: unknown; delayMs?: number };
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** A `_bulk` server answering with `handler`; counts requests and the peak concurrency. */
async function server(handler: Handler) {
  const stats = { requests: 0, inFlight: 0, peak: 0 };
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      stats.requests++;
      stats.peak = Math.max(stats.peak, ++stats.inFlight);
      const r = handler(
        body
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      );
      setTimeout(() => {
        stats.inFlight--;
        res.writeHead(r.status, { 'content-type': 'application/json' }).end(JSON.stringify(r.body));
      }, r.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const agent = new Agent();
  closers.push(async () => {
    await agent.close();
    await new Promise((r) => srv.close(r));
  });
  return { base: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, agent, stats };
}

const ok = (lines: any[]) => ({ errors: false, items: lines.filter((_, i) => i % 2 === 0).map((a) => ({ index: { _id: a.index._id, status: 201 } })) });
const noSleep = async () => {};

describe('BulkSender', () => {
  it('writes index action + source lines, omitting an absent _id', () => {
    expect(bulkBody('b', [{ _id: '1', source: { a: 1 } }, { source: { a: 2 } }])).toBe(
      '{"index":{"_index":"b","_id":"1"}}\n{"a":1}\n{"index":{"_index":"b"}}\n{"a":2}\n',
    );
  });

  it('keeps at most 2 requests in flight and acknowledges every batch', async () => {
    const s = await server((lines) => ({ status: 200, body: ok(lines), delayMs: 20 }));
    const sender = new BulkSender({ base: s.base, index: 'b', dispatcher: s.agent });
    const results: BatchResult[] = [];
    for (let b = 0; b < 6; b++) await sender.send([{ _id: `${b}`, source: {} }, { source: {} }], (r) => void results.push(r));
    await sender.drain();
    expect(s.stats).toMatchObject({ requests: 6, peak: 2 });
    expect(results.map((r) => r.ok)).toEqual([2, 2, 2, 2, 2, 2]);
  });

  it('retries 429 and 503 replies with backoff, then 429 items alone; returns other item failures', async () => {
    let n = 0;
    const seen: number[] = [];
    const s = await server((lines) => {
      n++;
      seen.push(lines.length / 2);
      if (n === 1) return { status: 429, body: { error: 'busy' } };
      if (n === 2) return { status: 503, body: { error: 'unavailable' } };
      if (n === 3) {
        return {
          status: 200,
          body: {
            errors: true,
            items: [
              { index: { _id: 'a', status: 201 } },
              { index: { _id: 'b', status: 429, error: { type: 'es_rejected_execution_exception' } } },
              { index: { _id: 'c', status: 400, error: { type: 'document_parsing_exception', reason: 'bad' } } },
            ],
          },
        };
      }
      return { status: 200, body: ok(lines) };
    });
    const retries: string[] = [];
    const sleeps: number[] = [];
    const sender = new BulkSender({
      base: s.base,
      index: 'b',
      dispatcher: s.agent,
      onRetry: (r) => retries.push(r),
      sleep: (ms) => (sleeps.push(ms), Promise.resolve()),
    });
    let result: BatchResult | undefined;
    await sender.send(
      ['a', 'b', 'c'].map((id) => ({ _id: id, source: { id } })),
      (r) => void (result = r),
    );
    await sender.drain();
    expect(seen).toEqual([3, 3, 3, 1]);
    expect(retries).toEqual(['HTTP 429', 'HTTP 503', '1 items rejected with 429']);
    expect(sleeps).toEqual([250, 500, 250]);
    expect(result).toEqual({ ok: 2, failures: [{ slot: 2, id: 'c', status: 400, error: { type: 'document_parsing_exception', reason: 'bad' } }] });
  });

  it('returns 503 items as failures by default, and sends them again when retryItemStatuses names 503', async () => {
    let n = 0;
    const s = await server((lines) => {
      n++;
      const items = lines
        .filter((_, i) => i % 2 === 0)
        .map((a, i) => ({
          index: { _id: a.index._id, ...(n === 1 && i === 0 ? { status: 503, error: { type: 'unavailable_shards_exception' } } : { status: 201 }) },
        }));
      return { status: 200, body: { errors: n === 1, items } };
    });
    const plain = new BulkSender({ base: s.base, index: 'b', dispatcher: s.agent, sleep: noSleep });
    let result: BatchResult | undefined;
    await plain.send(
      [
        { _id: 'x', source: {} },
        { _id: 'y', source: {} },
      ],
      (r) => void (result = r),
    );
    await plain.drain();
    expect(result).toMatchObject({ ok: 1, failures: [{ slot: 0, id: 'x', status: 503 }] });

    n = 0;
    const retries: string[] = [];
    const patient = new BulkSender({
      base: s.base,
      index: 'b',
      dispatcher: s.agent,
      sleep: noSleep,
      retryItemStatuses: [429, 503],
      onRetry: (r) => retries.push(r),
    });
    await patient.send(
      [
        { _id: 'x', source: {} },
        { _id: 'y', source: {} },
      ],
      (r) => void (result = r),
    );
    await patient.drain();
    expect(result).toEqual({ ok: 2, failures: [] });
    expect(retries).toEqual(['1 items rejected with 503']);
  });

  it('fails fatally on a non-retryable status and on exhausted retries', async () => {
    const bad = await server(() => ({ status: 400, body: { error: { type: 'illegal_argument_exception' } } }));
    const sender = new BulkSender({ base: bad.base, index: 'b', dispatcher: bad.agent, sleep: noSleep });
    await sender.send([{ source: {} }], () => {});
    await expect(sender.drain()).rejects.toThrow(/POST \/_bulk into \[b\] returned HTTP 400/);
    await expect(sender.send([{ source: {} }], () => {})).rejects.toThrow(/HTTP 400/);

    const busy = await server(() => ({ status: 429, body: {} }));
    const tired = new BulkSender({ base: busy.base, index: 'b', dispatcher: busy.agent, sleep: noSleep });
    await tired.send([{ source: {} }], () => {});
    await expect(tired.drain()).rejects.toThrow('POST /_bulk into [b] failed 8 times, last: HTTP 429');
    expect(busy.stats.requests).toBe(8);
    expect([1, 2, 3, 7, 8].map(backoffMs)).toEqual([250, 500, 1000, 10_000, 10_000]);
  });
});
