// drainServer on a real loopback server: it stops accepting, lets an in-flight request finish, closes
// idle keep-alive connections, and cuts what is still open at the bound.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drainServer, EXIT_SLACK_MS, shutdownBoundMs } from './drain.ts';

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

/** A loopback server whose `/slow?ms=N` answers after N ms; resolves with its port. */
async function listen(): Promise<number> {
  server = createServer((req, res) => {
    const ms = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('ms') ?? 0);
    setTimeout(() => res.end('done'), ms);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return (server?.address() as AddressInfo).port;
}

/** GET with a keep-alive agent; resolves with the status and body, or rejects on a reset. */
function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { connection: 'keep-alive' } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('drainServer', () => {
  it('lets an in-flight request finish, refuses new connections, and resolves drained', async () => {
    const port = await listen();
    const inFlight = get(port, '/slow?ms=300');
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    const drained = drainServer(server as Server, 5_000);
    await expect(get(port, '/')).rejects.toThrow(/ECONNREFUSED/);
    expect(await inFlight).toEqual({ status: 200, body: 'done' });
    expect(await drained).toBe('drained');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('cuts a request still running at the bound and resolves timeout', async () => {
    const port = await listen();
    const inFlight = get(port, '/slow?ms=10000');
    inFlight.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    expect(await drainServer(server as Server, 200)).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(inFlight).rejects.toThrow();
  });

  it('bounds the whole shutdown by delay + drain + slack', () => {
    expect(shutdownBoundMs(5_000, 10_000)).toBe(15_000 + EXIT_SLACK_MS);
  });
});
