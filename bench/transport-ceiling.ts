/**
 * Which transport between coordinator and shard nodes costs least per call (issue 17): the fan-out
 * ceiling (bench/ceilings.ts) to `--fanout` trivial servers, over
 * - `h1`: HTTP/1.1, one undici `Pool` per server with up to `clients` keep-alive connections (Folio's transport);
 * - `h1-pipelined`: HTTP/1.1, one connection per server with up to `clients` requests pipelined on it;
 * - `h2c`: HTTP/2 without TLS (undici `H2CClient`, node:http2 servers), one connection per server, up to `clients` streams multiplexed on it;
 * - `h1-hono`: as `h1`, the servers a hono app on @hono/node-server (what the coordinator's public API runs on);
 * - `framed`: not HTTP, length-prefixed frames over one TCP connection per server (bench/framed-client.ts), the
 *   shape of ES's node-to-node transport: what leaving the stack's undici-over-HTTP rule would buy.
 *
 * Each variant runs at 1 and `--clients` operations in flight, the variants alternating per round.
 * Printed per run: operations per second, p50, and CPU per operation (µs) of the servers (/proc) and
 * of this process (the client side, `process.cpuUsage`).
 *
 * Usage: `node bench/transport-ceiling.ts [--fanout 2] [--clients 16] [--seconds 4] [--rounds 3] [--variants h1,h1-pipelined,h2c]`
 * @see https://undici.nodejs.org/#/docs/api/Client (pipelining, allowH2, useH2c)
 * @see https://nodejs.org/api/http2.html#http2createserveroptions-onrequesthandler
 */
import { parseArgs } from 'node:util';
import { H2CClient, Pool, type Dispatcher } from 'undici';
import { FramedClient } from './framed-client.ts';
import { postTrivial, REQUEST_BODY, withTrivialServers } from './ceilings.ts';
import { closedLoop } from './load-driver.ts';
import { cpuMs } from './process-cpu.ts';

/** One server's client: sends the request and reads the whole reply. */
interface Caller {
  call(): Promise<void>;
  close(): Promise<void>;
}

/** A transport variant: the servers' flag and the client of one server (its port, the operations in flight). */
interface Variant {
  name: string;
  serverArgs: string[];
  client: (port: number, clients: number) => Caller;
}

/** An undici dispatcher as a {@link Caller}: bench/ceilings.ts's call. */
function httpCaller(dispatcher: Dispatcher): Caller {
  return { call: () => postTrivial(dispatcher), close: () => dispatcher.close() };
}

const KEEP_ALIVE = { keepAliveTimeout: 30_000 };
const origin = (port: number) => `http://127.0.0.1:${port}`;
const VARIANTS: Variant[] = [
  { name: 'h1', serverArgs: [], client: (p, clients) => httpCaller(new Pool(origin(p), { ...KEEP_ALIVE, connections: clients })) },
  { name: 'h1-hono', serverArgs: ['--hono'], client: (p, clients) => httpCaller(new Pool(origin(p), { ...KEEP_ALIVE, connections: clients })) },
  { name: 'h1-pipelined', serverArgs: [], client: (p, clients) => httpCaller(new Pool(origin(p), { ...KEEP_ALIVE, connections: 1, pipelining: clients })) },
  {
    name: 'h2c',
    serverArgs: ['--h2c'],
    client: (p, clients) => httpCaller(new H2CClient(origin(p), { ...KEEP_ALIVE, pipelining: clients, maxConcurrentStreams: Math.max(clients, 100) })),
  },
  {
    name: 'framed',
    serverArgs: ['--framed'],
    client: (p) => {
      const framed = new FramedClient(p);
      const body = Buffer.from(REQUEST_BODY);
      return { call: async () => void (await framed.call(body)), close: () => framed.close() };
    },
  },
];

const { values } = parseArgs({
  options: {
    fanout: { type: 'string', default: '2' },
    clients: { type: 'string', default: '16' },
    variants: { type: 'string', default: VARIANTS.map((v) => v.name).join(',') },
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
  },
});
const fanout = Number(values.fanout);
const manyClients = Number(values.clients);
const durationMs = Number(values.seconds) * 1000;
const variants = values.variants.split(',').map((name) => VARIANTS.find((v) => v.name === name) ?? fail(`unknown variant [${name}]`));

/** Throws `message` (an expression, for `??`). */
function fail(message: string): never {
  throw new Error(message);
}

/** One run: `clients` fan-outs in flight for `durationMs` over `variant`; prints one line. */
function run(variant: Variant, clients: number): Promise<void> {
  return withTrivialServers(fanout, variant.serverArgs, async (servers) => {
    const callers = servers.map((s) => variant.client(s.port, clients));
    try {
      const op = async () => {
        await Promise.all(callers.map((c) => c.call()));
      };
      await closedLoop(op, { clients, durationMs: 500, warmupMs: 0 }); // connections and JIT warm
      const pids = servers.map((s) => s.child.pid ?? 0);
      const serverBefore = cpuMs(pids);
      const clientBefore = process.cpuUsage();
      const r = await closedLoop(op, { clients, durationMs, warmupMs: 0 });
      const client = process.cpuUsage(clientBefore);
      const serverUs = ((cpuMs(pids) - serverBefore) * 1000) / r.requests;
      const clientUs = (client.user + client.system) / r.requests;
      console.log(
        `${variant.name}\t${clients}c\t${Math.round(r.rps)} fan-outs/s\tp50 ${r.p50Ms.toFixed(3)} ms\tCPU/fan-out servers ${serverUs.toFixed(0)} µs + client ${clientUs.toFixed(0)} µs`,
      );
    } finally {
      await Promise.all(callers.map((c) => c.close()));
    }
  });
}

console.log(`# transport ceiling: ${fanout} trivial servers, ${durationMs / 1000} s per run`);
for (let round = 1; round <= Number(values.rounds); round++) {
  console.log(`# round ${round}`);
  for (const clients of [1, manyClients]) for (const v of variants) await run(v, clients);
}
