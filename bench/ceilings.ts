/**
 * Ceiling 1: the bare fan-out of our design on this machine. `fanout` trivial node:http servers
 * (bench/trivial-server.ts), each in its own process on 127.0.0.1, and one undici `Pool` per
 * server in the bench process; one operation = one small JSON POST to every server in parallel,
 * every reply body read. Nothing a search does is cheaper, so Folio's figures are ratios to it.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool, type Dispatcher } from 'undici';
import { closedLoop } from './load-driver.ts';
import type { LoopResult } from './load-driver.ts';

const SERVER_SCRIPT = fileURLToPath(new URL('./trivial-server.ts', import.meta.url));
/** The small JSON body every fan-out call posts (a page-1 query request's shape). */
export const REQUEST_BODY = JSON.stringify({ index: 'bench', shard: 0, query: { kind: 'match_all', boost: 1 }, k: 10 });

/** Ceiling figures at 1 and at `clients` operations in flight. */
export interface FanOutCeiling {
  fanout: number;
  one: LoopResult;
  many: LoopResult;
}

/** Starts one trivial server process (`args`: bench/trivial-server.ts's, e.g. `--h2c`) and resolves its child and port once it prints `ready`. */
export function startServer(args: readonly string[] = []): Promise<TrivialServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER_SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    const timer = setTimeout(() => reject(new Error('trivial server did not start in 10 s')), 10_000);
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      const m = /ready (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]) });
      }
    });
    child.once('exit', (code) => reject(new Error(`trivial server exited (${code})`)));
  });
}

/** Sends SIGTERM, then SIGKILL after 2 s; resolves when the process has ended. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
  await exited;
  clearTimeout(timer);
}

/** A trivial server process and its port. */
export interface TrivialServer {
  child: ChildProcess;
  port: number;
}

/**
 * Starts `count` trivial servers (`args`: bench/trivial-server.ts's), runs `use` on them, and stops
 * every one of them before it resolves, also on failure (and kills them if this process exits first).
 */
export async function withTrivialServers<T>(count: number, args: readonly string[], use: (servers: TrivialServer[]) => Promise<T>): Promise<T> {
  const servers: TrivialServer[] = [];
  const killAll = () => {
    for (const s of servers) s.child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  try {
    for (let i = 0; i < count; i++) servers.push(await startServer(args));
    return await use(servers);
  } finally {
    await Promise.all(servers.map((s) => stopChild(s.child)));
    process.off('exit', killAll);
  }
}

/** One fan-out call: {@link REQUEST_BODY} posted through `dispatcher`, the reply read whole. @throws Error on a non-200 reply */
export async function postTrivial(dispatcher: Dispatcher): Promise<void> {
  const res = await dispatcher.request({ path: '/_internal/v1/query', method: 'POST', headers: { 'content-type': 'application/json' }, body: REQUEST_BODY });
  await res.body.arrayBuffer();
  if (res.statusCode !== 200) throw new Error(`trivial server replied ${res.statusCode}`);
}

/**
 * Measures the fan-out ceiling: `fanout` servers, 1 and `clients` fan-outs in flight, `durationMs` each.
 * Every server process is stopped before it resolves (also on failure).
 */
export function measureFanOutCeiling(fanout: number, clients: number, durationMs: number): Promise<FanOutCeiling> {
  return withTrivialServers(fanout, [], async (servers) => {
    const pools = servers.map((s) => new Pool(`http://127.0.0.1:${s.port}`, { connections: clients, keepAliveTimeout: 30_000 }));
    try {
      const op = async () => {
        await Promise.all(pools.map(postTrivial));
      };
      const one = await closedLoop(op, { clients: 1, durationMs });
      const many = await closedLoop(op, { clients, durationMs });
      return { fanout, one, many };
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });
}
