import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors, Pool } from 'undici';
import { requestBytes } from './request-bytes.ts';

describe('requestBytes', () => {
  let server: Server;
  let pool: Pool;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/slow') return; // never answers
        if (req.url === '/chunked') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"a":');
          setTimeout(() => res.end('1}'), 5);
          return;
        }
        res.writeHead(201, { 'content-type': 'text/plain' });
        res.end(`got ${Buffer.concat(chunks).toString()}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const addr = server.address();
    pool = new Pool(`http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, { maxResponseSize: 64 });
  });
  afterAll(async () => {
    await pool.destroy();
    server.closeAllConnections();
    server.close();
  });

  it('resolves the status, headers and whole body', async () => {
    const r = await requestBytes(pool, { path: '/', method: 'POST', body: Buffer.from('{}'), headers: { 'content-type': 'application/json' } });
    expect(r.statusCode).toBe(201);
    expect(r.headers['content-type']).toBe('text/plain');
    expect(Buffer.from(r.bytes).toString()).toBe('got {}');
  });

  it('joins a body that arrives in several chunks', async () => {
    const r = await requestBytes(pool, { path: '/chunked', method: 'GET' });
    expect(JSON.parse(Buffer.from(r.bytes).toString())).toEqual({ a: 1 });
  });

  it('rejects when the signal aborts before the reply, and at once when it already did', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    await expect(requestBytes(pool, { path: '/slow', method: 'POST', body: 'x', signal: ac.signal })).rejects.toThrow();
    await expect(requestBytes(pool, { path: '/', method: 'POST', body: 'x', signal: AbortSignal.abort() })).rejects.toThrow();
  });

  it("rejects with undici's own errors (headers timeout, reply over maxResponseSize)", async () => {
    await expect(requestBytes(pool, { path: '/slow', method: 'POST', body: 'x', headersTimeout: 50 })).rejects.toBeInstanceOf(errors.HeadersTimeoutError);
    await expect(requestBytes(pool, { path: '/', method: 'POST', body: 'y'.repeat(100) })).rejects.toBeInstanceOf(errors.ResponseExceededMaxSizeError);
  });
});
