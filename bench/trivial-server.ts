/**
 * A trivial shard stand-in for the fan-out ceiling: a node:http server on 127.0.0.1 that answers
 * every request with a tiny JSON body after reading the request body. Prints `ready <port>` once
 * listening. Run: `node bench/trivial-server.ts` (port from the OS); exits on SIGTERM.
 */
import { createServer } from 'node:http';

const BODY = Buffer.from('{"index":"bench","shard":0,"node":"trivial","total":{"value":0,"relation":"eq"},"hits":[]}');

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': BODY.length });
    res.end(BODY);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`ready ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
setTimeout(() => process.exit(0), 30 * 60_000).unref();
