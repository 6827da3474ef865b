/**
 * Starts the served embedded state store (`node state-store/main.ts`) as a child process for
 * tests, on a free loopback port, and waits until its `/health` answers `{"health":"true"}`.
 * @example
 * const svc = await startStateStoreService(dir);
 * try { const store = new EtcdStore({ endpoints: [svc.url] }); … } finally { await svc.stop(); }
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { freePort, REPO_ROOT } from '../../scripts/local-services.ts';

/** How long the service may take to answer /health. */
const HEALTHY_DEADLINE_MS = 15_000;
/** Output kept for failure messages. */
const MAX_LOG_CHARS = 64 * 1024;

/** A running state store service. */
export interface StateStoreService {
  url: string;
  port: number;
  child: ChildProcess;
  /** The tail of its output. */
  logs(): string;
  /** Resolves with the exit code or signal when it ends. */
  exited: Promise<number | string>;
  /** Sends `signal` and waits for the exit (SIGKILL after 10 s). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

const live = new Set<ChildProcess>();
let hooked = false;

/**
 * Spawns the service on `dataDir` (and `port`, default a free one) and resolves once healthy.
 * Throws, with its output, when it exits first or is not healthy within 15 s.
 */
export async function startStateStoreService(dataDir: string, port?: number): Promise<StateStoreService> {
  const p = port ?? (await freePort());
  const child = spawn(process.execPath, ['state-store/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, FOLIO_HOST: '127.0.0.1', FOLIO_PORT: String(p), FOLIO_DATA: dataDir, FOLIO_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
  let log = '';
  const append = (c: Buffer) => (log = (log + c.toString('utf8')).slice(-MAX_LOG_CHARS));
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve(code ?? signal ?? 'unknown');
    }),
  );
  const url = `http://127.0.0.1:${p}`;
  const service: StateStoreService = {
    url,
    port: p,
    child,
    logs: () => log,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  const deadline = performance.now() + HEALTHY_DEADLINE_MS;
  let last: string;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the state store service exited (${child.exitCode ?? child.signalCode}):\n${log}`);
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
      last = await res.text();
      if (res.ok && JSON.parse(last).health === 'true') return service;
    } catch (err) {
      last = (err as Error).message;
    }
    if (performance.now() > deadline) {
      await service.stop('SIGKILL');
      throw new Error(`the state store service was not healthy within ${HEALTHY_DEADLINE_MS} ms (last: ${last}):\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
