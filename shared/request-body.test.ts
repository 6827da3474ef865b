import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinChunks, readRequestBody, SLICED_JOIN_BYTES } from './request-body.ts';

const LIMIT = 1024;

/** Echoes the body length, or 413 over {@link LIMIT}. */
function echoApp(): Hono {
  const app = new Hono();
  app.onError((err, c) => c.json({ error: err.message }, 413));
  app.on(['GET', 'POST'], '/echo', async (c) => {
    const bytes = await readRequestBody(c, LIMIT, (got) => new Error(`too large: ${got}`));
    return c.json({ length: bytes.byteLength, text: Buffer.from(bytes).toString('utf8').slice(0, 8) });
  });
  return app;
}

describe('readRequestBody over a real socket (the Node request stream)', () => {
  let server: ServerType;
  let base: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => {
      server = serve({ fetch: echoApp().fetch, hostname: '127.0.0.1', port: 0 }, () => resolve());
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads a body at the limit, and a GET body', async () => {
    const atLimit = await request(`${base}/echo`, { method: 'POST', body: 'a'.repeat(LIMIT) });
    expect([atLimit.statusCode, await atLimit.body.json()]).toEqual([200, { length: LIMIT, text: 'aaaaaaaa' }]);
    const get = await request(`${base}/echo`, { method: 'GET', body: '{"q":1}' });
    expect(await get.body.json()).toEqual({ length: 7, text: '{"q":1}' });
    const none = await request(`${base}/echo`, { method: 'GET' });
    expect(await none.body.json()).toEqual({ length: 0, text: '' });
  });

  it('fails one byte over the limit, and stops reading a chunked body at the limit', async () => {
    const over = await request(`${base}/echo`, { method: 'POST', body: 'a'.repeat(LIMIT + 1) });
    expect([over.statusCode, await over.body.json()]).toEqual([413, { error: `too large: ${LIMIT + 1}` }]);
    function* chunks() {
      for (let i = 0; i < 8; i++) yield Buffer.alloc(1024, 98);
    }
    const chunked = await request(`${base}/echo`, { method: 'POST', body: Readable.from(chunks()) });
    const body = (await chunked.body.json()) as { error: string };
    expect(chunked.statusCode).toBe(413);
    expect(Number(body.error.split(': ')[1])).toBeLessThanOrEqual(2 * 1024);
  });
});

describe('readRequestBody in process (the Fetch body stream)', () => {
  it('reads at the limit and fails over it', async () => {
    const app = echoApp();
    const ok = await app.request('/echo', { method: 'POST', body: 'b'.repeat(LIMIT) });
    expect(await ok.json()).toEqual({ length: LIMIT, text: 'bbbbbbbb' });
    const over = await app.request('/echo', { method: 'POST', body: 'b'.repeat(LIMIT + 1) });
    expect(over.status).toBe(413);
  });
});

describe('joinChunks', () => {
  it('joins chunks of any sizes byte for byte, below and past the sliced size', async () => {
    for (const total of [10, SLICED_JOIN_BYTES - 1, SLICED_JOIN_BYTES * 3 + 17]) {
      const bytes = Buffer.alloc(total);
      for (let i = 0; i < total; i++) bytes[i] = (i * 31 + (i >> 9)) & 0xff;
      const chunks: Uint8Array[] = [];
      for (let at = 0, n = 1; at < total; at += n, n = (n * 7 + 3) % 400_000 || 1) chunks.push(bytes.subarray(at, Math.min(total, at + n)));
      const joined = await joinChunks(chunks, total);
      expect(joined.byteLength).toBe(total);
      expect(Buffer.compare(Buffer.from(joined), bytes)).toBe(0);
    }
  });

  it('yields to the event loop while it joins a large body', async () => {
    const chunks = Array.from({ length: 256 }, (_, i) => Buffer.alloc(64 * 1024, i));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be restored as it was; called with .call(performance)
    const slowNow = performance.now;
    // Every clock read moves 4 ms on, so the join passes its slice length every few pieces.
    let skew = 0;
    performance.now = () => slowNow.call(performance) + (skew += 4);
    try {
      const joined = await joinChunks(chunks, 256 * 64 * 1024);
      expect(joined[64 * 1024 * 255]).toBe(255);
    } finally {
      performance.now = slowNow;
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
  });
});
