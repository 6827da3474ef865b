/**
 * A trivial shard stand-in for the fan-out ceiling: a node:http server on 127.0.0.1 that answers
 * every request with a tiny JSON body after reading the request body. Prints `ready <port>` once
 * listening. Run: `node bench/trivial-server.ts [--h2c]` (port from the OS); exits on SIGTERM.
 * `--h2c` serves HTTP/2 without TLS (node:http2, prior knowledge) instead of HTTP/1.1, `--framed`
 * length-prefixed frames over plain TCP ({@link serveFrames}), and `--hono` HTTP/1.1 through a hono
 * app on @hono/node-server's listener (the stack's public servers), for bench/transport-ceiling.ts.
 */
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { createServer as createHttp1Server, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createH2cServer } from 'node:http2';
import { createServer as createTcpServer, type Socket } from 'node:net';

const BODY = Buffer.from('{"index":"bench","shard":0,"node":"trivial","total":{"value":0,"relation":"eq"},"hits":[]}');

/** Reads the request body, then answers {@link BODY} (either protocol's request and response). */
function answer(req: { resume(): unknown; on(e: 'end', f: () => void): unknown }, reply: () => void): void {
  req.resume();
  req.on('end', reply);
}
const HEADERS = { 'content-type': 'application/json', 'content-length': BODY.length };

/**
 * The framed stand-in: each request is `[u32 length][u32 id][payload]` (big-endian, length counting
 * id and payload); each reply is the same frame with the request's id and {@link BODY}. The replies of
 * one read leave in one write (cork until the end of the tick), as a transport over one long-lived
 * connection per node would send them.
 */
function serveFrames(socket: Socket): void {
  let pending: Buffer = Buffer.alloc(0);
  socket.setNoDelay(true);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    socket.cork();
    while (pending.length >= 8 && pending.length >= 4 + pending.readUInt32BE(0)) {
      const reply = Buffer.allocUnsafe(8 + BODY.length);
      reply.writeUInt32BE(4 + BODY.length, 0);
      reply.writeUInt32BE(pending.readUInt32BE(4), 4);
      BODY.copy(reply, 8);
      socket.write(reply);
      pending = pending.subarray(4 + pending.readUInt32BE(0));
    }
    process.nextTick(() => socket.uncork());
  });
  socket.on('error', () => socket.destroy());
}

/** A hono app answering every POST with {@link BODY} after reading its body: the framework's own cost per request. */
function honoListener(): (req: IncomingMessage, res: ServerResponse) => void {
  const app = new Hono();
  app.post('*', async (c) => {
    await c.req.arrayBuffer();
    return c.body(BODY, 200, { 'content-type': 'application/json' });
  });
  const listener = getRequestListener(app.fetch);
  return (req, res) => void listener(req, res);
}

const server = process.argv.includes('--hono')
  ? createHttp1Server(honoListener())
  : process.argv.includes('--framed')
    ? createTcpServer(serveFrames)
    : process.argv.includes('--h2c')
      ? createH2cServer((req, res) => answer(req, () => res.writeHead(200, HEADERS).end(BODY)))
      : createHttp1Server((req, res) => answer(req, () => res.writeHead(200, HEADERS).end(BODY)));
if ('keepAliveTimeout' in server) server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`ready ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
setTimeout(() => process.exit(0), 30 * 60_000).unref();
