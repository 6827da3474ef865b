/**
 * Ceiling 1: the bare fan-out of our design on this machine. `fanout` trivial node:http servers
 * (bench/trivial-server.ts), each in its own process on 127.0.0.1, and one undici `Pool` per
 * server in the bench process; one operation = one small JSON POST to every server in parallel,
 * every reply body read. Nothing a search does is cheaper, so Folio's figures are ratios to it.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { closedLoop } from './load-driver.ts';
import type { LoopResult } from './load-driver.ts';

const SERVER_SCRIPT = fileURLToPath(new URL('./trivial-server.ts', import.meta.url));
const REQUEST_BODY = JSON.stringify({ index: 'bench', shard: 0, query: { kind: 'match_all', boost: 1 }, k: 10 });

/** Ceiling figures at 1 and at `clients` operations in flight. */
export interface FanOutCeiling {
  fanout: number;
  one: LoopResult;
  many: LoopResult;
}

/** Starts one trivial server process (`args`: bench/trivial-server.ts's, e.g. `--h2c`) and resolves its child and port once it prints `ready`. */
export function startServer(args: readonly string[] = []): Promise<{ child: ChildProcess; port: number }> {
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

/**
 * Measures the fan-out ceiling: `fanout` servers, 1 and `clients` fan-outs in flight, `durationMs` each.
 * Every server process is stopped before it resolves (also on failure).
 */
export async function measureFanOutCeiling(fanout: number, clients: number, durationMs: number): Promise<FanOutCeiling> {
  const servers: { child: ChildProcess; port: number }[] = [];
  const pools: Pool[] = [];
  const killAll = () => {
    for (const s of servers) s.child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  try {
    for (let i = 0; i < fanout; i++) servers.push(await startServer());
    for (const s of servers) pools.push(new Pool(`http://127.0.0.1:${s.port}`, { connections: clients, keepAliveTimeout: 30_000 }));
    const op = async () => {
      await Promise.all(
        pools.map(async (pool) => {
          const res = await pool.request({ path: '/_internal/v1/query', method: 'POST', headers: { 'content-type': 'application/json' }, body: REQUEST_BODY });
          await res.body.arrayBuffer();
          if (res.statusCode !== 200) throw new Error(`trivial server replied ${res.statusCode}`);
        }),
      );
    };
    const one = await closedLoop(op, { clients: 1, durationMs });
    const many = await closedLoop(op, { clients, durationMs });
    return { fanout, one, many };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
    await Promise.all(servers.map((s) => stopChild(s.child)));
    process.off('exit', killAll);
  }
}
