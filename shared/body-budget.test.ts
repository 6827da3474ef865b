import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installInFlightBudget, reservationOf } from './body-budget.ts';
import type { MemoryCircuitBreaker } from './circuit-breaker.ts';
import { toEsError } from '../protocol/errors.ts';
import { readRequestBody } from './request-body.ts';

/** An app whose `POST /` reads the body under the budget, then waits for `release` before answering. */
function budgetApp(limitBytes: number): { app: Hono; breaker: MemoryCircuitBreaker; gate: { open: () => void; wait: Promise<void> } } {
  const app = new Hono();
  const breaker = installInFlightBudget(app, limitBytes);
  let open = (): void => undefined;
  const gate = { open: () => open(), wait: new Promise<void>((r) => (open = r)) };
  app.onError((err, c) => c.json(toEsError(err).toBody(), toEsError(err).status as 400));
  app.post('/', async (c) => {
    const body = await readRequestBody(c, 1 << 20, () => new Error('too large'), reservationOf(c));
    await gate.wait;
    return c.json({ length: body.byteLength });
  });
  return { app, breaker, gate };
}

describe('in-flight body budget (in-process)', () => {
  it('refuses the bodies that do not fit while others are held, with ES 429, and releases everything after', async () => {
    const { app, breaker, gate } = budgetApp(10_000); // overhead 2: 5,000 body bytes
    const sends = Array.from({ length: 8 }, () =>
      Promise.resolve(app.request('/', { method: 'POST', body: 'x'.repeat(1_000), headers: { 'content-type': 'application/json' } })),
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(breaker.usedBytes).toBe(5_000);
    gate.open();
    const replies = await Promise.all(sends);
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    const refused = (await replies.find((r) => r.status === 429)!.json()) as { error: Record<string, unknown> };
    expect(refused.error).toMatchObject({ type: 'circuit_breaking_exception', bytes_wanted: 12_000, bytes_limit: 10_000, durability: 'TRANSIENT' });
    expect(refused.error.reason).toBe(
      '[in_flight_requests] Data too large, data for [<http_request>] would be [12000/11.7kb], which is larger than the limit of [10000/9.7kb]',
    );
    expect(breaker.usedBytes).toBe(0);
  });
});

describe('in-flight body budget (over a socket)', () => {
  let server: ReturnType<typeof serve>;
  let port: number;
  let breaker: MemoryCircuitBreaker;
  beforeAll(async () => {
    const built = budgetApp(1 << 22);
    built.gate.open();
    breaker = built.breaker;
    server = serve({ fetch: built.app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => server.once('listening', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => void server.close());

  /** Sends headers and `sent` bytes of a body, then drops the connection. */
  async function abortedUpload(headers: string, sent: number): Promise<void> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', r));
    socket.write(`POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${headers}\r\n`);
    socket.write('x'.repeat(sent));
    await new Promise((r) => setTimeout(r, 50));
    expect(breaker.usedBytes).toBeGreaterThan(0); // held while the body streams in
    socket.destroy();
  }

  async function drained(): Promise<number> {
    for (let i = 0; i < 50 && breaker.usedBytes > 0; i++) await new Promise((r) => setTimeout(r, 20));
    return breaker.usedBytes;
  }

  it('gives back a declared length when the client aborts mid-body', async () => {
    await abortedUpload('content-length: 1000000\r\n', 100_000);
    expect(await drained()).toBe(0);
  });

  it('gives back the streamed bytes of an aborted chunked body', async () => {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', r));
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
    socket.write(`${(50_000).toString(16)}\r\n${'x'.repeat(50_000)}\r\n`);
    await new Promise((r) => setTimeout(r, 50));
    expect(breaker.usedBytes).toBe(50_000);
    socket.destroy();
    expect(await drained()).toBe(0);
  });

  it('holds nothing after a completed request', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x'.repeat(70_000), headers: { 'content-type': 'application/json' } });
    expect(await res.json()).toEqual({ length: 70_000 });
    expect(breaker.usedBytes).toBe(0);
  });
});
