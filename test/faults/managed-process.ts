/**
 * One Folio service (a shard node or a coordinator) run as a child process that a nemesis can
 * SIGKILL, SIGSTOP/SIGCONT and start again on the same port, environment and data directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT } from '../../scripts/local-services.ts';

/** Output kept per process for failure messages (the tail). */
const MAX_LOG_CHARS = 256 * 1024;
/** Grace between SIGTERM and SIGKILL when stopping. */
const STOP_GRACE_MS = 3_000;

/** Every child still running, killed if the test process exits without stopping them. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of live) {
      c.kill('SIGCONT');
      c.kill('SIGKILL');
    }
  });
}

/** What to run: a name for messages, the script (relative to the repo root), its environment and its readiness URL. */
export interface ProcessSpec {
  name: string;
  script: string;
  env: Record<string, string>;
  /** Polled with GET until it answers 2xx. */
  readyUrl: string;
}

/** A service process under the nemesis's control. */
export interface ManagedProcess {
  readonly spec: ProcessSpec;
  /** True while a process runs (paused or not). */
  running(): boolean;
  /** True while it is stopped with SIGSTOP. */
  paused(): boolean;
  /** Starts it (when not running) and resolves once its readiness URL answers; rejects after `deadlineMs`. */
  start(deadlineMs?: number): Promise<void>;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
  /** SIGSTOP (a frozen process: connections stay open, nothing answers). */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** SIGTERM (SIGKILL after 3 s), and waits for the exit. */
  stop(): Promise<void>;
  /** The tail of everything it wrote, across restarts. */
  logs(): string;
}

/** Creates the handle; nothing runs until {@link ManagedProcess.start}. */
export function managedProcess(spec: ProcessSpec): ManagedProcess {
  let child: ChildProcess | undefined;
  let isPaused = false;
  let log = '';
  const append = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-MAX_LOG_CHARS);
  };
  const exitOf = (c: ChildProcess) =>
    c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => c.once('exit', () => resolve()));
  const signalAndWait = async (signal: NodeJS.Signals, graceMs: number) => {
    const c = child;
    if (!c) return;
    child = undefined;
    if (isPaused) c.kill('SIGCONT');
    isPaused = false;
    const exited = exitOf(c);
    c.kill(signal);
    const timer = setTimeout(() => c.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return {
    spec,
    running: () => child !== undefined,
    paused: () => isPaused,
    async start(deadlineMs = 30_000) {
      if (!child) {
        append(Buffer.from(`--- start ${new Date().toISOString()}\n`));
        const c = spawn(process.execPath, [spec.script], { cwd: REPO_ROOT, env: { ...process.env, ...spec.env }, stdio: ['ignore', 'pipe', 'pipe'] });
        c.stdout?.on('data', append);
        c.stderr?.on('data', append);
        // A spawn that fails (e.g. the node binary missing) ends the start below, not the test process.
        c.on('error', (err) => append(Buffer.from(`spawn failed: ${err.message}\n`)));
        track(c);
        child = c;
      }
      const deadline = performance.now() + deadlineMs;
      while (performance.now() < deadline) {
        const c = child;
        if (!c || c.exitCode !== null || c.pid === undefined) throw new Error(`${spec.name} exited (${c?.exitCode}) while starting:\n${log.slice(-4000)}`);
        const ok = await fetch(spec.readyUrl, { signal: AbortSignal.timeout(1_000) }).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${spec.name} not ready within ${deadlineMs} ms:\n${log.slice(-4000)}`);
    },
    kill: () => signalAndWait('SIGKILL', 0),
    pause() {
      if (!child || isPaused) return;
      child.kill('SIGSTOP');
      isPaused = true;
    },
    resume() {
      if (!child || !isPaused) return;
      child.kill('SIGCONT');
      isPaused = false;
    },
    stop: () => signalAndWait('SIGTERM', STOP_GRACE_MS),
    logs: () => log,
  };
}
